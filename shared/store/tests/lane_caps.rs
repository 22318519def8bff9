//! A hot board's lane caps on DynamoDB Local: a rank from a process's copy of the index whose
//! lanes are capped reads its own lane only (with any whose caps lapsed) and is within its lag
//! of the true rank, the other lanes counted up to their next caps; a play on a full lane
//! commits only once its caps let it (at the term's end, or once they are stale); plays of
//! three processes that tend the lanes never take a lane past a bound any reader of its caps
//! still trusts; an import waits for room.

use crate::common;
use crate::index_check;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use common::*;
use index_check::{ChangeLog, sharded_score_keys_in};
use leaderboard_devkit::testing::{RawItem, TestTable, n};
use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::rank_index::caps::{LaneCaps, MARGIN_MS, TERM_MS};
use leaderboard_keys::rank_index::lane_of;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::Store;
use leaderboard_store::model::Board;

/// Write shards of the boards here: more than one, so plays keep copies (ten lanes).
const SHARDS: u8 = 4;
/// Write shards of the board ranked from capped lanes: a lane a shard, 32.
const WIDE: u8 = 32;

/// The key of `board`'s `lane`.
fn lane_key(board: &Board, lane: u8) -> Key {
    match board.lanes_grouped {
        true => entity::grouped_lane(&board.board_id, lane),
        false => entity::lane(&board.board_id, lane),
    }
}

fn number(item: &RawItem, attr: &str) -> Option<u64> {
    n(item, attr).map(|v| v.parse().unwrap())
}

/// A lane's written count and caps as stored.
fn lane_state(item: Option<&RawItem>) -> (u64, Option<LaneCaps>) {
    let Some(item) = item else {
        return (0, None);
    };
    let caps = (|| {
        Some(LaneCaps {
            cap: number(item, "cap")?,
            until: number(item, "cu")?,
            next: number(item, "cn")?,
            from: number(item, "cf").unwrap_or(0),
        })
    })();
    (number(item, "written").unwrap_or(0), caps)
}

/// Every lane of `board` as stored: its written count and caps.
async fn lanes(t: &TestTable, board: &Board) -> Vec<(u64, Option<LaneCaps>)> {
    let mut out = Vec::new();
    for lane in 0..board.lanes {
        let key = lane_key(board, lane);
        out.push(lane_state(t.raw(&key.pk, &key.sk).await.as_ref()));
    }
    out
}

/// Caps `lane` of `board` as no tender would: `cap` and `next` above its written count, its
/// term ending at `until` (ms).
async fn cap_lane(t: &TestTable, board: &Board, lane: u8, cap: u64, next: u64, until: u64) {
    let key = lane_key(board, lane);
    let (written, _) = lane_state(t.raw(&key.pk, &key.sk).await.as_ref());
    let num = |v: u64| AttributeValue::N(v.to_string());
    t.update_raw_with(
        &key.pk,
        &key.sk,
        "SET cap = :cap, cu = :cu, cn = :cn, cf = :cf, written = :w",
        &[
            (":cap", num(written + cap)),
            (":cu", num(until)),
            (":cn", num(written + next)),
            (":cf", num(written)),
            (":w", num(written)),
        ],
    )
    .await;
}

/// Plays `player`'s `score` on `board` from `store` at `ms`, logging its change: the answer's
/// rank and lag, and the true rank as stored after it.
async fn ranked(
    t: &TestTable,
    store: &Store,
    log: &mut ChangeLog,
    board: &Board,
    (player, score, ms): (&str, u64, u64),
) -> (u64, u64, u64) {
    let id = board.board_id.as_str();
    let outcome = submit(store, player, score, &[id], ms).await;
    log.after_play(t, id, lane_of(player, board.lanes)).await;
    let answer = &outcome.session.outcomes[0];
    let keys = sharded_score_keys_in(&t.dump().await, id, board.write_shards);
    let mine = keys.iter().find(|k| k.ends_with(&format!("#{player}")));
    let truth = keys.iter().filter(|k| Some(*k) > mine).count() as u64 + 1;
    (
        answer.rank,
        answer.freshness.as_ref().unwrap().rank_lag,
        truth,
    )
}

/// Two processes over `t`: one whose copy of the index, and the lanes' caps it read, are kept
/// for an hour (only its first rank tends them), and one keeping no copy (it reads every lane).
fn copying_and_fresh(t: &TestTable) -> (Store, Store) {
    let base = || store_with_client(t, t.client.clone());
    let copying = base()
        .with_index_copies_kept(Duration::from_secs(3_600))
        .with_lanes_tended_every(Duration::from_secs(3_600));
    (copying, base().with_index_copies_kept(Duration::ZERO))
}

