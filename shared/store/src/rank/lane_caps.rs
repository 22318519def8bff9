//! A hot board's lane caps in the store (the rule is [`leaderboard_keys::rank_index::caps`]'s;
//! the condition every change of a lane's written count takes is `rank::lanes`'): the tender
//! that caps, rolls and leaves to go stale a hot board's lanes when a process's copy of its
//! index reads them, and the view a rank from that copy bounds the other lanes' written counts
//! by, reading only its own lane (`Table::rank_lanes`, in `rank::lookup`).
//!
//! A copy's first rank reads every lane, as a rank without a copy does, and its play tends
//! them (`Table::tend_offered`: a rank only reads); so does one rank every
//! [`LaneView::TEND_EVERY`] after (and any that finds caps no longer holding), the others
//! meanwhile bounding the lanes by the view kept (a new copy takes its predecessor's). The
//! board's heat is its plays a second since an earlier tend's read (at least
//! [`LaneSample::SPAN`] before), against the store's threshold (0: every board is hot, for
//! tests and benchmarks). So every process tends each hot board's lanes about twice a second
//! (a read unit a lane, and a conditional write a lane whose term ended), and a rank from a
//! copy whose caps still hold reads its own lane item (1 read unit) instead of all of them,
//! with any whose caps lapsed before the next tend rolled them.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use leaderboard_keys::entity::Key;
use leaderboard_keys::rank_index::caps::{
    CAP_ATTR, CAP_FROM_ATTR, CAP_NEXT_ATTR, CAP_UNTIL_ATTR, Heat, LaneCaps, TERM_MS, Tend,
};
use leaderboard_keys::rank_index::{CREATED_ATTR, WRITTEN_ATTR};
use leaderboard_keys::time::Timestamp;

use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt};
use crate::ground::model::Board;
use crate::table::Table;
use crate::table::request::{Params, WithParams};
use crate::table::retry::Retry;

/// A lane's caps as stored, if it has them.
pub(crate) fn caps_of(item: &Item) -> Option<LaneCaps> {
    Some(LaneCaps {
        cap: item.number(CAP_ATTR)?,
        until: item.number(CAP_UNTIL_ATTR)?,
        next: item.number(CAP_NEXT_ATTR)?,
        from: item.number(CAP_FROM_ATTR).unwrap_or(0),
    })
}

/// Every lane's written count as read at one moment, for a later tend's heat.
#[derive(Debug, Clone)]
pub(crate) struct LaneSample {
    at: Instant,
    written: Vec<u64>,
}

impl LaneSample {
    /// The shortest time between two samples a heat is measured over.
    pub(crate) const SPAN: Duration = Duration::from_millis(500);

    /// The lanes as just read.
    fn of(items: &[Item]) -> LaneSample {
        LaneSample {
            at: Instant::now(),
            written: items
                .iter()
                .map(|item| item.number(WRITTEN_ATTR).unwrap_or(0))
                .collect(),
        }
    }

    /// The board's heat from `self` (older) to `now`, against `hot` plays a second.
    fn heat(&self, now: &LaneSample, hot: u64) -> Heat {
        let span = now.at.saturating_duration_since(self.at);
        if span < Self::SPAN {
            return Heat::Unknown;
        }
        let changes =
            || (now.written.iter().zip(&self.written)).map(|(now, then)| now.saturating_sub(*then));
        let total: u64 = changes().sum();
        let millis = span.as_millis().max(1) as u64;
        if total.saturating_mul(1_000) / millis < hot {
            return Heat::Quiet;
        }
        let busiest = changes().max().unwrap_or(0);
        Heat::Hot(busiest.saturating_mul(TERM_MS) / millis)
    }
}

/// The board's heat from `previous`'s base to `sample`, against `hot` plays a second (0: hot),
/// and the base the next tend measures from: `sample`, or the same base while too little time
/// has passed to measure (tends may come closer together than that).
fn heat_since(previous: Option<&LaneView>, sample: &LaneSample, hot: u64) -> (Heat, LaneSample) {
    match previous {
        _ if hot == 0 => (Heat::Hot(0), sample.clone()),
        None => (Heat::Unknown, sample.clone()),
        Some(view) => match view.base.heat(sample, hot) {
            Heat::Unknown => (Heat::Unknown, view.base.clone()),
            heat => (heat, sample.clone()),
        },
    }
}

