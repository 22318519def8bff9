//! The stream projector against DynamoDB Local: plays are recorded through the store, the
//! table's real stream is read with the devkit reader, and its records are delivered to the
//! handler the way Lambda does (batches of 100, at least once, re-delivery from the first
//! reported failure). Every test checks the players' totals against the test's own sums.

use crate::common;

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_sdk_dynamodb::types::AttributeValue;
use common::*;
use lambda_runtime::{Context, LambdaEvent};
use leaderboard_devkit::stream::EventSourceMapping;
use leaderboard_devkit::testing::{n, s};
use leaderboard_keys::ids::{Email, PlayerId, SessionId};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::{Config, ProjectedSession, ProjectionOutcome, Store, StoreError};
use rand::Rng;
use stream_projector::{Projection, handle, project};

const BATCH: usize = 100;

/// `id`'s stored profile (it must have one).
async fn profile(store: &Store, id: &str) -> leaderboard_store::model::Player {
    store.players().get_player(&pid(id)).await.unwrap().unwrap()
}

async fn deliver(store: &impl Projection, batch: &[EventRecord]) -> Vec<String> {
    failures(&project(store, batch.to_vec(), Timestamp::now()).await)
}

/// The session id of a Session INSERT record.
fn session_of(r: &EventRecord) -> SessionId {
    match r.change.keys.inner().get("sk") {
        Some(serde_dynamo::AttributeValue::S(sk)) => {
            SessionId::parse_stored(sk.trim_start_matches("SESSION#")).unwrap()
        }
        _ => panic!("not a session record"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_hundred_random_sessions_over_fifty_players_are_counted_exactly() {
    // GIVEN 400 plays of 50 players, each on 1 to 3 boards, recorded through the store
    let data = sessions().await;
    assert!(data.plays.iter().any(|p| p.boards > 1), "multi-board plays");
    let records = &data.records;
    assert_eq!(
        records.iter().filter(|r| is_session_insert(r)).count(),
        SESSIONS
    );
    assert!(
        records.len() > SESSIONS,
        "boards, entries and scores are on the stream too"
    );

    // WHEN the table's stream is delivered to the handler in batches of 100
    let target = Scenario::empty("exact").await;
    let report = EventSourceMapping::default()
        .deliver(records, |e: Event| {
            handle(&target.store, LambdaEvent::new(e, Context::default()))
        })
        .await;

    // THEN nothing failed, and every player's totals are the test's own sums and counts: one
    // game per session however many boards it counted on, lastPlayedAt the newest session's
    assert_eq!(report.retries, 0);
    assert_eq!(report.invocations as usize, records.len().div_ceil(BATCH));
    assert!(report.discarded.is_empty());
    let expected = data.expected(&[]);
    assert_eq!(expected.len(), 50);
    target.assert_totals(&expected).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_batch_delivered_twice_counts_once() {
    let data = sessions().await;
    let target = Scenario::empty("twice").await;
    for batch in data.records.chunks(BATCH) {
        assert!(deliver(&target.store, batch).await.is_empty());
        assert!(deliver(&target.store, batch).await.is_empty());
    }
    target.assert_totals(&data.expected(&[])).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_cut_at_random_failure_points_and_suffix_replays_count_once() {
    let data = sessions().await;
    let records = &data.records;
    let target = Scenario::empty("cut").await;
    let mut rng = rand::rng();
    for (i, batch) in records.chunks(BATCH).enumerate() {
        if i % 2 == 0 {
            // The batch, then its suffix from a random point (Lambda after a reported failure).
            assert!(deliver(&target.store, batch).await.is_empty());
            let cut = rng.random_range(0..batch.len());
            assert!(deliver(&target.store, &batch[cut..]).await.is_empty());
        } else {
            // A shorter batch first, then the whole batch again from an earlier point.
            let end = rng.random_range(1..=batch.len());
            let from = rng.random_range(0..end);
            assert!(deliver(&target.store, &batch[..end]).await.is_empty());
            assert!(deliver(&target.store, &batch[from..]).await.is_empty());
        }
    }
    // And a replay of the stream from a random record on, in batches of 100.
    let from = rng.random_range(0..records.len());
    for batch in records[from..].chunks(BATCH) {
        assert!(deliver(&target.store, batch).await.is_empty());
    }
    target.assert_totals(&data.expected(&[])).await;
}

/// Corrupts a Session INSERT's image in one of the ways a bad write could.
fn poison(record: &mut EventRecord, how: usize) {
    let image = record.change.new_image.inner_mut();
    match how % 4 {
        0 => {
            image.insert("score".into(), serde_dynamo::AttributeValue::S("12".into()));
        }
        1 => {
            image.remove("score");
        }
        2 => {
            image.insert(
                "attainedAt".into(),
                serde_dynamo::AttributeValue::S("yesterday".into()),
            );
        }
        _ => image.clear(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poisoned_record_is_reported_alone_and_the_rest_applied_once() {
    let data = sessions().await;
    let target = Scenario::empty("poison").await;
    let mut rng = rand::rng();
    let mut poisoned: Vec<SessionId> = Vec::new();
    for (i, chunk) in data.records.chunks(BATCH).enumerate() {
        let mut batch = chunk.to_vec();
        let sessions: Vec<usize> = (0..batch.len())
            .filter(|&j| is_session_insert(&batch[j]))
            .collect();
        let Some(&at) = sessions.get(rng.random_range(0..sessions.len().max(1))) else {
            assert!(deliver(&target.store, &batch).await.is_empty());
            continue;
        };
        // GIVEN a real batch with one Session INSERT corrupted, at a random position
        poison(&mut batch[at], i);
        poisoned.push(session_of(&batch[at]));
        let bad = seq(&batch[at]).to_owned();
        // WHEN it is delivered, THEN exactly the poison is reported
        assert_eq!(deliver(&target.store, &batch).await, vec![bad.clone()]);
        // and Lambda re-delivers from it: reported again, nothing after it counted twice
        assert_eq!(
            deliver(&target.store, &batch[at..]).await,
            vec![bad.clone()]
        );
        // (the event source mapping gives up on it after its retries; the next batch starts
        // after it)
    }
    assert!(poisoned.len() > 5);
    // THEN every other session is counted exactly once, the poisoned ones never
    target.assert_totals(&data.expected(&poisoned)).await;
}

#[tokio::test]
async fn records_that_are_not_session_inserts_write_nothing() {
    // GIVEN a stream with every kind of record: boards, entry pointers (INSERT and MODIFY),
    // Score items (INSERT and REMOVE), profiles (INSERT and MODIFY), and a Session modified and
    // one deleted
    let mut sc = Scenario::new("skips").await;
    sc.play("p_a", 10, 3, 1_000).await;
    sc.play("p_a", 20, 3, 2_000).await;
    sc.play("p_b", 5, 1, 3_000).await;
    for name in ["Bee", "Bea"] {
        sc.store
            .players()
            .put_profile(&pid("p_b"), name, None, at(4_000))
            .await
            .unwrap();
    }
    let first = sc.plays[0].session.clone();
    let second = sc.plays[1].session.clone();
    sc.table
        .client
        .update_item()
        .table_name(&sc.table.name)
        .key("pk", AttributeValue::S("PLAYER#p_a".into()))
        .key("sk", AttributeValue::S(format!("SESSION#{first}")))
        .update_expression("SET durationSec = :d")
        .expression_attribute_values(":d", AttributeValue::N("61".into()))
        .send()
        .await
        .unwrap();
    sc.table
        .client
        .delete_item()
        .table_name(&sc.table.name)
        .key("pk", AttributeValue::S("PLAYER#p_a".into()))
        .key("sk", AttributeValue::S(format!("SESSION#{second}")))
        .send()
        .await
        .unwrap();
    let records = sc.stream().await;
    let kinds: Vec<(String, String)> = records
        .iter()
        .map(|r| {
            let sk = match r.change.keys.inner().get("sk") {
                Some(serde_dynamo::AttributeValue::S(sk)) => sk.as_str(),
                _ => "",
            };
            let kind = if sk.starts_with('#') {
                "METADATA"
            } else {
                sk.split('#').next().unwrap_or_default()
            };
            (r.event_name.clone(), kind.to_owned())
        })
        .collect();
    for want in [
        ("INSERT", "METADATA"),
        ("MODIFY", "METADATA"),
        ("INSERT", "ENTRY"),
        ("MODIFY", "ENTRY"),
        ("INSERT", "SCORE"),
        ("REMOVE", "SCORE"),
        ("MODIFY", "SESSION"),
        ("REMOVE", "SESSION"),
    ] {
        assert!(
            kinds.contains(&(want.0.to_owned(), want.1.to_owned())),
            "{want:?} in {kinds:?}"
        );
    }
    // The sessions are projected first.
    let sessions: Vec<EventRecord> = records
        .iter()
        .filter(|r| is_session_insert(r))
        .cloned()
        .collect();
    assert!(deliver(&sc.store, &sessions).await.is_empty());
    sc.assert_totals(&sc.expected(&[])).await;

    // WHEN everything else is delivered, with the hand-made MODIFY, REMOVE and TTL deletion
    let mut others: Vec<EventRecord> = records
        .into_iter()
        .filter(|r| !is_session_insert(r))
        .collect();
    for file in [
        "modify-session.json",
        "remove-session.json",
        "ttl-remove.json",
        "insert-non-session.json",
    ] {
        let path = leaderboard_devkit::repo_root()
            .join("events/stream-projector")
            .join(file);
        let event: Event = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        others.extend(event.records);
    }
    let (counted, counter) = counted_store(&sc.table);
    let before = sc.table.dump().await;
    let mut response_failures = Vec::new();
    for batch in others.chunks(BATCH) {
        response_failures.extend(deliver(&counted, batch).await);
    }

    // THEN nothing is reported, no request is sent, and the table is as it was
    assert!(response_failures.is_empty());
    assert_eq!(counter.total(), 0, "skipped records cost no I/O");
    assert_eq!(sc.table.dump().await, before);
}

#[tokio::test]
async fn a_player_without_a_profile_gets_one_and_a_profile_keeps_its_name_and_email() {
    let mut sc = Scenario::new("profiles").await;
    let email = Email::parse("alice@example.com").unwrap();
    sc.store
        .players()
        .put_profile(&pid("p_alice"), "Alice", Some(&email), at(0))
        .await
        .unwrap();
    sc.play("p_alice", 100, 2, 10_000).await;
    sc.play("p_bob", 40, 1, 20_000).await;
    sc.play("p_bob", 2, 3, 15_000).await;
    let records = sc.stream().await;
    let now = at(99_000);
    assert!(failures(&project(&sc.store, records.clone(), now).await).is_empty());
    sc.assert_totals(&sc.expected(&[])).await;

    let alice = profile(&sc.store, "p_alice").await;
    assert_eq!(alice.name, "Alice");
    assert_eq!(alice.email.as_ref(), Some(&email));
    assert_eq!((alice.created_at, alice.updated_at), (at(0), at(0)));
    let by_email = sc
        .store
        .players()
        .find_player_by_email(&email)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(by_email, alice);

    let bob = profile(&sc.store, "p_bob").await;
    assert_eq!(bob.name, "p_bob");
    assert_eq!(bob.email, None);
    assert_eq!((bob.created_at, bob.updated_at), (now, now));
    assert_eq!(
        bob.last_played_at,
        Some(at(20_000)),
        "the newest, not the last"
    );
    let raw = sc.table.raw("PLAYER#p_bob", "#METADATA").await.unwrap();
    assert_eq!(s(&raw, "projectedSeq").map(str::len), Some(40));
    assert_eq!(n(&raw, "gamesPlayed"), Some("2"));

    // A profile written after the projection keeps the totals, and the next plays keep the name.
    sc.store
        .players()
        .put_profile(&pid("p_bob"), "Bob", None, at(100_000))
        .await
        .unwrap();
    sc.play("p_bob", 7, 1, 30_000).await;
    let all = sc.stream().await;
    assert!(failures(&project(&sc.store, all, at(200_000)).await).is_empty());
    sc.assert_totals(&sc.expected(&[])).await;
    let bob = profile(&sc.store, "p_bob").await;
    assert_eq!(
        (bob.name.as_str(), bob.created_at, bob.updated_at),
        ("Bob", now, at(100_000))
    );
}

/// A projection that sends the writes of one player to a table that does not exist, so
/// DynamoDB Local itself fails them (`ResourceNotFoundException`), `failures` times.
struct FailingFor {
    store: Store,
    missing: Store,
    player: PlayerId,
    failures: AtomicU32,
}

impl Projection for FailingFor {
    async fn project(
        &self,
        player: &PlayerId,
        sessions: &[ProjectedSession],
        now: Timestamp,
    ) -> Result<ProjectionOutcome, StoreError> {
        let fail = player == &self.player
            && self
                .failures
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok();
        let store = if fail { &self.missing } else { &self.store };
        store
            .projection()
            .project_sessions(player, sessions, now)
            .await
    }
}

fn missing_table(sc: &Scenario) -> Store {
    Store::new(
        sc.table.client.clone(),
        &Config {
            table_name: format!("{}_missing", sc.table.name),
            cursor_secret: b"t".to_vec(),
        },
    )
}

fn is_session_of(r: &EventRecord, player: &str) -> bool {
    is_session_insert(r)
        && r.change.keys.inner().get("pk")
            == Some(&serde_dynamo::AttributeValue::S(format!("PLAYER#{player}")))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_player_write_is_reported_by_its_first_record_and_redelivery_is_exact() {
    let data = sessions().await;
    let records = &data.records;
    let target = Scenario::empty("failing").await;
    // The player whose first session comes latest: others are applied before and beside it.
    let first_of = |p: &str| records.iter().position(|r| is_session_of(r, p)).unwrap();
    let players: Vec<String> = data.expected(&[]).into_keys().collect();
    let victim = players.iter().max_by_key(|p| first_of(p)).unwrap().clone();
    let first = first_of(&victim);
    let projection = FailingFor {
        store: target.store.clone(),
        missing: missing_table(&target),
        player: pid(&victim),
        failures: AtomicU32::new(1),
    };
    let start = first - first % BATCH;
    for batch in records[..start].chunks(BATCH) {
        assert!(deliver(&projection, batch).await.is_empty());
    }
    let batch = &records[start..(start + BATCH).min(records.len())];
    let before = target.players().await;

    // WHEN the victim's write fails (DynamoDB answers ResourceNotFoundException)
    let reported = deliver(&projection, batch).await;

    // THEN exactly its first record of the batch is reported, it has no item yet, and the
    // other players' sessions of the batch are counted
    assert_eq!(reported, [seq(&records[first]).to_owned()]);
    let after = target.players().await;
    assert!(!after.contains_key(&victim));
    let others = batch
        .iter()
        .filter(|r| is_session_insert(r) && !is_session_of(r, &victim))
        .count() as u64;
    let games = |m: &BTreeMap<String, leaderboard_store::model::Player>| -> u64 {
        m.values().map(|p| p.games_played).sum()
    };
    assert!(others > 0);
    assert_eq!(games(&after), games(&before) + others);

    // WHEN Lambda re-delivers from the reported record, and the stream goes on
    let from = start + batch.iter().position(|r| seq(r) == reported[0]).unwrap();
    for batch in records[from..].chunks(BATCH) {
        assert!(deliver(&projection, batch).await.is_empty());
    }
    // THEN the totals are exact
    target.assert_totals(&data.expected(&[])).await;
}

/// Fails a random share of player writes against a missing table.
struct Flaky {
    store: Store,
    missing: Store,
    share: f64,
    failed: AtomicU32,
}

impl Projection for Flaky {
    async fn project(
        &self,
        player: &PlayerId,
        sessions: &[ProjectedSession],
        now: Timestamp,
    ) -> Result<ProjectionOutcome, StoreError> {
        let fail = rand::rng().random_bool(self.share);
        if fail {
            self.failed.fetch_add(1, Ordering::SeqCst);
        }
        let store = if fail { &self.missing } else { &self.store };
        store
            .projection()
            .project_sessions(player, sessions, now)
            .await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_write_failures_and_crashes_under_lambda_retries_stay_exact() {
    let data = sessions().await;
    let records = &data.records;
    let target = Scenario::empty("flaky").await;
    let projection = Flaky {
        store: target.store.clone(),
        missing: missing_table(&target),
        share: 0.2,
        failed: AtomicU32::new(0),
    };
    let crashes = Mutex::new(0u32);
    let esm = EventSourceMapping {
        batch_size: BATCH,
        max_retries: 1_000,
        ..EventSourceMapping::default()
    };
    let report = esm
        .deliver(records, |e: Event| {
            let projection = &projection;
            let crashes = &crashes;
            async move {
                let response = project(projection, e.records, Timestamp::now()).await;
                // Sometimes the invocation dies after its writes (a timeout): Lambda retries
                // the whole batch.
                if rand::rng().random_bool(0.1) {
                    *crashes.lock().unwrap() += 1;
                    return Err("invocation timed out".to_owned());
                }
                Ok(response)
            }
        })
        .await;
    assert!(report.discarded.is_empty());
    assert!(report.retries > 0);
    assert!(projection.failed.load(Ordering::SeqCst) > 0);
    assert!(*crashes.lock().unwrap() > 0);
    target.assert_totals(&data.expected(&[])).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_write_per_player_per_batch() {
    let mut sc = Scenario::new("writes").await;
    // 100 sessions of one player, and 100 of ten players (ten each).
    for i in 0..100 {
        sc.play("p_solo", i, 1, i * 1_000).await;
    }
    for i in 0..100 {
        sc.play(&player_name(i as usize % 10), i, 1, 200_000 + i * 1_000)
            .await;
    }
    let sessions: Vec<EventRecord> = sc
        .stream()
        .await
        .into_iter()
        .filter(is_session_insert)
        .collect();
    let (solo, ten) = sessions.split_at(100);
    let (store, counter) = counted_store(&sc.table);

    // Half of the solo batch first (1 write, and since it made the profile, 1 read of the
    // erasure marker), then all of it: the half is known, the other half is new (1 failed
    // write, 1 read, 1 write), then all of it again (1 failed write, 1 read).
    assert!(deliver(&store, &solo[..50]).await.is_empty());
    assert_eq!(cost(&counter), (1, 1, 2));
    counter.reset();
    assert!(deliver(&store, solo).await.is_empty());
    assert_eq!(cost(&counter), (2, 1, 3));
    counter.reset();
    assert!(deliver(&store, solo).await.is_empty());
    assert_eq!(cost(&counter), (1, 1, 2));
    counter.reset();
    // Ten new profiles: a write and a marker read each.
    assert!(deliver(&store, ten).await.is_empty());
    assert_eq!(cost(&counter), (10, 10, 20));
    counter.reset();
    assert!(deliver(&store, ten).await.is_empty());
    assert_eq!(cost(&counter), (10, 10, 20));
    sc.assert_totals(&sc.expected(&[])).await;
}

#[tokio::test]
async fn last_played_at_never_goes_back() {
    // GIVEN a play at 0:50, projected; then a play whose time is older (0:40) but whose record
    // comes later in the stream (a slow request that committed last)
    let mut sc = Scenario::new("lastplayed").await;
    sc.play("p_c", 3, 1, 50_000).await;
    sc.play("p_c", 4, 2, 40_000).await;
    let sessions: Vec<EventRecord> = sc
        .stream()
        .await
        .into_iter()
        .filter(is_session_insert)
        .collect();
    let (store, counter) = counted_store(&sc.table);
    assert!(deliver(&store, &sessions[..1]).await.is_empty());
    counter.reset();

    // WHEN the older play's record is delivered
    assert!(deliver(&store, &sessions[1..]).await.is_empty());

    // THEN it is counted, lastPlayedAt stays at 0:50 (the fast path's condition failed, the
    // slow path kept the newer time), and a re-delivery changes nothing
    assert_eq!(cost(&counter), (2, 1, 3));
    assert!(deliver(&store, &sessions).await.is_empty());
    sc.assert_totals(&sc.expected(&[])).await;
    let p = profile(&sc.store, "p_c").await;
    assert_eq!((p.games_played, p.last_played_at), (2, Some(at(50_000))));
}
