//! The one pass over the table that finishes the move onto the rank index's current layout:
//! every open board stored before it is migrated (`rank_migration`), every open board whose
//! lanes are kept apart has them grouped (`grouping`), one board at a time, and every item of
//! the index layout it replaced (nodes `RANKNODE#...`, markers `PLAYER#<p>` / `RANKED#<b>`,
//! closed boards' included) is deleted, 25 a request. Nothing reads or writes those items any
//! more; only this pass knows their names.
//!
//! The pass is a `Scan` with a filter, a page (1 MB read) at a time, at most
//! [`SweepOptions::max_pages`] pages a run. Its position is kept on one item, `RANKSWEEP` /
//! `#CURSOR#LANES`: the key after which the next run goes on (a board whose migration failed is
//! not passed: the next run starts at it again), `again` when a board's index was too far behind
//! to group its lanes (the pass then starts over once it reaches the end), and `done` once a
//! Scan has reached the end with nothing left, after which a run costs one read and does
//! nothing. (A table whose pass before grouped lanes finished keeps that pass's `#CURSOR` item;
//! this pass is a new one.) One run at a time holds the cursor's lease (`leaseBy`,
//! `leaseUntil`, taken as a close lease is: for the holder's deadline plus
//! [`crate::LEASE_MARGIN`]): another run that finds it held leaves the pass to it, and a lease
//! whose holder died expires on its own.

use std::time::{Duration, Instant};

use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::ids::BoardId;

use crate::ground::error::StoreError;
use crate::ground::items::{item_key, key_item};
use crate::ground::model::BoardStatus;
use crate::primitives::lease::{CloseLease, PassStart, pass_after};
use crate::rank::Rank;
use crate::rank::maintenance::grouping::LaneGrouping;
use crate::table::request::{Params, WithParams};

/// The cursor item's partition.
pub const SWEEP_PK: &str = "RANKSWEEP";
const SWEEP_SK: &str = "#CURSOR#LANES";
/// The partitions of the replaced layout's nodes, and the sort keys of its markers.
const OLD_NODE_PREFIX: &str = "RANKNODE#";
const OLD_MARKER_PREFIX: &str = "RANKED#";
/// No board's migration is started with less time than this left before the deadline.
const BOARD_MARGIN: Duration = Duration::from_secs(60);

/// How much of the pass a run does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SweepOptions {
    /// Scan pages a run reads at most (each up to 1 MB, 128 read units).
    pub max_pages: u32,
    /// Items a page reads at most, if fewer than 1 MB of them.
    pub page_items: Option<u32>,
}

impl Default for SweepOptions {
    fn default() -> Self {
        SweepOptions {
            max_pages: 40,
            page_items: None,
        }
    }
}

/// What one run of the pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SweepOutcome {
    /// Scan pages read.
    pub pages: u32,
    /// Boards moved onto the current layout.
    pub migrated: Vec<BoardId>,
    /// Boards whose lanes were grouped.
    pub grouped: Vec<BoardId>,
    /// Boards whose index was too far behind to group their lanes: the pass starts over for
    /// them once it reaches the end.
    pub behind: Vec<BoardId>,
    /// A board whose migration failed (logged): the next run starts at it.
    pub failed: Option<BoardId>,
    /// Items of the replaced layout deleted.
    pub deleted: usize,
    /// Whether the pass is over (this run or an earlier one finished it).
    pub done: bool,
    /// Whether another run holds the pass, so this one did nothing.
    pub busy: bool,
}

/// What the Scan found at one key.
enum Found {
    Old(Key),
    Board(BoardId),
}