/// Board `id` of [`WIDE`] write shards holding 200 entries played from `fresh`, every change
/// applied; the log of them.
async fn applied_board(t: &TestTable, fresh: &Store, id: &str) -> (Board, ChangeLog) {
    let board = hot_board(fresh, id, WIDE).await;
    let mut log = ChangeLog::default();
    for i in 0..200u64 {
        let play = (&*format!("p{i:03}"), 100 + (i * 37) % 4_000, 1_000 + i);
        ranked(t, fresh, &mut log, &board, play).await;
    }
    fresh
        .rank()
        .apply_lane_changes(&bid(id), &log.changes)
        .await
        .unwrap();
    (board, log)
}

#[tokio::test]
async fn a_rank_from_capped_lanes_reads_its_own_lane_and_stays_within_its_lag() {
    let (t, _) = store_without_stream("lane_caps_rank").await;
    let (copying, fresh) = copying_and_fresh(&t);
    // GIVEN a board of 200 applied entries whose every lane (32) is capped for an hour, 400
    // changes above its written count (its next cap 800)
    let (board, mut log) = applied_board(&t, &fresh, "lcr").await;
    let others = u64::from(board.lanes) - 1;
    assert_eq!(board.lanes, 32, "a lane a write shard");
    let until = Timestamp::now().as_millis() + 3_600_000;
    for lane in 0..board.lanes {
        cap_lane(&t, &board, lane, 400, 800, until).await;
    }
    // AND a process whose copy of the index read them (its first rank reads every lane)
    let (rank, lag, truth) = ranked(&t, &copying, &mut log, &board, ("c000", 2_000, 5_000)).await;
    assert!(
        rank.abs_diff(truth) <= lag,
        "c000: {rank} ± {lag}, truly {truth}"
    );
    // WHEN 60 entries move past its score, none applied
    for i in 0..60u64 {
        let play = (&*format!("p{i:03}"), 5_000 + i, 10_000 + i);
        ranked(&t, &fresh, &mut log, &board, play).await;
    }
    // THEN ranks from the copy are within their lag of the true rank, and that lag counts
    // each other lane up to its cap (400 above its count, its term not ended): they read their
    // own lane only
    for (i, score) in [1_990u64, 2_000, 2_010, 3_000].into_iter().enumerate() {
        let player = format!("c{:03}", i + 1);
        let play = (&*player, score, 20_000 + i as u64);
        let (rank, lag, truth) = ranked(&t, &copying, &mut log, &board, play).await;
        assert!(
            rank.abs_diff(truth) <= lag,
            "{player}: {rank} ± {lag}, truly {truth}"
        );
        assert!(
            (others * 400..others * 800).contains(&lag),
            "{player}: lag {lag} from the caps"
        );
    }
    // AND a process without a copy reads every lane: its lag is what the index has not applied
    let (rank, lag, truth) = ranked(&t, &fresh, &mut log, &board, ("f000", 2_500, 30_000)).await;
    assert!(rank.abs_diff(truth) <= lag);
    assert!(lag <= 70, "lag {lag} from lanes read");
}

#[tokio::test]
async fn a_rank_reads_the_lanes_whose_caps_lapsed_with_its_own() {
    let (t, _) = store_without_stream("lane_caps_lapsed").await;
    let (copying, fresh) = copying_and_fresh(&t);
    // GIVEN 200 applied entries, every lane capped for an hour 400 changes above its count,
    // but for three lanes whose caps went stale a minute ago (no tend rolled them)
    let (board, mut log) = applied_board(&t, &fresh, "lcl").await;
    let others = u64::from(board.lanes) - 1;
    let now = Timestamp::now().as_millis();
    let lapsed = [3u8, 17, 29];
    for lane in 0..board.lanes {
        let until = match lapsed.contains(&lane) {
            true => now - 60_000,
            false => now + 3_600_000,
        };
        cap_lane(&t, &board, lane, 400, 800, until).await;
    }
    // AND a process whose copy read them
    let (rank, lag, truth) = ranked(&t, &copying, &mut log, &board, ("c000", 2_000, 5_000)).await;
    assert!(rank.abs_diff(truth) <= lag, "c000: {rank} ± {lag}, {truth}");
    // WHEN 60 entries move past its score, none applied
    for i in 0..60u64 {
        let play = (&*format!("p{i:03}"), 5_000 + i, 10_000 + i);
        ranked(&t, &fresh, &mut log, &board, play).await;
    }
    // THEN ranks from the copy (players of other lanes) are within their lag, which counts
    // the lapsed lanes as read, not up to caps: three lanes' 400 less than every other lane's
    let mut asked = 0;
    for i in 0..200u64 {
        let player = format!("c{:03}", i + 1);
        if lapsed.contains(&lane_of(&player, board.lanes)) {
            continue;
        }
        let play = (&*player, 1_990 + i, 20_000 + i);
        let (rank, lag, truth) = ranked(&t, &copying, &mut log, &board, play).await;
        assert!(
            rank.abs_diff(truth) <= lag,
            "{player}: {rank} ± {lag}, {truth}"
        );
        assert!(
            ((others - 3) * 400..(others - 3) * 800 + 70).contains(&lag) && lag < others * 400,
            "{player}: lag {lag}"
        );
        asked += 1;
        if asked == 3 {
            break;
        }
    }
    assert_eq!(asked, 3);
}

