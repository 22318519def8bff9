//! The leaderboard on a laptop, with no Docker and no AWS account (development only, never
//! deployed): Amazon DynamoDB Local, the table from `template.yaml`, the HTTP API with JWT
//! verification and the template's routes, the stream poller with event-source-mapping
//! semantics, and the season-close schedule. Every request, stream batch and scheduled run
//! goes to the same handler code the Lambda binaries run.
//!
//! # Layout
//! - [`stack`]: starts and stops the whole stack; its settings come from the environment.
//! - [`template`]: what the stack reads from `template.yaml` besides the table: routes, the
//!   stream mapping, the schedule.
//! - [`gateway`] and [`server`]: API Gateway's part: routing, JWT verification ([`jwt`]),
//!   CORS ([`cors`]), payload 2.0 events, the HTTP/1.1 server; [`unavailable`]: 503s on
//!   demand, to try a client's retries; [`console`]: the operator console's files.
//! - [`poller`] and [`filter`]: the event source mapping's part: stream reading, filter
//!   criteria, batches and retries.
//! - [`schedule`]: EventBridge Scheduler's part.
//! - [`demo`]: seeds a demo and prints what to try; [`client`]: the HTTP client it (and the
//!   end-to-end tests) drive the API with.
//! - [`cli`]: the run command's binary, `leaderboard-local`.
#![warn(missing_docs)]

pub mod cli;
pub mod client;
pub mod console;
pub mod cors;
pub mod demo;
pub mod filter;
pub mod gateway;
pub mod guests;
pub mod jwks;
pub mod jwt;
pub mod poller;
pub mod schedule;
pub mod server;
pub mod stack;
pub mod template;
pub mod unavailable;

pub use stack::{Settings, Stack};

/// A response of the gateway (here, below the gateway and the CORS rules that both make them).
pub type GatewayResponse = http::Response<hyper::body::Bytes>;

/// Resolves once `shutdown` holds `true` (or its sender is gone). The guard `wait_for` returns
/// is dropped here, so callers' futures stay `Send`.
pub(crate) async fn stopped(shutdown: &mut tokio::sync::watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|stop| *stop).await;
}

/// Everything that can stop the local stack from starting or the demo from running.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `template.yaml` lacks or misstates something the stack runs.
    #[error("template.yaml: {0}")]
    Template(String),
    /// A setting is wrong or a port is taken.
    #[error("{0}")]
    Config(String),
    /// DynamoDB Local or the table could not be set up.
    #[error(transparent)]
    Dev(#[from] leaderboard_devkit::DevError),
    /// The store refused its configuration.
    #[error(transparent)]
    Store(#[from] leaderboard_store::StoreError),
    /// An HTTP exchange with the local API failed.
    #[error("HTTP: {0}")]
    Http(String),
    /// An I/O error.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}
