//! `NewLeader` from the stream projector, on DynamoDB Local's real stream: every change of
//! hands at rank 1 is published once per delivery with the leader before (each of several in
//! one batch too, in the order the plays attained their scores), a re-delivery
//! publishes nothing new, a publication lost before the index recorded the change (the root's
//! update failing, or the bus refusing) fails the batch and the next delivery publishes the
//! same id; a leader's entry removed hands rank 1 to the next entry, read from the board, and
//! names no previous leader; a top entry that cannot be read leaves the leader unknown and the
//! index going on.
//! The batch's metrics name no player.

use crate::common;

use std::sync::Arc;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use common::*;
use lambda_runtime::{Context, LambdaEvent};
use leaderboard_devkit::contention::{Fault, faulty_client};
use leaderboard_devkit::stream::{StartingPosition, StreamReader};
use leaderboard_devkit::testing::TestTable;
use leaderboard_events::eventbridge::Bus;
use leaderboard_events::{EventLog, Publisher};
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank_index::{LANES, lane_of};
use leaderboard_metrics::Sink;
use leaderboard_store::Store;
use serde_json::Value;
use stream_projector::{Announcing, handle, handle_measured};

const BOARD: &str = "lead_board";

/// A fresh table with an open board, and a reader of its stream after the board's creation.
async fn board(name: &str) -> (TestTable, Store, StreamReader) {
    let table = TestTable::new(name).await;
    let store = store_for(&table, table.client.clone());
    open_v2_board(&store, BOARD).await;
    let mut reader =
        StreamReader::for_table(&table.endpoint, &table.name, StartingPosition::TrimHorizon)
            .await
            .unwrap();
    reader.read_to_end().await.unwrap();
    (table, store, reader)
}

async fn play(store: &Store, player: &str, score: u64, ms: u64) {
    play_on(store, &BoardId::parse(BOARD).unwrap(), player, score, ms).await
}

/// The NewLeader events of `log`, oldest first: (eventId, playerId, score, previousLeaderId).
fn leaders(log: &EventLog) -> Vec<(String, String, u64, Option<String>)> {
    let mut out: Vec<_> = log
        .newest_first()
        .iter()
        .map(|e| {
            assert_eq!(e["source"], "leaderboard");
            assert_eq!(e["detail-type"], "NewLeader");
            let d = &e["detail"];
            assert_eq!(d["leaderboardId"], BOARD);
            (
                d["eventId"].as_str().unwrap().to_owned(),
                d["playerId"].as_str().unwrap().to_owned(),
                d["score"].as_u64().unwrap(),
                d["previousLeaderId"].as_str().map(str::to_owned),
            )
        })
        .collect();
    out.reverse();
    out
}

fn logged() -> (Arc<EventLog>, Publisher) {
    let log = Arc::new(EventLog::new(1_000));
    (log.clone(), Publisher::Log(log))
}

/// One delivery of `records` as one batch: its reported records.
async fn once(target: &Announcing, records: &[EventRecord]) -> Vec<String> {
    let mut event = Event::default();
    event.records = records.to_vec();
    let response = handle(target, LambdaEvent::new(event, Context::default()))
        .await
        .unwrap();
    failures(&response)
}

/// A projector announcing to an event log of its own: the log, and the projector.
fn announcing(store: &Store) -> (Arc<EventLog>, Announcing) {
    let (log, publisher) = logged();
    (log, Announcing::new(store.clone(), publisher))
}

/// Delivers what the stream holds past `reader`'s position as one batch, which must succeed:
/// the records delivered.
async fn applied(target: &Announcing, reader: &mut StreamReader) -> Vec<EventRecord> {
    let records = reader.read_to_end().await.unwrap();
    assert!(
        once(target, &records).await.is_empty(),
        "the batch succeeds"
    );
    records
}

/// `leader:<board>:<lane of player>:` — an id names the lane change that made the leader.
fn id_of(player: &str) -> String {
    format!("leader:{BOARD}:{}:", lane_of(player, LANES))
}

