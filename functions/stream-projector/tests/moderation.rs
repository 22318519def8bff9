//! Removing entries and banning (moderation) on a 2,000-player v2 board with ties, on DynamoDB
//! Local's real stream: removals race other players' plays and the removed players' own plays,
//! a ban races 32 plays of the banned player on two boards, the stream is delivered to the
//! projector as Lambda's event source mapping would, and then the index equals the one built
//! from the entries left, every pointer and Score item agree, and every sampled rank and
//! `playerCount` is exact.

use crate::common;
use crate::index_check;

use std::collections::BTreeMap;
use std::time::Duration;

use common::*;
use futures::future::join_all;
use index_check::{expected_index, stored_index};
use lambda_runtime::{Context, LambdaEvent};
use leaderboard_devkit::stream::{EventSourceMapping, StreamReader};
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::ids::{BoardId, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_store::model::{Operator, RankLayout};
use leaderboard_store::{PlayOutcome, Store, StoreError};
use stream_projector::handle;

const PLAYERS: usize = 2_000;

fn board_id() -> BoardId {
    BoardId::parse("mod").unwrap()
}

/// The board `mod` of [`PLAYERS`] players, its index built, on its process's DynamoDB Local
/// (its streamed writes would slow every other test's): its table, store, players, and a
/// reader of the stream from here on. 300 scores a millisecond apart make groups of full
/// ties within 100 s.
async fn tied_board(label: &str) -> (TestTable, Store, Vec<String>, StreamReader) {
    let table = TestTable::on_process_local(label).await;
    let store = store_for(&table, table.client.clone());
    let players: Vec<String> = (0..PLAYERS).map(|i| format!("m{i:04}")).collect();
    let imported: Vec<_> = players
        .iter()
        .enumerate()
        .map(|(i, p)| (pid(p), (i as u64 * 7_919) % 300, at(i as u64)))
        .collect();
    let (_, reader) = built_v2_board(&table, &store, "mod", &imported).await;
    (table, store, players, reader)
}

/// A play of `player` to `score` on `boards`, at `ms`: its session id and how it ended.
async fn play_on(
    store: &Store,
    player: &str,
    score: u64,
    ms: u64,
    boards: &[&str],
) -> (SessionId, Result<PlayOutcome, StoreError>) {
    let boards = boards.iter().map(|b| BoardId::parse(b).unwrap()).collect();
    let (play, now) = play_at(player, score, ms, boards);
    (
        play.session_id.clone(),
        store.plays().record_play(&play, now).await,
    )
}

/// A play of `player` to `score` on the board, at `ms`, which must be accepted.
async fn play(store: &Store, player: &str, score: u64, ms: u64) {
    play_on(store, player, score, ms, &["mod"]).await.1.unwrap();
}

/// Each player's Score sort keys on `board`, and each pointer's, from a dump.
async fn entries(
    table: &TestTable,
    board: &str,
) -> (BTreeMap<String, Vec<String>>, BTreeMap<String, String>) {
    let mut scores: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut pointers = BTreeMap::new();
    let (board_pk, entry_sk) = (format!("LEADERBOARD#{board}"), format!("ENTRY#{board}"));
    for item in table.dump().await {
        let (pk, sk) = (item["pk"].as_s().unwrap(), item["sk"].as_s().unwrap());
        if *pk == board_pk && sk.starts_with("SCORE#") {
            let player = item["playerId"].as_s().unwrap().clone();
            scores.entry(player).or_default().push(sk.clone());
        } else if *sk == entry_sk {
            let player = item["playerId"].as_s().unwrap().clone();
            pointers.insert(player, item["scoreSk"].as_s().unwrap().clone());
        }
    }
    (scores, pointers)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn removed_entries_leave_the_index_exact_and_never_half_removed() {
    let (table, store, players, mut reader) = tied_board("moderation").await;

    // 40 removals, every 50th player; 10 of them race a play of their own, and 32 other
    // players play meanwhile.
    let removed: Vec<&String> = players.iter().step_by(50).collect();
    let removals = removed.iter().map(|p| async {
        assert!(
            store
                .moderation()
                .remove_entry(&board_id(), &pid(p), &pid("ops"), at(200_000))
                .await
                .unwrap()
        );
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
    let (scores, pointers) = entries(&table, "mod").await;
    assert_pointers_agree(&scores, &pointers);
    // A removed player has an entry only if their play committed after the removal: then it
    // is that play's (500 and up).
    for (i, p) in removed.iter().enumerate() {
        if let Some(ptr) = store
            .listings()
            .entry_pointer(&board_id(), &pid(p))
            .await
            .unwrap()
        {
            assert!(i < 10 && ptr.entry.score >= 500, "{p}: {ptr:?}");
        }
    }
    let left = scores.len();
    assert!((PLAYERS - 40..=PLAYERS - 30).contains(&left), "{left}");

    deliver_stream(&store, &mut reader).await;
    assert_eq!(
        assert_index_exact(&table, &store, "mod", &players).await,
        left
    );
    let board = store
        .boards()
        .get_board(&board_id())
        .await
        .unwrap()
        .unwrap();
    for p in removed.iter().skip(10) {
        assert!(
            store
                .listings()
                .player_rank(&board, &pid(p))
                .await
                .unwrap()
                .is_none()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_ban_racing_32_plays_of_the_player_leaves_no_entry_on_any_open_board() {
    let (table, store, players, mut reader) = tied_board("bans").await;
    // A second open board, where the cheater and 100 others have played.
    store
        .boards()
        .create_board(
            new_board("mod2", Order::Desc, Operator::Best, RankLayout::V2),
            at(0),
        )
        .await
        .unwrap();
    let cheat = players[777].as_str();
    for (i, p) in players
        .iter()
        .step_by(20)
        .chain([&players[777]])
        .enumerate()
    {
        play_on(&store, p, i as u64 % 40, 50_000 + i as u64, &["mod2"])
            .await
            .1
            .unwrap();
    }

    // 32 plays of the cheater on both boards (each better than the last), started 20 ms
    // apart, the ban started among them, and 16 other players' plays. Which of the cheater's
    // plays commit first does not change what must hold; the timing only spreads them.
    let (cheater, ops) = (pid(cheat), pid("ops"));
    let banning = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        store
            .moderation()
            .ban_player(&cheater, "aimbot", &ops, at(300_000))
            .await
    };
    let cheating = (0..32u64).map(|i| {
        let store = &store;
        async move {
            tokio::time::sleep(Duration::from_millis(20 * i)).await;
            play_on(store, cheat, 1_000 + i, 300_000 + i, &["mod", "mod2"]).await
        }
    });
    let others = players
        .iter()
        .skip(3)
        .step_by(125)
        .enumerate()
        .map(|(i, p)| {
            let store = &store;
            async move {
                let score = 500 + i as u64;
                play_on(store, p, score, 310_000 + i as u64, &["mod", "mod2"]).await
            }
        });
    let (ban, cheats, others) = tokio::join!(banning, join_all(cheating), join_all(others));
    let ban = ban.unwrap();
    assert!(others.into_iter().all(|(_, r)| r.is_ok()));
    // Each of the cheater's plays committed before the ban or was refused, writing nothing.
    let mut accepted = 0;
    for (session, outcome) in &cheats {
        let stored = store
            .listings()
            .get_session(&pid(cheat), session)
            .await
            .unwrap();
        match outcome {
            Ok(_) => {
                accepted += 1;
                assert!(stored.is_some());
            }
            Err(StoreError::Banned { .. }) => assert!(stored.is_none(), "{session}"),
            Err(e) => panic!("{session}: {e}"),
        }
    }
    println!("{accepted} of 32 plays committed before the ban");
    let want: Vec<BoardId> = ["mod", "mod2"].map(|b| BoardId::parse(b).unwrap()).into();
    assert_eq!(ban.removed_from, want);

    // No entry of the cheater on either board, and every other entry whole.
    for board in ["mod", "mod2"] {
        let (scores, pointers) = entries(&table, board).await;
        assert_pointers_agree(&scores, &pointers);
        assert!(!scores.contains_key(cheat), "{board}");
    }
    // A play now is refused; the index, delivered, is exact on both boards.
    let (_, late) = play_on(&store, cheat, 5_000, 400_000, &["mod"]).await;
    assert!(matches!(late, Err(StoreError::Banned { .. })), "{late:?}");
    deliver_stream(&store, &mut reader).await;
    assert_eq!(
        assert_index_exact(&table, &store, "mod", &players).await,
        PLAYERS - 1
    );
    assert_eq!(
        assert_index_exact(&table, &store, "mod2", &players).await,
        100 + 16
    );
}

/// Every pointer has its one Score item and every Score item its pointer.
fn assert_pointers_agree(
    scores: &BTreeMap<String, Vec<String>>,
    pointers: &BTreeMap<String, String>,
) {
    for (player, keys) in scores {
        assert_eq!(keys.len(), 1, "{player}: {keys:?}");
        assert_eq!(pointers.get(player), Some(&keys[0]), "{player}");
    }
    assert_eq!(scores.len(), pointers.len());
}

/// Delivers everything the stream holds to the projector, as the event source mapping would.
async fn deliver_stream(store: &Store, reader: &mut StreamReader) {
    let records = reader.read_to_end().await.unwrap();
    let delivery = EventSourceMapping::default()
        .deliver(&records, |e| {
            handle(store, LambdaEvent::new(e, Context::default()))
        })
        .await;
    assert!(delivery.discarded.is_empty());
}

/// Once the index has applied everything: `board`'s index is the one its entries build, and
/// every 37th entry's rank is exact against the entries' order, with `playerCount` the number
/// of entries. Answers that number.
async fn assert_index_exact(
    table: &TestTable,
    store: &Store,
    board: &str,
    players: &[String],
) -> usize {
    assert_eq!(
        stored_index(table, board).await,
        expected_index(table, store, board, players).await,
        "{board}"
    );
    let (scores, _) = entries(table, board).await;
    let stored = store
        .boards()
        .get_board(&BoardId::parse(board).unwrap())
        .await
        .unwrap()
        .unwrap();
    let keys: Vec<&String> = scores.values().map(|k| &k[0]).collect();
    for (player, key) in scores.iter().step_by(37) {
        let truth = keys.iter().filter(|k| **k > &key[0]).count() as u64 + 1;
        let entry = store
            .listings()
            .player_rank(&stored, &pid(player))
            .await
            .unwrap()
            .unwrap();
        let f = entry.freshness.unwrap();
        assert_eq!(
            (entry.rank, f.rank_exact, f.rank_lag, f.player_count),
            (truth, true, 0, scores.len() as u64),
            "{board} {player}"
        );
    }
    scores.len()
}
