//! What one season-close run reports (docs/operating.md "Metrics"): one `RunMetrics` line by
//! `FunctionName`, and `Invocations` by `FunctionName` and `Outcome`: `ok`, `partial` (a job
//! failed, or a board's close or an index repair in it; the next run retries it) or `failed`
//! (the run could not even list the due boards).

use leaderboard_keys::ids::BoardId;
use leaderboard_keys::time::Timestamp;
use leaderboard_metrics::Sink;
use metrique::timers::Timer;
use metrique::unit::Millisecond;
use metrique::unit_of_work::metrics;

use crate::RunSummary;
use crate::jobs::rank_repair::RankRepairOutcome;

/// One run's entry.
#[metrics(rename_all = "PascalCase", emf::dimension_sets = [["FunctionName"]])]
#[derive(Default)]
pub struct RunMetrics {
    function_name: String,
    /// A property, not a dimension: `Invocations` carries it as one.
    outcome: &'static str,
    /// Boards past their end when the run began.
    boards_due: u64,
    /// Boards this run finished closing.
    boards_closed: u64,
    /// Boards left part-way at the time limit, resumed by the next run.
    boards_paused: u64,
    /// Boards another run holds the close lease of.
    boards_busy: u64,
    /// Boards whose close failed this time.
    boards_failed: u64,
    /// Rank indexes rebuilt after a lane stopped at a lost change.
    indexes_repaired: u64,
    /// Rank index repairs that failed this time.
    repairs_failed: u64,
    /// How long past its end the oldest due board this run left unclosed is (0 when it closed
    /// them all; absent when the run failed): the close backlog `CloseBacklogAlarm` watches.
    #[metrics(unit = Millisecond)]
    close_backlog_age: Option<u64>,
    /// 1 for the first invocation of the Lambda environment.
    cold_start: u64,
    #[metrics(unit = Millisecond)]
    duration: Timer,
}

impl RunMetrics {
    /// Starts one run's entry; its duration runs until it is written.
    pub fn start(sink: &Sink) -> RunMetrics {
        RunMetrics {
            function_name: leaderboard_metrics::function_name("season-close"),
            cold_start: sink.cold_start(),
            duration: Timer::start_now(),
            ..RunMetrics::default()
        }
    }

    /// Writes the entry and the outcome's count, for what the run did at `now` (`None`: it
    /// failed).
    pub fn write(mut self, sink: &Sink, summary: Option<&RunSummary>, now: Timestamp) {
        self.outcome = match summary {
            None => "failed",
            Some(s) if s.failures() > 0 => "partial",
            Some(_) => "ok",
        };
        if let Some(summary) = summary {
            let s = summary.close();
            self.boards_due = s.due.len() as u64;
            self.boards_closed = s.closed.len() as u64;
            self.boards_paused = s.paused.len() as u64;
            self.boards_busy = s.busy.len() as u64;
            self.boards_failed = s.failed.len() as u64;
            if let Some(repair) = summary.outcome::<RankRepairOutcome>() {
                self.indexes_repaired = repair.repaired.len() as u64;
                self.repairs_failed = repair.failed.len() as u64;
            }
            let closed = |b: &BoardId| s.closed.iter().any(|c| &c.board_id == b);
            self.close_backlog_age = s
                .due
                .iter()
                .filter(|(_, b)| !closed(b))
                .map(|(ends_at, _)| now.as_millis().saturating_sub(ends_at.as_millis()))
                .max()
                .or(Some(0));
        }
        sink.count_outcome(&self.function_name, self.outcome);
        sink.emit(self);
    }
}