/// Checks that the events `got` are `expected` (player, score, leader before) in order, each
/// with an id of its own that names its leader's lane.
fn assert_published(
    got: &[(String, String, u64, Option<String>)],
    expected: &[(&str, u64, Option<&str>)],
) {
    let who: Vec<(&str, u64, Option<&str>)> = got
        .iter()
        .map(|(_, p, s, b)| (p.as_str(), *s, b.as_deref()))
        .collect();
    assert_eq!(who, expected);
    for (id, player, _, _) in got {
        assert!(id.starts_with(&id_of(player)), "{id} names {player}'s lane");
    }
    let ids: std::collections::BTreeSet<&String> = got.iter().map(|(id, ..)| id).collect();
    assert_eq!(ids.len(), got.len(), "an id each: {got:?}");
}

#[tokio::test]
async fn each_change_of_hands_is_published_with_the_leader_before_and_once() {
    let (_table, store, mut reader) = board("new_leader_hands").await;
    let (log, target) = announcing(&store);
    let (sink, recorded) = Sink::recording();
    let mut all = Vec::new();
    let mut step = async |plays: &[(&str, u64)], t: u64| {
        for (i, (player, score)) in plays.iter().enumerate() {
            play(&store, player, *score, t + i as u64).await;
        }
        let records = reader.read_to_end().await.unwrap();
        let mut event = Event::default();
        event.records = records.clone();
        let response = handle_measured(&target, &sink, LambdaEvent::new(event, Context::default()))
            .await
            .unwrap();
        assert!(failures(&response).is_empty());
        all.extend(records);
    };
    step(&[("p_alice", 100)], 1_000).await;
    // Below the leader, then above: one change of hands.
    step(&[("p_bob", 50), ("p_carol", 200)], 2_000).await;
    // The leader improving, another player improving below: no change of hands.
    step(&[("p_carol", 250), ("p_alice", 150)], 3_000).await;
    step(&[("p_bob", 300)], 4_000).await;

    assert_published(
        &leaders(&log),
        &[
            ("p_alice", 100, None),
            ("p_carol", 200, Some("p_alice")),
            ("p_bob", 300, Some("p_carol")),
        ],
    );

    // The whole stream again, in one batch and as the event source mapping batches it:
    // applied before, so nothing is published again.
    assert!(once(&target, &all).await.is_empty());
    assert_eq!(deliver(&target, &all).await, 0);
    assert_eq!(leaders(&log).len(), 3);

    // The batches' metrics count the publications and name no player (nor the board).
    let lines = recorded.lines();
    let entries = leaderboard_devkit::emf::checked(
        &lines,
        &["p_alice", "p_bob", "p_carol", BOARD],
        "stream-projector",
    );
    let batches: Vec<&Value> = entries.iter().skip(1).step_by(2).collect();
    assert_eq!(
        leaderboard_devkit::emf::column(&batches, "LeadersAnnounced"),
        [1, 1, 0, 1]
    );
}

#[tokio::test]
async fn changes_of_hands_within_one_batch_are_each_published_in_the_order_they_happened() {
    let (_table, store, mut reader) = board("new_leader_batch").await;
    let (log, target) = announcing(&store);
    play(&store, "p_a", 100, 1_000).await;
    applied(&target, &mut reader).await;
    let mut all = Vec::new();
    // Two changes of hands in one batch (b passes a, then c passes b), then five.
    for (t, plays) in [
        (2_000, vec![("p_b", 110), ("p_c", 120)]),
        (
            3_000,
            vec![
                ("p_d", 130),
                ("p_e", 140),
                ("p_f", 150),
                ("p_g", 160),
                ("p_h", 170),
            ],
        ),
    ] {
        for (i, (player, score)) in plays.iter().enumerate() {
            play(&store, player, *score, t + i as u64).await;
        }
        all.extend(applied(&target, &mut reader).await);
    }
    assert_published(
        &leaders(&log),
        &[
            ("p_a", 100, None),
            ("p_b", 110, Some("p_a")),
            ("p_c", 120, Some("p_b")),
            ("p_d", 130, Some("p_c")),
            ("p_e", 140, Some("p_d")),
            ("p_f", 150, Some("p_e")),
            ("p_g", 160, Some("p_f")),
            ("p_h", 170, Some("p_g")),
        ],
    );
    // Delivered again, as one batch and as the event source mapping batches it: nothing new.
    assert!(once(&target, &all).await.is_empty());
    assert_eq!(deliver(&target, &all).await, 0);
    assert_eq!(leaders(&log).len(), 8);
}