impl Rank<'_> {
    /// One run of the pass (see the module documentation), until its pages or `deadline` run
    /// out. Requests: 1 read of the cursor (all a run does once the pass is over), 1 lease,
    /// per page 1 Scan, a delete per 25 old items and 1 checkpoint, and each board's migration.
    pub async fn sweep_rank_layout(
        self,
        options: &SweepOptions,
        deadline: Option<Instant>,
    ) -> Result<SweepOutcome, StoreError> {
        let mut out = SweepOutcome::default();
        let cursor_key = Key::new(SWEEP_PK, SWEEP_SK);
        // The close lease's holder: the same id and expiry (the deadline plus its margin).
        let lease = CloseLease::new(deadline);
        let by = lease.by();
        let cursor = match self
            .table
            .start_pass(&cursor_key, &lease, "UpdateItem(rank sweep lease)")
            .await?
        {
            PassStart::Done => {
                out.done = true;
                return Ok(out);
            }
            PassStart::Busy => {
                out.busy = true;
                return Ok(out);
            }
            PassStart::Taken(item) => item,
        };
        let (mut after, mut again) = (pass_after(&cursor), cursor.contains_key("again"));
        let time_left = || deadline.map(|d| d.saturating_duration_since(Instant::now()));
        let result: Result<(), StoreError> = async {
            while out.pages < options.max_pages && time_left().is_none_or(|t| t > BOARD_MARGIN) {
                let (found, next) = self.sweep_page(after.clone(), options.page_items).await?;
                out.pages += 1;
                let mut old = Vec::new();
                let mut at = after.clone();
                for (key, what) in found {
                    match what {
                        Found::Old(k) => old.push(k),
                        Found::Board(id) => {
                            out.deleted += self.table.delete_all(&old).await?.items;
                            old.clear();
                            if time_left().is_some_and(|t| t < BOARD_MARGIN) {
                                return self
                                    .checkpoint(&cursor_key, by, at.as_ref(), false, again)
                                    .await;
                            }
                            match self.move_board(&id).await {
                                Err(e) => {
                                    tracing::error!(board = %id, error = %e,
                                        "rank layout migration failed; the next run starts at it");
                                    out.failed = Some(id);
                                    return self
                                        .checkpoint(&cursor_key, by, at.as_ref(), false, again)
                                        .await;
                                }
                                Ok((moved, grouping)) => {
                                    if moved {
                                        out.migrated.push(id.clone());
                                    }
                                    match grouping {
                                        LaneGrouping::Grouped { .. } => out.grouped.push(id),
                                        LaneGrouping::Behind => {
                                            again = true;
                                            out.behind.push(id);
                                        }
                                        LaneGrouping::Skipped => {}
                                    }
                                }
                            }
                        }
                    }
                    at = Some(key);
                }
                out.deleted += self.table.delete_all(&old).await?.items;
                if next.is_none() && again {
                    // A board was left behind: the pass starts over (a later run goes on).
                    return self.checkpoint(&cursor_key, by, None, false, false).await;
                }
                out.done = next.is_none();
                self.checkpoint(&cursor_key, by, next.as_ref(), out.done, again)
                    .await?;
                if out.done {
                    return Ok(());
                }
                after = next;
            }
            Ok(())
        }
        .await;
        if !out.done {
            // The next run may start at once; the lease would otherwise hold it off.
            let _ = self
                .table
                .release_item_lease(&cursor_key, by, "UpdateItem(rank sweep release)")
                .await;
        }
        result.map(|()| out)
    }

    /// Board `id` moved onto the current layout if it is not on it yet (whether it was), then
    /// its lanes grouped.
    async fn move_board(self, id: &BoardId) -> Result<(bool, LaneGrouping), StoreError> {
        let moved = !self.migrate_board(id).await?.is_empty();
        Ok((moved, self.group_lanes(id).await?))
    }

    /// One page of the pass's Scan after `after`: what it found, in order, with each one's key,
    /// and the key the next page starts after (`None` at the end of the table).
    async fn sweep_page(
        self,
        after: Option<Key>,
        limit: Option<u32>,
    ) -> Result<(Vec<(Key, Found)>, Option<Key>), StoreError> {
        let page = self
            .table
            .scan_request()
            .filter_expression(
                "begins_with(pk, :node) OR begins_with(sk, :marker) OR (sk = :meta AND \
                 begins_with(pk, :board) AND #status = :open AND \
                 attribute_not_exists(lanesGrouped) AND \
                 (attribute_not_exists(writeShards) OR writeShards <= :one))",
            )
            .projection_expression("pk, sk")
            .set_limit(limit.map(|l| l.min(i32::MAX as u32) as i32))
            .set_exclusive_start_key(after.as_ref().map(key_item))
            .params(
                Params::new()
                    .name("#status", "status")
                    .value(":node", OLD_NODE_PREFIX)
                    .value(":marker", OLD_MARKER_PREFIX)
                    .value(":meta", entity::METADATA)
                    .value(":board", entity::LEADERBOARD_PREFIX)
                    .value(":open", BoardStatus::Open)
                    // A hot board keeps its lanes apart (`Board::lanes_grouped`).
                    .value(":one", 1u8),
            )?
            .send()
            .await
            .map_err(|e| StoreError::sdk("Scan(rank layout sweep)", e))?;
        let mut found = Vec::new();
        for item in page.items() {
            let key = item_key(item);
            let what = match key.pk.strip_prefix(entity::LEADERBOARD_PREFIX) {
                Some(id) if key.sk == entity::METADATA => match BoardId::parse(id) {
                    Ok(id) => Found::Board(id),
                    Err(_) => continue,
                },
                _ => Found::Old(key.clone()),
            };
            found.push((key, what));
        }
        let next = page.last_evaluated_key.map(|k| item_key(&k));
        Ok((found, next))
    }

    /// Records where the pass goes on (after `at`; from the start when `None`) and whether it
    /// is to start over at the end (`again`), or that it is over, on condition that this run
    /// still holds the lease.
    async fn checkpoint(
        self,
        cursor: &Key,
        by: &str,
        at: Option<&Key>,
        done: bool,
        again: bool,
    ) -> Result<(), StoreError> {
        let (update, params) = match (done, at, again) {
            (true, _, _) => (
                "SET done = :yes REMOVE afterPk, afterSk, again, leaseBy, leaseUntil",
                Params::new().value(":yes", true),
            ),
            (false, Some(at), true) => (
                "SET afterPk = :pk, afterSk = :sk, again = :yes",
                Params::new()
                    .value(":pk", &at.pk)
                    .value(":sk", &at.sk)
                    .value(":yes", true),
            ),
            (false, Some(at), false) => (
                "SET afterPk = :pk, afterSk = :sk REMOVE again",
                Params::new().value(":pk", &at.pk).value(":sk", &at.sk),
            ),
            (false, None, true) => (
                "SET again = :yes REMOVE afterPk, afterSk",
                Params::new().value(":yes", true),
            ),
            (false, None, false) => ("REMOVE afterPk, afterSk, again", Params::new()),
        };
        self.table
            .update_under_lease(
                cursor,
                by,
                update,
                params,
                "UpdateItem(rank sweep checkpoint)",
            )
            .await
    }
}
