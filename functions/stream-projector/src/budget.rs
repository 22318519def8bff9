//! A batch's time budget: the invocation's deadline less a margin, so that the handler answers
//! (with the batch failed whole, if it ran out) before Lambda stops the function.

use std::time::Duration;

use leaderboard_keys::time::time_left;

/// How long before the invocation's deadline a batch stops and fails whole: room to answer
/// before Lambda stops the function (which would fail the batch without a word, and count as
/// a function error).
pub const DEADLINE_MARGIN: Duration = Duration::from_secs(2);

/// A batch's time without a Lambda deadline (the local stack): the template's timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a batch may work: until the invocation's deadline (epoch milliseconds; 0 when
/// there is none, as in the local stack) less [`DEADLINE_MARGIN`], or [`DEFAULT_TIMEOUT`] less
/// the margin without a deadline.
pub fn budget(deadline_ms: u64) -> Duration {
    time_left(deadline_ms)
        .unwrap_or(DEFAULT_TIMEOUT)
        .saturating_sub(DEADLINE_MARGIN)
}
