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

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt::Display;
use std::time::Duration;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use aws_sdk_dynamodbstreams::Client;
use aws_sdk_dynamodbstreams::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodbstreams::error::{DisplayErrorContext, ProvideErrorMetadata};
use aws_sdk_dynamodbstreams::types::{AttributeValue, Record, ShardIteratorType};
use serde_json::{Map, Value, json};

use crate::DevError;
use crate::local::LOCAL_REGION;

/// The most records one `GetRecords` call returns.
pub const GET_RECORDS_LIMIT: usize = 1000;

/// A DynamoDB Streams client for the endpoint at `endpoint` (DynamoDB Local serves both APIs on
/// one port), with static test credentials.
pub fn client(endpoint: &str) -> Client {
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(LOCAL_REGION))
        .credentials_provider(Credentials::new("local", "local", None, None, "devkit"))
        .endpoint_url(endpoint)
        .http_client(crate::local::http_client())
        .build();
    Client::from_conf(config)
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

/// Numeric order of two sequence numbers (decimal strings of up to 40 digits, of any length).
pub fn compare_sequence_numbers(a: &str, b: &str) -> Ordering {
    let a = a.trim_start_matches('0');
    let b = b.trim_start_matches('0');
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn item_json(item: Option<&HashMap<String, AttributeValue>>) -> Option<Value> {
    let item = item.filter(|i| !i.is_empty())?;
    let item = serde_dynamo::Item::from(item.clone());
    // An item always serialises: string keys, and values that are DynamoDB JSON.
    serde_json::to_value(item).ok()
}

/// One stream record as the JSON Lambda delivers it. `stream_arn` becomes `eventSourceARN`;
/// `region` is used when the record does not name one.
pub fn lambda_record_json(record: &Record, stream_arn: &str, region: &str) -> Value {
    let mut change = Map::new();
    if let Some(d) = record.dynamodb() {
        if let Some(t) = d.approximate_creation_date_time() {
            // Lambda sends whole seconds.
            change.insert("ApproximateCreationDateTime".into(), json!(t.secs()));
        }
        for (name, item) in [
            ("Keys", d.keys()),
            ("NewImage", d.new_image()),
            ("OldImage", d.old_image()),
        ] {
            if let Some(v) = item_json(item) {
                change.insert(name.into(), v);
            }
        }
        if let Some(seq) = d.sequence_number() {
            change.insert("SequenceNumber".into(), json!(seq));
        }
        change.insert("SizeBytes".into(), json!(d.size_bytes().unwrap_or(0)));
        if let Some(view) = d.stream_view_type() {
            change.insert("StreamViewType".into(), json!(view.as_str()));
        }
    }
    let mut out = Map::new();
    out.insert(
        "eventID".into(),
        json!(record.event_id().unwrap_or_default()),
    );
    out.insert(
        "eventName".into(),
        json!(record.event_name().map(|n| n.as_str()).unwrap_or_default()),
    );
    out.insert(
        "eventVersion".into(),
        json!(record.event_version().unwrap_or("1.1")),
    );
    out.insert(
        "eventSource".into(),
        json!(record.event_source().unwrap_or("aws:dynamodb")),
    );
    out.insert(
        "awsRegion".into(),
        json!(record.aws_region().unwrap_or(region)),
    );
    out.insert("dynamodb".into(), Value::Object(change));
    out.insert("eventSourceARN".into(), json!(stream_arn));
    if let Some(who) = record.user_identity() {
        out.insert(
            "userIdentity".into(),
            json!({
                "type": who.r#type().unwrap_or_default(),
                "principalId": who.principal_id().unwrap_or_default(),
            }),
        );
    }
    Value::Object(out)
}

/// One stream record as the Lambda event record the function receives.
pub fn to_event_record(
    record: &Record,
    stream_arn: &str,
    region: &str,
) -> Result<EventRecord, DevError> {
    serde_json::from_value(lambda_record_json(record, stream_arn, region))
        .map_err(|e| DevError::Dynamo(format!("stream record as a Lambda event: {e}")))
}

/// A Lambda DynamoDB event of `records`.
pub fn event(records: impl IntoIterator<Item = EventRecord>) -> Event {
    let mut event = Event::default();
    event.records = records.into_iter().collect();
    event
}

/// The sequence number of a Lambda event record, if it has one.
pub fn sequence_number(record: &EventRecord) -> Option<&str> {
    record.change.sequence_number.as_deref()
}

/// Where a [`StreamReader`] starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartingPosition {
    /// The oldest record still in the stream.
    TrimHorizon,
    /// The record after this sequence number (a poller's saved position).
    AfterSequenceNumber(String),
}

