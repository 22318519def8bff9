//! The rank index repair job: rebuilds the rank indexes whose lanes stopped at a lost change
//! ([`Rank::repair_rank_indexes`](leaderboard_store::Rank::repair_rank_indexes)).

use leaderboard_keys::ids::BoardId;
use serde::Serialize;

use super::{Job, Outcome, Step, StepFuture, boxed};

/// The job.
pub struct RankRepairJob;

/// What it did.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RankRepairOutcome {
    /// Boards whose rank index was rebuilt.
    pub repaired: Vec<BoardId>,
    /// Boards whose repair failed this time (logged; retried by the next run).
    pub failed: Vec<BoardId>,
    /// Boards another run was repairing (it holds their request's lease), left to it.
    pub busy: Vec<BoardId>,
    /// Boards whose rebuild the next run carries on from its checkpoint.
    pub continuing: Vec<BoardId>,
}

impl Outcome for RankRepairOutcome {
    fn failures(&self) -> usize {
        self.failed.len()
    }
}

impl Job for RankRepairJob {
    fn name(&self) -> &'static str {
        "rankRepair"
    }

    fn run_step<'a>(&'a self, step: &'a Step<'a>) -> StepFuture<'a> {
        boxed(async move {
            let repair = step
                .app
                .store
                .rank()
                .repair_rank_indexes(step.now, &step.app.repair, step.deadline)
                .await?;
            Ok(RankRepairOutcome {
                repaired: repair.rebuilt.into_iter().map(|(b, _)| b).collect(),
                failed: repair.failed,
                busy: repair.busy,
                continuing: repair.continuing,
            })
        })
    }
}
