//! Reading a stream in order from all its shards, a parent before its children, keeping the
//! position between calls.

use std::cmp::Ordering;

use aws_lambda_events::event::dynamodb::EventRecord;
use aws_sdk_dynamodbstreams::Client;
use aws_sdk_dynamodbstreams::error::{DisplayErrorContext, ProvideErrorMetadata};
use aws_sdk_dynamodbstreams::types::ShardIteratorType;

use crate::DevError;
use crate::local::LOCAL_REGION;
use crate::stream::{
    GET_RECORDS_LIMIT, client, compare_sequence_numbers, sequence_number, stream_arn,
    to_event_record,
};

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
                .collect::<Result<Vec<_>, _>>()
                .map_err(DevError::Dynamo)?;
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
