//! A rank read across a rebuild's switch, on DynamoDB Local. A lookup reads the root with the
//! entry pointer, then the nodes of the root's generation, then the lanes, and never the root a
//! second time: a rebuild that switches generations and deletes the old one's nodes between
//! those reads must still leave an answer within its lag. Held before its lanes, the lookup
//! finds the new generation on them and reads again from the new root; held before its nodes,
//! it finds them missing where the root counts entries and reads again. Either way the answer
//! is exact (nothing is pending) and the requests show the second read. The friends listing
//! reads the same way.

use crate::common;
use crate::index_check;

use common::*;
use index_check::nodes_by_generation;
use leaderboard_devkit::local::gated_client;
use leaderboard_store::Store;
use leaderboard_store::model::Operator;

/// More than the first 100 the capped count ranks whole, so that ranks are read from the index.
const PLAYERS: usize = 300;

/// A board of `PLAYERS` imported entries with its index built, and its players.
async fn board_of_players(store: &Store, id: &str) -> Vec<String> {
    let players: Vec<String> = (0..PLAYERS).map(|i| format!("s{i:03}")).collect();
    imported_board(store, id, Operator::Best, &players, 0..100_000, 11).await;
    players
}

/// The board's Score sort keys (a rank is one more than the keys above a player's).
async fn score_keys(table: &leaderboard_devkit::testing::TestTable, id: &str) -> Vec<String> {
    table
        .dump()
        .await
        .iter()
        .filter(|i| i["pk"].as_s().unwrap() == &format!("LEADERBOARD#{id}"))
        .filter_map(|i| i["sk"].as_s().ok().filter(|s| s.starts_with("SCORE#")))
        .cloned()
        .collect()
}

/// Looks `player` up through a client that holds the first request matching `gate_on` while a
/// rebuild switches the board's generation (and deletes the old nodes): the answer must be
/// exact and true, and made with `extra` requests more than a quiet lookup's.
async fn lookup_across_a_switch(id: &str, gate_on: &'static str, extra: u32) {
    let (table, store) = store_without_stream(id).await;
    let players = board_of_players(&store, id).await;
    let board = stored_board(&store, id).await;
    let keys = score_keys(&table, id).await;
    let player = players[PLAYERS / 2].clone();
    let mine = store
        .listings()
        .entry_pointer(&bid(id), &pid(&player))
        .await
        .unwrap()
        .unwrap()
        .score_sk;
    let truth = keys.iter().filter(|k| **k > mine).count() as u64 + 1;
    let (quiet, quiet_cost) = store
        .rank()
        .player_rank_counted(&board, &pid(&player))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(quiet.rank, truth);
    let before = nodes_by_generation(&table, id).await;
    assert_eq!(before.len(), 1, "{before:?}");

    let (client, gate) = gated_client(&table.endpoint, gate_on);
    let gated = store_with_client(&table, client);
    let reading = {
        let (board, player) = (board.clone(), pid(&player));
        tokio::spawn(async move { gated.rank().player_rank_counted(&board, &player).await })
    };
    assert!(gate.reached().await, "the lookup reached {gate_on}");
    store.rank().build_rank_index(&board).await.unwrap();
    let after = nodes_by_generation(&table, id).await;
    assert_eq!(after.len(), 1, "the old generation is deleted: {after:?}");
    assert_ne!(after.keys().next(), before.keys().next());
    gate.release();

    let (entry, cost) = reading.await.unwrap().unwrap().unwrap();
    let f = entry.freshness.unwrap();
    assert_eq!((entry.rank, f.rank_exact, f.rank_lag), (truth, true, 0));
    assert_eq!(cost.requests, quiet_cost.requests + extra, "{cost:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_switch_before_the_lanes_are_read_is_seen_on_them_and_the_read_starts_again() {
    // Again: the new root, its nodes, the lanes.
    lookup_across_a_switch("switch_lanes", "Query:RANKSEQ#", 3).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_deleted_before_they_are_read_are_missed_and_read_again() {
    // Again: the new root and its nodes; the lanes are read once, after them.
    lookup_across_a_switch("switch_nodes", "BatchGetItem:RANKV2#switch_nodes#", 2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_friends_listing_reads_again_across_a_switch() {
    let (table, store) = store_without_stream("switch_friends").await;
    let players = board_of_players(&store, "swf").await;
    let board = stored_board(&store, "swf").await;
    let chosen: Vec<_> = players.iter().step_by(7).map(|p| pid(p)).collect();
    let (quiet, quiet_cost) = store.listings().entries_of(&board, &chosen).await.unwrap();

    let (client, gate) = gated_client(&table.endpoint, "Query:RANKSEQ#");
    let gated = store_with_client(&table, client);
    let reading = {
        let (board, chosen) = (board.clone(), chosen.clone());
        tokio::spawn(async move { gated.listings().entries_of(&board, &chosen).await })
    };
    assert!(gate.reached().await);
    store.rank().build_rank_index(&board).await.unwrap();
    gate.release();
    let (listed, cost) = reading.await.unwrap().unwrap();

    assert_eq!(listed.len(), chosen.len());
    assert!(quiet.iter().all(|q| q.freshness.unwrap().rank_exact));
    for (e, q) in listed.iter().zip(&quiet) {
        let f = e.freshness.unwrap();
        assert!(f.rank_exact && f.rank_lag == 0, "{e:?}");
        assert_eq!((e.rank, &e.player_id), (q.rank, &q.player_id));
    }
    // Again: the new root, the snapshots, the lanes.
    assert!(
        cost.requests > quiet_cost.requests + 2,
        "{cost:?} {quiet_cost:?}"
    );
}
