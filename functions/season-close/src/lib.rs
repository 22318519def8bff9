//! The season-close function, the stack's maintenance worker, run by an EventBridge schedule:
//! each run works a list of jobs ([`jobs::jobs`]), each one bounded step that stops a safe
//! margin before the Lambda time limit and is taken up by the next run. Closing the boards whose
//! `endsAt` has passed comes first ([`jobs::close`]); then, with the time left, the rank index
//! repairs, the pass onto the rank index's current layout, the pass that lists boards stored
//! before the board listing, the erasures their requests could not finish, and a recount an
//! operator asked for. The run's answer is one outcome per job ([`RunSummary`]).
//!
//! Settings (environment): `CLOSE_RETENTION_DAYS` (how long archived live items are kept,
//! default 30) and `CLOSE_PAGE_SIZE` (entries per snapshot page, default 500).

pub mod jobs;
pub mod metrics;

use std::time::{Duration, Instant};

use lambda_runtime::{Error, LambdaEvent};
use leaderboard_events::Publisher;
use leaderboard_keys::time::{Timestamp, time_left};
use leaderboard_metrics::Sink;
use leaderboard_store::{
    CloseOptions, DEFAULT_RETENTION_DAYS, ListingPassOptions, RecountRunOptions, RepairOptions,
    Store, StoreError, SweepOptions,
};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

pub use crate::jobs::close::{CloseOutcome, ClosedBoard, PAGES_PER_TURN, PausedBoard};
use crate::jobs::{Job, NotRun, Reported, Step};
use crate::metrics::RunMetrics;

/// How long before the Lambda deadline the function stops starting new pages.
pub const DEADLINE_MARGIN: Duration = Duration::from_secs(15);

/// The function's state.
pub struct App {
    store: Store,
    options: CloseOptions,
    jobs: Vec<Box<dyn Job>>,
    /// How the rank index repair picks its boards.
    pub repair: RepairOptions,
    /// How much of a recount a run does.
    pub recount: RecountRunOptions,
    /// How much of the pass onto the rank index's current layout a run does.
    pub sweep: SweepOptions,
    /// How much of the pass that lists boards stored before the board listing a run does.
    pub listing: ListingPassOptions,
    clock: fn() -> Timestamp,
    metrics: Sink,
    /// Where `BoardClosed` goes (nowhere by default).
    publisher: Publisher,
}

impl App {
    /// The function over `store` with these options.
    pub fn new(store: Store, options: CloseOptions) -> App {
        App {
            store,
            options,
            jobs: jobs::jobs(),
            repair: RepairOptions::default(),
            recount: RecountRunOptions::default(),
            sweep: SweepOptions::default(),
            listing: ListingPassOptions::default(),
            clock: Timestamp::now,
            metrics: Sink::stdout(),
            publisher: Publisher::Off,
        }
    }

    /// The same, publishing `BoardClosed` with `publisher` for every board it closes.
    pub fn with_publisher(self, publisher: Publisher) -> App {
        App { publisher, ..self }
    }

    /// The same, its metrics to `sink`.
    pub fn with_metrics(self, sink: Sink) -> App {
        App {
            metrics: sink,
            ..self
        }
    }

    /// The function over `store`, configured from `CLOSE_RETENTION_DAYS` and `CLOSE_PAGE_SIZE`.
    pub fn from_env(store: Store) -> Result<App, Error> {
        let number = |name: &str, default: u64, max: u64| -> Result<u64, Error> {
            match std::env::var(name) {
                Err(_) => Ok(default),
                Ok(v) => v
                    .parse::<u64>()
                    .ok()
                    .filter(|n| (1..=max).contains(n))
                    .ok_or_else(|| format!("{name} must be an integer from 1 to {max}").into()),
            }
        };
        let options = CloseOptions {
            retention_days: number("CLOSE_RETENTION_DAYS", DEFAULT_RETENTION_DAYS, 3650)?,
            page_size: number("CLOSE_PAGE_SIZE", 500, 1000)? as usize,
            ..CloseOptions::default()
        };
        Ok(App::new(store, options))
    }
}

/// What one run did: one outcome per job, in the order they ran.
#[derive(Debug, Default)]
pub struct RunSummary {
    outcomes: Vec<(&'static str, Box<dyn Reported>)>,
}

impl RunSummary {
    /// The outcome of type `O` (its job's), if its job ran.
    pub fn outcome<O: 'static>(&self) -> Option<&O> {
        self.outcomes
            .iter()
            .find_map(|(_, o)| o.as_any().downcast_ref::<O>())
    }

    /// The close job's outcome (no board closed when it did not run).
    pub fn close(&self) -> &CloseOutcome {
        static NONE: CloseOutcome = CloseOutcome::NONE;
        self.outcome().unwrap_or(&NONE)
    }

    /// What failed this run, over every job (the next run retries it).
    pub fn failures(&self) -> usize {
        self.outcomes.iter().map(|(_, o)| o.failures()).sum()
    }

    /// The jobs' names with their outcomes, as the answer shows them.
    pub fn answers(&self) -> impl Iterator<Item = (&'static str, Value)> + '_ {
        self.outcomes.iter().map(|(name, o)| (*name, o.answer()))
    }
}

/// `{"<job>": <its outcome>, ...}`; the close job's `closed`, `paused`, `failed` and `busy`
/// also at the top, where readers of the answer from before the jobs found them.
impl Serialize for RunSummary {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let close = self.close();
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("closed", &close.closed)?;
        map.serialize_entry("paused", &close.paused)?;
        map.serialize_entry("failed", &close.failed)?;
        if !close.busy.is_empty() {
            map.serialize_entry("busy", &close.busy)?;
        }
        for (name, answer) in self.answers() {
            map.serialize_entry(name, &answer)?;
        }
        map.end()
    }
}

/// Handles one scheduled invocation (any payload: the schedule's event is not needed).
pub async fn handle(app: &App, event: LambdaEvent<Value>) -> Result<RunSummary, Error> {
    // `DEADLINE_MARGIN` before the invocation's deadline, if it has one.
    let deadline = time_left(event.context.deadline)
        .map(|left| Instant::now() + left.saturating_sub(DEADLINE_MARGIN));
    let metrics = RunMetrics::start(&app.metrics);
    let summary = run(app, deadline).await;
    metrics.write(&app.metrics, summary.as_ref().ok(), (app.clock)());
    Ok(summary?)
}

/// Works every job, one step each, stopping at `deadline`.
pub async fn run(app: &App, deadline: Option<Instant>) -> Result<RunSummary, StoreError> {
    let step = Step {
        app,
        now: (app.clock)(),
        deadline,
    };
    let mut summary = RunSummary::default();
    for job in &app.jobs {
        let outcome = if !step.has_time() {
            Box::new(NotRun::Skipped)
        } else {
            match job.run_step(&step).await {
                Ok(outcome) => outcome,
                Err(e) if job.required() => return Err(e),
                Err(e) => {
                    tracing::error!(job = job.name(), error = %e, "job failed; the next run goes on");
                    Box::new(NotRun::failed(&e)) as Box<dyn Reported>
                }
            }
        };
        summary.outcomes.push((job.name(), outcome));
    }
    Ok(summary)
}
