//! The per-player rate limit of plays: at most `plays_per_minute` accepted plays of one player
//! in any 60 s, across every instance of every function that records plays.
//!
//! The times of the player's recent accepted plays live in one item of the player's
//! (`PLAYER#<p>` / `#PLAYRATE`, a sliding-window log of at most `limit` times). The play reads it
//! in the `BatchGetItem` it makes anyway, decides, and writes it back in its own transaction on
//! condition that its version is the one read: one item more in each, no request more. Two plays
//! of one player that race on it serialise like two plays on one board (the loser is re-read and
//! retried), so no instance can accept a play past the limit. A refused play writes nothing, and
//! a repeat (same `sessionId` or `Idempotency-Key`) is answered before the limit is looked at, so
//! it never counts. The item expires (`ttl`) a few minutes after the last play, when it no
//! longer holds anything the limit reads.

use aws_sdk_dynamodb::types::TransactWriteItem;
use leaderboard_keys::entity;
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::time::Timestamp;

use crate::features::plays::Plays;
use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt};
use crate::table::request::Params;

/// The window the limit counts plays in.
pub const WINDOW_MS: u64 = 60_000;

/// How long after a play its rate item is kept: past the window, with room for clock skew.
const KEEP_SECS: u64 = 300;

/// The player's recent accepted plays, as read with the play.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PlayRate {
    /// When they were accepted (epoch ms), oldest first.
    times: Vec<u64>,
    /// The item's version; `None`: no item.
    version: Option<u64>,
}

impl PlayRate {
    /// The rate item as read (`None`: the player has none).
    pub(crate) fn from_item(item: Option<&Item>) -> PlayRate {
        let Some(item) = item else {
            return PlayRate::default();
        };
        let mut times: Vec<u64> = item
            .get("times")
            .and_then(|t| t.as_l().ok())
            .map(|list| {
                list.iter()
                    .filter_map(|v| v.as_n().ok()?.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        times.sort_unstable();
        PlayRate {
            times,
            version: Some(item.number::<u64>("version").unwrap_or(0)),
        }
    }

    /// Whether a play at `now_ms` fits under `limit`: the log after it (the plays within the
    /// window, this one last), or how many milliseconds until it would fit.
    pub(crate) fn admit(&self, limit: u32, now_ms: u64) -> Result<Vec<u64>, u64> {
        let limit = limit as usize;
        let mut recent: Vec<u64> = self
            .times
            .iter()
            .copied()
            .filter(|t| t.saturating_add(WINDOW_MS) > now_ms)
            .collect();
        if recent.len() >= limit {
            // The play fits once all but `limit - 1` of the recent plays have left the window.
            let freeing = recent[recent.len() - limit];
            return Err(freeing
                .saturating_add(WINDOW_MS)
                .saturating_sub(now_ms)
                .max(1));
        }
        recent.push(now_ms);
        Ok(recent)
    }
}

/// A play refused by the rate limit, with the whole seconds until it would fit.
pub(crate) fn rate_limited(player: &PlayerId, wait_ms: u64) -> StoreError {
    StoreError::RateLimited {
        player: player.clone(),
        retry_after_secs: wait_ms.div_ceil(1000).max(1),
    }
}

impl Plays<'_> {
    /// The transaction's write of `player`'s rate item: `times` as the log, on condition that
    /// the item is still as `read`.
    pub(crate) fn tx_play_rate(
        self,
        player: &PlayerId,
        read: &PlayRate,
        times: &[u64],
        now: Timestamp,
    ) -> Result<TransactWriteItem, StoreError> {
        let (condition, params) = match read.version {
            None => ("attribute_not_exists(pk)", Params::new()),
            Some(v) => ("version = :v", Params::new().value(":v", v)),
        };
        let params = params
            .name("#ttl", "ttl")
            .value(":times", times)
            .value(":next", read.version.map_or(1, |v| v + 1))
            .value(":ttl", now.as_millis() / 1000 + KEEP_SECS);
        self.store.table.tx_update_if(
            &entity::play_rate(player),
            "SET times = :times, version = :next, #ttl = :ttl",
            condition,
            params,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(times: &[u64]) -> PlayRate {
        PlayRate {
            times: times.to_vec(),
            version: Some(1),
        }
    }

    #[test]
    fn a_play_fits_while_fewer_than_the_limit_are_in_the_window() {
        assert_eq!(PlayRate::default().admit(2, 100_000), Ok(vec![100_000]));
        assert_eq!(log(&[50_000]).admit(2, 100_000), Ok(vec![50_000, 100_000]));
        // A play exactly a window ago has left it.
        assert_eq!(
            log(&[40_000, 50_000]).admit(2, 100_000),
            Ok(vec![50_000, 100_000])
        );
    }

    #[test]
    fn a_full_window_says_when_the_oldest_play_that_counts_leaves_it() {
        assert_eq!(log(&[40_001, 50_000]).admit(2, 100_000), Err(1));
        assert_eq!(log(&[45_000, 50_000, 99_000]).admit(3, 100_000), Err(5_000));
        // A limit lowered below the log: the play waits for enough of it to leave.
        assert_eq!(
            log(&[45_000, 50_000, 99_000]).admit(1, 100_000),
            Err(59_000)
        );
        assert_eq!(
            rate_limited(&PlayerId::parse("p").unwrap(), 5_000).to_string(),
            rate_limited(&PlayerId::parse("p").unwrap(), 4_001).to_string()
        );
    }
}
