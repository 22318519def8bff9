//! `lbctl replay-dlq`: the stream batches the projector gave up on, re-delivered to the
//! projection. Each message of the dead-letter queue (`ProjectorFailures`) is the event source
//! mapping's failure record: it names a shard and a range of sequence numbers, not the records.
//! The replay reads that range from the stream (`GetShardIterator` at the first, `GetRecords`
//! to the last) and applies it as the projector does, then deletes the message; a message whose
//! batch cannot be read or still fails stays in the queue (visible again at once), with the
//! reason printed.
//!
//! **Exactly once.** A session is counted once by the projection's watermark: one at or below
//! its player's watermark is skipped. But the mapping goes on past a batch it gave up on, so a
//! player who played since has a watermark past the lost sessions, and skipping them would
//! lose them: such a player (any with a session skipped) is recounted from their sessions
//! instead, which is exact whatever was counted before (`Projection::recount_player`). The lanes'
//! changes go to the rank index through its own watermarks, and a lane that passed a lost
//! change has already asked for its repair. So replaying a message twice, or two replays at
//! once, count each session once.
//!
//! **Bounds.** At most `--max-messages` a run, 10 a `ReceiveMessage`; a message's batch is at
//! most the mapping's batch size (1,000 records): at most 100 `GetRecords` pages.

use std::collections::HashSet;
use std::io::Write;

use aws_config::SdkConfig;
use aws_sdk_dynamodbstreams::types::ShardIteratorType;
use aws_sdk_sqs::types::Message;
use clap::Args;
use leaderboard_events::Publisher;
use leaderboard_keys::time::Timestamp;
use leaderboard_projection::stream_record::{compare_sequence_numbers, to_event_record};
use leaderboard_projection::{Announcing, rank_index};
use leaderboard_store::Store;
use serde::{Deserialize, Serialize};

use crate::error::{CtlError, CtlResult};
use crate::recount;

/// `replay-dlq`'s arguments.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The dead-letter queue's URL: the stack's ProjectorFailures queue.
    #[arg(long, env = "LBCTL_DLQ_URL")]
    pub queue: String,
    /// Say what each message holds; apply and delete nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Messages replayed at most in this run.
    #[arg(long, default_value_t = 100)]
    pub max_messages: usize,
    /// SQS's endpoint (an SQS server on loopback in tests); AWS's by default.
    #[arg(long, env = "AWS_ENDPOINT_URL_SQS")]
    pub sqs_endpoint_url: Option<String>,
}

/// How long a message read stays hidden from other readers while it is replayed.
const VISIBILITY_SECS: i32 = 300;

/// `GetRecords` pages read at most for one message's batch.
const MAX_PAGES: usize = 100;

