//! The closing fence against DynamoDB Local: a play that read its board open, and whose
//! transaction is sent only once season close has closed the board's lanes (held there by a
//! gated client), is refused and leaves nothing, on a plain board (lanes grouped) and on a hot
//! one (lanes apart, entries sharded), for a first entry and for an improved one. No play writes
//! or checks the board item.

use crate::common;

use std::time::Duration;

use common::*;
use leaderboard_devkit::local::gated_client;
use leaderboard_devkit::testing::{TestTable, s};
use leaderboard_keys::ids::{GameId, PlayerId, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::Recurrence;
use leaderboard_store::{CloseOptions, CloseProgress, Play, StoreError};

fn play(board: &str, player: &str, score: u64, at: u64) -> Play {
    Play {
        subscores: Default::default(),
        idempotency_key: None,
        metadata: None,
        player_id: PlayerId::parse(player).unwrap(),
        session_id: SessionId::from_parts(at, rand::random()).unwrap(),
        game_id: Some(GameId::parse("tetris").unwrap()),
        score,
        duration_sec: None,
        board_ids: vec![bid(board)],
    }
}

/// The Score items and Sessions of `player` in the table (the snapshot is checked apart).
async fn items_of(table: &TestTable, player: &str) -> Vec<String> {
    let dump = table.dump().await;
    dump.iter()
        .filter(|i| s(i, "playerId") == Some(player))
        .filter(|i| {
            let sk = s(i, "sk").unwrap();
            sk.starts_with("SCORE#") || sk.starts_with("SESSION#")
        })
        .map(|i| format!("{} / {}", s(i, "pk").unwrap(), s(i, "sk").unwrap()))
        .collect()
}

/// A board of `shards` that ended a minute ago with 5 entries; `late` plays `score` at a time
/// before the end, its transaction held until the board is closed.
async fn late_play_is_refused(label: &str, shards: u8, late: &str, score: u64) {
    let (table, store) = store(label).await;
    let now = Timestamp::now().as_millis();
    let (start, end) = (now - 3 * HOUR, now - 60_000);
    sharded_board(
        &store,
        "b",
        Order::Desc,
        Recurrence::None,
        (start, end),
        shards,
    )
    .await;
    let played = start + HOUR;
    for i in 1..=5u64 {
        let early = play("b", &format!("p{i}"), 10 * i, played + i);
        store
            .plays()
            .record_play(&early, Timestamp::from_millis(played + i).unwrap())
            .await
            .unwrap();
    }
    let before = items_of(&table, late).await;

    let (client, gate) = gated_client(&table.endpoint, "TransactWriteItems");
    let gated = store_over(&table, client);
    let late_play = play("b", late, score, end - 1);
    let held = tokio::spawn(async move {
        gated
            .plays()
            .record_play(&late_play, Timestamp::from_millis(end - 1).unwrap())
            .await
    });
    // The play read the board open and is about to write; the close runs to the end meanwhile.
    assert!(gate.reached().await);
    let closed = store
        .close()
        .close_board(&bid("b"), Timestamp::now(), &CloseOptions::default())
        .await
        .unwrap();
    gate.release();
    let CloseProgress::Closed { player_count, .. } = closed else {
        panic!("{closed:?}")
    };
    assert_eq!(player_count, 5);
    let result = tokio::time::timeout(Duration::from_secs(60), held)
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(result, Err(StoreError::BoardClosed { .. })),
        "{result:?}"
    );
    // Nothing of the late play: its entry, if any, as it was, and in the snapshot as it was.
    assert_eq!(items_of(&table, late).await, before, "{label}");
    let finals = snapshot(&table).await;
    let final_scores: Vec<(String, String)> = finals
        .iter()
        .filter(|i| s(i, "sk").unwrap().starts_with("FINAL#"))
        .map(|i| {
            let score = i["score"].as_n().unwrap().clone();
            (s(i, "playerId").unwrap().to_owned(), score)
        })
        .collect();
    let want: Vec<(String, String)> = (1..=5u64)
        .rev()
        .map(|i| (format!("p{i}"), (10 * i).to_string()))
        .collect();
    assert_eq!(final_scores, want, "{label}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_entry_sent_after_the_lanes_closed_is_refused() {
    late_play_is_refused("fence_plain_new", 1, "p_late", 1_000).await;
    late_play_is_refused("fence_hot_new", 8, "p_late", 1_000).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_improvement_sent_after_the_lanes_closed_is_refused() {
    late_play_is_refused("fence_plain_better", 1, "p2", 1_000).await;
    late_play_is_refused("fence_hot_better", 8, "p2", 1_000).await;
}
