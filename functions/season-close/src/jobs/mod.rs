//! The maintenance worker's jobs. Each scheduled run works them in [`jobs`]' order, each for
//! one bounded step that stops at the run's deadline and is taken up by the next run: the
//! erasure key check (one read) and closing the boards that are due first (the function's first
//! duty), then the self-healing and migration work. A job is a [`Job`] in a file of its own, with its own outcome; the run's
//! answer is one outcome per job ([`crate::RunSummary`]). Adding a job is its file and one line
//! in [`jobs`].

pub mod board_listing;
pub mod close;
pub mod erasures;
pub mod key_check;
pub mod rank_repair;
pub mod rank_sweep;
pub mod recount;
pub mod reward_events;

use std::any::Any;
use std::fmt::Debug;
use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

use leaderboard_keys::time::Timestamp;
use leaderboard_store::StoreError;
use serde::Serialize;
use serde_json::Value;

use crate::App;

/// The jobs, in the order a run works them.
pub fn jobs() -> Vec<Box<dyn Job>> {
    vec![
        Box::new(key_check::KeyCheckJob),
        Box::new(close::CloseJob),
        Box::new(rank_repair::RankRepairJob),
        Box::new(rank_sweep::RankSweepJob),
        Box::new(board_listing::BoardListingJob),
        Box::new(erasures::ErasuresJob),
        Box::new(recount::RecountJob),
    ]
}

/// What a job's step works with: the function, the run's time, and its deadline.
pub struct Step<'a> {
    /// The function: its store, options and publisher.
    pub app: &'a App,
    /// The time the run started at.
    pub now: Timestamp,
    /// When the run stops starting work (`None`: a run without a time limit).
    pub deadline: Option<Instant>,
}

impl Step<'_> {
    /// Whether the deadline has not passed.
    pub fn has_time(&self) -> bool {
        self.deadline.is_none_or(|d| Instant::now() < d)
    }
}

/// A job's step, as a future the run awaits.
pub type StepFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Box<dyn Reported>, StoreError>> + Send + 'a>>;

/// One job of the maintenance worker.
pub trait Job: Send + Sync {
    /// Its name: its outcome's key in the run's answer.
    fn name(&self) -> &'static str;

    /// One bounded step, stopping at `step.deadline`; what it did.
    fn run_step<'a>(&'a self, step: &'a Step<'a>) -> StepFuture<'a>;

    /// Whether the run fails when this job's step does (its schedule's invocation then fails,
    /// and its alarm fires); any other job's failure is its outcome's, and the run goes on.
    fn required(&self) -> bool {
        false
    }
}

/// A job's outcome.
pub trait Outcome: Serialize + Debug + Send + Sync + 'static {
    /// What in it failed this time (logged; the next run retries it).
    fn failures(&self) -> usize {
        0
    }
}

/// An outcome as the run keeps it: its answer, its failures, and itself to read back.
pub trait Reported: Debug + Send + Sync {
    /// The outcome as the run's answer shows it.
    fn answer(&self) -> Value;
    /// [`Outcome::failures`].
    fn failures(&self) -> usize;
    /// The outcome, to read back as its own type.
    fn as_any(&self) -> &dyn Any;
}

impl<T: Outcome> Reported for T {
    fn answer(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    fn failures(&self) -> usize {
        Outcome::failures(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The outcome of a job that did not run, or whose step failed.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum NotRun {
    /// The run's time was up before its turn.
    Skipped,
    /// Its step failed (logged; the next run goes on with it).
    Failed(String),
}

impl Outcome for NotRun {
    fn failures(&self) -> usize {
        match self {
            NotRun::Skipped => 0,
            NotRun::Failed(_) => 1,
        }
    }
}

impl NotRun {
    /// A step's failure, briefly: a DynamoDB error by its operation and code (the log has
    /// the whole error).
    pub fn failed(e: &StoreError) -> NotRun {
        NotRun::Failed(match e {
            StoreError::Dynamo {
                code: Some(code),
                operation,
                ..
            } => format!("DynamoDB {operation}: {code}"),
            other => other.to_string(),
        })
    }
}

/// `step` boxed as a job's step, its outcome as the run keeps it.
pub fn boxed<'a, O: Outcome>(
    step: impl Future<Output = Result<O, StoreError>> + Send + 'a,
) -> StepFuture<'a> {
    Box::pin(async move { step.await.map(|o| Box::new(o) as Box<dyn Reported>) })
}
