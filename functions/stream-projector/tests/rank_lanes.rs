//! The rank index through the stream projector, on DynamoDB Local's real stream: two v2 boards of
//! 2,000 players (imported, their index built), then plays on both (8 at once, so that lanes
//! interleave; players move and new ones arrive). One board's lane records are delivered by the
//! handler with one board write failing half way (some chunks committed), then the whole stream
//! is replayed; the other's batch is applied second half first. After each, the index equals
//! the one built from the board's entries, and every watermark is its lane's written count.

use crate::common;
use crate::index_check;

use common::*;
use futures::StreamExt;
use index_check::{expected_index, stored_index};
use leaderboard_devkit::local::{Failures, failing_client};
use leaderboard_devkit::stream::{StartingPosition, StreamReader};
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::entity::ItemKey;
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank_index::REPAIR_PK;
use leaderboard_store::Store;
use rand::Rng;
use rand::seq::SliceRandom;
use stream_projector::rank_index;

/// Players on each board before the plays: the board size.
const PLAYERS: usize = 2_000;
/// Plays by players drawn at random: entries that move.
const MOVES: usize = 400;
/// Players who arrive with the plays.
const ARRIVALS: usize = 60;

async fn v2_board(store: &Store, id: &str) -> BoardId {
    let board = BoardId::parse(id).unwrap();
    open_v2_board(store, id).await;
    board
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn lane_records_failed_half_way_replayed_and_reversed_leave_exactly_the_built_index() {
    // Its process's DynamoDB Local: its streamed writes would slow every other test's.
    let table = TestTable::on_process_local("rank_lanes_stream").await;
    let store = store_for(&table, table.client.clone());
    let delivered = v2_board(&store, "v2s").await;
    let reversed = v2_board(&store, "v2r").await;
    let players: Vec<String> = (0..PLAYERS + ARRIVALS)
        .map(|i| format!("v{i:04}"))
        .collect();
    let mut rng = rand::rng();
    let entries: Vec<_> = players[..PLAYERS]
        .iter()
        .map(|p| {
            (
                pid(p),
                rng.random_range(0..2_000) * 10,
                at(rng.random_range(0..60_000)),
            )
        })
        .collect();
    for id in [&delivered, &reversed] {
        let board = store.boards().get_board(id).await.unwrap().unwrap();
        store
            .boards()
            .import_entries(&board, &entries)
            .await
            .unwrap();
        store.rank().build_rank_index(&board).await.unwrap();
    }
    let plays: Vec<(String, u64, u64)> = {
        let mut who: Vec<&String> = players[PLAYERS..].iter().collect();
        who.extend((0..MOVES).map(|_| &players[rng.random_range(0..PLAYERS)]));
        who.shuffle(&mut rng);
        who.into_iter()
            .map(|p| {
                let score = rng.random_range(0..2_000) * 10;
                (p.clone(), score, 60_000 + rng.random_range(0..600_000))
            })
            .collect()
    };
    futures::stream::iter(&plays)
        .map(|(p, score, ms)| {
            let store = store.clone();
            let boards = vec![delivered.clone(), reversed.clone()];
            async move {
                let (play, now) = play_at(p, *score, *ms, boards);
                store.plays().record_play(&play, now).await.unwrap();
            }
        })
        .buffer_unordered(8)
        .collect::<Vec<()>>()
        .await;
    let records =
        StreamReader::for_table(&table.endpoint, &table.name, StartingPosition::TrimHorizon)
            .await
            .unwrap()
            .read_to_end()
            .await
            .unwrap();
    let lane_of = |id: &str| {
        let id = id.to_owned();
        move |r: &&aws_lambda_events::event::dynamodb::EventRecord| {
            matches!(ItemKey::parse(&record_key(r, "pk"), &record_key(r, "sk")),
                Ok(ItemKey::Lane { board, .. }) if board.as_str() == id)
        }
    };
    // Each board's lane records only: the entries' own records and the sessions' go to no index
    // or to the projection, which other tests cover and which would take most of this test's
    // time.
    let to_deliver: Vec<_> = records.iter().filter(lane_of("v2s")).cloned().collect();
    let to_reverse: Vec<_> = records.iter().filter(lane_of("v2r")).cloned().collect();

    // Board v2s: the handler's first delivery has the v2 write of its second batch fail after
    // its journal and no node were written; the event source mapping delivers again from the
    // reported record.
    let target = FailOnce {
        lane_fail_at: 2,
        lanes_failing_half_way: Some(store_for(
            &table,
            failing_client(
                &table.endpoint,
                Failures {
                    operation: "PutItem|UpdateItem",
                    first: 2,
                    count: u64::MAX,
                },
            ),
        )),
        ..FailOnce::none(&store)
    };
    let retries = deliver(&target, &to_deliver).await;
    assert!(retries >= 1, "the failure was reported");
    let want = expected_index(&table, &store, "v2s", &players).await;
    assert_eq!(
        want.0[""].values().sum::<i64>(),
        (PLAYERS + ARRIVALS) as i64
    );
    assert_eq!(stored_index(&table, "v2s").await, want);

    // The whole stream again: nothing changes.
    assert_eq!(deliver(&FailOnce::none(&store), &to_deliver).await, 0);
    assert_eq!(stored_index(&table, "v2s").await, want);

    // Board v2r: its lane records as one batch, the second half first. Every lane with records
    // in both halves stops at its gap, which asks for the board's repair and reports nothing;
    // then the first half, then the second half delivered again (a redelivery that heals the
    // lanes before any repair).
    let (first, second) = to_reverse.split_at(to_reverse.len() / 2);
    let early = rank_index::index(&store, &rank_index::plan(second))
        .await
        .failures;
    assert!(early.is_empty(), "a gap holds nothing back: {early:?}");
    assert!(
        table.raw(REPAIR_PK, "v2r").await.is_some(),
        "the gaps asked for a repair"
    );
    assert!(
        rank_index::index(&store, &rank_index::plan(first))
            .await
            .failures
            .is_empty()
    );
    assert!(
        rank_index::index(&store, &rank_index::plan(second))
            .await
            .failures
            .is_empty()
    );
    let want = expected_index(&table, &store, "v2r", &players).await;
    assert_eq!(
        want.0[""].values().sum::<i64>(),
        (PLAYERS + ARRIVALS) as i64
    );
    assert_eq!(stored_index(&table, "v2r").await, want);
}
