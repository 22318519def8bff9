//! The table's stream as a Lambda function sees it, on DynamoDB Local: read the real stream with
//! the DynamoDB Streams API, convert its records into the Lambda event shape
//! (`aws_lambda_events::event::dynamodb::Event`), and deliver them the way an event source
//! mapping does (batches of up to N records, partial batch responses, re-delivery from the first
//! reported failure).
//!
//! - [`StreamReader`]: records in stream order from every shard of a stream (a parent shard
//!   before its children), from `TRIM_HORIZON` or after a given sequence number, keeping its
//!   position between calls so that a poller can call it again and again.
//! - [`lambda_record_json`] / [`to_event_record`]: one SDK record as the JSON Lambda delivers
//!   (`eventID`, `eventName`, `eventVersion`, `eventSource`, `awsRegion`, `eventSourceARN`,
//!   `dynamodb: {ApproximateCreationDateTime, Keys, NewImage, OldImage, SequenceNumber,
//!   SizeBytes, StreamViewType}`, and `userIdentity` for TTL deletions), attribute values in
//!   DynamoDB JSON.
//! - [`EventSourceMapping`]: the delivery semantics of a Lambda event source mapping with
//!   `ReportBatchItemFailures`, over records already read, and [`checkpoint`], its rule for
//!   where to resume after one invocation.

mod mapping;
mod reader;
#[cfg(test)]
mod tests;

pub use leaderboard_projection::stream_record::{
    compare_sequence_numbers, event, lambda_record_json, sequence_number, to_event_record,
};
pub use mapping::{Delivery, EventSourceMapping, checkpoint};
pub use reader::{StartingPosition, StreamReader};

use aws_sdk_dynamodbstreams::Client;
use aws_sdk_dynamodbstreams::error::DisplayErrorContext;

use crate::DevError;

/// The most records one `GetRecords` call returns.
pub const GET_RECORDS_LIMIT: usize = 1000;

/// A DynamoDB Streams client for the endpoint at `endpoint` (DynamoDB Local serves both APIs on
/// one port), with static test credentials.
pub fn client(endpoint: &str) -> Client {
    crate::loopback_client!(aws_sdk_dynamodbstreams, endpoint)
}

/// The ARN of `table`'s current stream (DescribeTable's `LatestStreamArn`).
pub async fn stream_arn(
    dynamodb: &aws_sdk_dynamodb::Client,
    table: &str,
) -> Result<String, DevError> {
    let out = dynamodb
        .describe_table()
        .table_name(table)
        .send()
        .await
        .map_err(|e| DevError::Dynamo(DisplayErrorContext(e).to_string()))?;
    out.table()
        .and_then(|t| t.latest_stream_arn())
        .map(str::to_owned)
        .ok_or_else(|| DevError::Dynamo(format!("table {table} has no stream")))
}
