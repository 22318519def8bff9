//! A 2,500-entry board (three pages of a listing) widened (docs/widen.md) while 8 players'
//! sessions play, on DynamoDB Local, every call of the run crashing inside its step and
//! resumed by a fresh process, and a checker reading the board throughout against a model of
//! the plays:
//!
//! - every whole listing (top-N pages) is in rank order; a player with no play under way while
//!   it was read is in it once (a page is a consistent read, the pages are not one: an entry
//!   that moves between two pages' reads may be missed or met twice), with at least the score
//!   of their last play committed before it began; no score is better than the plays begun
//!   before it ended;
//! - in quiet moments (the players held, their plays in flight finished) every sampled rank is
//!   within its lag of the player's place in a listing read then (equal when it says exact), and
//!   every `around` window is the listing's slice around the player.
//!
//! Then the widened board takes a score above the old `maxScore` and ranks it first.

use crate::common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use leaderboard_devkit::local::{Failures, client, failing_client};
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::rank::Order;
use leaderboard_store::model::{Board, Operator, RankedEntry};
use leaderboard_store::{Store, StoreError, WidenOptions, WidenProgress};
use rand::Rng;
use tokio::sync::RwLock;

const ENTRIES: usize = 2_500;
const PLAYERS: usize = 8;
const OLD_MAX: u64 = 9_999;
const NEW_MAX: u64 = 999_999;
/// The times a client posts a play the store answered busy (each a second apart), far more than
/// a pause of the lanes (at most 10 s, at most twice a rebuild) can refuse.
const CLIENT_RETRIES: u32 = 60;

/// Per player: the best score of a play that committed, and of any play begun, and the plays
/// begun.
#[derive(Default, Clone)]
struct Model {
    committed: HashMap<String, u64>,
    begun: HashMap<String, u64>,
    plays: HashMap<String, u64>,
    done: HashMap<String, u64>,
}

/// The whole board as listed, page after page (again from the start when the switch made a
/// cursor stale).
async fn listing(store: &Store) -> Vec<RankedEntry> {
    'again: loop {
        let board = stored_board(store, "checked").await;
        let mut all = Vec::new();
        let mut cursor = None;
        loop {
            match store
                .listings()
                .top_scores(&board, 1_000, cursor.as_deref())
                .await
            {
                Ok(page) => {
                    all.extend(page.items);
                    match page.next_cursor {
                        Some(c) => cursor = Some(c),
                        None => return all,
                    }
                }
                Err(StoreError::BadCursor) => continue 'again,
                Err(e) => panic!("{e}"),
            }
        }
    }
}

