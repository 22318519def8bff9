//! Grouping a board's lanes: moving the lanes of a board made before grouped lanes (one
//! partition key a lane, `RANKSEQ#<board>#<lane>` / `#WRITTEN`) under one partition key
//! (`RANKSEQ#<board>` / `#WRITTEN#<lane>`), while plays go on, so that every answer reads them
//! with one Query (one read unit) instead of ten items by key.
//!
//! One transaction does it, once the index has applied every lane up to its written count (so
//! that no change of the old lanes is still on its way to the index when the new ones start
//! numbering after it): each old lane is marked [`GROUPED_ATTR`] and paused for good (a play
//! that read the board before fails its condition there, reads the board again and writes the
//! new lane), its latest change dropped (nothing is left to apply, and no player's id stays
//! there); each new lane is put with the old one's `written` and `created`, so its changes go
//! on numbering from where the old one stopped, and the root's watermarks stay right, and with
//! the generation the last rebuild's switch wrote there (`LANE_GENERATION_ATTR`, which rank
//! reads check) and the board's settings version (`rank::settings`, which plays check); the
//! board gets `lanesGrouped`, at the settings version read. The transaction holds only while
//! every old lane still has the count and the generation read, and while no repair request is
//! open on the board (a repair's rebuild may have read the board before and would write the old
//! lanes). A board whose index is a little behind (at most [`PAUSED_LAG`] changes) is paused
//! for at most the store's lane pause ([`Store::with_lane_pause`](crate::Store::with_lane_pause)) while the stream consumer
//! catches up; one that does not catch up in time, is further behind, or waits for a repair, is
//! left for a later run with no pause left behind.

use std::time::{Duration, Instant};

use leaderboard_keys::entity;
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank_index::{
    CHANGE_ATTR, CREATED_ATTR, LANE_GENERATION_ATTR, PAUSE_ATTR, WRITTEN_ATTR, repair_key, root_key,
};
use leaderboard_keys::time::Timestamp;

use crate::ground::board::groups_lanes;
use crate::ground::error::{CancelReason, StoreError};
use crate::ground::items::{Item, ItemExt, key_item, n};
use crate::ground::model::{Board, BoardStatus};
use crate::rank::Rank;
use crate::rank::lanes::{GROUPED_ATTR, LaneKeys, lanes_lag};
use crate::rank::settings::{SETTINGS_VERSION_ATTR, at_version};
use crate::table::request::Params;

/// How often a paused board's root is read while the index catches up.
const CATCH_UP_POLL: Duration = Duration::from_millis(200);

/// Transactions sent before a board is paused (each lost only to a play in flight).
const UNPAUSED_TRIES: u32 = 3;

/// The most changes the index may have still to apply for a board to be paused while it
/// catches up (the stream consumer applies hundreds a second; more than this is an index
/// stopped or far behind, which a pause would not help).
const PAUSED_LAG: u64 = 500;

/// What grouping a board's lanes did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneGrouping {
    /// The board's lanes are grouped now.
    Grouped {
        /// Whether its plays were held back while the index caught up.
        paused: bool,
    },
    /// Nothing to do: grouped already, not open, or gone.
    Skipped,
    /// The index did not catch up with the lanes in time, is too far behind to pause for, waits
    /// for a repair or for the board's migration (or plays kept cancelling the transaction):
    /// left for a later run, no pause left behind.
    Behind,
}

/// The old lanes as read: each one's item (empty when never written).
type OldLanes = [Item];

/// How the grouping's transaction ended.
enum Sent {
    /// Committed: the lanes are grouped.
    Grouped,
    /// A play moved a lane since it was read: read again.
    Moved,
    /// The board changed (grouped by another run, closing): nothing to do.
    BoardChanged,
    /// A repair request is open on the board: after the repair.
    Repairing,
}

impl Sent {
    /// What grouping did, when this ends it (`paused`: whether plays were held back).
    fn outcome(&self, paused: bool) -> Option<LaneGrouping> {
        match self {
            Sent::Grouped => Some(LaneGrouping::Grouped { paused }),
            Sent::Moved => None,
            Sent::BoardChanged => Some(LaneGrouping::Skipped),
            Sent::Repairing => Some(LaneGrouping::Behind),
        }
    }
}

