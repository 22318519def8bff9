//! The rank index rebuilt while plays go on, on DynamoDB Local: a lane change lost on the
//! way shows as lag, is asked to be repaired, and the repair run rebuilds the board while a
//! second task keeps playing and applying, after which every answer is exact; a request whose
//! lane moved past its gap by itself is dropped without a rebuild; a build counts a play that
//! lands during its scan.

use crate::common;
use crate::index_check;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::time::{Duration, Instant};

use common::*;
use index_check::{ChangeLog, expected_index, nodes_by_generation, stored_index};
use leaderboard_keys::rank::Order;
use leaderboard_keys::rank_index::{LANES, lane_of};
use leaderboard_keys::rank_index::{LaneChange, REPAIR_PK};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{Operator, RankLayout};
use leaderboard_store::{RepairOptions, Store};

/// More than the exact top (1,000), so that ranks are read from the index.
const PLAYERS: usize = 1_200;

/// A default (v2) board of `PLAYERS` imported entries, indexed.
async fn indexed_board(store: &Store, id: &str) -> Vec<String> {
    let players: Vec<String> = (0..PLAYERS).map(|i| format!("q{i:04}")).collect();
    imported_board(store, id, Operator::Best, &players, 0..200, 37).await;
    assert_eq!(
        stored_board(store, id).await.rank_layout,
        RankLayout::V2,
        "new boards are v2"
    );
    players
}

/// Plays `n` improving scores, one at a time, logging each lane change; `skip(i)` says which
/// changes the stream loses.
async fn play_and_log(
    store: &Store,
    table: &leaderboard_devkit::testing::TestTable,
    board: &str,
    players: &[String],
    n: usize,
    from_ms: u64,
    log: &mut ChangeLog,
) {
    for i in 0..n {
        let p = &players[(i * 7 + from_ms as usize) % players.len()];
        submit(
            store,
            p,
            300 + from_ms + i as u64,
            &[board],
            from_ms + i as u64,
        )
        .await;
        log.after_play(table, board, lane_of(p, LANES)).await;
    }
}

/// Every sampled player's rank: (answered, true, exact, lag).
async fn answers(store: &Store, board: &str, players: &[String]) -> Vec<(u64, u64, bool, u64)> {
    let keys = score_keys(store, board, players).await;
    let mut out = Vec::new();
    for p in players.iter().step_by(25) {
        out.push(rank_answer(store, board, &keys, p).await);
    }
    out
}

async fn score_keys(store: &Store, board: &str, players: &[String]) -> Vec<String> {
    let mut keys = Vec::new();
    for p in players {
        if let Some(ptr) = store
            .listings()
            .entry_pointer(&bid(board), &pid(p))
            .await
            .unwrap()
        {
            keys.push(ptr.score_sk);
        }
    }
    keys
}

/// The first change with a later one on its lane: lost, it stops its lane.
fn followed(changes: &[LaneChange]) -> usize {
    (0..changes.len())
        .find(|&i| changes[i + 1..].iter().any(|c| c.lane == changes[i].lane))
        .expect("some lane changes twice")
}

fn no_wait() -> RepairOptions {
    RepairOptions {
        min_age: Duration::ZERO,
        ..RepairOptions::default()
    }
}

