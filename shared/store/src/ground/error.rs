//! The store's error type. Every failure a caller must tell apart is its own variant: a
//! validation failure, a missing or existing item, a closed board, a failed condition, a
//! cancelled transaction with its reasons, exhausted retries, a request this code could not
//! build; the SDK's own errors are kept whole for the logs.

use aws_sdk_dynamodb::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use leaderboard_keys::KeyError;
use leaderboard_keys::ids::{BoardId, PlayerId, SessionId};

/// Why one item of a cancelled transaction failed, in the order the items were sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CancelReason {
    /// This item did not cause the cancellation.
    None,
    /// Its condition expression was false.
    ConditionalCheckFailed,
    /// Another transaction or write touched the item at the same time.
    TransactionConflict,
    /// The item's partition was throttled.
    Throttled,
    /// Anything else, with DynamoDB's code.
    Other(String),
}

impl CancelReason {
    pub(crate) fn from_code(code: Option<&str>) -> CancelReason {
        match code {
            None | Some("None") => CancelReason::None,
            Some("ConditionalCheckFailed") => CancelReason::ConditionalCheckFailed,
            Some("TransactionConflict") => CancelReason::TransactionConflict,
            Some("ThrottlingError") | Some("ProvisionedThroughputExceeded") => {
                CancelReason::Throttled
            }
            Some(other) => CancelReason::Other(other.to_owned()),
        }
    }

    /// The reasons of a cancelled transaction.
    pub(crate) fn of(
        c: &aws_sdk_dynamodb::types::error::TransactionCanceledException,
    ) -> Vec<CancelReason> {
        c.cancellation_reasons()
            .iter()
            .map(|r| CancelReason::from_code(r.code()))
            .collect()
    }

    /// Whether a transaction cancelled for these reasons may succeed when re-read and retried:
    /// every reason is a failed condition (the state moved), a conflict or a throttle.
    pub(crate) fn all_retryable(reasons: &[CancelReason]) -> bool {
        reasons.iter().all(|r| {
            matches!(
                r,
                CancelReason::None
                    | CancelReason::ConditionalCheckFailed
                    | CancelReason::TransactionConflict
                    | CancelReason::Throttled
            )
        })
    }
}

