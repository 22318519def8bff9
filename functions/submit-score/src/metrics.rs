//! What one submission reports (docs/operating.md "Metrics"): one `PlayMetrics` line by `FunctionName`,
//! and `Invocations` by `FunctionName` and `Outcome` (`accepted`, `duplicate`, or the error
//! code the play was refused with).

use lambda_http::{Body, Response};
use leaderboard_http::{ApiError, Report};
use leaderboard_metrics::Sink;
use leaderboard_store::PlayOutcome;
use leaderboard_store::freshness::Freshness;
use metrique::timers::Timer;
use metrique::unit::Millisecond;
use metrique::unit_of_work::metrics;

/// One submission's entry.
#[metrics(rename_all = "PascalCase", emf::dimension_sets = [["FunctionName"]])]
#[derive(Default)]
pub struct PlayMetrics {
    function_name: String,
    /// A property, not a dimension: `Invocations` carries it as one.
    outcome: &'static str,
    /// 1 for a play written now.
    accepted: u64,
    /// 1 for a repeated `sessionId`: nothing written, the first outcome answered.
    duplicates: u64,
    /// 1 for a play refused (any error answer, 503 included).
    refused: u64,
    /// The boards the play was posted to.
    boards: u64,
    /// The entries it improved: Score items written.
    entries_changed: u64,
    /// Read-decide-write attempts: above 1 only when other writes to the same items raced it.
    attempts: u64,
    /// Ranks answered counting every committed change.
    ranks_exact: u64,
    /// Ranks answered within the index's lag.
    ranks_within_lag: u64,
    /// 1 for the first invocation of the Lambda environment.
    cold_start: u64,
    #[metrics(unit = Millisecond)]
    duration: Timer,
}

impl PlayMetrics {
    /// Starts one submission's entry; its duration runs until it is written.
    pub fn start(sink: &Sink) -> PlayMetrics {
        PlayMetrics {
            function_name: leaderboard_metrics::function_name("submit-score"),
            cold_start: sink.cold_start(),
            duration: Timer::start_now(),
            ..PlayMetrics::default()
        }
    }

    /// What the store did for an accepted or repeated play.
    pub fn recorded(&mut self, outcome: &PlayOutcome) {
        let boards = &outcome.session.outcomes;
        self.boards = boards.len() as u64;
        self.attempts = u64::from(outcome.attempts);
        if outcome.duplicate {
            self.duplicates = 1;
        } else {
            self.accepted = 1;
            self.entries_changed = boards.iter().filter(|b| b.improved).count() as u64;
        }
        (self.ranks_exact, self.ranks_within_lag) =
            Freshness::tally(boards.iter().filter_map(|b| b.freshness));
    }
}

impl Report for PlayMetrics {
    /// Writes the entry and the outcome's count, for the answer the play got.
    fn write(mut self, sink: &Sink, answer: &Result<Response<Body>, ApiError>) {
        self.outcome = match answer {
            Ok(_) if self.duplicates == 1 => "duplicate",
            Ok(_) => "accepted",
            Err(e) => {
                self.refused = 1;
                self.accepted = 0;
                self.duplicates = 0;
                e.code
            }
        };
        sink.count_outcome(&self.function_name, self.outcome);
        sink.emit(self);
    }
}
