//! The rank index's journal on DynamoDB Local: an apply killed right after any one of its
//! writes leaves an index whose every answer is within its lag, and the next delivery (split
//! in halves, the second first, as Lambda bisects a failed batch) finishes it exactly; two
//! appliers of one batch at once, cut differently, write each change once.

use crate::common;
use crate::index_check;

use std::sync::atomic::Ordering;
use std::time::Duration;

use common::*;
use index_check::{ChangeLog, expected_in, index_in, score_keys_in};
use leaderboard_devkit::local::{Failures, failing_client_seen};
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::rank_index::{LANES, LaneChange, lane_of};
use leaderboard_store::model::Operator;
use leaderboard_store::{Store, StoreError};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// More than the exact top (1,000), so that ranks below it are read from the index.
const PLAYERS: usize = 1_100;

/// A `latest` board of `PLAYERS` imported entries (scores 1,000 to 2,999), indexed.
async fn indexed_board(store: &Store, id: &str) -> Vec<String> {
    let players: Vec<String> = (0..PLAYERS).map(|i| format!("j{i:04}")).collect();
    imported_board(store, id, Operator::Latest, &players, 1_000..3_000, 55).await;
    players
}

/// A play that moves a player of a lane other than `not_in` below the exact top: (the
/// player, the change).
async fn one_play(
    store: &Store,
    table: &TestTable,
    players: &[String],
    n: u64,
    not_in: Option<u8>,
    log: &mut ChangeLog,
) -> (String, LaneChange) {
    let p = players
        .iter()
        .cycle()
        .skip(n as usize * 37)
        .find(|p| Some(lane_of(p, LANES)) != not_in)
        .unwrap();
    submit(store, p, n * 7 % 900, &["jc"], 400_000 + n * 1_000).await;
    log.after_play(table, "jc", lane_of(p, LANES)).await;
    (p.clone(), log.changes.last().unwrap().clone())
}

#[tokio::test]
async fn an_apply_killed_after_any_write_leaves_answers_within_their_lag_and_is_finished_next() {
    let (table, store) = store_without_stream("rank_journal_crash").await;
    let players = indexed_board(&store, "jc").await;
    let mut log = ChangeLog::default();
    for k in 1u64.. {
        // One change, so that the player's own is the only one pending: the answer must then
        // be exact, unless the lookup sees that the index may have moved the player already.
        let (player, change) = one_play(&store, &table, &players, 2 * k, None, &mut log).await;
        // The apply, killed once its k-th write was refused and every write before it was
        // answered: exactly those landed.
        let (client, seen) = failing_client_seen(
            &table.endpoint,
            Failures {
                operation: "PutItem|UpdateItem",
                first: k,
                count: u64::MAX,
            },
        );
        let killed = store_with_client(&table, client);
        let board = bid("jc");
        let batch = [change.clone()];
        let apply = killed.rank().apply_lane_changes(&board, &batch);
        tokio::pin!(apply);
        let finished = loop {
            tokio::select! {
                done = &mut apply => break Some(done),
                () = tokio::time::sleep(Duration::from_millis(1)) => {
                    if seen.counted.load(Ordering::SeqCst) >= k
                        && seen.answered.load(Ordering::SeqCst) >= k - 1
                    {
                        break None;
                    }
                }
            }
        };
        if let Some(done) = finished {
            // It needs fewer writes than k: it has been killed after each one of them.
            assert_eq!(done.unwrap().applied, 1);
            assert!(k > 8, "only {} writes", k - 1);
            break;
        }
        // Whatever it left, every answer is within its lag, and one that says it is exact is.
        let keys = score_keys_in(&table.dump().await, "jc");
        for p in std::iter::once(&player).chain(players.iter().step_by(150)) {
            let (rank, truth, exact, lag) = rank_answer(&store, "jc", &keys, p).await;
            assert!(
                rank.abs_diff(truth) <= lag,
                "killed at {k}, {p}: rank {rank} for {truth}, lag {lag}"
            );
            assert!(!exact || rank == truth, "killed at {k}, {p}");
        }
        // Delivered again with a later change of another lane, in halves, the second first:
        // the index is exactly the entries.
        let (other, later) = one_play(
            &store,
            &table,
            &players,
            2 * k + 1,
            Some(change.lane),
            &mut log,
        )
        .await;
        for half in [&later, &change, &later] {
            store
                .rank()
                .apply_lane_changes(&board, std::slice::from_ref(half))
                .await
                .unwrap();
        }
        let items = table.dump().await;
        assert_eq!(
            index_in(&items, "jc"),
            expected_in(&items, "jc"),
            "killed at {k}"
        );
        let keys = score_keys_in(&items, "jc");
        for p in [&player, &other] {
            let (rank, truth, exact, lag) = rank_answer(&store, "jc", &keys, p).await;
            assert_eq!((rank, exact, lag), (truth, true, 0), "{p} killed at {k}");
        }
    }
}

#[tokio::test]
async fn two_appliers_of_one_batch_cut_differently_write_each_change_once() {
    let (table, store) = store_without_stream("rank_journal_rivals").await;
    let players = indexed_board(&store, "jc").await;
    let mut log = ChangeLog::default();
    let mut rng = StdRng::seed_from_u64(56);
    let board = bid("jc");
    for round in 0..4u64 {
        for i in 0..60 {
            let p = &players[rng.random_range(0..players.len())];
            let score = rng.random_range(0..4_000u64);
            submit(&store, p, score, &["jc"], 500_000 + round * 100_000 + i).await;
            log.after_play(&table, "jc", lane_of(p, LANES)).await;
        }
        // A delivery and, at the same time, a retry of it cut in two (the first half of the
        // lanes, then the rest).
        let batch = std::mem::take(&mut log.changes);
        let (early, late): (Vec<LaneChange>, Vec<LaneChange>) =
            batch.iter().cloned().partition(|c| c.lane < LANES / 2);
        let (whole, cut) = tokio::join!(store.rank().apply_lane_changes(&board, &batch), async {
            let e = store.rank().apply_lane_changes(&board, &early).await?;
            let l = store.rank().apply_lane_changes(&board, &late).await?;
            Ok::<_, StoreError>(e.applied + l.applied)
        });
        let (whole, cut) = (whole.unwrap(), cut.unwrap());
        assert!(whole.gaps.is_empty());
        assert_eq!(whole.applied + cut, batch.len(), "round {round}");
        let items = table.dump().await;
        assert_eq!(
            index_in(&items, "jc"),
            expected_in(&items, "jc"),
            "round {round}"
        );
    }
}
