//! Tournament rules on a board (contract section 12): `joinRequired` (a player's plays count
//! only after they joined), `maxEntrants` (the most distinct players it takes) and
//! `maxAttempts` (the most accepted plays a player may make on it); the entrant item that
//! records a player's place and attempts, and the refusals a join or a play meets.

use leaderboard_keys::ids::BoardId;
use leaderboard_keys::time::Timestamp;
use serde::{Deserialize, Serialize};

pub use crate::ground::error::EntryRefusal;
use crate::ground::new_board::NewBoard;

/// The largest `maxEntrants`.
pub const MAX_MAX_ENTRANTS: u64 = 10_000_000;
/// The largest `maxAttempts`.
pub const MAX_MAX_ATTEMPTS: u64 = 1_000_000;

/// Checks a new board's tournament rules: limits of at least 1 and at most their largest, and
/// none on a league (its plays count on cohorts, which are its entrants' places).
pub fn check_entry_rules(new: &NewBoard) -> Result<(), String> {
    for (field, value, max) in [
        ("maxEntrants", new.max_entrants, MAX_MAX_ENTRANTS),
        ("maxAttempts", new.max_attempts, MAX_MAX_ATTEMPTS),
    ] {
        if value.is_some_and(|v| !(1..=max).contains(&v)) {
            return Err(format!("{field} must be 1 to {max}"));
        }
    }
    let ruled = new.join_required || new.max_entrants.is_some() || new.max_attempts.is_some();
    if ruled && new.league.is_some() {
        return Err(
            "a league takes no joinRequired, maxEntrants or maxAttempts: its cohorts place \
             its players"
                .into(),
        );
    }
    Ok(())
}

/// A player's entrant item on a board: whether and when they joined, when their first play
/// counted, and how many of their plays it accepted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entrant {
    /// The board.
    #[serde(rename = "leaderboardId")]
    pub board_id: BoardId,
    /// When they joined (`POST /leaderboards/{b}/join`), if they did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joined_at: Option<Timestamp>,
    /// When their first accepted play on the board counted, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entered_at: Option<Timestamp>,
    /// Their accepted plays on the board.
    #[serde(default)]
    pub attempts: u64,
}