/// One shard and how far it has been read.
#[derive(Debug, Clone)]
struct ShardState {
    id: String,
    parent: Option<String>,
    start: String,
    end: Option<String>,
    iterator: Option<String>,
    /// The last sequence number read from this shard.
    last: Option<String>,
    /// Read to its end (a closed shard), or wholly before the starting position.
    done: bool,
}

/// Reads a stream's records in order, from all its shards, remembering where it is.
///
/// Records of one shard come in shard order; a child shard is read only once its parent (if
/// still listed) is read to its end, so the records of one key always come in stream order, as
/// Lambda delivers them. DynamoDB Local has one shard per stream.
///
/// Every record comes once: a page's records count as read only once they are returned, and
/// where DynamoDB Local answers `TrimmedDataAccessException` although nothing was trimmed, the
/// reader takes a new iterator only where that provably neither skips nor repeats a record,
/// and otherwise returns the error (see `read_page`).
pub struct StreamReader {
    client: Client,
    stream_arn: String,
    region: String,
    start: StartingPosition,
    shards: Vec<ShardState>,
    last: Option<String>,
}

impl StreamReader {
    /// A reader of the stream `stream_arn` from `start`.
    pub fn new(client: Client, stream_arn: impl Into<String>, start: StartingPosition) -> Self {
        StreamReader {
            client,
            stream_arn: stream_arn.into(),
            region: LOCAL_REGION.to_owned(),
            start,
            shards: Vec::new(),
            last: None,
        }
    }

    /// A reader of `table`'s current stream on the DynamoDB Local at `endpoint`.
    pub async fn for_table(
        endpoint: &str,
        table: &str,
        start: StartingPosition,
    ) -> Result<Self, DevError> {
        let arn = stream_arn(&crate::local::client(endpoint), table).await?;
        Ok(StreamReader::new(client(endpoint), arn, start))
    }

    /// The stream's ARN (the events' `eventSourceARN`).
    pub fn stream_arn(&self) -> &str {
        &self.stream_arn
    }

    /// The sequence number of the last record returned, if any: where a new reader would
    /// resume with [`StartingPosition::AfterSequenceNumber`].
    pub fn last_sequence_number(&self) -> Option<&str> {
        self.last.as_deref()
    }

    /// Up to `max` records that are in the stream now, converted to Lambda event records, in
    /// stream order. Returns fewer (or none) when the reader has caught up; call again later
    /// for more. An error after some records were read ends the call early with those records;
    /// the next call reports it.
    pub async fn read(&mut self, max: usize) -> Result<Vec<EventRecord>, DevError> {
        self.refresh_shards().await?;
        let mut out = Vec::new();
        // Shards that returned an empty page in this call: an open shard that has caught up,
        // or a closed one that needs more calls to reach its end.
        let mut idle: Vec<String> = Vec::new();
        while out.len() < max {
            let Some(i) = (0..self.shards.len()).find(|&i| {
                let s = &self.shards[i];
                !s.done && !idle.contains(&s.id) && self.parent_done(s)
            }) else {
                break;
            };
            let limit = (max - out.len()).min(GET_RECORDS_LIMIT);
            let page = match self.read_page(i, limit).await {
                Ok(page) => page,
                // The records already read in this call are returned, not dropped with the
                // error: their shards have moved past them. The failing shard has kept its
                // position, so the next call meets the error again (unless it was transient).
                Err(_) if !out.is_empty() => break,
                Err(e) => return Err(e),
            };
            if page.is_empty() {
                idle.push(self.shards[i].id.clone());
            }
            out.extend(page);
        }
        if let Some(seq) = out.last().and_then(sequence_number) {
            self.last = Some(seq.to_owned());
        }
        Ok(out)
    }

