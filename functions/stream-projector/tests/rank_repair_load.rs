//! The repair of a large board under full load, through the stream projector on DynamoDB
//! Local's real stream: a 3,000-entry board whose lanes stopped (its entries imported without
//! their changes ever reaching the index) is rebuilt while plays go on as fast as the stack
//! takes them and every record is delivered as Lambda's event source mapping would. Runs with a
//! 4 s deadline (shorter than an invocation's, so that the board takes several runs as a large
//! board does in production, at a fraction of the test's time), the first two started
//! together, each stop at their deadline with a checkpoint the next resumes from, and finish
//! the rebuild; no play is refused, no batch is retried, and afterwards the index counts
//! exactly the board's entries.
//! How long a run takes, and so how many runs, is the machine's speed: logged, never asserted
//! (BENCHMARKS.md has the figures).

use crate::common;
use crate::index_check;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::*;
use index_check::{expected_in, index_in};
use lambda_runtime::{Context, LambdaEvent};
use leaderboard_devkit::stream::{EventSourceMapping, StartingPosition, StreamReader};
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::ids::{BoardId, GameId, SessionId};
use leaderboard_keys::rank_index::{LANES, REPAIR_PK};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::{Play, RepairOptions, RepairSummary, Store};
use stream_projector::handle;

const ENTRIES: usize = 3_000;
/// Tasks playing at once: enough to keep DynamoDB Local's one busy core saturated.
const PLAYING: usize = 2;
/// Each run's deadline.
const DEADLINE: Duration = Duration::from_secs(4);
/// A guard against a run that never ends the rebuild, not a bound on time: the node puts of
/// 3,000 entries (about 12,000 nodes) take about six runs here, the catch-ups and the switch
/// one or two more; every run that is not left out as busy must end it or leave a
/// checkpoint (asserted), so only a machine hundreds of times slower meets this.
const MAX_RUNS: usize = 500;

/// Plays new bests of players spread over the board until `done`: the plays refused.
async fn play_until(
    store: Store,
    players: Arc<Vec<String>>,
    n: Arc<AtomicU64>,
    done: Arc<AtomicBool>,
) -> u64 {
    let mut refused = 0;
    while !done.load(Ordering::SeqCst) {
        let i = n.fetch_add(1, Ordering::SeqCst);
        let now = at(1_000_000 + i);
        let play = Play {
            subscores: Default::default(),
            idempotency_key: None,
            metadata: None,
            player_id: pid(&players[(i as usize * 7_919) % players.len()]),
            session_id: SessionId::from_parts(now.as_millis(), rand::random()).unwrap(),
            game_id: Some(GameId::parse("tetris").unwrap()),
            score: 10_000_000 + i,
            duration_sec: None,
            board_ids: vec![BoardId::parse("big").unwrap()],
        };
        if let Err(e) = store.plays().record_play(&play, now).await {
            eprintln!("play refused: {e}");
            refused += 1;
        }
    }
    refused
}

