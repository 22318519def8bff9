//! What the stream projector reports (docs/operating.md "Metrics"), read back from its EMF lines after real
//! batches from DynamoDB Local's stream: a batch applied, its re-delivery, a batch with a
//! poisoned record, and one with no time left before its deadline. Each line has the metrics and
//! dimensions docs/operating.md documents, and no player's or board's id.

use crate::common;

use std::time::{Duration, SystemTime};

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use common::*;
use lambda_runtime::{Context, LambdaEvent};
use leaderboard_devkit::emf;
use leaderboard_metrics::Sink;
use leaderboard_store::Store;
use serde_json::Value;
use stream_projector::handle_measured;

async fn deliver(store: &Store, sink: &Sink, records: &[EventRecord], deadline_in: Duration) {
    let mut event = Event::default();
    event.records = records.to_vec();
    let mut context = Context::default();
    context.deadline = (SystemTime::now() + deadline_in)
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    handle_measured(store, sink, LambdaEvent::new(event, context))
        .await
        .unwrap();
}

#[tokio::test]
async fn each_batch_writes_its_entry_and_its_outcome() {
    let mut sc = Scenario::new("metrics_projector").await;
    sc.random_plays(12, 4, 2).await;
    let records = sc.stream().await;
    let sessions = sc.plays.len() as u64;
    let far = Duration::from_secs(600);
    let (sink, recorded) = Sink::recording();

    // Applied, then re-delivered.
    deliver(&sc.store, &sink, &records, far).await;
    deliver(&sc.store, &sink, &records, far).await;
    // A session record poisoned, in a batch of its own.
    let mut poisoned = records.clone();
    let session = poisoned
        .iter_mut()
        .find(|r| {
            r.change
                .keys
                .inner()
                .get("sk")
                .is_some_and(|sk| format!("{sk:?}").contains("SESSION#"))
        })
        .expect("a session record");
    session
        .change
        .new_image
        .inner_mut()
        .insert("score".into(), serde_dynamo::AttributeValue::S("12".into()));
    deliver(&sc.store, &sink, std::slice::from_ref(session), far).await;
    // A deadline closer than the projector's margin: no time at all, the batch fails whole.
    deliver(&sc.store, &sink, &records, Duration::from_secs(1)).await;

    let mut ids: Vec<&str> = sc.plays.iter().map(|p| p.player.as_str()).collect();
    ids.extend(BOARDS);
    let entries = emf::checked(&recorded.lines(), &ids, "stream-projector");
    assert_eq!(entries.len(), 8, "two lines per batch");
    let outcomes: Vec<&str> = entries
        .iter()
        .step_by(2)
        .map(|e| e["Outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["ok", "ok", "partial", "timed_out"]);
    let batches: Vec<&Value> = entries.iter().skip(1).step_by(2).collect();
    let column = |name: &str| emf::column(&batches, name);
    let n = records.len() as u64;
    assert_eq!(column("Records"), [n, n, 1, n]);
    assert_eq!(column("SessionsApplied"), [sessions, 0, 0, 0]);
    assert_eq!(column("SessionsReplayed"), [0, sessions, 0, 0]);
    assert_eq!(column("RecordsSkipped"), [n - sessions, n - sessions, 0, 0]);
    assert_eq!(column("RecordsPoisoned"), [0, 0, 1, 0]);
    assert_eq!(column("RecordsFailed"), [0, 0, 1, 1]);
    assert_eq!(column("ColdStart"), [1, 0, 0, 0]);
    let rank_changes = column("RankChanges");
    assert!(
        rank_changes[0] > 0 && rank_changes[0] == rank_changes[1],
        "{rank_changes:?}"
    );
    // The records were written before the first batch began.
    for lag in column("IndexLag") {
        assert!(lag > 0, "{lag}");
    }
}
