//! The projector out of capacity (throttling DynamoDB Local never raises, injected by the
//! devkit's faulty client): a batch fails cleanly before the invocation's deadline, with
//! nothing applied, and its re-delivery once capacity is back leaves every total exact, within
//! the projector's policy.

use crate::common;

use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use aws_lambda_events::event::dynamodb::Event;
use common::*;
use lambda_runtime::{Context, LambdaEvent};
use leaderboard_devkit::contention::{Fault, faulty_client};
use leaderboard_devkit::policy::{Policy, recording_client};
use leaderboard_devkit::stream::EventSourceMapping;
use stream_projector::handle;

/// How far ahead the invocation's deadline is.
const DEADLINE_IN: Duration = Duration::from_secs(4);

#[tokio::test]
async fn a_throttled_batch_fails_before_the_deadline_and_its_redelivery_is_exact() {
    let mut sc = Scenario::new("budget_projector").await;
    sc.random_plays(40, 8, 2).await;
    let records = sc.stream().await;
    let writes = [
        "UpdateItem",
        "TransactWriteItems",
        "PutItem",
        "DeleteItem",
        "BatchWriteItem",
    ];
    let (client, throttled) =
        faulty_client(&sc.table.endpoint, &writes, Fault::Throttled, u64::MAX);
    let out_of_capacity = store_for(&sc.table, client);

    let before = sc.table.dump().await;
    let mut event = Event::default();
    event.records = records.clone();
    let deadline = SystemTime::now() + DEADLINE_IN;
    let mut context = Context::default();
    context.deadline = deadline
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let response = handle(&out_of_capacity, LambdaEvent::new(event, context))
        .await
        .unwrap();
    // Every write is throttled for ever: that it answered at all is the budget cutting it off.
    // How far before the deadline it answered is machine speed, not an invariant: logged.
    eprintln!(
        "answered {:?} before the deadline",
        deadline
            .duration_since(SystemTime::now())
            .unwrap_or_default()
    );
    assert!(throttled.load(Ordering::SeqCst) >= 1);
    // Failed cleanly: every failure names a record of the batch, so Lambda re-delivers from
    // the earliest of them.
    let failures = failures(&response);
    assert!(!failures.is_empty());
    let sequence_numbers: Vec<&str> = records.iter().map(seq).collect();
    assert!(
        failures
            .iter()
            .all(|f| sequence_numbers.contains(&f.as_str())),
        "{failures:?}"
    );
    assert_eq!(
        sc.table.dump().await,
        before,
        "a throttled write was applied"
    );

    // Capacity back: the batch re-delivered, every total is exact; and every item its
    // requests touched is within the projector's policy in template.yaml.
    let (client, log) = recording_client(&sc.table.endpoint);
    let recorded = store_for(&sc.table, client);
    let delivery = EventSourceMapping::default()
        .deliver(&records, |e| {
            handle(&recorded, LambdaEvent::new(e, Context::default()))
        })
        .await;
    assert!(delivery.discarded.is_empty());
    sc.assert_totals(&sc.expected(&[])).await;
    let policy = Policy::of("StreamProjectorFunction").unwrap();
    assert!(!log.touched().is_empty());
    assert_eq!(policy.refusals(&log), Vec::<String>::new());
}
