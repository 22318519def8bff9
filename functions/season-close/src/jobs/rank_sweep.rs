//! The rank layout sweep job: the one pass that moves boards stored before the rank index's
//! current layout onto it, groups their lanes, rebuilds layout-2 indexes onto the compact
//! layout, and deletes the replaced layout's items
//! ([`Rank::sweep_rank_layout`](leaderboard_store::Rank::sweep_rank_layout)).

use leaderboard_keys::ids::BoardId;
use serde::Serialize;

use super::{Job, Outcome, Step, StepFuture, boxed};

/// The job.
pub struct RankSweepJob;

/// What it did.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RankSweepOutcome {
    /// Boards moved onto the current layout.
    pub migrated: Vec<BoardId>,
    /// A board whose move failed (logged; the next run starts at it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub migration_failed: Option<BoardId>,
    /// Items of the replaced layout deleted.
    pub old_items_deleted: usize,
    /// Boards whose lanes were grouped under one partition key.
    pub lanes_grouped: Vec<BoardId>,
    /// Boards whose index was too far behind to group their lanes (a later pass does).
    pub lanes_behind: Vec<BoardId>,
    /// Boards whose index was rebuilt onto the compact layout.
    pub compacted: Vec<BoardId>,
    /// Whether the pass is over.
    pub done: bool,
}

impl Outcome for RankSweepOutcome {
    fn failures(&self) -> usize {
        usize::from(self.migration_failed.is_some())
    }
}

impl Job for RankSweepJob {
    fn name(&self) -> &'static str {
        "rankSweep"
    }

    fn run_step<'a>(&'a self, step: &'a Step<'a>) -> StepFuture<'a> {
        boxed(async move {
            let sweep = step
                .app
                .store
                .rank()
                .sweep_rank_layout(&step.app.sweep, step.deadline)
                .await?;
            Ok(RankSweepOutcome {
                migrated: sweep.migrated,
                migration_failed: sweep.failed,
                old_items_deleted: sweep.deleted,
                lanes_grouped: sweep.grouped,
                lanes_behind: sweep.behind,
                compacted: sweep.compacted,
                done: sweep.done,
            })
        })
    }
}
