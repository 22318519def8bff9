//! What one API request reports (docs/operating.md "Metrics"): one `RequestMetrics` line by
//! `FunctionName`, and `Invocations` by `FunctionName` and `Outcome` (`ok`, or the error code
//! the request was answered with). Both functions of this crate write it.

use lambda_http::{Body, Response};
use leaderboard_http::{ApiError, Report};
use leaderboard_metrics::Sink;
use leaderboard_store::freshness::Freshness;
use leaderboard_store::model::RankedEntry;
use metrique::timers::Timer;
use metrique::unit::Millisecond;
use metrique::unit_of_work::metrics;

use crate::Route;

/// One request's entry.
#[metrics(rename_all = "PascalCase", emf::dimension_sets = [["FunctionName"]])]
#[derive(Default)]
pub struct RequestMetrics {
    function_name: String,
    /// Properties, not dimensions: the route's name, and the outcome (`Invocations` carries
    /// it as a dimension).
    route: String,
    outcome: &'static str,
    /// 1 for an answer in the 4xx range.
    client_errors: u64,
    /// 1 for an answer in the 5xx range (503 `unavailable` included).
    server_errors: u64,
    /// Own ranks answered counting every committed change.
    ranks_exact: u64,
    /// Own ranks answered within the rank index's lag (`rankExact: false`).
    ranks_within_lag: u64,
    /// 1 for the first invocation of the Lambda environment.
    cold_start: u64,
    #[metrics(unit = Millisecond)]
    duration: Timer,
}

impl RequestMetrics {
    /// Starts one request's entry for the function called `local` off Lambda; its duration
    /// runs until it is written.
    pub fn start(local: &str, sink: &Sink) -> RequestMetrics {
        RequestMetrics {
            function_name: leaderboard_metrics::function_name(local),
            cold_start: sink.cold_start(),
            duration: Timer::start_now(),
            ..RequestMetrics::default()
        }
    }

    /// The route the request took.
    pub fn route(&mut self, route: Route) {
        self.route = format!("{route:?}");
    }

    /// The own ranks among `entries` (those that say how fresh they are).
    pub fn ranks(&mut self, entries: &[RankedEntry]) {
        self.freshness(entries.iter().filter_map(|e| e.freshness));
    }

    /// Counts answered ranks by their freshness.
    pub fn freshness(&mut self, answered: impl IntoIterator<Item = Freshness>) {
        let (exact, within) = Freshness::tally(answered);
        self.ranks_exact += exact;
        self.ranks_within_lag += within;
    }
}

impl Report for RequestMetrics {
    /// Writes the entry and the outcome's count, for the request's answer.
    fn write(mut self, sink: &Sink, answer: &Result<Response<Body>, ApiError>) {
        let status = match answer {
            Ok(resp) => resp.status(),
            Err(e) => e.status,
        };
        self.outcome = answer.as_ref().err().map_or("ok", |e| e.code);
        self.client_errors = u64::from(status.is_client_error());
        self.server_errors = u64::from(status.is_server_error());
        sink.count_outcome(&self.function_name, self.outcome);
        sink.emit(self);
    }
}