/// The lanes as a rank from a copy read and tended them: each lane's caps and entries made.
#[derive(Debug)]
pub(crate) struct LaneView {
    /// By lane.
    caps: Vec<Option<LaneCaps>>,
    /// By lane.
    created: Vec<i64>,
    /// When the lanes were read.
    read_at: Instant,
    /// The written counts the board's heat is measured from at the next tend: this view's,
    /// or an earlier one's while fewer than [`LaneSample::SPAN`] have passed since.
    base: LaneSample,
    /// That a rank has taken on tending the lanes again.
    renewing: AtomicBool,
}

impl LaneView {
    /// How often a process tends a hot board's lanes: twice a term, so that a lane's roll
    /// comes within half a term of its end and the caps the process holds keep holding.
    pub(crate) const TEND_EVERY: Duration = Duration::from_millis(TERM_MS / 2);

    /// Whether the caller is the first to find the view `every` old or more: it reads every
    /// lane and tends them, while the other ranks go on bounding the lanes by this view.
    pub(crate) fn claim_tending(&self, every: Duration) -> bool {
        self.read_at.elapsed() >= every && !self.renewing.swap(true, Ordering::Relaxed)
    }

    /// The lanes but `own` as this view bounds them at `now` (ms): the most each one whose caps
    /// still say can have written, and the lanes whose caps do not (none, or their term and
    /// the next ended before a tend rolled them).
    pub(crate) fn bounds(&self, own: u8, now: u64) -> (BTreeMap<u8, u64>, Vec<u8>) {
        let mut bounded = BTreeMap::new();
        let mut lapsed = Vec::new();
        for (lane, caps) in (0..=u8::MAX).zip(&self.caps) {
            if lane == own {
                continue;
            }
            match caps.as_ref().and_then(|c| c.bound_at(now)) {
                Some(bound) => {
                    bounded.insert(lane, bound);
                }
                None => lapsed.push(lane),
            }
        }
        (bounded, lapsed)
    }

    /// The entries made on every lane but those `read`, when this view read them.
    pub(crate) fn created_but(&self, read: &[u8]) -> i64 {
        (0..=u8::MAX)
            .zip(&self.created)
            .filter(|(lane, _)| !read.contains(lane))
            .map(|(_, created)| *created)
            .fold(0i64, i64::saturating_add)
    }
}

