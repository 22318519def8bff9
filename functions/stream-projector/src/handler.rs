//! The Lambda handler: one stream batch in, its failed records out, and its metrics line.

use aws_lambda_events::event::dynamodb::Event;
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use lambda_runtime::{Error, LambdaEvent};
use leaderboard_keys::time::Timestamp;
use leaderboard_metrics::Sink;

use crate::metrics::BatchMetrics;
use crate::{LaneIndex, Projection, budget, failure, project_counted, rank_index};

/// The Lambda handler: one stream batch in, its failed records out. The batch's Session
/// INSERTs go to the players' totals ([`crate::project`]) and its lanes' changes to the rank
/// index ([`rank_index::index`]), side by side; the failures of both are reported. Its metrics
/// go to standard output.
pub async fn handle<P: Projection + LaneIndex>(
    store: &P,
    event: LambdaEvent<Event>,
) -> Result<DynamoDbEventResponse, Error> {
    handle_measured(store, &Sink::stdout(), event).await
}

/// [`handle`], its metrics to `sink`.
pub async fn handle_measured<P: Projection + LaneIndex>(
    store: &P,
    sink: &Sink,
    event: LambdaEvent<Event>,
) -> Result<DynamoDbEventResponse, Error> {
    let records = event.payload.records;
    let mut metrics = BatchMetrics::start(sink, &records);
    // Stream order: the first record with a sequence number is the batch's lowest.
    let first = records
        .iter()
        .find_map(|r| r.change.sequence_number.clone());
    let budget = budget::budget(event.context.deadline);
    let lanes = rank_index::plan(&records);
    metrics.rank_changes(&lanes);
    let work = async {
        futures::join!(
            project_counted(store, records, Timestamp::now()),
            rank_index::index(store, &lanes)
        )
    };
    let response = match tokio::time::timeout(budget, work).await {
        Ok(((mut response, projected), indexed)) => {
            response.batch_item_failures.extend(indexed.failures);
            metrics.projected(projected);
            metrics.leaders_announced(indexed.leaders_announced);
            response
        }
        Err(_) => {
            // Whatever was applied is recognised on the re-delivery (see "Exactly once").
            tracing::warn!(
                ?budget,
                "out of time before the deadline; the batch fails whole"
            );
            metrics.timed_out();
            let mut response = DynamoDbEventResponse::default();
            response.batch_item_failures.push(failure(first));
            response
        }
    };
    metrics.write(sink, &response);
    Ok(response)
}
