//! The stream projection of a player's lifetime totals: `lifetimeScore`, `gamesPlayed` and
//! `lastPlayedAt` on the Player item, kept from the Session INSERTs of the table's stream
//! (seed 002: "update them via a Stream-driven projection").
//!
//! **Exactly once under at-least-once delivery.** The Player item carries a watermark,
//! `projectedSeq`: the stream sequence number of the newest session counted, left-padded with
//! zeros to [`SEQUENCE_DIGITS`] digits so that string order is numeric order. A call adds a
//! group of one player's sessions and moves the watermark in *one* conditional UpdateItem, so a
//! group is counted whole or not at all. This relies on one property of DynamoDB Streams and
//! Lambda: the records of one partition key (a player's sessions all share `PLAYER#<p>`) reach
//! the consumer in stream order, and Lambda finishes a parent shard before its children. So the
//! sessions already counted are always a prefix, in stream order, of that player's sessions,
//! and "counted" is the same as "sequence number <= watermark": a re-delivered session is
//! recognised and skipped, a new one is never mistaken for an old one.
//!
//! **Recounts.** A recount (`recount.rs`, run table-wide by `recount_run.rs`) sets the totals from the player's Session
//! items attained before a time it stores as `recountBefore`; from then on a session counts
//! only if it is above the watermark *and* attained at or after that time, so a session the
//! recount counted is never counted again, whenever the stream brings it (a dead-letter replay
//! included).
//!
//! **Cost.** The fast path is one UpdateItem per player and batch whose condition is that every
//! session of the group is above the watermark (and that `lastPlayedAt` does not go backwards).
//! Only when it fails (a re-delivery, or a session whose time is older than the stored
//! `lastPlayedAt`) does the call read the item (one consistent GetItem), keep the sessions above
//! the watermark, and write those with an optimistic condition on what it read; a read that
//! shows everything counted already ends the call without a write.
//!
//! **Saturation.** `lifetimeScore` stops at [`LIFETIME_SCORE_CEILING`]: the fast path's condition
//! also asks that the sum fits under it, and the slow path writes the saturated total it
//! computed from what it read, so a total can never grow past what a profile can show.
//!
//! A player without a profile gets one (name = player id), as the API's player routes expect;
//! a profile's name and email are never touched, and `updatedAt` stays the profile's own time.
//!
//! **Erased players stay erased.** Sessions still in the stream when their player is erased
//! must not bring a profile back. A write learns from its own answer (`UPDATED_OLD`: nothing
//! old) whether it created the Player item; only then (a player's first projection) does it
//! read the erasure's marker, and deletes what it created if there is one. The marker is
//! written before the erasure deletes the profile, so a profile created after that deletion
//! always finds it.

use std::fmt;

use aws_sdk_dynamodb::types::AttributeValue;
use leaderboard_keys::entity;
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::time::Timestamp;

use crate::ground::error::StoreError;
use crate::ground::items::{n, s};
use crate::ground::model::LIFETIME_SCORE_CEILING;

use crate::store::Store;
use crate::table::request::{Params, WithParams};
use crate::table::retry::Retry;

pub(crate) mod recount;
pub(crate) mod recount_run;

/// How many digits a stored watermark has: the longest sequence number DynamoDB Streams uses.
pub const SEQUENCE_DIGITS: usize = 40;

/// The Player item's attribute set by a recount: the sessions attained before it are in the
/// totals, so the projection counts only those attained at or after it (see `recount`).
pub(crate) const RECOUNT_BEFORE: &str = "recountBefore";

/// A stream record's sequence number, normalised to [`SEQUENCE_DIGITS`] digits so that the
/// derived (string) order is the numeric order.
///
/// ```
/// use leaderboard_store::SequenceNumber;
///
/// let a = SequenceNumber::parse("900000000000000000009").unwrap();
/// let b = SequenceNumber::parse("1000000000000000000001").unwrap();
/// assert!(a < b);
/// assert_eq!(a.as_str(), "0000000000000000000900000000000000000009");
/// assert!(SequenceNumber::parse("12a").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SequenceNumber(String);

