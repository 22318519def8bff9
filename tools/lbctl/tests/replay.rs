//! `lbctl replay-dlq` against DynamoDB Local's stream and a real SQS server on loopback (moto's
//! server mode): a batch the projector gave up on is applied exactly once, however often its
//! message is replayed and by however many replays at once; a dry run writes nothing; a
//! message that cannot be replayed stays in the queue with its reason.

use crate::common;

use aws_lambda_events::event::dynamodb::EventRecord;
use common::*;
use leaderboard_devkit::stream::{self, StartingPosition, StreamReader, sequence_number};
use leaderboard_devkit::testing::{TestTable, n};
use leaderboard_keys::ids::{BoardId, GameId, PlayerId, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_store::model::Board;
use leaderboard_store::{Config, Play, Store};
use serde_json::{Value, json};

/// The failure record an event source mapping sends its on-failure destination for a batch.
fn failure_record(shard: &str, first: &str, last: &str, size: usize, arn: &str) -> String {
    json!({
        "requestContext": {
            "requestId": "c9b8fa9f-5a7f-4e5e-8b25-5f5e1a7a9a11",
            "functionArn": "arn:aws:lambda:us-east-1:123456789012:function:stream-projector",
            "condition": "RetryAttemptsExhausted",
            "approximateInvokeCount": 11
        },
        "responseContext": {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"},
        "version": "1.0",
        "timestamp": "2026-01-01T00:10:00.000Z",
        "DDBStreamBatchInfo": {
            "shardId": shard,
            "startSequenceNumber": first,
            "endSequenceNumber": last,
            "approximateArrivalOfFirstRecord": "2026-01-01T00:00:01Z",
            "approximateArrivalOfLastRecord": "2026-01-01T00:00:09Z",
            "batchSize": size,
            "streamArn": arn
        }
    })
    .to_string()
}

struct Queue {
    sqs: aws_sdk_sqs::Client,
    endpoint: String,
    url: String,
}

impl Queue {
    async fn new(name: &str) -> Queue {
        let endpoint = leaderboard_devkit::sqs::endpoint().await;
        let sqs = leaderboard_devkit::sqs::client(&endpoint);
        let url = sqs
            .create_queue()
            .queue_name(name)
            .send()
            .await
            .unwrap()
            .queue_url
            .unwrap();
        Queue { sqs, endpoint, url }
    }

    async fn send(&self, body: &str) {
        self.sqs
            .send_message()
            .queue_url(&self.url)
            .message_body(body)
            .send()
            .await
            .unwrap();
    }

    /// Messages in the queue, visible or not.
    async fn len(&self) -> u64 {
        use aws_sdk_sqs::types::QueueAttributeName as A;
        let out = self
            .sqs
            .get_queue_attributes()
            .queue_url(&self.url)
            .attribute_names(A::ApproximateNumberOfMessages)
            .attribute_names(A::ApproximateNumberOfMessagesNotVisible)
            .send()
            .await
            .unwrap();
        let attrs = out.attributes.unwrap_or_default();
        [
            A::ApproximateNumberOfMessages,
            A::ApproximateNumberOfMessagesNotVisible,
        ]
        .iter()
        .map(|a| attrs.get(a).map_or(0, |v| v.parse::<u64>().unwrap()))
        .sum()
    }

    /// `lbctl replay-dlq --queue <url> <args> --json` on `store`: its exit code and report.
    async fn replay(&self, store: &Store, table: &TestTable, args: &[&str]) -> (i32, Value) {
        let sdk = leaderboard_devkit::local::sdk_config(&table.endpoint);
        let ctl = lbctl::Ctl::with_store(store.clone(), true).with_sdk(sdk);
        let mut argv = vec!["replay-dlq", "--queue", &self.url];
        argv.extend(["--sqs-endpoint-url", &self.endpoint]);
        argv.extend(args);
        let mut out = Vec::new();
        let code = match lbctl::run_args(&ctl, argv, &mut out).await {
            Ok(()) => 0,
            Err(e) => e.exit_code(),
        };
        (code, serde_json::from_slice(&out).unwrap_or_default())
    }
}

async fn setup(label: &str) -> (TestTable, Store, Board) {
    let table = TestTable::new(label).await;
    let config = Config {
        table_name: table.name.clone(),
        cursor_secret: b"lbctl-test-cursor-secret-32-characters".to_vec(),
    };
    let store = Store::new(table.client.clone(), &config);
    let board = store
        .boards()
        .create_board(new_board("season_1", Order::Desc, 999), at(0))
        .await
        .unwrap();
    (table, store, board)
}

/// `player`'s play of `score` on season_1, `ms` after T0.
async fn record(store: &Store, player: &str, ms: u64, score: u64) {
    let play = Play {
        subscores: Default::default(),
        idempotency_key: None,
        metadata: None,
        player_id: PlayerId::parse(player).unwrap(),
        session_id: SessionId::from_parts(T0 + ms, u128::from(ms)).unwrap(),
        game_id: Some(GameId::parse("tetris").unwrap()),
        score,
        duration_sec: Some(60),
        board_ids: vec![BoardId::parse("season_1").unwrap()],
    };
    store.plays().record_play(&play, at(ms)).await.unwrap();
}

/// The stream's records so far, its shard and ARN.
async fn stream_now(table: &TestTable) -> (Vec<EventRecord>, String, String) {
    let streams = stream::client(&table.endpoint);
    let arn = stream::stream_arn(&table.client, &table.name)
        .await
        .unwrap();
    let records = StreamReader::new(streams.clone(), arn.clone(), StartingPosition::TrimHorizon)
        .read_to_end()
        .await
        .unwrap();
    let shard = streams
        .describe_stream()
        .stream_arn(&arn)
        .send()
        .await
        .unwrap()
        .stream_description
        .unwrap()
        .shards
        .unwrap()[0]
        .shard_id
        .clone()
        .unwrap();
    (records, shard, arn)
}

async fn totals(table: &TestTable, p: &str) -> (Option<u64>, Option<u64>) {
    let raw = table
        .raw(&format!("PLAYER#{p}"), "#METADATA")
        .await
        .unwrap_or_default();
    (
        n(&raw, "lifetimeScore").map(|v| v.parse::<u64>().unwrap()),
        n(&raw, "gamesPlayed").map(|v| v.parse::<u64>().unwrap()),
    )
}

#[tokio::test]
async fn a_batch_is_applied_exactly_once_however_often_it_is_replayed() {
    let (table, store, board) = setup("lbctl_replay").await;
    // Five plays, each a better score: five sessions and five entry changes, a batch the
    // projector never applied.
    let mut ms = 0;
    for (player, plays) in [("p_a", 3u64), ("p_b", 2)] {
        for k in 0..plays {
            ms += 1_000;
            record(&store, player, ms, 10 * (k + 1)).await;
        }
    }
    let (records, shard, arn) = stream_now(&table).await;
    let first = sequence_number(&records[0]).unwrap();
    let last = sequence_number(records.last().unwrap()).unwrap();
    let message = failure_record(&shard, first, last, records.len(), &arn);
    let queue = Queue::new("lbctl-replay-dlq").await;
    queue.send(&message).await;
    // A dry run says what the message holds and writes nothing; the message stays.
    let before = table.dump().await;
    let (code, report) = queue.replay(&store, &table, &["--dry-run"]).await;
    assert_eq!(code, 0, "{report}");
    let m = &report["messages"][0];
    assert_eq!(
        (
            &m["outcome"],
            &m["records"],
            &m["sessions"],
            &m["laneChanges"]
        ),
        (
            &json!("dry run"),
            &json!(records.len()),
            &json!(5),
            &json!(5)
        ),
        "{report}"
    );
    assert_eq!(table.dump().await, before);
    assert_eq!(queue.len().await, 1);

    // Replayed: each session counted, each entry change indexed, the message deleted.
    let (code, report) = queue.replay(&store, &table, &[]).await;
    assert_eq!(
        (code, &report["messages"][0]["outcome"]),
        (0, &json!("applied")),
        "{report}"
    );
    assert_eq!(report["messages"][0]["recounted"], json!([]));
    assert_eq!(totals(&table, "p_a").await, (Some(60), Some(3)));
    assert_eq!(totals(&table, "p_b").await, (Some(30), Some(2)));
    assert_eq!(queue.len().await, 0);
    let (code, found, _) = verify_report(&store, &["season_1"]).await;
    assert_eq!((code, found), (0, vec![]));

    // The same message twice more (a replay that died before its delete, and a re-delivery),
    // replayed by two runs at once: nothing counts twice.
    queue.send(&message).await;
    queue.send(&message).await;
    let (a, b) = futures::join!(
        queue.replay(&store, &table, &[]),
        queue.replay(&store, &table, &[])
    );
    assert_eq!((a.0, b.0), (0, 0), "{a:?} {b:?}");
    let replayed: Vec<&Value> = [&a.1, &b.1]
        .iter()
        .flat_map(|r| r["messages"].as_array().unwrap())
        .collect();
    assert_eq!(replayed.len(), 2);
    // Their sessions were counted already: skipped by the watermarks, so the players are
    // recounted from their sessions, which is exact whatever was counted before.
    for m in &replayed {
        assert_eq!(
            (&m["outcome"], &m["recounted"]),
            (&json!("applied"), &json!(["p_a", "p_b"])),
            "{m}"
        );
    }
    assert_eq!(totals(&table, "p_a").await, (Some(60), Some(3)));
    assert_eq!(totals(&table, "p_b").await, (Some(30), Some(2)));
    assert_eq!(queue.len().await, 0);
    let (code, found, _) = verify_report(&store, &["season_1"]).await;
    assert_eq!((code, found), (0, vec![]));
    assert_eq!(store.rank().index_state(&board).await.unwrap().entries, 2);

    // What cannot be replayed stays, with its reason, and exits 4.
    queue.send("not json").await;
    queue
        .send(&failure_record("shardId-000", first, last, 1, &arn))
        .await;
    let (code, report) = queue.replay(&store, &table, &[]).await;
    assert_eq!(code, 4, "{report}");
    let reasons: Vec<&str> = report["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons.len(), 2);
    assert!(
        reasons
            .iter()
            .any(|r| r.starts_with("not a stream batch's failure record"))
    );
    assert!(reasons.iter().any(|r| r.contains("stream")), "{reasons:?}");
    assert_eq!(queue.len().await, 2);
}

#[tokio::test]
async fn sessions_the_stream_passed_over_are_counted_by_the_replay() {
    let (table, store, _) = setup("lbctl_replay_passed").await;
    // p_a's first two plays are in a batch the mapping gave up on; their third, later, was
    // applied, so p_a's watermark is past the two lost sessions.
    record(&store, "p_a", 1_000, 10).await;
    record(&store, "p_a", 2_000, 20).await;
    let (lost, shard, arn) = stream_now(&table).await;
    record(&store, "p_a", 3_000, 30).await;
    let (all, _, _) = stream_now(&table).await;
    let later = all[lost.len()..].to_vec();
    let response =
        leaderboard_projection::project(&store, later, leaderboard_keys::time::Timestamp::now())
            .await;
    assert!(response.batch_item_failures.is_empty());
    assert_eq!(totals(&table, "p_a").await, (Some(30), Some(1)));

    let first = sequence_number(&lost[0]).unwrap();
    let last = sequence_number(lost.last().unwrap()).unwrap();
    let queue = Queue::new("lbctl-replay-passed").await;
    queue
        .send(&failure_record(&shard, first, last, lost.len(), &arn))
        .await;
    let (code, report) = queue.replay(&store, &table, &[]).await;
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["messages"][0]["recounted"], json!(["p_a"]));
    assert_eq!(totals(&table, "p_a").await, (Some(60), Some(3)));
    assert_eq!(queue.len().await, 0);
}
