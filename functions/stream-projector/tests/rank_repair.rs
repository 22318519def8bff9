//! A lane record lost on the way, through the stream projector on DynamoDB Local's real stream:
//! delivered as Lambda's event source mapping would, the batch succeeds (nothing retried, nothing
//! discarded), the loss shows as lag and leaves a repair request; the repair run rebuilds the
//! board, the plays after it are delivered on top, and every answer is exact.

use crate::common;
use crate::index_check;

use std::time::Duration;

use aws_lambda_events::event::dynamodb::EventRecord;
use common::*;
use index_check::{expected_index, stored_index};
use lambda_runtime::{Context, LambdaEvent};
use leaderboard_devkit::stream::{EventSourceMapping, StreamReader};
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::entity::ItemKey;
use leaderboard_keys::ids::{BoardId, GameId, SessionId};
use leaderboard_keys::rank_index::REPAIR_PK;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::{Play, RepairOptions, Store};
use stream_projector::handle;

/// More than the exact top (1,000), so that ranks are read from the index.
const PLAYERS: usize = 1_200;

/// `n` plays, one at a time, of players spread over the board, each to a new best.
async fn play(store: &Store, players: &[String], n: usize, from: u64) {
    for i in 0..n {
        let now = at(from + i as u64);
        let play = Play {
            subscores: Default::default(),
            idempotency_key: None,
            metadata: None,
            player_id: pid(&players[(i * 37 + from as usize) % players.len()]),
            session_id: SessionId::from_parts(now.as_millis(), rand::random()).unwrap(),
            game_id: Some(GameId::parse("tetris").unwrap()),
            score: 1_000_000 + from + i as u64,
            duration_sec: None,
            board_ids: vec![BoardId::parse("lost").unwrap()],
        };
        store.plays().record_play(&play, now).await.unwrap();
    }
}

/// The board's lane records among the stream's next ones.
async fn lane_records(reader: &mut StreamReader) -> Vec<EventRecord> {
    let all = reader.read_to_end().await.unwrap();
    all.into_iter()
        .filter(|r| {
            matches!(ItemKey::parse(&record_key(r, "pk"), &record_key(r, "sk")),
                Ok(ItemKey::Lane { board, .. }) if board.as_str() == "lost")
        })
        .collect()
}

/// Sampled players' answers: (rank, true rank, exact, lag).
async fn answers(
    table: &TestTable,
    store: &Store,
    players: &[String],
) -> Vec<(u64, u64, bool, u64)> {
    let board = store
        .boards()
        .get_board(&BoardId::parse("lost").unwrap())
        .await
        .unwrap()
        .unwrap();
    let keys: Vec<String> = table
        .dump()
        .await
        .iter()
        .filter(|i| i["pk"].as_s().unwrap() == "LEADERBOARD#lost")
        .map(|i| i["sk"].as_s().unwrap().clone())
        .filter(|sk| sk.starts_with("SCORE#"))
        .collect();
    let mut out = Vec::new();
    for p in players.iter().step_by(40) {
        let mine = keys.iter().find(|k| k.ends_with(&format!("#{p}"))).unwrap();
        let truth = keys.iter().filter(|k| *k > mine).count() as u64 + 1;
        let (entry, _) = store
            .rank()
            .player_rank_counted(&board, &pid(p))
            .await
            .unwrap()
            .unwrap();
        let f = entry.freshness.unwrap();
        out.push((entry.rank, truth, f.rank_exact, f.rank_lag));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_lane_record_lost_on_the_way_is_repaired_and_later_plays_apply_on_top() {
    // Its process's DynamoDB Local: its streamed writes would slow every other test's.
    let table = TestTable::on_process_local("rank_lanes_lost").await;
    let store = store_for(&table, table.client.clone());
    let players: Vec<String> = (0..PLAYERS).map(|i| format!("l{i:04}")).collect();
    let entries: Vec<_> = players
        .iter()
        .enumerate()
        .map(|(i, p)| (pid(p), (i as u64 * 7_919) % 5_000, at(i as u64)))
        .collect();
    let (_, mut reader) = built_v2_board(&table, &store, "lost", &entries).await;

    // 40 plays; the stream loses a lane record that its lane's later ones wait for.
    play(&store, &players, 40, 100_000).await;
    let mut records = lane_records(&mut reader).await;
    let lost = (0..records.len())
        .find(|&i| {
            let pk = record_key(&records[i], "pk");
            records[i + 1..].iter().any(|r| record_key(r, "pk") == pk)
        })
        .expect("a lane with two changes");
    records.remove(lost);
    let delivery = EventSourceMapping::default()
        .deliver(&records, |e| {
            handle(&store, LambdaEvent::new(e, Context::default()))
        })
        .await;
    assert_eq!(
        (delivery.retries, delivery.discarded.len()),
        (0, 0),
        "the gap holds nothing back"
    );
    assert!(table.raw(REPAIR_PK, "lost").await.is_some());
    let before = answers(&table, &store, &players).await;
    for &(rank, truth, exact, lag) in &before {
        assert!(rank <= 1_000 || lag >= 1, "{before:?}");
        assert!(!exact || rank == truth, "{before:?}");
        assert!(rank.abs_diff(truth) <= lag, "{before:?}");
    }
    assert!(before.iter().any(|a| a.0 > 1_000 && a.3 >= 1), "{before:?}");

    // The repair run, then 20 more plays delivered on top.
    let options = RepairOptions {
        min_age: Duration::ZERO,
        ..RepairOptions::default()
    };
    let run = store
        .rank()
        .repair_rank_indexes(Timestamp::now(), &options, None)
        .await
        .unwrap();
    assert_eq!(run.rebuilt.len(), 1, "{run:?}");
    play(&store, &players, 20, 200_000).await;
    let later = lane_records(&mut reader).await;
    let delivery = EventSourceMapping::default()
        .deliver(&later, |e| {
            handle(&store, LambdaEvent::new(e, Context::default()))
        })
        .await;
    assert_eq!((delivery.retries, delivery.discarded.len()), (0, 0));
    assert_eq!(
        stored_index(&table, "lost").await,
        expected_index(&table, &store, "lost", &players).await
    );
    for (rank, truth, exact, lag) in answers(&table, &store, &players).await {
        assert_eq!((rank, exact, lag), (truth, true, 0));
    }
}