impl SequenceNumber {
    /// Parses a sequence number as a stream record carries it: 1 to 40 ASCII digits.
    pub fn parse(s: &str) -> Result<SequenceNumber, StoreError> {
        if s.is_empty() || s.len() > SEQUENCE_DIGITS || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(StoreError::Invalid(format!(
                "sequence number must be 1 to {SEQUENCE_DIGITS} digits, got {:?}",
                s.chars().take(64).collect::<String>()
            )));
        }
        let mut padded = String::with_capacity(SEQUENCE_DIGITS);
        padded.extend(std::iter::repeat_n('0', SEQUENCE_DIGITS - s.len()));
        padded.push_str(s);
        Ok(SequenceNumber(padded))
    }

    /// The 40-digit form, as stored in `projectedSeq`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SequenceNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One session to count: what the projection needs of a Session INSERT.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectedSession {
    /// The stream record's sequence number.
    pub sequence_number: SequenceNumber,
    /// The session's score, added once to `lifetimeScore`.
    pub score: u64,
    /// The session's time; `lastPlayedAt` becomes the newest.
    pub attained_at: Timestamp,
}

/// What one [`Projection::project_sessions`] call did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProjectionOutcome {
    /// Sessions counted by this call.
    pub applied: usize,
    /// Sessions at or below the watermark: counted before, skipped now.
    pub already_applied: usize,
    /// UpdateItem requests sent, including ones whose condition failed.
    pub writes: u32,
    /// GetItem requests sent.
    pub reads: u32,
}

/// The totals of the sessions one write adds.
struct Totals {
    sum: u128,
    count: usize,
    newest: Timestamp,
    oldest: Timestamp,
    min_seq: SequenceNumber,
    max_seq: SequenceNumber,
}

impl Totals {
    fn of<'a>(sessions: impl IntoIterator<Item = &'a ProjectedSession>) -> Option<Totals> {
        let mut it = sessions.into_iter();
        let first = it.next()?;
        let mut t = Totals {
            sum: u128::from(first.score),
            count: 1,
            newest: first.attained_at,
            oldest: first.attained_at,
            min_seq: first.sequence_number.clone(),
            max_seq: first.sequence_number.clone(),
        };
        for p in it {
            t.sum += u128::from(p.score);
            t.count += 1;
            t.newest = t.newest.max(p.attained_at);
            t.oldest = t.oldest.min(p.attained_at);
            if p.sequence_number < t.min_seq {
                t.min_seq = p.sequence_number.clone();
            }
            if p.sequence_number > t.max_seq {
                t.max_seq = p.sequence_number.clone();
            }
        }
        Some(t)
    }
}

/// What the slow path read of the Player item (all absent when there is no item).
struct Seen {
    watermark: Option<SequenceNumber>,
    /// The stored `lifetimeScore`, verbatim (for the condition): any number, however large.
    lifetime: Option<String>,
    /// The stored `lastPlayedAt`, verbatim (for the condition) and parsed.
    last_played: Option<(String, Timestamp)>,
    /// The stored `recountBefore`, verbatim and parsed: sessions attained before it are in
    /// the totals (a recount counted them).
    recount_before: Option<(String, Timestamp)>,
}

impl Seen {
    /// The condition that the Player item still holds what was read: its watermark, total,
    /// `lastPlayedAt` and `recountBefore`, each equal or each still absent (verbatim: a stored
    /// total may be beyond any integer type here).
    fn unchanged(&self, mut params: Params) -> (String, Params) {
        let seen = [
            (
                "projectedSeq",
                self.watermark.as_ref().map(|w| s(w.as_str())),
            ),
            ("lifetimeScore", self.lifetime.as_ref().map(n)),
            (
                "lastPlayedAt",
                self.last_played.as_ref().map(|(raw, _)| s(raw)),
            ),
            (
                "#recount",
                self.recount_before.as_ref().map(|(raw, _)| s(raw)),
            ),
        ];
        let mut conditions = Vec::new();
        for (i, (attr, value)) in seen.into_iter().enumerate() {
            match value {
                None => conditions.push(format!("attribute_not_exists({attr})")),
                Some(v) => {
                    conditions.push(format!("{attr} = :seen{i}"));
                    params = params.attr(format!(":seen{i}"), v);
                }
            }
        }
        (
            conditions.join(" AND "),
            params.name("#recount", RECOUNT_BEFORE),
        )
    }
}