#[tokio::test]
async fn a_play_on_a_full_lane_commits_only_once_its_caps_let_it() {
    let (t, store) = store_without_stream("lane_caps_full").await;
    let board = hot_board(&store, "lcf", SHARDS).await;
    let lane = lane_of("p1", board.lanes);
    submit(&store, "p1", 10, &["lcf"], 1_000).await;
    // GIVEN the player's lane full (its cap at its written count) until 300 ms from now, its
    // next cap one change above
    let until = Timestamp::now().as_millis() + 300;
    cap_lane(&t, &board, lane, 0, 1, until).await;
    let key = lane_key(&board, lane);
    let written = || async { lane_state(t.raw(&key.pk, &key.sk).await.as_ref()).0 };
    let before = written().await;
    // WHEN the player plays twice more
    submit(&store, "p1", 20, &["lcf"], 2_000).await;
    let second = Timestamp::now().as_millis();
    submit(&store, "p1", 30, &["lcf"], 3_000).await;
    let third = Timestamp::now().as_millis();
    // THEN the first commits once the term has ended (the next cap lets one change in), the
    // second only once the caps are stale (nobody trusts them then), and each counts once
    assert!(
        second >= until,
        "committed at {second}, the term ends at {until}"
    );
    let stale = until + TERM_MS + MARGIN_MS;
    assert!(third >= stale, "committed at {third}, stale at {stale}");
    assert_eq!(written().await, before + 2);
}

#[tokio::test]
async fn an_import_onto_a_capped_lane_waits_for_room() {
    let (t, store) = store_without_stream("lane_caps_import").await;
    let board = hot_board(&store, "lci", SHARDS).await;
    for i in 0..20u64 {
        submit(&store, &format!("p{i:02}"), 10 + i, &["lci"], 1_000 + i).await;
    }
    let before = lanes(&t, &board).await;
    // GIVEN every lane capped one change above its count until 200 ms from now, its next cap
    // two above
    let until = Timestamp::now().as_millis() + 200;
    for lane in 0..board.lanes {
        cap_lane(&t, &board, lane, 1, 2, until).await;
    }
    // WHEN 200 entries are imported
    let rows: Vec<_> = (0..200u64)
        .map(|i| (pid(&format!("i{i:03}")), 1_000 + i, at(2_000)))
        .collect();
    store.boards().import_entries(&board, &rows).await.unwrap();
    let done = Timestamp::now().as_millis();
    // THEN every lane counts its imports, and a lane that took more than its next cap did so
    // a term after the old term's end at the soonest: after a roll gave it room (its next cap
    // then above the count), or once the caps were stale
    let after = lanes(&t, &board).await;
    let mut by_lane = vec![0u64; usize::from(board.lanes)];
    for (player, ..) in &rows {
        by_lane[usize::from(lane_of(player.as_str(), board.lanes))] += 1;
    }
    for lane in 0..usize::from(board.lanes) {
        assert_eq!(after[lane].0, before[lane].0 + by_lane[lane], "lane {lane}");
        let caps = after[lane].1.expect("caps");
        if by_lane[lane] > 2 {
            assert!(
                done >= until + TERM_MS,
                "lane {lane} took its imports at {done}"
            );
            if caps.until != until {
                assert!(caps.next >= after[lane].0, "lane {lane}: {caps:?}");
            }
        }
    }
    assert!(by_lane.iter().all(|n| *n > 2));
}

/// Every lane's reads by a monitor: when the read began and ended, and the lane as read.
type Observations = Vec<Vec<(u64, u64, u64, Option<LaneCaps>)>>;