/// A play of `player` posted as a game client posts it: again, with the same session id, when
/// the store answers it busy (503 over HTTP). The index step's rebuild may pause the lanes for
/// one scan of the board (docs/rank-index.md), which under this test's load can outlast one
/// request's retries; the session id makes the client's retry the same play.
async fn play_as_a_client(store: &Store, player: &str, score: u64, ms: u64) {
    let play = play(player, score, &["checked"], sid(ms, rand::random()));
    for _ in 0..CLIENT_RETRIES {
        match store.plays().record_play(&play, at(ms)).await {
            Ok(_) => return,
            Err(StoreError::Contention { .. }) => {
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            Err(e) => panic!("{player}: {e}"),
        }
    }
    panic!("{player}: busy {CLIENT_RETRIES} times");
}

/// The checks of one listing against the model as it was before and after it.
fn check_listing(all: &[RankedEntry], before: &Model, after: &Model) {
    // A play in flight when the listing began, or begun while it was read.
    let moving = |p: &str| {
        before.plays.get(p) != after.plays.get(p) || before.plays.get(p) != before.done.get(p)
    };
    let mut seen = HashMap::new();
    for (i, e) in all.iter().enumerate() {
        let player = e.player_id.as_str();
        assert!(
            seen.insert(player.to_owned(), e.score).is_none() || moving(player),
            "{player} twice"
        );
        if i > 0 {
            assert!(all[i - 1].score >= e.score, "out of order at {i}");
        }
        let best = after.begun.get(player).copied().unwrap_or(0);
        assert!(
            e.score <= best.max(imported_score(player)),
            "{player}: {} never played",
            e.score
        );
    }
    for (player, best) in &before.committed {
        if moving(player) {
            continue;
        }
        let listed = seen
            .get(player)
            .unwrap_or_else(|| panic!("{player} missing"));
        assert!(
            listed >= best,
            "{player}: {listed} below its committed {best}"
        );
    }
    let missing: Vec<String> = (0..ENTRIES)
        .map(|i| format!("c{i}"))
        .filter(|p| !seen.contains_key(p) && !moving(p))
        .collect();
    assert!(missing.is_empty(), "missing {missing:?} of {}", all.len());
}

/// The score `player` was imported with (0 for a player who arrived with the plays).
fn imported_score(player: &str) -> u64 {
    player
        .strip_prefix('c')
        .and_then(|n| n.parse::<u64>().ok())
        .filter(|i| *i < ENTRIES as u64)
        .map_or(0, |i| (i * 7_919) % (OLD_MAX + 1))
}

/// `player`'s rank and `around` window on the board as read now: again when the widening's
/// switch came between the board's read and the index's (the store refuses that read as busy).
async fn rank_and_window(store: &Store, player: &PlayerId) -> (RankedEntry, Vec<RankedEntry>) {
    loop {
        let board = stored_board(store, "checked").await;
        let read = async {
            let (me, _) = store
                .rank()
                .player_rank_counted(&board, player)
                .await?
                .unwrap();
            let window = store
                .listings()
                .around_player(&board, player, 3)
                .await?
                .unwrap();
            Ok::<_, StoreError>((me, window))
        };
        match read.await {
            Ok(read) => return read,
            Err(StoreError::Contention { .. }) => continue,
            Err(e) => panic!("{e}"),
        }
    }
}

/// The quiet checks: ranks within their lag, `around` windows the listing's slices.
async fn check_quiet(store: &Store, all: &[RankedEntry]) {
    let mut rng = rand::rng();
    for _ in 0..10 {
        let at = rng.random_range(0..all.len());
        let player = &all[at].player_id;
        let (me, window) = rank_and_window(store, player).await;
        let f = me.freshness.unwrap();
        let truth = at as u64 + 1;
        if f.rank_exact {
            assert_eq!(me.rank, truth, "{player}");
        } else {
            assert!(
                me.rank.abs_diff(truth) <= f.rank_lag,
                "{player}: {} vs {truth}",
                me.rank
            );
        }
        let from = window.iter().position(|e| e.player_id == *player).unwrap();
        assert_eq!(from, at.min(3), "around {player}: entries above");
        assert_eq!(
            window.len() - from - 1,
            (all.len() - at - 1).min(3),
            "around {player}"
        );
        let want: Vec<_> = all[at - from..at - from + window.len()]
            .iter()
            .map(|e| (e.player_id.clone(), e.score))
            .collect();
        let got: Vec<_> = window
            .iter()
            .map(|e| (e.player_id.clone(), e.score))
            .collect();
        assert_eq!(got, want, "around {player}");
    }
}

/// The operations that write.
const WRITES: &str = "UpdateItem|TransactWriteItems|BatchWriteItem|PutItem|DeleteItem";

/// The widening run, every call of a step first made by a process that dies inside it (its
/// writes fail from the k-th on, k from 1 to 4 in turn: the board item's step or cursor, a
/// lane's fence, a copy's transaction, an index write, a retirement's delete) and then resumed
/// by a fresh one: the board as widened, the calls and the crashes.
async fn crashing_run(table: Arc<TestTable>) -> (Board, u32, u32) {
    let options = WidenOptions {
        page: 500,
        grace: Duration::from_secs(2),
        now: at(0),
    };
    let (mut steps, mut crashes) = (0, 0);
    loop {
        steps += 1;
        let dying = store_with_client(
            &table,
            failing_client(
                &table.endpoint,
                Failures {
                    operation: WRITES,
                    first: 1 + u64::from(steps % 4),
                    count: u64::MAX / 2,
                },
            ),
        );
        match dying
            .rank()
            .widen_step(&bid("checked"), NEW_MAX, &options)
            .await
        {
            Ok(WidenProgress::Done(b)) => return (*b, steps, crashes),
            // The step made fewer writes than that: it ended before the crash.
            Ok(WidenProgress::Running { .. }) => {}
            Err(_) => crashes += 1,
        }
        let resumed = store_with_client(&table, client(&table.endpoint));
        let progress = resumed
            .rank()
            .widen_step(&bid("checked"), NEW_MAX, &options)
            .await;
        if let WidenProgress::Done(b) = progress.unwrap() {
            return (*b, steps, crashes);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_board_widened_under_play_reads_right_throughout() {
    let (table, store) = store_without_stream("widen_checker").await;
    let table = Arc::new(table);
    let board = store
        .boards()
        .create_board(
            new_board("checked", Order::Desc, Operator::Best, OLD_MAX),
            at(0),
        )
        .await
        .unwrap();
    let entries: Vec<_> = (0..ENTRIES as u64)
        .map(|i| {
            let p = format!("c{i}");
            (pid(&p), imported_score(&p), at(i))
        })
        .collect();
    store
        .boards()
        .import_entries(&board, &entries)
        .await
        .unwrap();
    store.rank().build_rank_index(&board).await.unwrap();
    let model = Arc::new(Mutex::new(Model::default()));
    let quiet = Arc::new(RwLock::new(()));
    let widening = Arc::new(AtomicBool::new(true));
    // 8 players' sessions: old players moving, new ones arriving.
    let players: Vec<_> = (0..PLAYERS as u64)
        .map(|w| {
            let (store, model, quiet, widening) = (
                store.clone(),
                model.clone(),
                quiet.clone(),
                widening.clone(),
            );
            tokio::spawn(async move {
                let mut i = 0u64;
                while widening.load(Ordering::SeqCst) {
                    let _playing = quiet.read().await;
                    let n = (w * 7_001 + i * 131) % (ENTRIES as u64 + 100);
                    let player = format!("c{n}");
                    let score = (w * 977 + i * 389) % (OLD_MAX + 1);
                    {
                        let mut m = model.lock().unwrap();
                        let best = m.begun.entry(player.clone()).or_insert(0);
                        *best = (*best).max(score);
                        *m.plays.entry(player.clone()).or_insert(0) += 1;
                    }
                    play_as_a_client(&store, &player, score, 10_000_000 + w * 100_000 + i).await;
                    {
                        let mut m = model.lock().unwrap();
                        let best = m.committed.entry(player.clone()).or_insert(0);
                        *best = (*best).max(score).max(imported_score(&player));
                        *m.done.entry(player.clone()).or_insert(0) += 1;
                    }
                    // Players at a human pace, not the emulator's limit.
                    tokio::time::sleep(Duration::from_millis(25)).await;
                    i += 1;
                }
                i
            })
        })
        .collect();
    // The widening, beside them, crashing inside every step and resumed.
    let run = tokio::spawn(crashing_run(table.clone()));
    // The checker, until the run is over.
    let mut listings = 0;
    let mut quiet_checks = 0;
    while !run.is_finished() {
        let before = model.lock().unwrap().clone();
        let all = listing(&store).await;
        let after = model.lock().unwrap().clone();
        check_listing(&all, &before, &after);
        listings += 1;
        tokio::time::sleep(Duration::from_millis(200)).await;
        if listings % 3 == 0 {
            let _held = quiet.write().await;
            let all = listing(&store).await;
            check_quiet(&store, &all).await;
            quiet_checks += 1;
        }
    }
    let (done, steps, crashes) = run.await.unwrap();
    widening.store(false, Ordering::SeqCst);
    let mut plays = 0;
    for p in players {
        plays += p.await.unwrap();
    }
    assert_eq!((done.max_score, done.entry_generation), (NEW_MAX, 1));
    assert!(
        listings >= 3 && quiet_checks >= 1,
        "{listings} listings, {quiet_checks} quiet"
    );
    assert!(plays >= 100 && steps >= 10, "{plays} plays, {steps} steps");
    assert!(crashes >= steps / 2, "{crashes} crashes in {steps} steps");
    // THEN, the run over, the board reads right, and a score above the old maxScore is first
    let all = listing(&store).await;
    let m = model.lock().unwrap().clone();
    check_listing(&all, &m, &m);
    check_quiet(&store, &all).await;
    submit(&store, "record", OLD_MAX * 10, &["checked"], 20_000_000).await;
    let first = store
        .listings()
        .player_rank(&done, &pid("record"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.rank, 1);
}
