//! The recount job: a recount of players' totals an operator asked for, a bounded piece a run
//! ([`Projection::run_recount`](leaderboard_store::Projection::run_recount)).

use serde::Serialize;

use super::{Job, Outcome, Step, StepFuture, boxed};

/// The job.
pub struct RecountJob;

/// What it did.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecountOutcome {
    /// Players whose totals this run recounted from their sessions.
    pub recounted: u32,
    /// Players left for a later run (they played too recently).
    pub busy: u32,
    /// Whether this run finished the recount asked for.
    pub done: bool,
    /// Whether there was nothing to do: none asked for, or another run holds it.
    pub idle: bool,
}

impl Outcome for RecountOutcome {}

impl Job for RecountJob {
    fn name(&self) -> &'static str {
        "recount"
    }

    fn run_step<'a>(&'a self, step: &'a Step<'a>) -> StepFuture<'a> {
        boxed(async move {
            let run = step
                .app
                .store
                .projection()
                .run_recount(&step.app.recount, step.deadline)
                .await?;
            Ok(RecountOutcome {
                recounted: run.recounted,
                busy: run.busy,
                done: run.done,
                idle: run.idle,
            })
        })
    }
}