impl Table {
    /// Tends `board`'s lanes as read (`items`, at `keys`), the board hot from `hot` plays a
    /// second as measured since the `previous` view (0: hot): caps a hot board's lanes without
    /// them, rolls those whose term ended (one conditional `UpdateItem` each, all at once), and
    /// leaves a quiet board's to go stale. The view of them after: the caps written, or those
    /// read where another process's write came first.
    pub(crate) async fn tend_lanes(
        &self,
        board: &Board,
        keys: &[Key],
        items: &[Item],
        previous: Option<&LaneView>,
        hot: u64,
    ) -> LaneView {
        let sample = LaneSample::of(items);
        let (heat, base) = heat_since(previous, &sample, hot);
        let now = Timestamp::now().as_millis();
        let mut caps: Vec<Option<LaneCaps>> = items.iter().map(caps_of).collect();
        let created = items
            .iter()
            .map(|item| item.number(CREATED_ATTR).unwrap_or(0))
            .collect();
        let mut writes = Vec::new();
        for (lane, (item, key)) in items.iter().zip(keys).enumerate() {
            let written = item.number(WRITTEN_ATTR).unwrap_or(0);
            if let Some(tend) = LaneCaps::tend(caps[lane].as_ref(), written, now, heat, 0) {
                let key = key.clone();
                writes.push(async move { (lane, tend.caps, self.set_caps(&key, tend).await) });
            }
        }
        for (lane, new, written) in futures::future::join_all(writes).await {
            match written {
                Ok(true) => caps[lane] = Some(new),
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(board = %board.board_id, lane, error = %e, "lane caps not written")
                }
            }
        }
        LaneView {
            caps,
            created,
            read_at: sample.at,
            base,
            renewing: AtomicBool::new(false),
        }
    }

    /// Writes a tender's caps on the lane at `key`, on the tender's conditions; whether it did
    /// (a lane never written gets a count of 0, so that its first change is numbered 1 as
    /// ever).
    async fn set_caps(&self, key: &Key, tend: Tend) -> Result<bool, StoreError> {
        let Tend {
            caps,
            until_read,
            most_written,
        } = tend;
        let until = match until_read {
            Some(_) => "#cu = :read",
            None => "attribute_not_exists(#cu)",
        };
        let mut params = Params::new()
            .name("#w", WRITTEN_ATTR)
            .name("#cap", CAP_ATTR)
            .name("#cu", CAP_UNTIL_ATTR)
            .name("#cn", CAP_NEXT_ATTR)
            .name("#cf", CAP_FROM_ATTR)
            .value(":cap", caps.cap)
            .value(":cu", caps.until)
            .value(":cn", caps.next)
            .value(":cf", caps.from)
            .value(":most", most_written)
            .value(":zero", 0u64);
        if let Some(read) = until_read {
            params = params.value(":read", read);
        }
        let sent = self
            .update_request(
                key,
                "SET #cap = :cap, #cu = :cu, #cn = :cn, #cf = :cf, #w = if_not_exists(#w, :zero)",
            )
            .condition_expression(format!(
                "{until} AND (attribute_not_exists(#w) OR #w <= :most)"
            ))
            .params(params)?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(lane caps)", e));
        match sent {
            Ok(_) => Ok(true),
            Err(e) if e.is_conditional_check_failed() => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Adds `n` to the written and created counts of the lane at `key` (an import), within its
    /// caps: one `UpdateItem` on a lane without live caps; on one whose caps leave no room for
    /// `n` changes, a roll (once the term has ended) makes it, else the import waits for the
    /// term's end.
    pub(crate) async fn add_within_caps(&self, key: &Key, n: u64) -> Result<(), StoreError> {
        // First as if the lane had no live caps (most have none): read only if it has.
        let mut ask = Ask::NoLiveCaps;
        for attempt in Retry::PLAY.attempts() {
            let mut params = Params::new()
                .name("#w", WRITTEN_ATTR)
                .name("#c", CREATED_ATTR)
                .name("#cu", CAP_UNTIL_ATTR)
                .value(":n", n);
            let condition = match ask {
                Ask::NoLiveCaps => {
                    let stale = LaneCaps::stale_before(Timestamp::now().as_millis());
                    params = params.value(":stale", stale);
                    Some("attribute_not_exists(#cu) OR #cu <= :stale")
                }
                // The caps as read (their `cu` pins them), with room for `n`.
                Ask::Within { until, most } => {
                    params = params.value(":cu", until).value(":most", most);
                    Some("#cu = :cu AND #w <= :most")
                }
                Ask::Wait => None,
            };
            if let Some(condition) = condition {
                let sent = self
                    .update_request(key, "ADD #w :n, #c :n")
                    .condition_expression(condition)
                    .params(params)?
                    .send()
                    .await
                    .map_err(|e| StoreError::sdk("UpdateItem(rank written)", e));
                match sent {
                    Ok(_) => return Ok(()),
                    Err(e) if e.is_conditional_check_failed() => {}
                    Err(e) => return Err(e),
                }
            }
            ask = self.room_for(key, n).await?;
            if matches!(ask, Ask::Wait) {
                Retry::PLAY.pause(attempt).await;
            }
        }
        Err(Retry::PLAY.exhausted())
    }

    /// How an import of `n` changes asks the lane at `key`, as read now: with no condition of
    /// caps, within the room its caps leave, or after a wait (rolling the caps for room once
    /// their term has ended).
    async fn room_for(&self, key: &Key, n: u64) -> Result<Ask, StoreError> {
        let item = self.get_raw(key).await?.unwrap_or_default();
        let caps = caps_of(&item);
        let written: u64 = item.number(WRITTEN_ATTR).unwrap_or(0);
        let now = Timestamp::now().as_millis();
        let (Some(c), Some(limit)) = (caps, LaneCaps::limit(caps.as_ref(), now)) else {
            return Ok(Ask::NoLiveCaps);
        };
        if written.saturating_add(n) <= limit {
            return Ok(Ask::Within {
                until: c.until,
                most: limit - n,
            });
        }
        if let Some(tend) = LaneCaps::tend(Some(&c), written, now, Heat::Unknown, n) {
            self.set_caps(key, tend).await?;
        }
        Ok(Ask::Wait)
    }
}

/// How an import asks a lane for room.
#[derive(Debug, Clone, Copy)]
enum Ask {
    /// On condition that it has no live caps.
    NoLiveCaps,
    /// On condition of its caps as read (`cu`) and of room for the import.
    Within { until: u64, most: u64 },
    /// Not yet.
    Wait,
}