#[tokio::test]
async fn a_change_lost_before_the_index_recorded_it_is_published_again_with_its_id() {
    let (table, store, mut reader) = board("new_leader_lost").await;
    let (log, publisher) = logged();
    play(&store, "p_alice", 100, 1_000).await;
    let first = reader.read_to_end().await.unwrap();
    let healthy = Announcing::new(store.clone(), publisher.clone());
    assert!(once(&healthy, &first).await.is_empty());

    play(&store, "p_carol", 200, 2_000).await;
    let second = reader.read_to_end().await.unwrap();
    // Published, then the root's update that records the new leader never reaches the table.
    let (client, _) = faulty_client(
        &table.endpoint,
        &["UpdateItem:\"#lead\""],
        Fault::Throttled,
        u64::MAX,
    );
    let failing = Announcing::new(store_for(&table, client), publisher.clone());
    assert!(!once(&failing, &second).await.is_empty(), "the batch fails");
    let lost = leaders(&log);
    assert!(
        lost.len() >= 2,
        "published before the root's update: {lost:?}"
    );
    let carol = lost[1].clone();
    assert_eq!(
        (carol.1.as_str(), carol.3.as_deref()),
        ("p_carol", Some("p_alice"))
    );
    assert!(lost[1..].iter().all(|e| *e == carol), "one id: {lost:?}");

    // Delivered again: published again with the same id, recorded, and then never again.
    let before = lost.len();
    assert!(once(&healthy, &second).await.is_empty());
    assert!(once(&healthy, &second).await.is_empty());
    let after = leaders(&log);
    assert_eq!(after.len(), before + 1);
    assert_eq!(after.last(), Some(&carol));
}

#[tokio::test]
async fn a_bus_that_refuses_fails_the_batch_and_the_next_delivery_publishes() {
    let (_table, store, mut reader) = board("new_leader_refused").await;
    play(&store, "p_alice", 100, 1_000).await;
    let records = reader.read_to_end().await.unwrap();
    // A real EventBridge protocol server, without the bus the publisher names.
    let endpoint = leaderboard_devkit::sqs::endpoint().await;
    let events = leaderboard_devkit::sqs::eventbridge_client(&endpoint);
    let missing = Publisher::EventBridge(Bus::with_client(events.clone(), "new-leader-bus"));
    let refused = Announcing::new(store.clone(), missing.clone());
    assert!(
        !once(&refused, &records).await.is_empty(),
        "the batch fails"
    );

    // The bus exists now (its events go to a queue): the re-delivery publishes.
    events
        .create_event_bus()
        .name("new-leader-bus")
        .send()
        .await
        .unwrap();
    let url = leaderboard_devkit::sqs::queue_for_events(
        &endpoint,
        "new-leader-bus",
        "NewLeader",
        "new-leader-queue",
    )
    .await;
    let queues = leaderboard_devkit::sqs::client(&endpoint);
    let published = Announcing::new(store.clone(), missing);
    assert!(once(&published, &records).await.is_empty());
    let got = queues
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap_or_default();
    assert_eq!(got.len(), 1);
    let body: Value = serde_json::from_str(got[0].body().unwrap()).unwrap();
    assert_eq!(body["detail-type"], "NewLeader");
    assert_eq!(body["detail"]["playerId"], "p_alice");
    assert_eq!(body["detail"]["previousLeaderId"], Value::Null);
    assert!(
        body["detail"]["eventId"]
            .as_str()
            .unwrap()
            .starts_with(&id_of("p_alice"))
    );
}

