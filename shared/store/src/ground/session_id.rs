//! A play's session id: a ULID, so that a player's sessions sort by time.

use leaderboard_keys::ids::SessionId;
use leaderboard_keys::time::Timestamp;
use rand::Rng;

use crate::ground::error::StoreError;

/// A fresh ULID session id for a play at `now`.
pub fn new_session_id(now: Timestamp) -> Result<SessionId, StoreError> {
    SessionId::from_parts(now.as_millis(), rand::rng().random())
        .map_err(|e| StoreError::Key(e.into()))
}
