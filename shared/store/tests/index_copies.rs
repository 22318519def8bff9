//! Plays on a hot board ranked from their process's copy of the rank index (its root and the
//! path nodes read after it), on DynamoDB Local, while another process's plays change the
//! board and the index applies part of them: every answer is within its lag of the true rank,
//! and the copy's age shows in the lag (so the copy was used). A rebuild's switch under a
//! copy makes the next rank read the index afresh.

use crate::common;
use crate::index_check;

use std::time::Duration;

use common::*;
use index_check::{ChangeLog, sharded_score_keys_in};
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::rank_index::{LANES, LaneChange, lane_of};
use leaderboard_store::Store;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Write shards of the boards here: more than one, so plays keep copies.
const SHARDS: u8 = 4;

/// A process that uses its index copies for an hour (so a copy's use is certain), and one that
/// never keeps one (its ranks read the index afresh).
fn processes(table: &TestTable) -> (Store, Store) {
    let base = || store_with_client(table, table.client.clone());
    (
        base().with_index_copies_kept(Duration::from_secs(3_600)),
        base().with_index_copies_kept(Duration::ZERO),
    )
}

/// Plays `player`'s `score` from `store` at `ms`, logging its change: the answer's rank and lag.
async fn logged_play(
    table: &TestTable,
    store: &Store,
    log: &mut ChangeLog,
    id: &str,
    (player, score, ms): (&str, u64, u64),
) -> (u64, u64) {
    let outcome = submit(store, player, score, &[id], ms).await;
    log.after_play(table, id, lane_of(player, LANES)).await;
    let answer = &outcome.session.outcomes[0];
    (answer.rank, answer.freshness.as_ref().unwrap().rank_lag)
}

/// `player`'s true rank among the board's entries as stored now.
async fn true_rank(table: &TestTable, id: &str, player: &str) -> u64 {
    let keys = sharded_score_keys_in(&table.dump().await, id, SHARDS);
    let mine = keys
        .iter()
        .find(|k| k.ends_with(&format!("#{player}")))
        .unwrap();
    keys.iter().filter(|k| *k > mine).count() as u64 + 1
}

/// Plays `play` as [`logged_play`] does and checks its answer within its lag of the true
/// rank: the true rank and the lag.
async fn ranked_within_lag(
    table: &TestTable,
    store: &Store,
    log: &mut ChangeLog,
    id: &str,
    play: (&str, u64, u64),
) -> (u64, u64) {
    let (rank, lag) = logged_play(table, store, log, id, play).await;
    let truth = true_rank(table, id, play.0).await;
    assert!(
        rank.abs_diff(truth) <= lag,
        "{}: rank {rank} ± {lag}, true rank {truth}",
        play.0
    );
    (truth, lag)
}

/// Applies `changes` to the board's index.
async fn apply(store: &Store, id: &str, changes: &[LaneChange]) {
    store
        .rank()
        .apply_lane_changes(&bid(id), changes)
        .await
        .unwrap();
}

/// A board of 200 applied entries, a process holding a copy of its index from its play of
/// 1,000 (`c000`), and then 60 entries moved past that score by the other process's plays,
/// none of them applied: the processes (copying, fresh), the changes logged, and how many of
/// them the index had applied when the copy was read.
async fn board_moved_since_a_copy(t: &TestTable, id: &str) -> (Store, Store, ChangeLog, usize) {
    let (copying, fresh) = processes(t);
    hot_board(&fresh, id, SHARDS).await;
    let mut log = ChangeLog::default();
    let mut rng = StdRng::seed_from_u64(95);
    // Narrow scores, so that paths share their nodes and groups their keys: 60 below 900, the
    // rest above 1,100.
    for i in 0..200u64 {
        let score = match i < 60 {
            true => rng.random_range(0..900),
            false => rng.random_range(1_100..5_000),
        };
        let play = (&*format!("p{i:03}"), score, 1_000 + i);
        logged_play(t, &fresh, &mut log, id, play).await;
    }
    apply(&fresh, id, &log.changes).await;
    let applied = log.changes.len();
    let (rank, lag) = logged_play(t, &copying, &mut log, id, ("c000", 1_000, 5_000)).await;
    assert!(rank.abs_diff(true_rank(t, id, "c000").await) <= lag);
    // The 60 entries below 900 move past 1,000 (on a `best` board each play changes them).
    for i in 0..60u64 {
        let play = (
            &*format!("p{i:03}"),
            rng.random_range(2_000..5_000),
            10_000 + i,
        );
        logged_play(t, &fresh, &mut log, id, play).await;
    }
    assert_eq!(log.changes.len() - applied, 61);
    (copying, fresh, log, applied)
}

