//! The ground floor: what every other floor stands on and that stands on nothing of the
//! crate's. Errors, configuration, the TLS client, the stored entities and their mapping to
//! items, and the pure rules of names, metadata and rank freshness. No module here sends a
//! request to the table; `secrets` reads a function's secrets from Secrets Manager once, at
//! start, before there is a store.

pub mod board;
pub mod config;
pub mod error;
pub mod freshness;
pub(crate) mod items;
pub mod league;
pub mod metadata;
pub mod model;
pub mod names;
pub mod new_board;
pub mod recurrence;
pub mod rewards;
pub mod rollover;
pub mod secrets;
pub(crate) mod session_id;
pub mod successor;
pub mod tls;
pub mod tournament;
pub mod widening;