    /// Every record in the stream now, from where the reader is.
    pub async fn read_to_end(&mut self) -> Result<Vec<EventRecord>, DevError> {
        let mut all = Vec::new();
        loop {
            let page = self.read(usize::MAX).await?;
            if page.is_empty() {
                return Ok(all);
            }
            all.extend(page);
        }
    }

    fn parent_done(&self, shard: &ShardState) -> bool {
        match &shard.parent {
            None => true,
            // A parent no longer listed was trimmed: nothing of it is left to read first.
            Some(p) => self
                .shards
                .iter()
                .find(|s| &s.id == p)
                .is_none_or(|s| s.done),
        }
    }

    /// Lists the stream's shards, adding new ones and noting which have closed.
    async fn refresh_shards(&mut self) -> Result<(), DevError> {
        let mut after: Option<String> = None;
        loop {
            let out = self
                .client
                .describe_stream()
                .stream_arn(&self.stream_arn)
                .set_exclusive_start_shard_id(after.take())
                .send()
                .await
                .map_err(|e| DevError::Dynamo(DisplayErrorContext(e).to_string()))?;
            let Some(desc) = out.stream_description() else {
                break;
            };
            for shard in desc.shards() {
                let Some(id) = shard.shard_id() else { continue };
                let range = shard.sequence_number_range();
                let end = range
                    .and_then(|r| r.ending_sequence_number())
                    .map(str::to_owned);
                if let Some(known) = self.shards.iter_mut().find(|s| s.id == id) {
                    known.end = end;
                    continue;
                }
                let start = range
                    .and_then(|r| r.starting_sequence_number())
                    .unwrap_or("0")
                    .to_owned();
                // A shard that ends at or before the starting position has nothing to read.
                let done = match (&self.start, &end) {
                    (StartingPosition::AfterSequenceNumber(from), Some(end)) => {
                        compare_sequence_numbers(end, from) != Ordering::Greater
                    }
                    _ => false,
                };
                self.shards.push(ShardState {
                    id: id.to_owned(),
                    parent: shard.parent_shard_id().map(str::to_owned),
                    start,
                    end,
                    iterator: None,
                    last: None,
                    done,
                });
            }
            match desc.last_evaluated_shard_id() {
                Some(id) => after = Some(id.to_owned()),
                None => break,
            }
        }
        self.shards
            .sort_by(|a, b| compare_sequence_numbers(&a.start, &b.start));
        Ok(())
    }

