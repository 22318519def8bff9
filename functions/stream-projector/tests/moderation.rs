//! Removing entries (moderation) on a 2,000-player v2 board with ties, on DynamoDB Local's real
//! stream: removals race other players' plays and the removed players' own plays, the stream is
//! delivered to the projector as Lambda's event source mapping would, and then the index equals
//! the one built from the entries left, every pointer and Score item agree, and every sampled
//! rank and `playerCount` is exact.

mod common;
#[path = "../../../shared/store/tests/common/rank_v2.rs"]
mod rank_v2_index;

use std::collections::BTreeMap;

use common::*;
use futures::future::join_all;
use lambda_runtime::{Context, LambdaEvent};
use leaderboard_devkit::stream::EventSourceMapping;
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::ids::{BoardId, GameId, SessionId};
use leaderboard_store::{Play, Store};
use rank_v2_index::{expected_index, stored_index};
use stream_projector::handle;

const PLAYERS: usize = 2_000;

fn board_id() -> BoardId {
    BoardId::parse("mod").unwrap()
}

/// A play of `player` to `score`, at `ms`.
async fn play(store: &Store, player: &str, score: u64, ms: u64) {
    let now = at(ms);
    let play = Play {
        player_id: pid(player),
        session_id: SessionId::from_parts(now.as_millis(), rand::random()).unwrap(),
        game_id: Some(GameId::parse("tetris").unwrap()),
        score,
        duration_sec: None,
        leaderboard_ids: vec![board_id()],
        metadata: None,
    };
    store.record_play(&play, now).await.unwrap();
}

/// Each player's Score sort keys on the board, and each pointer's, from a dump.
async fn entries(table: &TestTable) -> (BTreeMap<String, Vec<String>>, BTreeMap<String, String>) {
    let mut scores: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut pointers = BTreeMap::new();
    for item in table.dump().await {
        let (pk, sk) = (item["pk"].as_s().unwrap(), item["sk"].as_s().unwrap());
        if pk == "LEADERBOARD#mod" && sk.starts_with("SCORE#") {
            let player = item["playerId"].as_s().unwrap().clone();
            scores.entry(player).or_default().push(sk.clone());
        } else if sk == "ENTRY#mod" {
            let player = item["playerId"].as_s().unwrap().clone();
            pointers.insert(player, item["scoreSk"].as_s().unwrap().clone());
        }
    }
    (scores, pointers)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn removed_entries_leave_the_index_exact_and_never_half_removed() {
    // A DynamoDB Local of its own: its streamed writes would slow every other test's.
    let table = TestTable::on_own_local("moderation").await;
    let store = store_for(&table, table.client.clone());
    let players: Vec<String> = (0..PLAYERS).map(|i| format!("m{i:04}")).collect();
    // 300 scores a millisecond apart: groups of full ties within 100 s.
    let imported: Vec<_> = players
        .iter()
        .enumerate()
        .map(|(i, p)| (pid(p), (i as u64 * 7_919) % 300, at(i as u64)))
        .collect();
    let (_, mut reader) = built_v2_board(&table, &store, "mod", &imported).await;

    // 40 removals, every 50th player; 10 of them race a play of their own, and 32 other
    // players play meanwhile.
    let removed: Vec<&String> = players.iter().step_by(50).collect();
    let removals = removed.iter().map(|p| async {
        assert!(store.remove_entry(&board_id(), &pid(p)).await.unwrap());
    });
    let racing = removed.iter().take(10).enumerate().map(|(i, p)| {
        let store = &store;
        async move { play(store, p, 500 + i as u64, 100_000 + i as u64).await }
    });
    let others = players
        .iter()
        .skip(25)
        .step_by(60)
        .take(32)
        .enumerate()
        .map(|(i, p)| {
            let store = &store;
            async move { play(store, p, 400 + i as u64, 200_000 + i as u64).await }
        });
    let ((), (), ()) = tokio::join!(
        async { join_all(removals).await.into_iter().collect() },
        async { join_all(racing).await.into_iter().collect() },
        async { join_all(others).await.into_iter().collect() },
    );

    // Every pointer has its one Score item and every Score item its pointer.
    let (scores, pointers) = entries(&table).await;
    for (player, keys) in &scores {
        assert_eq!(keys.len(), 1, "{player}: {keys:?}");
        assert_eq!(pointers.get(player), Some(&keys[0]), "{player}");
    }
    assert_eq!(scores.len(), pointers.len());
    // A removed player has an entry only if their play committed after the removal: then it
    // is that play's (500 and up).
    for (i, p) in removed.iter().enumerate() {
        if let Some(ptr) = store.entry_pointer(&board_id(), &pid(p)).await.unwrap() {
            assert!(i < 10 && ptr.score >= 500, "{p}: {ptr:?}");
        }
    }
    let left = scores.len();
    assert!((PLAYERS - 40..=PLAYERS - 30).contains(&left), "{left}");

    // The stream, delivered: the index is the one the entries left build.
    let records = reader.read_to_end().await.unwrap();
    let delivery = EventSourceMapping::default()
        .deliver(&records, |e| {
            handle(&store, LambdaEvent::new(e, Context::default()))
        })
        .await;
    assert!(delivery.discarded.is_empty());
    assert_eq!(
        stored_index(&table, "mod").await,
        expected_index(&table, &store, "mod", &players).await
    );
    // Sampled ranks are exact, and the board counts the entries left.
    let board = store.get_board(&board_id()).await.unwrap().unwrap();
    let keys: Vec<&String> = scores.values().map(|k| &k[0]).collect();
    for (player, key) in scores.iter().step_by(37) {
        let truth = keys.iter().filter(|k| **k > &key[0]).count() as u64 + 1;
        let entry = store
            .player_rank(&board, &pid(player))
            .await
            .unwrap()
            .unwrap();
        let f = entry.freshness.unwrap();
        assert_eq!(
            (entry.rank, f.rank_exact, f.rank_lag, f.player_count),
            (truth, true, 0, left as u64),
            "{player}"
        );
    }
    for p in removed.iter().skip(10) {
        assert!(store.player_rank(&board, &pid(p)).await.unwrap().is_none());
    }
}
