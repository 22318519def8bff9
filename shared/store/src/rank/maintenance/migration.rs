//! Moving an open board stored before the rank index's current layout (no `rankLayout`, or 1)
//! onto it, while plays go on. Three steps, each one write that says it is done, so that a run
//! that dies between two of them is resumed by the next from the board and its root:
//!
//! 1. **Start**, one transaction: every lane of the board gets [`LOGGED_ATTR`], the board
//!    `rankMigrating` (and `rankIndex`), and the board a root marked [`MIGRATING_ATTR`]. From
//!    then on every play records its change on its lane, as on any board of the current layout:
//!    a play that read the board before the start wrote its lane on condition that it was not
//!    logged, so it reads again. The stream consumer keeps the marked root's watermarks at each
//!    lane's latest change and counts nothing ([`absorb`](leaderboard_keys::rank_index::absorb)).
//! 2. **Rebuild**: the live-safe rebuild (`rank_rebuild`) counts the board's entries into a
//!    generation and switches the root to it, watermarks at the lane numbers it settled on; the
//!    changes after those numbers come from the stream and are applied as on any board. The
//!    new root has no mark: that is how a resumed run knows this step is done.
//! 3. **Switch**: the nodes of any generation a rebuild wrote and did not put in service (a
//!    run that died part-way) are deleted, then the board is set to `rankLayout` 2. Its ranks
//!    are read from the index from then on; until then they are counted (exact within the
//!    first 1,000 entries, beyond them not known: `rankLag` says so).
//!
//! A board that is not open (closing, closed) is left alone: a closed board needs no index. A
//! board already on the current layout has nothing to do, so running the migration again costs
//! one board read.

use leaderboard_keys::entity;
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank_index::{
    GENERATION_ATTR, LOGGED_ATTR, MIGRATING_ATTR, RESERVED_ATTR, root_key,
};

use crate::ground::error::CancelReason;
use crate::ground::error::StoreError;
use crate::ground::items::{ItemExt, key_item};
use crate::ground::model::{Board, BoardStatus, RankLayout};
use crate::rank::Rank;
use crate::rank::lanes::LaneKeys;
use crate::rank::maintenance::rebuild::RebuildOutcome;
use crate::table::request::{Params, WithParams};
use crate::table::retry::Retry;

/// A step of a board's migration, done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MigrationStep {
    /// Plays record their changes; the root follows the lanes.
    Started,
    /// The index counts the board's entries.
    Rebuilt(RebuildOutcome),
    /// The board is on the current layout; the generations no rebuild put in service (these
    /// many) are deleted.
    Switched {
        /// Generations whose nodes were deleted.
        generations_cleared: u64,
    },
}

/// Whether `board` is one the migration moves: open, and not on the current layout.
pub fn needs_migration(board: &Board) -> bool {
    board.status == BoardStatus::Open && board.rank_layout != RankLayout::V2
}

