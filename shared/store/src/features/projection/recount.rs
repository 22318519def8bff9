//! Recounting a player's totals from their Session items: the recovery for sessions the stream
//! never brought to the projection (a dead-letter queue's records, an outage longer than the
//! stream's 24 h retention), and for totals counted twice by hand.
//!
//! **What is counted.** A recount started at `now` counts every session of the player attained
//! before `before = now - PLAY_SETTLE`, read from the table (AP6, consistent, a page at a time),
//! and writes those totals with `recountBefore = before`. A play commits within its function's
//! time limit of the time it is attained at, and [`PLAY_SETTLE`] is more than any such limit, so
//! by `now` every session attained before `before` is in the table, and stays (only an erasure
//! deletes sessions, and a recount of an erased player writes nothing). From then on the
//! projection counts only sessions attained at or after `before` (see the projection's doc), so
//! none the recount counted is counted again, whenever the stream brings it.
//!
//! **When it may write.** The recount replaces the totals; it must not drop a session the
//! projection counted that is not among its own, one attained at or after `before`. It writes
//! only if every session counted so far was attained before `before - PLAY_SETTLE`
//! (`lastPlayedAt`, the newest counted, says so), on condition that the Player item is still
//! as read. Then the stream has counted no session attained at or after `before`: the stream
//! brings a player's sessions in commit order, and a session committed after one attained at or
//! after `before` was attained at or after `before - PLAY_SETTLE`. So those sessions are all
//! still to come, above the watermark (`projectedSeq`, which the recount leaves as it is), and
//! each counts once when it comes. A player who played in the last `2 × PLAY_SETTLE` is
//! [`RecountOutcome::Busy`] until then.
//!
//! **Cost.** `ceil(size of the player's sessions / 1 MB)` Query pages, at most [`RecountPages`]'s a
//! call (the progress is handed back to go on with); then 1 consistent read of the Player item,
//! 1 of the erasure marker, and 1 conditional UpdateItem (read and written again if the
//! projection wrote meanwhile, at most [`Retry::PROJECTION`]'s attempts).

use std::time::Duration;

use leaderboard_keys::entity::{self, SESSION_PREFIX};
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::time::Timestamp;
use serde::{Deserialize, Serialize};

use super::{RECOUNT_BEFORE, Seen};
use crate::features::projection::Projection;
use crate::ground::error::StoreError;
use crate::ground::items::{ItemExt, key_item, n};
use crate::ground::model::LIFETIME_SCORE_CEILING;
use crate::table::request::{Index, Params, WithParams};
use crate::table::retry::Retry;

/// Longer than any play takes from the time it is attained at to its commit: the functions
/// that record plays stop within their 10 s time limit (the local stack within the same
/// budget), with room for the clocks of two machines.
pub const PLAY_SETTLE: Duration = Duration::from_secs(120);

/// A player's recount so far: what a paused recount hands back, to go on with (also kept in the
/// recount run's checkpoint).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Recount {
    /// The player.
    pub player: PlayerId,
    /// Sessions attained before this are counted.
    pub before: Timestamp,
    /// The [`PLAY_SETTLE`] it counts with, in milliseconds.
    pub settle_ms: u64,
    /// Their scores' sum so far, in decimal (it may pass `u64`).
    pub score: String,
    /// Their number so far.
    pub sessions: u64,
    /// The newest of them so far.
    pub newest: Option<Timestamp>,
    /// The sort key of the last session read; `None` before the first page.
    pub after: Option<String>,
}

impl Recount {
    /// A recount of `player` started at `now`.
    pub fn start(player: PlayerId, now: Timestamp) -> Recount {
        Recount::settling(player, now, PLAY_SETTLE)
    }

    /// The same, with a `settle` other than [`PLAY_SETTLE`]: for tests that cannot wait
    /// minutes for a player to settle (shorter than the plays' time limit, it is not exact).
    pub fn settling(player: PlayerId, now: Timestamp, settle: Duration) -> Recount {
        let settle_ms = settle.as_millis() as u64;
        let before = now.as_millis().saturating_sub(settle_ms);
        Recount {
            player,
            before: Timestamp::from_millis(before).unwrap_or(now),
            settle_ms,
            score: "0".to_owned(),
            sessions: 0,
            newest: None,
            after: None,
        }
    }

    fn sum(&self) -> u128 {
        self.score.parse().unwrap_or(0)
    }
}

/// How much of a player's sessions one [`Projection::recount_player`] call reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecountPages {
    /// Query pages read at most (each up to 1 MB, 128 read units).
    pub max: u32,
    /// Sessions a page holds at most, if fewer than 1 MB of them.
    pub items: Option<u32>,
}

