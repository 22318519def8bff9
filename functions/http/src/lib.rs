//! What the leaderboard's HTTP functions share: their state ([`App`]) and the one way a request
//! is answered ([`answer`]), the contract's error body, the caller's identity from the claims
//! API Gateway's JWT authorizer verified, JSON bodies and query parameters. Handlers translate an API Gateway HTTP API (payload 2.0) request into a store
//! call and the result into a response; this crate holds the translation both of them need.
//!
//! Every error leaves as `{"error": {"code": "<snake_case>", "message": "<sentence>"}}`.
#![warn(missing_docs)]

mod app;
pub mod budget;
mod error;
pub mod guests;
mod identity;
mod request;
mod router;
#[cfg(test)]
mod tests;

pub use app::{App, Report, answer};
pub use error::{ApiError, ERROR_CODES, json, no_content, respond};
pub use identity::{Identity, admin, claims, identity, parse_groups};
pub use request::{int_param, json_body, json_body_or_default, path, query_param, segments};
pub use router::{PathParams, Router};

/// The largest request body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 16 * 1024;

/// The group that admin routes require in `cognito:groups`.
pub const ADMIN_GROUP: &str = "admin";

/// The group of game servers in `cognito:groups`: the only writers of a board whose `writers`
/// are `servers`, naming the player of each play.
pub const SERVER_GROUP: &str = "server";