#[tokio::test]
async fn a_lost_lane_change_is_repaired_while_plays_go_on_and_every_answer_is_exact_after() {
    let (table, store) = store_without_stream("rank_repair").await;
    let players = indexed_board(&store, "rp").await;

    // 30 plays; the stream loses a change that its lane's later ones wait for.
    let mut log = ChangeLog::default();
    play_and_log(&store, &table, "rp", &players, 30, 1_000_000, &mut log).await;
    let lost: LaneChange = log.changes.remove(followed(&log.changes));
    let out = store
        .rank()
        .apply_lane_changes(&bid("rp"), &log.changes)
        .await
        .unwrap();
    assert!(
        out.gaps
            .iter()
            .any(|g| g.lane == lost.lane && g.expected == lost.seq),
        "{out:?}"
    );
    let request = table.raw(REPAIR_PK, "rp").await.expect("a repair request");
    assert_eq!(
        request[&format!("m{}", lost.lane)].as_n().unwrap(),
        &lost.seq.to_string()
    );

    // The lag shows below the exact top (whose ranks a capped count makes exact), and no
    // answer claims to be exact that is not.
    let before = answers(&store, "rp", &players).await;
    for &(rank, truth, exact, lag) in &before {
        assert!(rank <= 1_000 || lag >= 1, "{before:?}");
        assert!(!exact || rank == truth);
        assert!(rank.abs_diff(truth) <= lag);
    }
    assert!(before.iter().any(|a| a.0 > 1_000), "{before:?}");

    // A young request waits.
    let waiting = store
        .rank()
        .repair_rank_indexes(Timestamp::now(), &RepairOptions::default(), None)
        .await
        .unwrap();
    assert_eq!(
        (waiting.waiting, waiting.rebuilt.len()),
        (1, 0),
        "{waiting:?}"
    );

    // The repair runs while a second task keeps playing and applying what its stream carries
    // (everything but the lost change, again and again, as redeliveries would).
    let done = Arc::new(AtomicBool::new(false));
    let player = {
        let (store, table, players, done) =
            (store.clone(), table.clone(), players.clone(), done.clone());
        let mut log = std::mem::take(&mut log);
        tokio::spawn(async move {
            let mut round = 0u64;
            // At least 5 rounds, and on until the repair is over.
            while round < 5 || !done.load(AtomicOrdering::SeqCst) {
                let from = 2_000_000 + round * 100;
                play_and_log(&store, &table, "rp", &players, 10, from, &mut log).await;
                store
                    .rank()
                    .apply_lane_changes(&bid("rp"), &log.changes)
                    .await
                    .unwrap();
                round += 1;
            }
            (log, round)
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let repaired = store
        .rank()
        .repair_rank_indexes(Timestamp::now(), &no_wait(), None)
        .await
        .unwrap();
    done.store(true, AtomicOrdering::SeqCst);
    let (log, rounds) = player.await.unwrap();
    eprintln!("repair: {repaired:?}, {rounds} rounds of plays");
    assert_eq!(repaired.rebuilt.len(), 1, "{repaired:?}");
    assert_eq!(repaired.rebuilt[0].0, bid("rp"));
    assert!(repaired.failed.is_empty());
    assert!(rounds >= 5);

    // The stream's last deliveries: then the index is exactly the entries, every lane at its
    // written count, and every answer exact.
    let last = store
        .rank()
        .apply_lane_changes(&bid("rp"), &log.changes)
        .await
        .unwrap();
    assert!(last.gaps.is_empty(), "{last:?}");
    assert_eq!(
        stored_index(&table, "rp").await,
        expected_index(&table, &store, "rp", &players).await
    );
    for (rank, truth, exact, lag) in answers(&store, "rp", &players).await {
        assert_eq!((rank, exact, lag), (truth, true, 0));
    }
    // The request is gone (or, if a redelivery asked again during the rebuild, the next run
    // finds the lanes past their gaps and drops it).
    let again = store
        .rank()
        .repair_rank_indexes(Timestamp::now(), &no_wait(), None)
        .await
        .unwrap();
    assert!(again.rebuilt.is_empty(), "{again:?}");
    assert!(table.raw(REPAIR_PK, "rp").await.is_none());
    // Only the generation in service has nodes: the replaced one and any attempt's are gone.
    let root = table.raw("RANKV2#rp", "#ROOT").await.unwrap();
    let live: u64 = root["g"].as_n().unwrap().parse().unwrap();
    let generations = nodes_by_generation(&table, "rp").await;
    assert_eq!(generations.keys().copied().collect::<Vec<_>>(), vec![live]);
    assert_eq!(live, repaired.rebuilt[0].1.generation);
    // No lane is left paused.
    for lane in 0..LANES {
        let key = leaderboard_keys::entity::grouped_lane(&bid("rp"), lane);
        let item = table.raw(&key.pk, &key.sk).await;
        assert!(item.is_none_or(|i| !i.contains_key("pause")), "lane {lane}");
    }
}

#[tokio::test]
async fn a_request_whose_lane_caught_up_by_itself_is_dropped_without_a_rebuild() {
    let (table, store) = store_without_stream("rank_repair_late").await;
    let players = indexed_board(&store, "rl").await;
    let mut log = ChangeLog::default();
    play_and_log(&store, &table, "rl", &players, 12, 1_000_000, &mut log).await;
    let mut late = log.changes.clone();
    let lost = late.remove(followed(&late));
    store
        .rank()
        .apply_lane_changes(&bid("rl"), &late)
        .await
        .unwrap();
    assert!(table.raw(REPAIR_PK, "rl").await.is_some());
    // The missing record comes after all (a redelivery).
    store
        .rank()
        .apply_lane_changes(&bid("rl"), &[lost])
        .await
        .unwrap();
    store
        .rank()
        .apply_lane_changes(&bid("rl"), &log.changes)
        .await
        .unwrap();
    let root = table.raw("RANKV2#rl", "#ROOT").await.unwrap();
    let run = store
        .rank()
        .repair_rank_indexes(Timestamp::now(), &no_wait(), None)
        .await
        .unwrap();
    assert_eq!((run.caught_up, run.rebuilt.len()), (vec![bid("rl")], 0));
    assert!(table.raw(REPAIR_PK, "rl").await.is_none());
    assert_eq!(
        table.raw("RANKV2#rl", "#ROOT").await.unwrap(),
        root,
        "no rebuild"
    );
    for (rank, truth, exact, _) in answers(&store, "rl", &players).await {
        assert_eq!((rank, exact), (truth, true));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_build_counts_a_play_that_lands_during_its_scan() {
    let (table, store) = store_without_stream("rank_build_live").await;
    let board = board(&store, "live", Order::Desc, Operator::Best).await;
    let entries: Vec<_> = (0..50u64)
        .map(|i| (pid(&format!("w{i:02}")), i * 10, at(i)))
        .collect();
    store
        .boards()
        .import_entries(&board, &entries)
        .await
        .unwrap();

    // The build's first scan (its first Query) waits while a play lands: that lane moves, so
    // the build scans again, and its index counts the play.
    let (client, gate) = leaderboard_devkit::local::gated_client(&table.endpoint, "Query");
    let gated = store_with_client(&table, client);
    let building = {
        let board = board.clone();
        tokio::spawn(async move { gated.rank().build_rank_index(&board).await })
    };
    assert!(gate.reached().await);
    submit(&store, "w03", 5_000, &["live"], 10_000).await;
    gate.release();
    let built = building.await.unwrap().unwrap();
    assert_eq!(built.entries, 50);
    let players: Vec<String> = (0..50).map(|i| format!("w{i:02}")).collect();
    assert_eq!(
        stored_index(&table, "live").await,
        expected_index(&table, &store, "live", &players).await
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_repair_runs_together_rebuild_a_board_once_and_a_run_out_of_time_leaves_it_to_the_next()
{
    let (table, store) = store_without_stream("rank_repair_lease").await;
    let players = indexed_board(&store, "rx").await;
    let mut log = ChangeLog::default();
    play_and_log(&store, &table, "rx", &players, 12, 1_000_000, &mut log).await;
    let mut delivered = log.changes.clone();
    delivered.remove(followed(&delivered));
    store
        .rank()
        .apply_lane_changes(&bid("rx"), &delivered)
        .await
        .unwrap();
    let root = table.raw("RANKV2#rx", "#ROOT").await.unwrap();

    // A run whose time runs out inside the rebuild (its first lane read held until then)
    // leaves its checkpoint on the request for the next run: no lane is left paused, the
    // index is as it was, and the lease is given back.
    let (client, gate) = leaderboard_devkit::local::gated_client(&table.endpoint, "Query:RANKSEQ#");
    let gated = store_with_client(&table, client);
    let deadline = Instant::now() + Duration::from_secs(3);
    let late = tokio::spawn(async move {
        gated
            .rank()
            .repair_rank_indexes(Timestamp::now(), &no_wait(), Some(deadline))
            .await
    });
    assert!(gate.reached().await);
    // Not a timer of the runtime's: the held request blocks one of its two workers.
    let wait = (deadline + Duration::from_millis(50)).saturating_duration_since(Instant::now());
    tokio::task::spawn_blocking(move || std::thread::sleep(wait))
        .await
        .unwrap();
    gate.release();
    let late = late.await.unwrap().unwrap();
    assert_eq!(late.continuing, vec![bid("rx")], "{late:?}");
    assert!(
        late.rebuilt.is_empty() && late.failed.is_empty(),
        "{late:?}"
    );
    let request = table.raw(REPAIR_PK, "rx").await.expect("the request stays");
    assert!(request.contains_key("stGen"), "checkpointed: {request:?}");
    assert!(!request.contains_key("leaseBy"), "{request:?}");
    assert_eq!(
        table.raw("RANKV2#rx", "#ROOT").await.unwrap()["g"],
        root["g"]
    );

    // Two runs together: one rebuilds, the other finds the board leased (or, if it comes
    // after, caught up), never a second rebuild.
    let options = no_wait();
    let (a, b) = tokio::join!(
        store
            .rank()
            .repair_rank_indexes(Timestamp::now(), &options, None),
        store
            .rank()
            .repair_rank_indexes(Timestamp::now(), &options, None)
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.rebuilt.len() + b.rebuilt.len(), 1, "{a:?} {b:?}");
    assert!(a.failed.is_empty() && b.failed.is_empty(), "{a:?} {b:?}");
    assert!(table.raw(REPAIR_PK, "rx").await.is_none());
    assert_eq!(
        stored_index(&table, "rx").await,
        expected_index(&table, &store, "rx", &players).await
    );
    // Only the generation in service is left, and none of the staged scans.
    assert_eq!(nodes_by_generation(&table, "rx").await.len(), 1);
    let staged = table.dump().await;
    assert!(
        !staged
            .iter()
            .any(|i| i["pk"].as_s().unwrap() == "RANKV2#rx#STAGE")
    );
    for lane in 0..LANES {
        let key = leaderboard_keys::entity::grouped_lane(&bid("rx"), lane);
        let item = table.raw(&key.pk, &key.sk).await;
        assert!(item.is_none_or(|i| !i.contains_key("pause")), "lane {lane}");
    }
}
