//! The erasures job: finishes the player erasures their requests could not
//! ([`Moderation::continue_erasures`](leaderboard_store::Moderation::continue_erasures)).

use serde::Serialize;

use super::{Job, Outcome, Step, StepFuture, boxed};

/// The job.
pub struct ErasuresJob;

/// What it did.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ErasuresOutcome {
    /// Erasures finished by this run.
    pub finished: usize,
}

impl Outcome for ErasuresOutcome {}

impl Job for ErasuresJob {
    fn name(&self) -> &'static str {
        "erasures"
    }

    fn run_step<'a>(&'a self, step: &'a Step<'a>) -> StepFuture<'a> {
        boxed(async move {
            let finished = step
                .app
                .store
                .moderation()
                .continue_erasures(step.now, step.deadline)
                .await?;
            Ok(ErasuresOutcome { finished })
        })
    }
}