#[tokio::test]
async fn a_leader_removed_hands_rank_one_to_the_next_entry() {
    let (_table, store, mut reader) = board("new_leader_removed").await;
    let (log, target) = announcing(&store);
    play(&store, "p_alice", 100, 1_000).await;
    play(&store, "p_bob", 80, 1_001).await;
    play(&store, "p_carol", 60, 1_002).await;
    applied(&target, &mut reader).await;
    let board = BoardId::parse(BOARD).unwrap();
    assert!(
        store
            .moderation()
            .remove_entry(&board, &pid("p_alice"), &pid("p_admin"), at(2_000))
            .await
            .unwrap()
    );
    applied(&target, &mut reader).await;
    let who: Vec<(String, u64, Option<String>)> = leaders(&log)
        .into_iter()
        .map(|(_, p, s, b)| (p, s, b))
        .collect();
    assert_eq!(
        who,
        [
            ("p_alice".to_owned(), 100, None),
            // A removal leaves no player id in the lane log (an erasure must not publish it
            // after the fact): the leader before is not named.
            ("p_bob".to_owned(), 80, None),
        ]
    );
}

#[tokio::test]
async fn a_leader_erased_while_the_projector_was_stopped_is_announced_by_pseudonym() {
    let (_table, store, mut reader) = board("new_leader_erased").await;
    let (log, target) = announcing(&store);
    play(&store, "p_alice", 100, 1_000).await;
    applied(&target, &mut reader).await;
    // p_bob takes the lead and is erased before the projector, stopped, sees either.
    play(&store, "p_bob", 200, 2_000).await;
    let bobs_play = reader.read_to_end().await.unwrap();
    let receipt = store
        .moderation()
        .erase_player(&pid("p_bob"), "player", at(3_000), None)
        .await
        .unwrap();
    assert!(receipt.finished());
    let erasure = reader.read_to_end().await.unwrap();
    // It resumes: the play alone first (a change of hands to the erased player), then the
    // erasure's removal (rank 1 back to p_alice).
    assert!(once(&target, &bobs_play).await.is_empty());
    assert!(once(&target, &erasure).await.is_empty());
    let pseudonym = receipt.pseudonym.to_string();
    let who: Vec<(String, u64, Option<String>)> = leaders(&log)
        .into_iter()
        .map(|(_, p, s, b)| (p, s, b))
        .collect();
    assert_eq!(
        who,
        [
            ("p_alice".to_owned(), 100, None),
            (pseudonym, 200, Some("p_alice".to_owned())),
            ("p_alice".to_owned(), 100, None),
        ]
    );
    let published = format!("{:?}", log.newest_first());
    assert!(!published.contains("p_bob"), "{published}");
}

#[tokio::test]
async fn a_corrupt_top_entry_leaves_the_leader_unknown_and_the_index_goes_on() {
    let (table, store, mut reader) = board("new_leader_corrupt_top").await;
    let (log, target) = announcing(&store);
    play(&store, "p_alice", 100, 1_000).await;
    play(&store, "p_bob", 80, 1_001).await;
    applied(&target, &mut reader).await;
    // p_bob's Score item, next after the leader, loses its score by hand; then the leader's
    // entry is removed, so the index must read the top to know who leads.
    let board_id = BoardId::parse(BOARD).unwrap();
    let pointer = store
        .listings()
        .entry_pointer(&board_id, &pid("p_bob"))
        .await
        .unwrap()
        .unwrap();
    table
        .update_raw(
            &format!("LEADERBOARD#{BOARD}"),
            &pointer.score_sk,
            "REMOVE score",
        )
        .await;
    assert!(
        store
            .moderation()
            .remove_entry(&board_id, &pid("p_alice"), &pid("p_admin"), at(2_000))
            .await
            .unwrap()
    );
    // The removal is applied (the batch succeeds), and so is a later play, ranked exactly.
    applied(&target, &mut reader).await;
    play(&store, "p_carol", 60, 3_000).await;
    applied(&target, &mut reader).await;
    let board = store.boards().get_board(&board_id).await.unwrap().unwrap();
    let state = store.rank().index_state(&board).await.unwrap();
    assert_eq!(state.pending(), [], "every change applied");
    assert_eq!(state.entries, 2);
    let carol = store
        .listings()
        .player_rank(&board, &pid("p_carol"))
        .await
        .unwrap()
        .unwrap();
    let exact = carol.freshness.map(|f| f.rank_exact);
    assert_eq!((carol.rank, exact), (2, Some(true)));
    // Nothing was announced for the unknown leader.
    let who: Vec<String> = leaders(&log).into_iter().map(|(_, p, _, _)| p).collect();
    assert_eq!(who, ["p_alice"]);
}