/// The condition of a projection write.
enum Guard<'a> {
    /// The fast path: every session above the watermark, no older `lastPlayedAt`, and room
    /// under the ceiling for the sum.
    Fresh,
    /// The slow path: the item still holds what was read.
    Unchanged(&'a Seen),
}

/// The stream projection's totals: a player's sessions counted once, and recounts that check
/// and mend them (the handle [`Store::projection`] gives).
#[derive(Clone, Copy)]
pub struct Projection<'a> {
    pub(crate) store: &'a Store,
}

impl Store {
    /// The stream projection's totals: a player's sessions counted once, and recounts that
    /// check and mend them.
    pub fn projection(&self) -> Projection<'_> {
        Projection { store: self }
    }
}

impl Projection<'_> {
    /// Counts `sessions` (one player's Session INSERTs of a stream batch, any order) into the
    /// player's `lifetimeScore`, `gamesPlayed` and `lastPlayedAt`, exactly once: sessions whose
    /// sequence number is at or below the player's watermark are skipped. Creates the Player
    /// item (name = player id, `createdAt` = `now`) when there is none.
    ///
    /// One UpdateItem when every session is new (the usual case); after a re-delivery, one
    /// failed conditional write, one consistent read, and one write if any session was new.
    pub async fn project_sessions(
        self,
        player: &PlayerId,
        sessions: &[ProjectedSession],
        now: Timestamp,
    ) -> Result<ProjectionOutcome, StoreError> {
        let mut outcome = ProjectionOutcome::default();
        let Some(all) = Totals::of(sessions) else {
            return Ok(outcome);
        };
        outcome.writes += 1;
        match self.write_totals(player, &all, now, Guard::Fresh).await {
            Ok(created) => {
                outcome.applied = all.count;
                self.undo_if_erased(player, created, &mut outcome).await?;
                return Ok(outcome);
            }
            Err(e) if e.is_conditional_check_failed() => {}
            Err(e) => return Err(e),
        }
        for attempt in Retry::PROJECTION.attempts() {
            let seen = self.read_watermark(player).await?;
            outcome.reads += 1;
            let fresh = Totals::of(sessions.iter().filter(|p| {
                seen.watermark
                    .as_ref()
                    .is_none_or(|w| p.sequence_number > *w)
                    && seen
                        .recount_before
                        .as_ref()
                        .is_none_or(|(_, before)| p.attained_at >= *before)
            }));
            let Some(mut fresh) = fresh else {
                outcome.already_applied = sessions.len();
                return Ok(outcome);
            };
            if let Some((_, stored)) = &seen.last_played {
                fresh.newest = fresh.newest.max(*stored);
            }
            outcome.writes += 1;
            match self
                .write_totals(player, &fresh, now, Guard::Unchanged(&seen))
                .await
            {
                Ok(created) => {
                    outcome.applied = fresh.count;
                    outcome.already_applied = sessions.len() - fresh.count;
                    self.undo_if_erased(player, created, &mut outcome).await?;
                    return Ok(outcome);
                }
                Err(e) if e.is_conditional_check_failed() => {
                    tracing::debug!(%player, attempt, "projection raced; re-reading");
                    Retry::PROJECTION.pause(attempt).await;
                }
                Err(e) => return Err(e),
            }
        }
        Err(Retry::PROJECTION.exhausted())
    }

    /// Deletes the Player item a projection `created` when the player was erased (see the
    /// module doc): one consistent read of the marker, and a delete if there is one.
    async fn undo_if_erased(
        self,
        player: &PlayerId,
        created: bool,
        outcome: &mut ProjectionOutcome,
    ) -> Result<(), StoreError> {
        if !created {
            return Ok(());
        }
        outcome.reads += 1;
        if self
            .store
            .table
            .get_raw(&self.store.erasure_marker(player))
            .await?
            .is_none()
        {
            return Ok(());
        }
        outcome.writes += 1;
        self.store
            .table
            .delete_request(&entity::player(player))
            .send()
            .await
            .map_err(|e| StoreError::sdk("DeleteItem(erased player's profile)", e))?;
        tracing::info!(%player, "projection of an erased player undone");
        Ok(())
    }

    /// The player's watermark and `lastPlayedAt`, read consistently.
    async fn read_watermark(self, player: &PlayerId) -> Result<Seen, StoreError> {
        let out = self
            .store
            .table
            .get_request(&entity::player(player))
            .projection_expression("projectedSeq, lastPlayedAt, lifetimeScore, recountBefore")
            .send()
            .await
            .map_err(|e| StoreError::sdk("GetItem(projection)", e))?;
        let item = out.item.unwrap_or_default();
        let corrupt = |why: &str| StoreError::corrupt(entity::player_pk(player), why);
        let watermark = match item.get("projectedSeq") {
            None => None,
            Some(AttributeValue::S(v)) if v.len() == SEQUENCE_DIGITS => Some(
                SequenceNumber::parse(v).map_err(|_| corrupt("projectedSeq is not a number"))?,
            ),
            Some(_) => return Err(corrupt("projectedSeq is not a 40-digit string")),
        };
        // A stored time, verbatim (for a condition) and parsed.
        let time = |attr: &str| match item.get(attr) {
            None => Ok(None),
            Some(AttributeValue::S(v)) => Timestamp::parse_rfc3339("stored time", v)
                .map(|t| Some((v.clone(), t)))
                .map_err(|_| corrupt(&format!("{attr} is not an RFC 3339 time"))),
            Some(_) => Err(corrupt(&format!("{attr} is not a string"))),
        };
        let last_played = time("lastPlayedAt")?;
        let recount_before = time(RECOUNT_BEFORE)?;
        let lifetime = match item.get("lifetimeScore") {
            None => None,
            Some(AttributeValue::N(v)) => Some(v.clone()),
            Some(_) => return Err(corrupt("lifetimeScore is not a number")),
        };
        Ok(Seen {
            watermark,
            lifetime,
            last_played,
            recount_before,
        })
    }

    /// The one UpdateItem of a projection: adds `t` to the totals and moves the watermark to
    /// its newest session, on condition `guard`. The fast path adds the sum, on condition that
    /// it fits under the ceiling; the slow path sets the saturated total of what it read.
    /// `Ok(true)` when the write created the Player item.
    async fn write_totals(
        self,
        player: &PlayerId,
        t: &Totals,
        now: Timestamp,
        guard: Guard<'_>,
    ) -> Result<bool, StoreError> {
        let (lifetime, total) = match guard {
            Guard::Fresh => (
                "if_not_exists(lifetimeScore, :zero) + :sum",
                t.sum.min(u128::from(LIFETIME_SCORE_CEILING)),
            ),
            Guard::Unchanged(seen) => (":sum", saturated_total(seen.lifetime.as_deref(), t.sum)),
        };
        let update = format!(
            "SET lifetimeScore = {lifetime}, \
             gamesPlayed = if_not_exists(gamesPlayed, :zero) + :count, \
             lastPlayedAt = :last, projectedSeq = :maxSeq, playerId = :pid, \
             #name = if_not_exists(#name, :pid), \
             createdAt = if_not_exists(createdAt, :now), \
             updatedAt = if_not_exists(updatedAt, :now)",
        );
        // Totals are u128 (a sum of u64 scores), which serde_dynamo does not take: `n` writes
        // their digits.
        let mut params = Params::new()
            .name("#name", "name")
            .value(":zero", 0u64)
            .attr(":sum", n(total))
            .value(":count", t.count)
            .value(":last", t.newest)
            .value(":maxSeq", t.max_seq.as_str())
            .value(":pid", player.as_str())
            .value(":now", now);
        let condition = match guard {
            Guard::Fresh => {
                params = params
                    .value(":minSeq", t.min_seq.as_str())
                    .value(":oldest", t.oldest)
                    .name("#recount", RECOUNT_BEFORE)
                    .attr(":room", n(u128::from(LIFETIME_SCORE_CEILING) - total));
                "(attribute_not_exists(projectedSeq) OR projectedSeq < :minSeq) \
                 AND (attribute_not_exists(lastPlayedAt) OR lastPlayedAt <= :last) \
                 AND (attribute_not_exists(#recount) OR #recount <= :oldest) \
                 AND (attribute_not_exists(lifetimeScore) OR lifetimeScore BETWEEN :zero AND :room)"
                    .to_owned()
            }
            Guard::Unchanged(seen) => {
                let (condition, with) = seen.unchanged(params);
                params = with;
                condition
            }
        };
        self.write_player(player, update, condition, params, "UpdateItem(projection)")
            .await
    }

    /// One conditional UpdateItem of the Player item that sets `playerId` (a projection's or a
    /// recount's): `Ok(true)` when it created the item.
    async fn write_player(
        self,
        player: &PlayerId,
        update: String,
        condition: String,
        params: Params,
        what: &'static str,
    ) -> Result<bool, StoreError> {
        let out = self
            .store
            .table
            .update_request(&entity::player(player), update)
            .condition_expression(condition)
            .params(params)?
            .return_values(aws_sdk_dynamodb::types::ReturnValue::UpdatedOld)
            .send()
            .await
            .map_err(|e| StoreError::sdk(what, e))?;
        // `playerId` is set by every write: an old value of it means the item was there.
        Ok(!out.attributes.is_some_and(|a| a.contains_key("playerId")))
    }
}

