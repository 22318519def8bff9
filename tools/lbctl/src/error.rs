//! What can go wrong in a command, and the exit code each failure leaves for scripts.
//!
//! | code | means |
//! | --- | --- |
//! | 0 | done |
//! | 1 | the table could not be read (DynamoDB, credentials, network), or the output not written |
//! | 2 | the command line or an argument is wrong (clap's own usage errors are 2 as well) |
//! | 3 | what was asked for does not exist: no such board, no entry of that player |
//! | 4 | `verify` found problems (each reported with its keys) |
//! | 141 | the output was closed before the end (piped into `head`), as a process killed by SIGPIPE |

use leaderboard_store::StoreError;

/// A command's failure.
#[derive(Debug)]
pub enum CtlError {
    /// An argument that is not valid: a key not of the layout, an id, a range.
    Usage(String),
    /// The board, player or entry asked for does not exist.
    NotFound(String),
    /// The table could not be read or the output could not be written.
    Failed(String),
    /// A check found this many problems (reported on the output).
    Problems(usize),
    /// The reader of the output went away (a pipe into `head`): not worth a message.
    OutputClosed,
}

impl CtlError {
    /// The process's exit code for this failure (see the module's table).
    pub fn exit_code(&self) -> i32 {
        match self {
            CtlError::Failed(_) => 1,
            CtlError::Usage(_) => 2,
            CtlError::NotFound(_) => 3,
            CtlError::Problems(_) => 4,
            CtlError::OutputClosed => 141,
        }
    }
}

impl std::fmt::Display for CtlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CtlError::Usage(m) | CtlError::NotFound(m) | CtlError::Failed(m) => f.write_str(m),
            CtlError::OutputClosed => f.write_str("the output was closed"),
            CtlError::Problems(1) => f.write_str("1 problem left"),
            CtlError::Problems(n) => write!(f, "{n} problems left"),
        }
    }
}

impl std::error::Error for CtlError {}

impl From<StoreError> for CtlError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Invalid(m) => CtlError::Usage(m),
            StoreError::NotFound { .. } => CtlError::NotFound(e.to_string()),
            other => CtlError::Failed(other.to_string()),
        }
    }
}

impl From<leaderboard_keys::KeyError> for CtlError {
    fn from(e: leaderboard_keys::KeyError) -> Self {
        CtlError::Usage(e.to_string())
    }
}

impl From<leaderboard_keys::ids::IdError> for CtlError {
    fn from(e: leaderboard_keys::ids::IdError) -> Self {
        CtlError::Usage(e.to_string())
    }
}

impl From<std::io::Error> for CtlError {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return CtlError::OutputClosed;
        }
        CtlError::Failed(format!("cannot write the output: {e}"))
    }
}

/// The result of a command.
pub type CtlResult<T = ()> = Result<T, CtlError>;