#[tokio::test]
async fn plays_of_processes_tending_the_caps_never_pass_a_bound_a_reader_trusts() {
    let (t, _) = store_without_stream("lane_caps_tend").await;
    // Three processes, each making a new copy of the index every 200 ms and taking every
    // board as hot: each copy's first rank tends the lanes.
    let processes: Vec<Store> = (0..3)
        .map(|_| {
            store_with_client(&t, t.client.clone())
                .with_index_copies_kept(Duration::from_millis(200))
                .with_lane_caps_from(0)
        })
        .collect();
    let board = hot_board(&processes[0], "lct", SHARDS).await;
    // A board the index counts more than 100 entries of (a smaller one is counted exactly,
    // without the index).
    let rows: Vec<_> = (0..150u64)
        .map(|i| (pid(&format!("i{i:03}")), 1_000 + i, at(500)))
        .collect();
    let store = &processes[0];
    store.boards().import_entries(&board, &rows).await.unwrap();
    store.rank().build_rank_index(&board).await.unwrap();
    let rolled = Arc::new(AtomicBool::new(false));
    let plays = Arc::new(AtomicU64::new(0));
    // GIVEN a monitor reading every lane, strongly consistent, until the plays are done
    let done = Arc::new(AtomicBool::new(false));
    let monitor = {
        let (t, board, done, rolled) = (t.clone(), board.clone(), done.clone(), rolled.clone());
        tokio::spawn(async move {
            let mut seen: Observations = vec![Vec::new(); usize::from(board.lanes)];
            while !done.load(Ordering::Relaxed) {
                for lane in 0..board.lanes {
                    let key = lane_key(&board, lane);
                    let begun = Timestamp::now().as_millis();
                    let (written, caps) = lane_state(t.raw(&key.pk, &key.sk).await.as_ref());
                    let ended = Timestamp::now().as_millis();
                    let past = &mut seen[usize::from(lane)];
                    if let (Some(c), Some((.., Some(p)))) = (caps, past.last())
                        && c.until != p.until
                    {
                        rolled.store(true, Ordering::Relaxed);
                    }
                    past.push((begun, ended, written, caps));
                }
            }
            seen
        })
    };
    // WHEN six players on each process play ever higher scores until some lane has rolled
    // (at most 150 plays each)
    let mut tasks = Vec::new();
    for (p, store) in processes.into_iter().enumerate() {
        for k in 0..6 {
            let (store, rolled, plays) = (store.clone(), rolled.clone(), plays.clone());
            tasks.push(tokio::spawn(async move {
                let player = format!("p{p}{k}");
                for i in 0..150u64 {
                    if rolled.load(Ordering::Relaxed) && i >= 5 {
                        break;
                    }
                    submit(&store, &player, 100 + i, &["lct"], 1_000 + i).await;
                    plays.fetch_add(1, Ordering::Relaxed);
                }
            }));
        }
    }
    for task in tasks {
        task.await.unwrap();
    }
    done.store(true, Ordering::Relaxed);
    let seen = monitor.await.unwrap();
    // THEN every play counts once, some lane rolled, and no lane's written count read at a
    // moment its caps read before were still trusted was past their next cap
    let total: u64 = lanes(&t, &board).await.iter().map(|(w, _)| w).sum();
    assert_eq!(total, 150 + plays.load(Ordering::Relaxed));
    assert!(rolled.load(Ordering::Relaxed), "no lane rolled");
    let mut checked = 0u64;
    for (lane, reads) in seen.iter().enumerate() {
        for (i, (_, read_at, _, caps)) in reads.iter().enumerate() {
            let Some(caps) = caps else { continue };
            for (begun, ended, written, _) in &reads[i + 1..] {
                if *begun < *read_at || caps.bound_at(*ended).is_none() {
                    continue;
                }
                checked += 1;
                assert!(
                    *written <= caps.next,
                    "lane {lane}: written {written} past {caps:?} read at {read_at}"
                );
            }
        }
    }
    assert!(checked > 0);
}

#[tokio::test]
async fn a_board_played_below_the_threshold_keeps_no_caps() {
    let (t, _) = store_without_stream("lane_caps_quiet").await;
    // A process tending the lanes on every rank, at the default threshold (500 plays a second:
    // one player's plays one after another never reach it).
    let store = store_with_client(&t, t.client.clone())
        .with_index_copies_kept(Duration::from_secs(3_600))
        .with_lanes_tended_every(Duration::ZERO);
    let board = hot_board(&store, "lcq", SHARDS).await;
    let rows: Vec<_> = (0..150u64)
        .map(|i| (pid(&format!("i{i:03}")), 1_000 + i, at(500)))
        .collect();
    store.boards().import_entries(&board, &rows).await.unwrap();
    store.rank().build_rank_index(&board).await.unwrap();
    // WHEN players play one after another for longer than a heat is measured over
    let started = std::time::Instant::now();
    let mut i = 0u64;
    while i < 10 || started.elapsed() < Duration::from_millis(1_200) {
        submit(
            &store,
            &format!("p{:02}", i % 20),
            10 + i,
            &["lcq"],
            1_000 + i,
        )
        .await;
        i += 1;
    }
    // THEN no lane was capped: its ranks read the lanes, exact within what is unapplied
    assert!(
        lanes(&t, &board)
            .await
            .iter()
            .all(|(_, caps)| caps.is_none())
    );
}