/// Delivers the stream's records to the projector until `done`, then to the end: the
/// deliveries retried and the records discarded.
async fn project_until(
    store: Store,
    mut reader: StreamReader,
    done: Arc<AtomicBool>,
) -> (u32, usize) {
    let (mut retries, mut discarded) = (0, 0);
    let mut quiet = 0;
    loop {
        let records = reader.read_to_end().await.unwrap();
        if records.is_empty() {
            if done.load(Ordering::SeqCst) {
                quiet += 1;
                if quiet == 3 {
                    return (retries, discarded);
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        }
        quiet = 0;
        let delivery = EventSourceMapping::default()
            .deliver(&records, |e| {
                handle(&store, LambdaEvent::new(e, Context::default()))
            })
            .await;
        retries += delivery.retries;
        discarded += delivery.discarded.len();
    }
}

/// One repair run with its deadline: what it did, checked to have failed nothing.
async fn run(store: &Store) -> RepairSummary {
    let options = RepairOptions {
        min_age: Duration::ZERO,
        ..RepairOptions::default()
    };
    let started = Instant::now();
    let summary = store
        .rank()
        .repair_rank_indexes(Timestamp::now(), &options, Some(started + DEADLINE))
        .await
        .unwrap();
    let took = started.elapsed();
    eprintln!("repair run: {took:?} {summary:?}");
    assert!(summary.failed.is_empty(), "{summary:?}");
    summary
}

/// A run that found the board's request to itself either ended the rebuild or left a
/// checkpoint for the next: out of time, it stops and is resumed, never dropped.
fn assert_progress(summary: &RepairSummary) {
    if summary.busy.is_empty() {
        assert_eq!(
            summary.rebuilt.len() + summary.continuing.len(),
            1,
            "{summary:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_3000_entry_board_is_repaired_under_full_load_by_runs_that_each_stop_at_their_deadline() {
    // Its process's DynamoDB Local: its streamed writes would slow every other test's.
    let table = TestTable::on_process_local("rank_repair_load").await;
    let store = store_for(&table, table.client.clone());
    let board = open_v2_board(&store, "big").await;
    let players: Arc<Vec<String>> = Arc::new((0..ENTRIES).map(|i| format!("b{i:05}")).collect());
    let entries: Vec<_> = players
        .iter()
        .enumerate()
        .map(|(i, p)| (pid(p), (i as u64 * 7_919) % 1_000_000, at(i as u64)))
        .collect();
    // Imported and never indexed: every lane's written count is ahead of the index, so the
    // first change delivered on each lane finds a gap.
    store
        .boards()
        .import_entries(&board, &entries)
        .await
        .unwrap();
    let mut reader =
        StreamReader::for_table(&table.endpoint, &table.name, StartingPosition::TrimHorizon)
            .await
            .unwrap();
    reader.read_to_end().await.unwrap();

    let done = Arc::new(AtomicBool::new(false));
    let n = Arc::new(AtomicU64::new(0));
    let playing: Vec<_> = (0..PLAYING)
        .map(|_| {
            tokio::spawn(play_until(
                store.clone(),
                players.clone(),
                n.clone(),
                done.clone(),
            ))
        })
        .collect();
    // The projector is not a task of its own (its deliveries borrow): it runs beside the
    // repair runs in this one.
    let repairing = async {
        let waited = Instant::now();
        while table.raw(REPAIR_PK, "big").await.is_none() {
            // A guard against a hang, far past the first batch's delivery.
            assert!(
                waited.elapsed() < Duration::from_secs(600),
                "no repair request"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // Two runs together, then one after another until the root is switched.
        let (a, b) = tokio::join!(run(&store), run(&store));
        assert!(
            a.busy.is_empty() || b.busy.is_empty(),
            "one run works: {a:?} {b:?}"
        );
        let mut runs = 2;
        let mut rebuilt = a.rebuilt.len() + b.rebuilt.len();
        for summary in [&a, &b] {
            assert_progress(summary);
        }
        while rebuilt == 0 {
            assert!(runs < MAX_RUNS, "not rebuilt in {runs} runs");
            let summary = run(&store).await;
            assert!(summary.busy.is_empty(), "no other run: {summary:?}");
            assert_progress(&summary);
            rebuilt += summary.rebuilt.len();
            runs += 1;
        }
        let plays_during = n.load(Ordering::SeqCst);
        // Plays go on a little after the switch: they apply on top of the new generation.
        tokio::time::sleep(Duration::from_secs(1)).await;
        done.store(true, Ordering::SeqCst);
        (runs, rebuilt, plays_during)
    };
    let ((runs, rebuilt, plays_during), (retries, discarded)) = tokio::join!(
        repairing,
        project_until(store.clone(), reader, done.clone())
    );
    let mut refused = 0;
    for task in playing {
        refused += task.await.unwrap();
    }
    eprintln!("rebuilt in {runs} runs; {plays_during} plays meanwhile");
    assert_eq!(rebuilt, 1);
    assert_eq!((refused, retries, discarded), (0, 0, 0));
    // Plays went on through the runs (how many is the machine's speed).
    assert!(
        plays_during as usize >= runs,
        "plays went on: {plays_during}"
    );

    // A run after it finds nothing left to do (a request a batch left meanwhile is dropped).
    let last = run(&store).await;
    assert!(
        last.rebuilt.is_empty() && last.continuing.is_empty(),
        "{last:?}"
    );
    assert!(table.raw(REPAIR_PK, "big").await.is_none());
    let dump = table.dump().await;
    assert_eq!(index_in(&dump, "big"), expected_in(&dump, "big"));
    assert!(
        !dump
            .iter()
            .any(|i| i["pk"].as_s().unwrap() == "RANKV2#big#STAGE")
    );
    for lane in 0..LANES {
        let key = leaderboard_keys::entity::grouped_lane(&BoardId::parse("big").unwrap(), lane);
        let item = table.raw(&key.pk, &key.sk).await;
        assert!(item.is_none_or(|i| !i.contains_key("pause")), "lane {lane}");
    }
}