    /// Where a fresh iterator for shard `i` starts: after what it last read, else at the
    /// reader's starting position.
    fn position(&self, i: usize) -> Position<'_> {
        let s = &self.shards[i];
        match (&s.last, &self.start) {
            (Some(last), _) => Position::After(last),
            (None, StartingPosition::AfterSequenceNumber(from))
                if compare_sequence_numbers(&s.start, from) != Ordering::Greater =>
            {
                Position::After(from)
            }
            (None, _) => Position::TrimHorizon,
        }
    }

    /// A fresh iterator for shard `i`, at its [`position`](Self::position).
    async fn shard_iterator(&self, i: usize) -> Result<Option<String>, DevError> {
        let req = self
            .client
            .get_shard_iterator()
            .stream_arn(&self.stream_arn)
            .shard_id(&self.shards[i].id);
        let req = match self.position(i) {
            Position::After(seq) => req
                .shard_iterator_type(ShardIteratorType::AfterSequenceNumber)
                .sequence_number(seq),
            Position::TrimHorizon => req.shard_iterator_type(ShardIteratorType::TrimHorizon),
        };
        let out = req
            .send()
            .await
            .map_err(|e| DevError::Dynamo(DisplayErrorContext(e).to_string()))?;
        Ok(out.shard_iterator().map(str::to_owned))
    }

    /// One `GetRecords` page of shard `i`, of at most `limit` records, as Lambda event records.
    /// The shard's position moves only once the whole page has converted.
    ///
    /// A new iterator is taken (at most [`ITERATOR_RENEWALS`] times per page) when
    /// - the iterator expired (`ExpiredIteratorException`, after 15 minutes): a fresh one at
    ///   the same position;
    /// - `TrimmedDataAccessException` answers an iterator at the shard's trim horizon, from
    ///   which nothing has been read yet: a fresh `TRIM_HORIZON` iterator, at the oldest record
    ///   now in the shard. That is what "from the oldest record still in the stream" means,
    ///   and with nothing read from the shard nothing can come twice. This is what DynamoDB
    ///   Local needs: it numbers records from one counter shared by every table of the
    ///   instance (each item change on any table, streamed or not, and each new shard takes a
    ///   number), and an iterator taken while the shard was empty points at the shard's
    ///   `StartingSequenceNumber` (so does every empty page's `NextShardIterator` after it).
    ///   When a write elsewhere took a number between the shard's creation and the table's
    ///   first write, the first record lands past that point, and Local answers `GetRecords`
    ///   with `TrimmedDataAccessException` ("attempted to read past the oldest stream record
    ///   in a shard": it does so whenever the iterator is before the shard's oldest record
    ///   younger than 24 hours), although nothing was trimmed. An iterator taken once the
    ///   shard has a record starts at its oldest record and is not answered so (unless that
    ///   record turns 24 hours old first);
    /// - `TrimmedDataAccessException` answers an iterator after a sequence number (the last
    ///   record read from the shard, or the reader's starting position): one fresh iterator
    ///   after the same sequence number, in case the old one was stale. If that one is answered
    ///   so too, the records after that sequence number really are gone (on DynamoDB, trimmed
    ///   after 24 hours; on Local, the same position again, so the same answer): an error,
    ///   never a silent skip to the oldest record.
    async fn read_page(&mut self, i: usize, limit: usize) -> Result<Vec<EventRecord>, DevError> {
        let mut renewals = 0;
        // Whether the shard's iterator was taken in this call (not a stale one).
        let mut fresh = false;
        loop {
            if self.shards[i].iterator.is_none() {
                let it = self.shard_iterator(i).await?;
                if it.is_none() {
                    self.shards[i].done = true;
                    return Ok(Vec::new());
                }
                self.shards[i].iterator = it;
                fresh = true;
            }
            let iterator = self.shards[i].iterator.clone().unwrap_or_default();
            let result = self
                .client
                .get_records()
                .shard_iterator(iterator)
                .limit(i32::try_from(limit).unwrap_or(i32::MAX))
                .send()
                .await;
            let out = match result {
                Ok(out) => out,
                Err(e) => {
                    let code = e.code().unwrap_or_default().to_owned();
                    let renew = match code.as_str() {
                        "ExpiredIteratorException" => true,
                        "TrimmedDataAccessException" => match self.position(i) {
                            Position::TrimHorizon => true,
                            Position::After(_) => !fresh,
                        },
                        _ => false,
                    };
                    if !renew || renewals == ITERATOR_RENEWALS {
                        let at = match self.position(i) {
                            Position::After(seq) => format!("after sequence number {seq}"),
                            Position::TrimHorizon => "from its trim horizon".to_owned(),
                        };
                        let tried = if renewals == 0 {
                            String::new()
                        } else {
                            format!(" (after {renewals} fresh iterators)")
                        };
                        return Err(DevError::Dynamo(format!(
                            "reading shard {} {at}{tried}: {}",
                            self.shards[i].id,
                            DisplayErrorContext(e)
                        )));
                    }
                    renewals += 1;
                    self.shards[i].iterator = None;
                    continue;
                }
            };
            let records = out
                .records()
                .iter()
                .map(|r| to_event_record(r, &self.stream_arn, &self.region))
                .collect::<Result<Vec<_>, _>>()?;
            let shard = &mut self.shards[i];
            shard.iterator = out.next_shard_iterator().map(str::to_owned);
            if shard.iterator.is_none() {
                shard.done = true;
            }
            if let Some(seq) = records.last().and_then(sequence_number) {
                shard.last = Some(seq.to_owned());
            }
            return Ok(records);
        }
    }
}