impl Default for RecountPages {
    fn default() -> RecountPages {
        RecountPages {
            max: 10,
            items: None,
        }
    }
}

/// What [`Projection::recount_player`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecountOutcome {
    /// The totals are written: the player's `lifetimeScore` (saturated at the ceiling) and
    /// `gamesPlayed` of the sessions attained before `before`.
    Done {
        /// The lifetime score written.
        lifetime_score: u64,
        /// The games played written.
        games_played: u64,
    },
    /// The pages ran out: go on with this.
    Paused(Recount),
    /// The player played too recently for an exact recount: start one again at this time.
    Busy(Timestamp),
    /// The player is erased: nothing to count, nothing written.
    Erased,
}

/// What [`Projection::check_totals`] found: a player's stored totals against their sessions'.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TotalsCheck {
    /// The stored totals are the sessions'.
    Agree {
        /// The lifetime score, stored and counted.
        lifetime_score: u64,
        /// The games played, stored and counted.
        games_played: u64,
    },
    /// They differ: a recount writes the counted ones.
    Off {
        /// The stored `lifetimeScore` and `gamesPlayed` (0 where there are none).
        stored: (u64, u64),
        /// The sessions' sum and number (the sum saturated at the ceiling).
        counted: (u64, u64),
    },
    /// The player played too recently for an exact comparison: check again after this.
    Busy(Timestamp),
    /// The player is erased.
    Erased,
}

