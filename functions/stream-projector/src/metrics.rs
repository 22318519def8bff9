//! What one stream batch reports (docs/operating.md "Metrics"): one `BatchMetrics` line by `FunctionName`,
//! and `Invocations` by `FunctionName` and `Outcome`: `ok` (nothing to re-deliver), `partial`
//! (some records reported for re-delivery) or `timed_out` (the batch failed whole at its time
//! budget).

use aws_lambda_events::event::dynamodb::EventRecord;
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use leaderboard_keys::time::Timestamp;
use leaderboard_metrics::Sink;
use metrique::timers::Timer;
use metrique::unit::Millisecond;
use metrique::unit_of_work::metrics;

use crate::Projected;
use crate::rank_index::LanePlan;

/// One batch's entry.
#[metrics(rename_all = "PascalCase", emf::dimension_sets = [["FunctionName"]])]
#[derive(Default)]
pub struct BatchMetrics {
    function_name: String,
    /// A property, not a dimension: `Invocations` carries it as one.
    outcome: &'static str,
    /// Records delivered.
    records: u64,
    /// Sessions counted into players' totals now.
    sessions_applied: u64,
    /// Sessions counted before: a re-delivery, skipped by the watermark.
    sessions_replayed: u64,
    /// Records that are not Session INSERTs (other items, MODIFY, REMOVE).
    records_skipped: u64,
    /// Session records that cannot be projected (reported until they go to the dead letters).
    records_poisoned: u64,
    /// Records reported for re-delivery (`batchItemFailures`).
    records_failed: u64,
    /// Changes for the rank index (lane records).
    rank_changes: u64,
    /// Changes of a board's leader published (`NewLeader`); never a player's id, which is no
    /// dimension of any metric.
    leaders_announced: u64,
    /// How old the batch's oldest change was when the batch ended: how far the totals and the
    /// rank index were behind the plays. Absent for a batch without creation times.
    #[metrics(unit = Millisecond)]
    index_lag: Option<u64>,
    /// 1 for the first invocation of the Lambda environment.
    cold_start: u64,
    #[metrics(unit = Millisecond)]
    duration: Timer,
    #[metrics(ignore)]
    oldest_change_ms: Option<i64>,
    #[metrics(ignore)]
    timed_out: bool,
}

impl BatchMetrics {
    /// Starts one batch's entry; its duration runs until it is written.
    pub fn start(sink: &Sink, records: &[EventRecord]) -> BatchMetrics {
        BatchMetrics {
            function_name: leaderboard_metrics::function_name("stream-projector"),
            records: records.len() as u64,
            // A record without a creation time reads as the epoch: left out.
            oldest_change_ms: records
                .iter()
                .map(|r| r.change.approximate_creation_date_time.timestamp_millis())
                .filter(|&ms| ms > 0)
                .min(),
            cold_start: sink.cold_start(),
            duration: Timer::start_now(),
            ..BatchMetrics::default()
        }
    }

    /// The batch's changes for the rank index (its lanes' records).
    pub fn rank_changes(&mut self, lanes: &LanePlan) {
        self.rank_changes = lanes.boards.iter().map(|b| b.changes.len()).sum::<usize>() as u64;
    }

    /// How many `NewLeader` the batch published.
    pub fn leaders_announced(&mut self, count: usize) {
        self.leaders_announced = count as u64;
    }

    /// What the players' totals took from the batch.
    pub fn projected(&mut self, projected: Projected) {
        self.sessions_applied = projected.applied as u64;
        self.sessions_replayed = projected.replayed as u64;
        self.records_skipped = projected.skipped as u64;
        self.records_poisoned = projected.poisoned as u64;
    }

    /// The batch met its time budget and fails whole.
    pub fn timed_out(&mut self) {
        self.timed_out = true;
    }

    /// Writes the entry and the outcome's count, for the batch's answer.
    pub fn write(mut self, sink: &Sink, response: &DynamoDbEventResponse) {
        self.records_failed = response.batch_item_failures.len() as u64;
        self.outcome = match (self.timed_out, self.records_failed) {
            (true, _) => "timed_out",
            (false, 0) => "ok",
            (false, _) => "partial",
        };
        let now = i64::try_from(Timestamp::now().as_millis()).unwrap_or(i64::MAX);
        self.index_lag = self
            .oldest_change_ms
            .map(|oldest| now.saturating_sub(oldest).max(0) as u64);
        sink.count_outcome(&self.function_name, self.outcome);
        sink.emit(self);
    }
}