impl Rank<'_> {
    /// Groups board `id`'s lanes (see the module documentation). Requests: 1 board read, per
    /// try 1 lane read, 1 root read and 1 transaction (at most [`UNPAUSED_TRIES`] tries), then,
    /// for a board at most [`PAUSED_LAG`] changes behind, 1 repair request read, 10 pause
    /// writes, and every 200 ms a lane read and a root read (and the transaction once they
    /// agree) for at most the lane pause less 2 s, and 1 transaction lifting the pauses if it
    /// did not group.
    pub async fn group_lanes(self, id: &BoardId) -> Result<LaneGrouping, StoreError> {
        let Some(board) = self.table.board(id).await? else {
            return Ok(LaneGrouping::Skipped);
        };
        // A hot board keeps its lanes apart (`Board::lanes_grouped`).
        if board.lanes_grouped
            || !groups_lanes(board.write_shards)
            || board.status != BoardStatus::Open
        {
            return Ok(LaneGrouping::Skipped);
        }
        // Not on the index yet: grouped once its migration is over.
        if !board.indexed() || board.rank_migrating {
            return Ok(LaneGrouping::Behind);
        }
        let old = LaneKeys::of(&board);
        let mut lag = 0;
        for _ in 0..UNPAUSED_TRIES {
            let lanes = self.table.lane_items(old).await?;
            lag = self.lag(id, &lanes).await?;
            if lag > 0 {
                break;
            }
            if let Some(done) = self.group_transaction(&board, &lanes).await?.outcome(false) {
                return Ok(done);
            }
        }
        // Behind for good until a repair, or too far behind to catch up within a pause: no
        // pause, a later pass tries again.
        if lag > PAUSED_LAG || self.table.get_raw(&repair_key(id)).await?.is_some() {
            return Ok(LaneGrouping::Behind);
        }
        // Busy, or a little behind: hold the plays back while the index catches up.
        let until = Timestamp::now().plus_millis(self.lane_pause.as_millis() as u64);
        let paused = old.lanes().collect();
        for lane in old.lanes() {
            if let Err(e) = self.pause_lane(old, lane, until).await {
                let _ = self.lift_pauses(old, &paused).await;
                return Err(e);
            }
        }
        let give_up = Instant::now() + self.lane_pause.saturating_sub(Duration::from_secs(2));
        let outcome = async {
            while Instant::now() < give_up {
                let lanes = self.table.lane_items(old).await?;
                if self.lag(id, &lanes).await? == 0
                    && let Some(done) = self.group_transaction(&board, &lanes).await?.outcome(true)
                {
                    return Ok(done);
                }
                tokio::time::sleep(CATCH_UP_POLL).await;
            }
            Ok(LaneGrouping::Behind)
        }
        .await;
        if !matches!(outcome, Ok(LaneGrouping::Grouped { .. })) {
            // The pauses end by themselves; lifting them now spares the plays the wait.
            let _ = self.lift_pauses(old, &paused).await;
        }
        outcome
    }

    /// The changes the index has still to apply of those counted in `lanes` (the root read
    /// after them).
    async fn lag(self, id: &BoardId, lanes: &OldLanes) -> Result<u64, StoreError> {
        let root = self.table.get_raw(&root_key(id)).await?.unwrap_or_default();
        Ok(lanes_lag(lanes, &root))
    }

    /// The grouping's transaction from the old lanes as read (see the module documentation).
    async fn group_transaction(self, board: &Board, lanes: &OldLanes) -> Result<Sent, StoreError> {
        let id = &board.board_id;
        let old = LaneKeys::of(board);
        let mut tx = Vec::with_capacity(2 * usize::from(old.count) + 2);
        for (lane, item) in old.lanes().zip(lanes) {
            let written: Option<u64> = item.number(WRITTEN_ATTR);
            let params = Params::new()
                .name("#g", GROUPED_ATTR)
                .name("#p", PAUSE_ATTR)
                .name("#chg", CHANGE_ATTR)
                .name("#w", WRITTEN_ATTR)
                .value(":yes", true)
                .value(":never", i64::MAX);
            let (condition, params) = match written {
                Some(w) => ("#w = :w", params.value(":w", w)),
                None => ("attribute_not_exists(#w)", params),
            };
            // The generation the last switch wrote goes with the lane, as read: a switch that
            // commits meanwhile writes a newer one and fails this.
            let generation: Option<u64> = item.number(LANE_GENERATION_ATTR);
            let params = params.name("#lg", LANE_GENERATION_ATTR);
            let (generation_condition, params) = match generation {
                Some(g) => ("#lg = :lg", params.value(":lg", g)),
                None => ("attribute_not_exists(#lg)", params),
            };
            tx.push(self.table.tx_update_if(
                &old.key(lane),
                "SET #g = :yes, #p = :never REMOVE #chg",
                &format!("{condition} AND {generation_condition}"),
                params,
            )?);
            // The board's settings version goes with every lane (`rank::settings`): the
            // board's update below holds only at the version read.
            let version = board.settings_version;
            if written.is_some() || generation.is_some() || version > 0 {
                let mut new = key_item(&entity::grouped_lane(id, lane));
                if version > 0 {
                    new.insert(SETTINGS_VERSION_ATTR.into(), n(version));
                }
                if let Some(w) = written {
                    new.insert(WRITTEN_ATTR.into(), n(w));
                    new.insert(
                        CREATED_ATTR.into(),
                        n(item.number::<i64>(CREATED_ATTR).unwrap_or(0)),
                    );
                }
                if let Some(g) = generation {
                    new.insert(LANE_GENERATION_ATTR.into(), n(g));
                }
                tx.push(
                    self.table
                        .tx_put(new, Some("attribute_not_exists(pk)"), Params::new())?,
                );
            }
        }
        let (version, params) = at_version(board.settings_version, Params::new());
        tx.push(
            self.table.tx_update_if(
                &entity::board(id),
                "SET lanesGrouped = :yes",
                &format!(
                    "#status = :open AND attribute_not_exists(lanesGrouped) AND \
                     attribute_not_exists(rankMigrating) AND {version}"
                ),
                params
                    .name("#status", "status")
                    .value(":open", BoardStatus::Open)
                    .value(":yes", true),
            )?,
        );
        tx.push(
            self.table
                .tx_check(&repair_key(id), "attribute_not_exists(pk)", Params::new())?,
        );
        let board_at = tx.len() - 2;
        match self
            .table
            .transact(tx, "TransactWriteItems(group lanes)")
            .await
        {
            Ok(()) => {
                tracing::info!(board = %id, "rank index lanes grouped");
                Ok(Sent::Grouped)
            }
            Err(StoreError::TransactionCanceled { reasons }) => {
                let failed =
                    |at: usize| reasons.get(at) == Some(&CancelReason::ConditionalCheckFailed);
                Ok(if failed(board_at) {
                    Sent::BoardChanged
                } else if failed(board_at + 1) {
                    Sent::Repairing
                } else {
                    Sent::Moved
                })
            }
            Err(e) => Err(e),
        }
    }
}