/// `stored + sum`, saturated at the ceiling. `stored` is the verbatim number the item holds (a
/// total written before the ceiling existed may exceed it, or even a `u64`); a negative or
/// fractional one counts as what it reads as on a profile.
fn saturated_total(stored: Option<&str>, sum: u128) -> u128 {
    let ceiling = u128::from(LIFETIME_SCORE_CEILING);
    let stored = match stored {
        None => 0,
        Some(raw) => match raw.parse::<u128>() {
            Ok(v) => v.min(ceiling),
            Err(_) if raw.starts_with('-') => 0,
            Err(_) => raw
                .parse::<f64>()
                .map_or(ceiling, |f| (f as u128).min(ceiling)),
        },
    };
    stored.saturating_add(sum).min(ceiling)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(s: &str) -> SequenceNumber {
        SequenceNumber::parse(s).unwrap()
    }

    fn at(ms: u64) -> Timestamp {
        Timestamp::from_millis(ms).unwrap()
    }

    #[test]
    fn sequence_numbers_pad_to_numeric_order() {
        assert_eq!(seq("1").as_str().len(), SEQUENCE_DIGITS);
        assert!(seq("99") < seq("100"));
        assert!(seq("000100") == seq("100"));
        assert_eq!(seq(&"9".repeat(40)).as_str(), "9".repeat(40));
        for bad in ["", "-1", "1.5", " 1", "1e3", &"1".repeat(41), "١"] {
            assert!(SequenceNumber::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn totals_saturate_at_the_ceiling() {
        let c = u128::from(LIFETIME_SCORE_CEILING);
        assert_eq!(saturated_total(None, 5), 5);
        assert_eq!(saturated_total(Some("7"), 5), 12);
        assert_eq!(saturated_total(Some(&(c - 1).to_string()), 5), c);
        assert_eq!(saturated_total(Some(&"9".repeat(38)), 1), c);
        assert_eq!(saturated_total(Some("-3"), 5), 5);
        assert_eq!(saturated_total(Some("1.5E+40"), 5), c);
        assert_eq!(saturated_total(Some("2.5"), 5), 7);
        assert_eq!(saturated_total(None, u128::MAX), c);
    }

    #[test]
    fn totals_sum_count_newest_and_range() {
        let p = |q: &str, score, ms| ProjectedSession {
            sequence_number: seq(q),
            score,
            attained_at: at(ms),
        };
        let group = [p("300", u64::MAX, 5), p("100", u64::MAX, 9), p("200", 1, 7)];
        let t = Totals::of(&group).unwrap();
        assert_eq!(t.sum, 2 * u128::from(u64::MAX) + 1);
        assert_eq!(t.count, 3);
        assert_eq!(t.newest, at(9));
        assert_eq!(t.min_seq, seq("100"));
        assert_eq!(t.max_seq, seq("300"));
        assert!(Totals::of(&[]).is_none());
    }
}
