//! The one error type of the key schema: every way a key can fail to be built or parsed.

use crate::ids::IdError;

/// A key could not be built or parsed. Each variant says which rule was broken; none of them
/// ever results in a silently wrong key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The value needs more digits than the fixed width allows (seed 000: the width is a
    /// one-way door, so an 11-digit value in a 10-digit column would sort before every other).
    #[error("{value} does not fit in {width} digits (the largest is {max})")]
    Overflow {
        /// The value that did not fit.
        value: u64,
        /// The fixed width in digits.
        width: u8,
        /// The largest value the width holds.
        max: u64,
    },
    /// A negative number cannot be zero-padded into an order-preserving decimal key.
    #[error("negative value {0} cannot be zero-padded")]
    Negative(i64),
    /// A width outside `1..=19` digits (the widest a `u64` always fills).
    #[error("width {0} is outside 1..=19 digits")]
    InvalidWidth(u8),
    /// A score above the board's `maxScore`.
    #[error("score {score} is above the board's maxScore {max_score}")]
    ScoreOutOfRange {
        /// The submitted score.
        score: u64,
        /// The board's maxScore.
        max_score: u64,
    },
    /// Subscores that do not match the board's tiebreak columns one for one.
    #[error("{given} subscores given for a board of {columns} tiebreak columns")]
    Subscores {
        /// How many were given.
        given: usize,
        /// How many columns the board has.
        columns: usize,
    },
    /// A time that the 13-digit millisecond tiebreaker (or the timestamp type) cannot hold.
    #[error("time {0} ms is outside the representable range")]
    TimeOutOfRange(u64),
    /// A timestamp that is not RFC 3339.
    #[error("{field} must be an RFC 3339 timestamp, got {value:?}")]
    BadTimestamp {
        /// The field that held it.
        field: &'static str,
        /// What was given.
        value: String,
    },
    /// A rank outside `1..=9999999999` (the Final standing sort key pads it to 10 digits).
    #[error("rank {0} is outside 1..=9999999999")]
    RankOutOfRange(u64),
    /// An identifier broke a rule; the error names the field.
    #[error(transparent)]
    Id(#[from] IdError),
    /// A stored key that does not have the shape of the contract's layout.
    #[error("malformed key {key:?}: {reason}")]
    Malformed {
        /// The key that was read.
        key: String,
        /// What was wrong with it.
        reason: &'static str,
    },
}

impl KeyError {
    pub(crate) fn malformed(key: &str, reason: &'static str) -> Self {
        KeyError::Malformed {
            key: key.to_owned(),
            reason,
        }
    }
}