#[tokio::test]
async fn ranks_from_an_older_copy_of_the_index_stay_within_their_lag() {
    let (t, _) = store_without_stream("index_copy_lag").await;
    // GIVEN a process holding a copy of a board's index, and 60 entries moved past its score
    // since (the copy holds none of those changes)
    let (copying, fresh, mut log, applied) = board_moved_since_a_copy(&t, "icl").await;
    // WHEN the index applies the first two thirds of the changes since the copy
    let since = log.changes.len() - applied;
    let unapplied = since / 3;
    apply(
        &fresh,
        "icl",
        &log.changes[applied..applied + since - unapplied],
    )
    .await;
    // THEN plays ranked from the copy, near its player's (on the nodes it holds) and below the
    // first 100 (which a rank counts exactly), are within their lag of the true rank, and the
    // lag counts every change since the copy's root, applied or not (a rank from a root read
    // now would count only the unapplied and its own)
    for (i, score) in [990u64, 995, 999, 1_000, 1_001, 1_005, 1_010]
        .into_iter()
        .enumerate()
    {
        let player = format!("c{:03}", i + 1);
        let play = (&*player, score, 20_000 + i as u64);
        let (truth, lag) = ranked_within_lag(&t, &copying, &mut log, "icl", play).await;
        assert!(truth > 101, "{player}: true rank {truth}");
        assert!(
            lag as usize >= since,
            "{player}: lag {lag} from the copy's root"
        );
    }
    // AND the process that keeps no copy, playing now, counts only what the index has not
    // applied in its lag
    let (rank, lag) = logged_play(&t, &fresh, &mut log, "icl", ("f000", 1_000, 30_000)).await;
    assert!(rank.abs_diff(true_rank(&t, "icl", "f000").await) <= lag);
    let now_unapplied = log.changes.len() - applied - (since - unapplied);
    assert!(
        lag as usize <= now_unapplied,
        "a rank from a root read now: lag {lag}, {now_unapplied} changes unapplied"
    );
}

#[tokio::test]
async fn a_rebuild_switched_under_a_copy_makes_the_next_rank_read_the_index_afresh() {
    let (t, _) = store_without_stream("index_copy_switch").await;
    // GIVEN a process holding a copy of a board's index, and 60 entries moved past its score
    // since
    let (copying, fresh, mut log, _) = board_moved_since_a_copy(&t, "ics").await;
    // WHEN a rebuild puts a new generation in service (every change counted), deleting the
    // nodes of the copy's
    let board = stored_board(&fresh, "ics").await;
    fresh.rank().build_rank_index(&board).await.unwrap();
    // THEN the next plays from the copying process, near its copy's player, see the new
    // generation on the lanes and rank from the new root and its nodes: true within their own
    // change, the copy dropped (its nodes mixed with the new root would miss the 60 moves)
    for (i, score) in [995u64, 1_000, 1_005].into_iter().enumerate() {
        let player = format!("c{:03}", i + 1);
        let play = (&*player, score, 20_000 + i as u64);
        let (_, lag) = ranked_within_lag(&t, &copying, &mut log, "ics", play).await;
        assert!(lag <= 1 + i as u64, "{player}: lag {lag}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_plays_sharing_a_copy_stay_within_their_lag() {
    let (t, _) = store_without_stream("index_copy_burst").await;
    // GIVEN a process holding a copy of a board's index, 60 entries moved past its score since,
    // and two thirds of those changes applied
    let (copying, fresh, log, applied) = board_moved_since_a_copy(&t, "icb").await;
    apply(&fresh, "icb", &log.changes[applied..applied + 40]).await;
    // WHEN 12 plays near the copy's player run at once in the copying process, sharing its
    // copy (and filling it with the nodes they read)
    const BURST: u64 = 12;
    let plays = (0..BURST).map(|i| {
        let store = copying.clone();
        tokio::spawn(async move {
            let player = format!("b{i:03}");
            let outcome = submit(&store, &player, 990 + 2 * i, &["icb"], 20_000 + i).await;
            let answer = outcome.session.outcomes[0].clone();
            (player, answer.rank, answer.freshness.unwrap().rank_lag)
        })
    });
    let answers = futures::future::join_all(plays).await;
    // THEN each answer is within its lag of the true rank, give or take the other plays of the
    // burst (each may have committed after the answer's lanes were read), and its lag counts
    // the changes since the copy's root
    for answer in answers {
        let (player, rank, lag) = answer.unwrap();
        let truth = true_rank(&t, "icb", &player).await;
        assert!(
            rank.abs_diff(truth) < lag + BURST,
            "{player}: rank {rank} ± {lag}, true rank {truth} after the burst"
        );
        assert!(lag >= 61, "{player}: lag {lag} from the copy's root");
    }
}
