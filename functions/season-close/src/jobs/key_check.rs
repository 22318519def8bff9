//! The erasure key check job: keeps the table's check of the erasure secret (`lbctl` compares
//! its own with it), written by the first run after a deploy. A check made with another secret
//! is logged, never replaced, and stops nothing else.

use leaderboard_store::KeyCheck;
use serde::Serialize;

use super::{Job, Outcome, Step, StepFuture, boxed};

/// The job.
pub struct KeyCheckJob;

/// What it found.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyCheckOutcome {
    /// Whether the table's check was made with this stack's secret.
    pub matches: bool,
}

impl Outcome for KeyCheckOutcome {}

impl Job for KeyCheckJob {
    fn name(&self) -> &'static str {
        "keyCheck"
    }

    fn run_step<'a>(&'a self, step: &'a Step<'a>) -> StepFuture<'a> {
        boxed(async move {
            let found = step.app.store.moderation().keep_erasure_key_check().await?;
            if found == KeyCheck::Differs {
                tracing::error!(
                    "the table's erasure key check was made with another ERASURE_SECRET: \
                     pseudonyms and erasure markers from before do not match this stack's secret"
                );
            }
            Ok(KeyCheckOutcome {
                matches: found != KeyCheck::Differs,
            })
        })
    }
}