/// A store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The request breaks a rule of the domain (the message says which); nothing was written.
    #[error("{0}")]
    Invalid(String),
    /// A key could not be built from the input (an identifier, a width, a time).
    #[error(transparent)]
    Key(#[from] KeyError),
    /// A score outside a board's range `minScore..=maxScore`.
    #[error("score {score} is outside {min_score}..={max_score} on leaderboard {board}")]
    ScoreOutOfRange {
        /// The board.
        board: BoardId,
        /// The score.
        score: u64,
        /// The board's minScore.
        min_score: u64,
        /// The board's maxScore.
        max_score: u64,
    },
    /// A tiebreak column's value above the column's `max`.
    #[error("subscore {column} {value} is above its max {max} on leaderboard {board}")]
    SubscoreOutOfRange {
        /// The board.
        board: BoardId,
        /// The column.
        column: String,
        /// The value given.
        value: u64,
        /// The column's max.
        max: u64,
    },
    /// The item does not exist.
    #[error("{what} {id} not found")]
    NotFound {
        /// What kind of item (`leaderboard`, `player`, ...).
        what: &'static str,
        /// Its id.
        id: String,
    },
    /// An item with this id exists already.
    #[error("{what} {id} already exists")]
    AlreadyExists {
        /// What kind of item.
        what: &'static str,
        /// Its id.
        id: String,
    },
    /// The player claimed this reward before; nothing was written.
    #[error("reward {reward} was claimed already")]
    AlreadyClaimed {
        /// The reward's id.
        reward: String,
    },
    /// The board is closing or closed, or the time is outside its `startsAt..endsAt`.
    #[error("leaderboard {board} is not accepting scores ({why})")]
    BoardClosed {
        /// The board.
        board: BoardId,
        /// Why: `closed`, `closing`, `not started`, `ended`.
        why: &'static str,
    },
    /// A board's tournament rules refuse the play or join; nothing was written.
    #[error("{}", refusal.message(board))]
    EntryRefused {
        /// The board.
        board: BoardId,
        /// Which rule.
        refusal: EntryRefusal,
    },
    /// The caller may not post to the board: a player to a board only game servers write, or a
    /// game server to one whose players post their own plays; nothing was written.
    #[error("{0}")]
    Forbidden(String),
    /// The player is banned: their plays are refused and write nothing.
    #[error("player {player} is banned")]
    Banned {
        /// The player.
        player: PlayerId,
    },
    /// The player was erased (or is being erased): their plays and profile writes are refused
    /// and write nothing.
    #[error("player {player} was erased")]
    Erased {
        /// The player.
        player: PlayerId,
    },
    /// The player has had as many plays accepted in the last 60 s as the rate limit allows;
    /// nothing was written.
    #[error(
        "player {player} has reached the limit of plays a minute; retry in {retry_after_secs} s"
    )]
    RateLimited {
        /// The player.
        player: PlayerId,
        /// Whole seconds until a play would fit.
        retry_after_secs: u64,
    },
    /// The caller's network has made as many guest accounts this hour as the limit allows;
    /// nothing was written.
    #[error("too many guest accounts from this network this hour; retry in {retry_after_secs} s")]
    GuestLimit {
        /// Whole seconds until the next hour, when the count starts again.
        retry_after_secs: u64,
    },
    /// A play repeated (by its `sessionId` or `Idempotency-Key`) with another score, other
    /// boards or other metadata than the play first recorded under it; nothing was written.
    #[error(
        "session {session} was recorded with another {what}; send a new sessionId or Idempotency-Key for a new play"
    )]
    IdempotencyMismatch {
        /// The session first recorded.
        session: SessionId,
        /// What differs (`score`, `leaderboardIds`, `metadata`, `gameId`, `durationSec`).
        what: &'static str,
    },
    /// A pagination cursor that was not issued by this service for this listing.
    #[error("the cursor is not valid for this listing")]
    BadCursor,
    /// A single-item write's condition expression was false.
    #[error("conditional check failed")]
    ConditionalCheckFailed,
    /// A transaction was cancelled; one reason per item, in the order sent.
    #[error("transaction cancelled: {reasons:?}")]
    TransactionCanceled {
        /// Per-item reasons.
        reasons: Vec<CancelReason>,
    },
    /// Concurrent writes kept conflicting after every bounded retry.
    #[error("too much contention: gave up after {attempts} attempts")]
    Contention {
        /// How many attempts were made.
        attempts: u32,
    },
    /// An item in the table does not have the shape this code wrote.
    #[error("corrupt item {key}: {reason}")]
    Corrupt {
        /// The item's key.
        key: String,
        /// What was wrong.
        reason: String,
    },
    /// A request could not be built (a required part missing, a value that does not
    /// serialise): a fault of this code, never of the caller's input.
    #[error("building DynamoDB request: {0}")]
    Request(String),
    /// Telling of a change (a new leader) failed: the work that follows it is not done, so
    /// that it is told again.
    #[error("announcing: {0}")]
    Announce(String),
    /// Configuration is missing or wrong (e.g. `TABLE_NAME`).
    #[error("configuration: {0}")]
    Config(String),
    /// Any other DynamoDB or SDK failure.
    #[error("DynamoDB {operation}: {message}")]
    Dynamo {
        /// The error code DynamoDB returned, if any.
        code: Option<String>,
        /// The operation or context.
        operation: &'static str,
        /// The full error chain.
        message: String,
    },
}

impl StoreError {
    /// Whether a single-item condition failed.
    pub fn is_conditional_check_failed(&self) -> bool {
        matches!(self, StoreError::ConditionalCheckFailed)
    }

    /// Whether the failure is the caller's (a 4xx): retrying the same request cannot succeed.
    pub fn is_client_error(&self) -> bool {
        matches!(
            self,
            StoreError::Invalid(_)
                | StoreError::Key(_)
                | StoreError::ScoreOutOfRange { .. }
                | StoreError::SubscoreOutOfRange { .. }
                | StoreError::NotFound { .. }
                | StoreError::AlreadyExists { .. }
                | StoreError::BoardClosed { .. }
                | StoreError::EntryRefused { .. }
                | StoreError::Banned { .. }
                | StoreError::Erased { .. }
                | StoreError::Forbidden(_)
                | StoreError::RateLimited { .. }
                | StoreError::GuestLimit { .. }
                | StoreError::BadCursor
        )
    }