impl Projection<'_> {
    /// Compares `player`'s stored totals with their sessions', writing nothing: the sessions
    /// attained before `now - PLAY_SETTLE`, counted as [`Projection::recount_player`] counts them
    /// (every page of them, one at a time). A player whose newest counted or projected session
    /// is too recent for the stream to have surely brought it is `Busy`, as a recount is.
    pub async fn check_totals(
        self,
        player: &PlayerId,
        now: Timestamp,
    ) -> Result<TotalsCheck, StoreError> {
        let mut progress = Recount::start(player.clone(), now);
        while self.count_sessions_page(&mut progress, None).await? {}
        if self
            .store
            .table
            .get_raw(&self.store.erasure_marker(player))
            .await?
            .is_some()
        {
            return Ok(TotalsCheck::Erased);
        }
        let item = self
            .store
            .table
            .get_raw(&entity::player(player))
            .await?
            .unwrap_or_default();
        let settled = progress
            .before
            .as_millis()
            .saturating_sub(progress.settle_ms);
        let projected = item
            .string("lastPlayedAt")
            .and_then(|t| Timestamp::parse_rfc3339("lastPlayedAt", t).ok());
        if let Some(newest) = projected.max(progress.newest)
            && newest.as_millis() >= settled
        {
            return Ok(TotalsCheck::Busy(
                newest.plus_millis(2 * progress.settle_ms),
            ));
        }
        let ceiling = u128::from(LIFETIME_SCORE_CEILING);
        let stored = (
            item.number::<u128>("lifetimeScore")
                .unwrap_or(0)
                .min(ceiling) as u64,
            item.number("gamesPlayed").unwrap_or(0),
        );
        let counted = (progress.sum().min(ceiling) as u64, progress.sessions);
        Ok(if stored == counted {
            TotalsCheck::Agree {
                lifetime_score: counted.0,
                games_played: counted.1,
            }
        } else {
            TotalsCheck::Off { stored, counted }
        })
    }

    /// Recounts `progress.player`'s totals (see the module documentation), reading at most
    /// `pages.max` pages of sessions this call.
    pub async fn recount_player(
        self,
        mut progress: Recount,
        pages: RecountPages,
    ) -> Result<RecountOutcome, StoreError> {
        let mut read = 0;
        loop {
            if read == pages.max {
                return Ok(RecountOutcome::Paused(progress));
            }
            read += 1;
            if !self.count_sessions_page(&mut progress, pages.items).await? {
                break;
            }
        }
        // Read once: an erasure that starts after this deletes what the write makes, and a
        // profile the write creates is undone below.
        if self
            .store
            .table
            .get_raw(&self.store.erasure_marker(&progress.player))
            .await?
            .is_some()
        {
            return Ok(RecountOutcome::Erased);
        }
        for attempt in Retry::PROJECTION.attempts() {
            let seen = self.read_watermark(&progress.player).await?;
            if let Some((_, stored)) = &seen.recount_before
                && *stored > progress.before
            {
                // A later recount wrote first; this one's count is older than the totals. (An
                // equal one is this recount written before, say by a run that died after it:
                // writing it again gives the same totals.)
                return Ok(RecountOutcome::Busy(Timestamp::now()));
            }
            let settled = progress
                .before
                .as_millis()
                .saturating_sub(progress.settle_ms);
            if let Some((_, last)) = &seen.last_played
                && last.as_millis() >= settled
            {
                let wait = 2 * progress.settle_ms;
                return Ok(RecountOutcome::Busy(last.plus_millis(wait)));
            }
            match self.write_recount(&progress, &seen).await {
                Ok(created) => {
                    let mut ignored = super::ProjectionOutcome::default();
                    self.undo_if_erased(&progress.player, created, &mut ignored)
                        .await?;
                    return Ok(RecountOutcome::Done {
                        lifetime_score: progress.sum().min(u128::from(LIFETIME_SCORE_CEILING))
                            as u64,
                        games_played: progress.sessions,
                    });
                }
                Err(e) if e.is_conditional_check_failed() => {
                    tracing::debug!(player = %progress.player, attempt, "recount raced the projection; re-reading");
                    Retry::PROJECTION.pause(attempt).await;
                }
                Err(e) => return Err(e),
            }
        }
        Err(Retry::PROJECTION.exhausted())
    }

    /// Adds one page of the player's sessions attained before `before` to `progress`: whether
    /// there are more.
    async fn count_sessions_page(
        self,
        progress: &mut Recount,
        items: Option<u32>,
    ) -> Result<bool, StoreError> {
        let pk = entity::player_pk(&progress.player);
        let start = progress
            .after
            .as_ref()
            .map(|sk| key_item(&entity::Key::new(pk.clone(), sk.clone())));
        let out = self
            .store
            .table
            .query_request(Index::Table)
            .key_condition_expression("pk = :pk AND begins_with(sk, :session)")
            .projection_expression("sk, score, attainedAt")
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .set_limit(items.map(|l| l.min(i32::MAX as u32) as i32))
            .params(
                Params::new()
                    .value(":pk", &pk)
                    .value(":session", SESSION_PREFIX),
            )?
            .send()
            .await
            .map_err(|e| StoreError::sdk("Query(recount sessions)", e))?;
        let mut sum = progress.sum();
        for item in out.items() {
            let corrupt = |why: &str| {
                StoreError::corrupt(format!("{pk} / {}", item.string("sk").unwrap_or("?")), why)
            };
            let at = item
                .string("attainedAt")
                .ok_or_else(|| corrupt("no attainedAt"))?;
            let at = Timestamp::parse_rfc3339("attainedAt", at)
                .map_err(|_| corrupt("attainedAt is not an RFC 3339 time"))?;
            if at >= progress.before {
                continue;
            }
            let score: u64 = item.number("score").ok_or_else(|| corrupt("no score"))?;
            sum += u128::from(score);
            progress.sessions += 1;
            progress.newest = Some(progress.newest.map_or(at, |t| t.max(at)));
        }
        progress.score = sum.to_string();
        progress.after = out
            .last_evaluated_key()
            .and_then(|k| k.get("sk"))
            .and_then(|v| v.as_s().ok())
            .cloned();
        Ok(progress.after.is_some())
    }

    /// The recount's one write: the totals, `lastPlayedAt` and `recountBefore`, on condition
    /// that the Player item holds what `seen` read. `Ok(true)` when it created the item.
    async fn write_recount(self, progress: &Recount, seen: &Seen) -> Result<bool, StoreError> {
        let player = &progress.player;
        let total = progress.sum().min(u128::from(LIFETIME_SCORE_CEILING));
        let mut update = "SET lifetimeScore = :total, gamesPlayed = :count, #recount = :before, \
             playerId = :pid, #name = if_not_exists(#name, :pid), \
             createdAt = if_not_exists(createdAt, :now), updatedAt = if_not_exists(updatedAt, :now)"
            .to_owned();
        let now = Timestamp::now();
        let mut params = Params::new()
            .name("#name", "name")
            .name("#recount", RECOUNT_BEFORE)
            .attr(":total", n(total))
            .value(":count", progress.sessions)
            .value(":before", progress.before)
            .value(":pid", player.as_str())
            .value(":now", now);
        match progress.newest {
            Some(newest) => {
                update.push_str(", lastPlayedAt = :newest");
                params = params.value(":newest", newest);
            }
            None => update.push_str(" REMOVE lastPlayedAt"),
        }
        let (condition, params) = seen.unchanged(params);
        self.write_player(player, update, condition, params, "UpdateItem(recount)")
            .await
    }
}
