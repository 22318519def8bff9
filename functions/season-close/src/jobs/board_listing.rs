//! The board listing job: the pass that lists the boards stored before the board listing
//! ([`BoardListing::list_old_boards`](leaderboard_store::BoardListing::list_old_boards)).

use leaderboard_keys::ids::BoardId;
use serde::Serialize;

use super::{Job, Outcome, Step, StepFuture, boxed};

/// The job.
pub struct BoardListingJob;

/// What it did.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BoardListingOutcome {
    /// Boards this run listed.
    pub listed: Vec<BoardId>,
    /// Whether the pass is over.
    pub done: bool,
}

impl Outcome for BoardListingOutcome {}

impl Job for BoardListingJob {
    fn name(&self) -> &'static str {
        "boardListing"
    }

    fn run_step<'a>(&'a self, step: &'a Step<'a>) -> StepFuture<'a> {
        boxed(async move {
            let pass = step
                .app
                .store
                .board_listing()
                .list_old_boards(&step.app.listing, step.deadline)
                .await?;
            Ok(BoardListingOutcome {
                listed: pass.listed,
                done: pass.done,
            })
        })
    }
}