    /// Whether the same call may succeed later (throttling, contention, service errors).
    pub fn is_retryable(&self) -> bool {
        match self {
            StoreError::Contention { .. } => true,
            StoreError::TransactionCanceled { reasons } => reasons.iter().any(|r| {
                matches!(
                    r,
                    CancelReason::TransactionConflict | CancelReason::Throttled
                )
            }),
            StoreError::Dynamo { code, .. } => !matches!(
                code.as_deref(),
                Some("ValidationException" | "ResourceNotFoundException" | "AccessDeniedException")
            ),
            _ => false,
        }
    }

    /// Whether a read-then-write that failed so may succeed when it re-reads and tries again:
    /// a transaction cancelled only for failed conditions (the state moved), conflicts or
    /// throttling, or any other failure that is retryable.
    pub(crate) fn worth_rereading(&self) -> bool {
        match self {
            StoreError::TransactionCanceled { reasons } => CancelReason::all_retryable(reasons),
            other => other.is_retryable(),
        }
    }

    pub(crate) fn corrupt(key: impl Into<String>, reason: impl ToString) -> StoreError {
        StoreError::Corrupt {
            key: key.into(),
            reason: reason.to_string(),
        }
    }

    /// Wraps an SDK error of `operation`, keeping DynamoDB's code and the full chain.
    pub(crate) fn sdk<E, R>(operation: &'static str, e: SdkError<E, R>) -> StoreError
    where
        E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
        R: std::fmt::Debug + Send + Sync + 'static,
    {
        let code = e.code().map(str::to_owned);
        if code.as_deref() == Some("ConditionalCheckFailedException") {
            return StoreError::ConditionalCheckFailed;
        }
        StoreError::Dynamo {
            code,
            operation,
            message: DisplayErrorContext(&e).to_string(),
        }
    }
}

impl From<aws_sdk_dynamodb::error::BuildError> for StoreError {
    fn from(e: aws_sdk_dynamodb::error::BuildError) -> Self {
        StoreError::Request(e.to_string())
    }
}

impl From<serde_dynamo::Error> for StoreError {
    fn from(e: serde_dynamo::Error) -> Self {
        StoreError::Corrupt {
            key: String::new(),
            reason: e.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_that_cannot_be_built_is_the_stores_fault() {
        // A Put without its item: the SDK's builder refuses it.
        let e: StoreError = aws_sdk_dynamodb::types::Put::builder()
            .table_name("t")
            .build()
            .unwrap_err()
            .into();
        assert!(matches!(e, StoreError::Request(_)), "{e:?}");
        assert!(!e.is_client_error());
        assert!(!e.is_retryable());
    }
}

/// Why a board's tournament rules refuse a play or a join.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryRefusal {
    /// The board takes plays only from players who joined (403 `not_joined`).
    NotJoined,
    /// The board has its `maxEntrants` (409 `board_full`).
    BoardFull(u64),
    /// The player made the board's `maxAttempts` (403 `attempts_exhausted`).
    AttemptsExhausted(u64),
}

impl EntryRefusal {
    /// The API's error code.
    pub fn code(self) -> &'static str {
        match self {
            EntryRefusal::NotJoined => "not_joined",
            EntryRefusal::BoardFull(_) => "board_full",
            EntryRefusal::AttemptsExhausted(_) => "attempts_exhausted",
        }
    }

    /// What the refusal says of `board`.
    pub fn message(self, board: &BoardId) -> String {
        match self {
            EntryRefusal::NotJoined => format!(
                "leaderboard {board} takes plays only from players who joined it: POST \
                 /leaderboards/{board}/join first"
            ),
            EntryRefusal::BoardFull(max) => {
                format!("leaderboard {board} is full: it takes {max} entrants")
            }
            EntryRefusal::AttemptsExhausted(max) => {
                format!("you have made all {max} attempts leaderboard {board} allows")
            }
        }
    }
}