/// The part of the mapping's failure record the replay reads.
#[derive(Deserialize)]
struct FailureRecord {
    #[serde(rename = "DDBStreamBatchInfo")]
    batch: BatchInfo,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BatchInfo {
    shard_id: String,
    start_sequence_number: String,
    end_sequence_number: String,
    stream_arn: String,
}

/// What became of one message.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Replayed {
    /// The SQS message.
    pub message_id: String,
    /// The shard and the first and last sequence numbers of its batch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch: Option<String>,
    /// Records read from the stream.
    pub records: usize,
    /// Session INSERTs among them.
    pub sessions: usize,
    /// Lane changes among them.
    pub lane_changes: usize,
    /// Players recounted (a session of theirs was below their watermark).
    pub recounted: Vec<String>,
    /// `applied` (and deleted), `dry run`, or `failed` (it stays in the queue).
    pub outcome: &'static str,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Replays the queue's messages as asked; messages left failed are exit code 4.
pub async fn run(
    store: &Store,
    sdk: &SdkConfig,
    args: ReplayArgs,
    out: &mut dyn Write,
    json: bool,
) -> CtlResult {
    let mut sqs = aws_sdk_sqs::config::Builder::from(sdk);
    if let Some(e) = &args.sqs_endpoint_url {
        sqs = sqs.endpoint_url(e);
    }
    let sqs = aws_sdk_sqs::Client::from_conf(sqs.build());
    let streams = aws_sdk_dynamodbstreams::Client::new(sdk);
    // A change of a board's leader the failed batch made is published as the projector would
    // have, to the bus `EVENT_BUS_NAME` names (none: not published).
    let target = Announcing::new(store.clone(), Publisher::from_env(sdk));
    let region = sdk.region().map_or("us-east-1", |r| r.as_ref()).to_owned();
    let sqs_error = |what: &str, e: &dyn std::fmt::Display| {
        CtlError::Failed(format!("SQS {what} on {}: {e}", args.queue))
    };
    let mut done: Vec<Replayed> = Vec::new();
    let mut seen = HashSet::new();
    while done.len() < args.max_messages {
        let want = (args.max_messages - done.len()).min(10) as i32;
        let got = sqs
            .receive_message()
            .queue_url(&args.queue)
            .max_number_of_messages(want)
            .visibility_timeout(VISIBILITY_SECS)
            .send()
            .await
            .map_err(|e| {
                sqs_error(
                    "ReceiveMessage",
                    &aws_sdk_sqs::error::DisplayErrorContext(e),
                )
            })?;
        let (messages, again): (Vec<Message>, Vec<Message>) = got
            .messages
            .unwrap_or_default()
            .into_iter()
            .partition(|m| seen.insert(m.message_id.clone().unwrap_or_default()));
        // A message this run left is back: visible again at once, for the next run.
        for m in &again {
            show(&sqs, &args.queue, m)
                .await
                .map_err(|e| sqs_error("ChangeMessageVisibility", &e))?;
        }
        if messages.is_empty() {
            break;
        }
        for m in messages {
            let replayed = replay_one(&target, &streams, &region, &m, args.dry_run).await?;
            let receipt = m.receipt_handle.clone().unwrap_or_default();
            if replayed.outcome == "applied" {
                sqs.delete_message()
                    .queue_url(&args.queue)
                    .receipt_handle(receipt)
                    .send()
                    .await
                    .map_err(|e| {
                        sqs_error("DeleteMessage", &aws_sdk_sqs::error::DisplayErrorContext(e))
                    })?;
            } else {
                // Left for the next run (or another reader) at once.
                show(&sqs, &args.queue, &m)
                    .await
                    .map_err(|e| sqs_error("ChangeMessageVisibility", &e))?;
            }
            done.push(replayed);
        }
    }
    write(out, &done, json)
}

/// Makes `m` visible again at once.
async fn show(sqs: &aws_sdk_sqs::Client, queue: &str, m: &Message) -> Result<(), String> {
    sqs.change_message_visibility()
        .queue_url(queue)
        .receipt_handle(m.receipt_handle.clone().unwrap_or_default())
        .visibility_timeout(0)
        .send()
        .await
        .map(|_| ())
        .map_err(|e| aws_sdk_sqs::error::DisplayErrorContext(e).to_string())
}

/// Reads and (unless `dry_run`) applies one message's batch.
async fn replay_one(
    target: &Announcing,
    streams: &aws_sdk_dynamodbstreams::Client,
    region: &str,
    m: &Message,
    dry_run: bool,
) -> CtlResult<Replayed> {
    let store = target.store();
    let mut r = Replayed {
        message_id: m.message_id.clone().unwrap_or_default(),
        outcome: "failed",
        ..Replayed::default()
    };
    let info = match serde_json::from_str::<FailureRecord>(m.body().unwrap_or_default()) {
        Ok(f) => f.batch,
        Err(e) => {
            r.reason = Some(format!("not a stream batch's failure record: {e}"));
            return Ok(r);
        }
    };
    r.batch = Some(format!(
        "{} {}..{}",
        info.shard_id, info.start_sequence_number, info.end_sequence_number
    ));
    let records = match read_batch(streams, &info, region).await {
        Ok(records) => records,
        Err(why) => {
            r.reason = Some(why);
            return Ok(r);
        }
    };
    r.records = records.len();
    let lanes = rank_index::plan(&records);
    r.lane_changes = lanes.boards.iter().map(|b| b.changes.len()).sum();
    let mut records = records;
    let plan = leaderboard_projection::plan(&mut records);
    r.sessions = plan.sessions;
    if dry_run {
        r.outcome = "dry run";
        return Ok(r);
    }
    let mut reasons: Vec<String> = plan
        .poisoned
        .iter()
        .map(|p| format!("a session record that cannot be counted: {}", p.reason))
        .collect();
    for group in &plan.groups {
        let projected = store
            .projection()
            .project_sessions(&group.player, &group.sessions, Timestamp::now())
            .await?;
        if projected.already_applied == 0 {
            continue;
        }
        match recount::to_the_end(store, &group.player).await {
            Ok(_) => r.recounted.push(group.player.to_string()),
            Err(CtlError::NotFound(_)) => {} // erased: nothing to count
            Err(CtlError::Failed(why)) => reasons.push(why),
            Err(e) => return Err(e),
        }
    }
    let failed = rank_index::index(target, &lanes).await.failures;
    if !failed.is_empty() {
        reasons.push(format!(
            "{} lane changes failed again (the projector's log says why)",
            failed.len()
        ));
    }
    if reasons.is_empty() {
        r.outcome = "applied";
    } else {
        r.reason = Some(reasons.join("; "));
    }
    Ok(r)
}

/// The records of the batch `info` names, from the stream, as the projector receives them.
async fn read_batch(
    streams: &aws_sdk_dynamodbstreams::Client,
    info: &BatchInfo,
    region: &str,
) -> Result<Vec<aws_lambda_events::event::dynamodb::EventRecord>, String> {
    use aws_sdk_dynamodbstreams::error::{DisplayErrorContext, ProvideErrorMetadata};
    // DynamoDB's code and message when it answered; the whole chain when it did not.
    fn gone<E: ProvideErrorMetadata + std::error::Error + 'static, R: std::fmt::Debug>(
        e: aws_sdk_dynamodbstreams::error::SdkError<E, R>,
    ) -> String {
        let why = match (e.code(), e.message()) {
            (Some(code), Some(message)) => format!("{code}: {message}"),
            _ => DisplayErrorContext(&e).to_string(),
        };
        match e.code() {
            Some("TrimmedDataAccessException" | "ResourceNotFoundException") => format!(
                "the batch is no longer in the stream (past its 24 h): `lbctl recount --all` \
                 counts its sessions, and the rank index repairs itself ({why})"
            ),
            _ => format!("reading the stream: {why}"),
        }
    }
    let start = streams
        .get_shard_iterator()
        .stream_arn(&info.stream_arn)
        .shard_id(&info.shard_id)
        .shard_iterator_type(ShardIteratorType::AtSequenceNumber)
        .sequence_number(&info.start_sequence_number)
        .send()
        .await
        .map_err(gone)?;
    let mut iterator = start.shard_iterator;
    let mut out = Vec::new();
    for _ in 0..MAX_PAGES {
        let Some(it) = iterator else { break };
        let page = streams
            .get_records()
            .shard_iterator(it)
            .send()
            .await
            .map_err(gone)?;
        let records = page.records.unwrap_or_default();
        if records.is_empty() {
            break;
        }
        for record in &records {
            let seq = record
                .dynamodb()
                .and_then(|d| d.sequence_number())
                .unwrap_or_default();
            if compare_sequence_numbers(seq, &info.end_sequence_number).is_gt() {
                return Ok(out);
            }
            out.push(to_event_record(record, &info.stream_arn, region)?);
        }
        iterator = page.next_shard_iterator;
    }
    Ok(out)
}

/// Writes what became of each message: one JSON document, or a line each.
fn write(out: &mut dyn Write, done: &[Replayed], json: bool) -> CtlResult {
    let failed = done.iter().filter(|r| r.outcome == "failed").count();
    if json {
        crate::render::json_doc(out, &serde_json::json!({ "messages": done }), true)?;
    } else {
        for r in done {
            writeln!(
                out,
                "{}  {}  {} records ({} sessions, {} lane changes)  {}",
                r.message_id,
                r.batch.as_deref().unwrap_or("-"),
                r.records,
                r.sessions,
                r.lane_changes,
                r.outcome
            )?;
            if !r.recounted.is_empty() {
                writeln!(out, "    recounted: {}", r.recounted.join(", "))?;
            }
            if let Some(why) = &r.reason {
                writeln!(out, "    stays in the queue: {why}")?;
            }
        }
        writeln!(
            out,
            "messages read: {}, left in the queue: {failed}",
            done.len()
        )?;
    }
    match failed {
        0 => Ok(()),
        n => Err(CtlError::Problems(n)),
    }
}
