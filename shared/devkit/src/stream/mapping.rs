//! The delivery semantics of a Lambda event source mapping with `ReportBatchItemFailures`:
//! batches, partial batch responses, re-delivery from the first reported failure.

use std::fmt::Display;
use std::time::Duration;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::DynamoDbEventResponse;

use crate::stream::{event, sequence_number};

/// Where an event source mapping resumes after one invocation over `batch`: `None` when the
/// batch succeeded, else the index of the first record to re-deliver.
///
/// The rules of Lambda's `ReportBatchItemFailures`: a function error retries the whole batch;
/// an empty `batchItemFailures` is a success; otherwise Lambda resumes at the reported record
/// with the lowest sequence number, and a failure whose `itemIdentifier` is null, empty or not
/// a sequence number of the batch fails the whole batch.
pub fn checkpoint<E>(
    batch: &[EventRecord],
    result: &Result<DynamoDbEventResponse, E>,
) -> Option<usize> {
    let response = match result {
        Err(_) => return Some(0),
        Ok(r) => r,
    };
    let mut first: Option<usize> = None;
    for failure in &response.batch_item_failures {
        let index = failure
            .item_identifier
            .as_deref()
            .filter(|id| !id.is_empty())
            .and_then(|id| batch.iter().position(|r| sequence_number(r) == Some(id)));
        let Some(index) = index else { return Some(0) };
        first = Some(first.map_or(index, |f| f.min(index)));
    }
    first
}

/// What an [`EventSourceMapping`] did with a list of records.
#[derive(Debug, Clone, Default)]
pub struct Delivery {
    /// Invocations of the function.
    pub invocations: u32,
    /// Invocations that re-delivered records after a failure.
    pub retries: u32,
    /// Records delivered, counting every re-delivery.
    pub records_delivered: usize,
    /// Records given up on after `max_retries` (Lambda would send them to the on-failure
    /// destination).
    pub discarded: Vec<EventRecord>,
}

/// The delivery semantics of a Lambda DynamoDB event source mapping with
/// `FunctionResponseTypes: [ReportBatchItemFailures]`, for tests and the local stack.
#[derive(Debug, Clone)]
pub struct EventSourceMapping {
    /// The most records in one invocation (Lambda's `BatchSize`).
    pub batch_size: usize,
    /// How many times the records from one checkpoint are re-delivered before they are given
    /// up on (Lambda's `MaximumRetryAttempts`). The count starts again whenever the checkpoint
    /// moves forward.
    pub max_retries: u32,
    /// The pause before a re-delivery.
    pub retry_delay: Duration,
}

impl Default for EventSourceMapping {
    /// Batches of 100, up to 10 retries, no pause.
    fn default() -> Self {
        EventSourceMapping {
            batch_size: 100,
            max_retries: 10,
            retry_delay: Duration::ZERO,
        }
    }
}

impl EventSourceMapping {
    /// Delivers `records` in order to `invoke`, in batches of up to `batch_size`. After a
    /// failed invocation the next batch starts at the [`checkpoint`]: the records before it
    /// are done, the failed record and everything after it come again.
    pub async fn deliver<F, Fut, E>(&self, records: &[EventRecord], mut invoke: F) -> Delivery
    where
        F: FnMut(Event) -> Fut,
        Fut: Future<Output = Result<DynamoDbEventResponse, E>>,
        E: Display,
    {
        let batch_size = self.batch_size.max(1);
        let mut report = Delivery::default();
        let mut at = 0;
        let mut retries = 0;
        while at < records.len() {
            let batch = &records[at..(at + batch_size).min(records.len())];
            if retries > 0 {
                report.retries += 1;
                if !self.retry_delay.is_zero() {
                    tokio::time::sleep(self.retry_delay).await;
                }
            }
            report.invocations += 1;
            report.records_delivered += batch.len();
            let result = invoke(event(batch.iter().cloned())).await;
            match checkpoint(batch, &result) {
                None => {
                    at += batch.len();
                    retries = 0;
                }
                Some(index) => {
                    if index > 0 {
                        retries = 0;
                    }
                    at += index;
                    retries += 1;
                    if retries > self.max_retries {
                        let rest = &records[at..(at - index + batch.len())];
                        report.discarded.extend(rest.iter().cloned());
                        at += rest.len();
                        retries = 0;
                    }
                }
            }
        }
        report
    }
}