impl Rank<'_> {
    /// Moves board `id` onto the current layout (see the module documentation): the steps this
    /// call did, none for a board with nothing to do. Requests: 2 to start (a board read and
    /// a transaction, again on conflicts with plays in flight on its lanes); the rebuild's (see
    /// [`Rank::rebuild_lane_index`]); 2 to switch, and 100 Queries per generation left by a run
    /// that died part-way.
    pub async fn migrate_board(self, id: &BoardId) -> Result<Vec<MigrationStep>, StoreError> {
        let mut steps = Vec::new();
        // Three steps; a start that lost to another run's is read again once.
        for _ in 0..4 {
            match self.migration_step(id).await? {
                Some(step) => steps.push(step),
                None => break,
            }
        }
        Ok(steps)
    }

    /// The next step of board `id`'s migration, done; `None` when there is none to do.
    pub async fn migration_step(self, id: &BoardId) -> Result<Option<MigrationStep>, StoreError> {
        let Some(board) = self.table.board(id).await? else {
            return Ok(None);
        };
        if !needs_migration(&board) {
            return Ok(None);
        }
        if !board.rank_migrating {
            return self.start_migration(&board).await;
        }
        let root = self.table.get_raw(&root_key(id)).await?.unwrap_or_default();
        if root.contains_key(MIGRATING_ATTR) || !root.contains_key(GENERATION_ATTR) {
            let rebuilt = self.rebuild_lane_index(&board).await?;
            return Ok(Some(MigrationStep::Rebuilt(rebuilt)));
        }
        let in_service = root.number::<u64>(GENERATION_ATTR).unwrap_or(0);
        let reserved = root.number::<u64>(RESERVED_ATTR).unwrap_or(0);
        let mut generations_cleared = 0;
        for generation in (1..=reserved).filter(|g| *g != in_service) {
            let mut cleared = RebuildOutcome::default();
            self.clear_generation(id, generation, &mut cleared).await;
            generations_cleared += 1;
        }
        let switched = Retry::ITEM_UPDATE
            .run("switching a migrated board", || async {
                self.table
                    .update_request(
                        &entity::board(id),
                        "SET rankLayout = :layout REMOVE rankMigrating",
                    )
                    .condition_expression("rankMigrating = :yes")
                    .params(
                        Params::new()
                            .value(":layout", u8::from(RankLayout::V2))
                            .value(":yes", true),
                    )?
                    .send()
                    .await
                    .map_err(|e| StoreError::sdk("UpdateItem(board rank layout)", e))
            })
            .await;
        match switched {
            // Another run switched it first.
            Err(e) if e.is_conditional_check_failed() => return Ok(None),
            other => other?,
        };
        Ok(Some(MigrationStep::Switched {
            generations_cleared,
        }))
    }

    /// Step 1: the transaction that starts the migration (see the module documentation),
    /// again while it only meets plays in flight on the lanes. `None` when the board's
    /// condition failed: another run started it, or the board closed.
    async fn start_migration(self, board: &Board) -> Result<Option<MigrationStep>, StoreError> {
        let id = &board.board_id;
        let lanes = LaneKeys::of(board);
        // The place of the board's update in the transaction: after the lanes and the root.
        let board_update = usize::from(lanes.count) + 1;
        let mut tx = Vec::with_capacity(board_update + 1);
        for lane in lanes.lanes() {
            tx.push(self.table.tx_update(
                &lanes.key(lane),
                "SET #log = :yes",
                Params::new().name("#log", LOGGED_ATTR).value(":yes", true),
            )?);
        }
        let mut root = key_item(&root_key(id));
        root.insert(MIGRATING_ATTR.into(), crate::ground::items::n(1u64));
        tx.push(self.table.tx_put(root, None, Params::new())?);
        tx.push(
            self.table.tx_update_if(
                &entity::board(id),
                "SET rankMigrating = :yes, rankIndex = :yes",
                "#status = :open AND attribute_not_exists(rankMigrating) AND \
             (attribute_not_exists(rankLayout) OR rankLayout <> :layout)",
                Params::new()
                    .name("#status", "status")
                    .value(":open", BoardStatus::Open)
                    .value(":yes", true)
                    .value(":layout", u8::from(RankLayout::V2)),
            )?,
        );
        for attempt in Retry::PLAY.attempts() {
            match self
                .table
                .transact(tx.clone(), "TransactWriteItems(rank migration start)")
                .await
            {
                Ok(()) => return Ok(Some(MigrationStep::Started)),
                Err(StoreError::TransactionCanceled { reasons })
                    if reasons.get(board_update) == Some(&CancelReason::ConditionalCheckFailed) =>
                {
                    return Ok(None);
                }
                Err(e) if e.worth_rereading() => {
                    tracing::debug!(attempt, error = %e, "rank migration start met a play; again");
                }
                Err(e) => return Err(e),
            }
            Retry::PLAY.pause(attempt).await;
        }
        Err(Retry::PLAY.exhausted())
    }
}