/// How many new iterators one [`StreamReader`] page may take after `ExpiredIteratorException`
/// or `TrimmedDataAccessException` before it returns the error.
const ITERATOR_RENEWALS: u32 = 3;

/// Where a fresh iterator for a shard starts.
#[derive(Debug, Clone, Copy)]
enum Position<'a> {
    /// At the oldest record in the shard.
    TrimHorizon,
    /// After this sequence number.
    After(&'a str),
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use aws_lambda_events::event::streams::DynamoDbBatchItemFailure;
    use aws_sdk_dynamodbstreams::primitives::DateTime;
    use aws_sdk_dynamodbstreams::types::{Identity, OperationType, StreamRecord, StreamViewType};

    fn sdk_record(seq: &str, name: OperationType) -> Record {
        let change = StreamRecord::builder()
            .approximate_creation_date_time(DateTime::from_secs(1_767_225_600))
            .keys("pk", AttributeValue::S("PLAYER#p1".into()))
            .keys("sk", AttributeValue::S("#METADATA".into()))
            .new_image("pk", AttributeValue::S("PLAYER#p1".into()))
            .new_image("gamesPlayed", AttributeValue::N("3".into()))
            .new_image(
                "tags",
                AttributeValue::L(vec![AttributeValue::Bool(true), AttributeValue::Null(true)]),
            )
            .sequence_number(seq)
            .size_bytes(42)
            .stream_view_type(StreamViewType::NewAndOldImages)
            .build();
        Record::builder()
            .event_id("e1")
            .event_name(name)
            .event_version("1.1")
            .event_source("aws:dynamodb")
            .aws_region("ddblocal")
            .dynamodb(change)
            .build()
    }

    fn record(seq: &str) -> EventRecord {
        to_event_record(
            &sdk_record(seq, OperationType::Insert),
            "arn:s",
            "us-east-1",
        )
        .unwrap()
    }

    fn failures(ids: &[Option<&str>]) -> DynamoDbEventResponse {
        let mut r = DynamoDbEventResponse::default();
        r.batch_item_failures = ids
            .iter()
            .map(|id| {
                let mut f = DynamoDbBatchItemFailure::default();
                f.item_identifier = id.map(str::to_owned);
                f
            })
            .collect();
        r
    }

    #[test]
    fn converts_to_the_lambda_shape() {
        let json = lambda_record_json(
            &sdk_record("100", OperationType::Insert),
            "arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/x",
            "us-east-1",
        );
        assert_eq!(json["eventName"], "INSERT");
        assert_eq!(json["eventVersion"], "1.1");
        assert_eq!(json["eventSource"], "aws:dynamodb");
        assert_eq!(json["awsRegion"], "ddblocal");
        assert_eq!(
            json["eventSourceARN"],
            "arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/x"
        );
        let d = &json["dynamodb"];
        assert_eq!(d["ApproximateCreationDateTime"], 1_767_225_600);
        assert_eq!(d["Keys"]["pk"], json!({"S": "PLAYER#p1"}));
        assert_eq!(d["NewImage"]["gamesPlayed"], json!({"N": "3"}));
        assert_eq!(
            d["NewImage"]["tags"],
            json!({"L": [{"BOOL": true}, {"NULL": true}]})
        );
        assert!(d.get("OldImage").is_none());
        assert_eq!(d["SequenceNumber"], "100");
        assert_eq!(d["SizeBytes"], 42);
        assert_eq!(d["StreamViewType"], "NEW_AND_OLD_IMAGES");
        assert!(json.get("userIdentity").is_none());

        let r: EventRecord = serde_json::from_value(json).unwrap();
        assert_eq!(r.event_name, "INSERT");
        assert_eq!(r.change.sequence_number.as_deref(), Some("100"));
        assert_eq!(r.change.size_bytes, 42);
        assert_eq!(
            r.change.approximate_creation_date_time.timestamp(),
            1_767_225_600
        );
        assert!(r.change.old_image.is_empty());
    }

    #[test]
    fn keeps_the_ttl_identity() {
        let mut rec = sdk_record("7", OperationType::Remove);
        rec.user_identity = Some(
            Identity::builder()
                .r#type("Service")
                .principal_id("dynamodb.amazonaws.com")
                .build(),
        );
        let r = to_event_record(&rec, "arn:s", "us-east-1").unwrap();
        let who = r.user_identity.unwrap();
        assert_eq!(who.type_, "Service");
        assert_eq!(who.principal_id, "dynamodb.amazonaws.com");
    }

    #[test]
    fn sequence_numbers_compare_numerically() {
        assert_eq!(compare_sequence_numbers("99", "100"), Ordering::Less);
        assert_eq!(compare_sequence_numbers("0100", "100"), Ordering::Equal);
        assert_eq!(compare_sequence_numbers("201", "200"), Ordering::Greater);
    }

    #[test]
    fn checkpoint_follows_lambda() {
        let batch: Vec<_> = ["1", "2", "3", "4"].into_iter().map(record).collect();
        let ok: Result<_, String> = Ok(failures(&[]));
        assert_eq!(checkpoint(&batch, &ok), None);
        let err: Result<DynamoDbEventResponse, _> = Err("boom");
        assert_eq!(checkpoint(&batch, &err), Some(0));
        let two: Result<_, String> = Ok(failures(&[Some("4"), Some("2")]));
        assert_eq!(checkpoint(&batch, &two), Some(1));
        for bad in [None, Some(""), Some("9")] {
            let r: Result<_, String> = Ok(failures(&[Some("3"), bad]));
            assert_eq!(checkpoint(&batch, &r), Some(0), "{bad:?}");
        }
    }

    #[tokio::test]
    async fn delivers_in_batches_and_redelivers_from_the_checkpoint() {
        let records: Vec<_> = (1..=10).map(|i| record(&i.to_string())).collect();
        let esm = EventSourceMapping {
            batch_size: 4,
            max_retries: 2,
            retry_delay: Duration::ZERO,
        };
        let mut seen: Vec<Vec<String>> = Vec::new();
        // Record 6 fails on its first delivery only; record 9 always fails.
        let mut failed_6 = false;
        let report = esm
            .deliver(&records, |e: Event| {
                let seqs: Vec<String> = e
                    .records
                    .iter()
                    .map(|r| sequence_number(r).unwrap().to_owned())
                    .collect();
                seen.push(seqs.clone());
                let mut bad = Vec::new();
                if seqs.iter().any(|s| s == "6") && !failed_6 {
                    failed_6 = true;
                    bad.push(Some("6"));
                }
                if seqs.iter().any(|s| s == "9") {
                    bad.push(Some("9"));
                }
                let r = failures(&bad);
                async move { Ok::<_, String>(r) }
            })
            .await;
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            seen,
            [
                s(&["1", "2", "3", "4"]),
                s(&["5", "6", "7", "8"]),
                s(&["6", "7", "8", "9"]),
                s(&["9", "10"]),
                s(&["9", "10"]),
            ]
        );
        assert_eq!(report.invocations, 5);
        assert_eq!(report.retries, 3);
        let gave_up: Vec<_> = report
            .discarded
            .iter()
            .map(|r| sequence_number(r).unwrap())
            .collect();
        assert_eq!(gave_up, ["9", "10"]);
    }
}
