//! The rank index in the table, on DynamoDB Local: what a play records on its lane (the change log the index is applied from), and batches of those changes
//! applied in any order, partly, and again, leaving exactly the counters built from the entries.

use crate::common;
use crate::index_check;

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use common::*;
use index_check::{ChangeLog, expected_index, lane, nodes_by_generation, stored_index};
use leaderboard_devkit::local::{Failures, failing_client};
use leaderboard_keys::rank::Order;
use leaderboard_keys::rank_index::{LANES, LaneChange, lane_of};
use leaderboard_store::freshness::Freshness;
use leaderboard_store::model::{Operator, RankLayout};
use leaderboard_store::{BoardRank, RankCost, Store, StoreError};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub(crate) async fn indexed_board(store: &Store, id: &str) {
    let mut new = new_board(id, Order::Desc, Operator::Best, 9_999_999_999);
    new.rank_layout = RankLayout::V2;
    let board = store.boards().create_board(new, at(0)).await.unwrap();
    assert_eq!(board.rank_layout, RankLayout::V2);
}

/// The player's current sort key on `board`.
pub(crate) async fn key_of(store: &Store, board: &str, player: &str) -> String {
    store
        .listings()
        .entry_pointer(&bid(board), &pid(player))
        .await
        .unwrap()
        .unwrap()
        .score_sk
}

/// The change a play records: the old and new sort keys, and the new score.
fn change(old: Option<&str>, new: &str, score: u64) -> HashMap<String, AttributeValue> {
    let mut m = HashMap::from([
        ("n".to_owned(), AttributeValue::S(new.to_owned())),
        ("s".to_owned(), AttributeValue::N(score.to_string())),
    ]);
    if let Some(old) = old {
        m.insert("o".to_owned(), AttributeValue::S(old.to_owned()));
    }
    m
}

#[tokio::test]
async fn a_play_records_its_change_on_its_lane_numbered_by_written() {
    let (table, store) = store_without_stream("rank_index_lanes").await;
    indexed_board(&store, "new").await;
    legacy_board(&table, &store, "old", Order::Desc, Operator::Best).await;
    // Two players in different lanes.
    let ada = "ada";
    let bob = (0..)
        .map(|i| format!("bob{i}"))
        .find(|p| lane_of(p, LANES) != lane_of(ada, LANES))
        .unwrap();
    let (la, lb) = (lane_of(ada, LANES), lane_of(&bob, LANES));

    submit(&store, ada, 10, &["new", "old"], 1_000).await;
    let first = key_of(&store, "new", ada).await;
    assert_eq!(
        lane(&table, "new", la).await,
        (1, Some(change(None, &first, 10)))
    );

    submit(&store, ada, 30, &["new", "old"], 2_000).await;
    let second = key_of(&store, "new", ada).await;
    assert_eq!(
        lane(&table, "new", la).await,
        (2, Some(change(Some(&first), &second, 30)))
    );

    // A play that changes no entry records nothing.
    submit(&store, ada, 5, &["new"], 3_000).await;
    assert_eq!(lane(&table, "new", la).await.0, 2);

    submit(&store, &bob, 20, &["new"], 4_000).await;
    let bobs = key_of(&store, "new", &bob).await;
    assert_eq!(
        lane(&table, "new", lb).await,
        (1, Some(change(None, &bobs, 20)))
    );
    assert_eq!(
        lane(&table, "new", la).await.0,
        2,
        "another lane is untouched"
    );

    // A board made before the index counts its lanes, without a change log, until its
    // migration starts.
    assert_eq!(lane(&table, "old", la).await, (2, None));
}

#[tokio::test]
async fn batches_applied_in_reverse_halves_partly_and_again_leave_exactly_the_built_counters() {
    let (table, store) = store_without_stream("rank_index_apply").await;
    indexed_board(&store, "ra").await;
    indexed_board(&store, "rb").await;
    indexed_board(&store, "rc").await;
    let players: Vec<String> = (0..150).map(|i| format!("p{i:03}")).collect();
    let mut rng = StdRng::seed_from_u64(29);
    let (mut log_a, mut log_b, mut log_c): (ChangeLog, ChangeLog, ChangeLog) = Default::default();
    for round in 0..3u64 {
        for p in &players {
            // Narrow scores, so that paths share nodes and groups share keys.
            let score = rng.random_range(0..5_000);
            let ms = 10_000 + round * 200_000 + rng.random_range(0..150_000);
            submit(&store, p, score, &["ra", "rb", "rc"], ms).await;
            let l = lane_of(p, LANES);
            log_a.after_play(&table, "ra", l).await;
            log_b.after_play(&table, "rb", l).await;
            log_c.after_play(&table, "rc", l).await;
        }
    }
    let (a, b, c) = (log_a.changes, log_b.changes, log_c.changes);
    assert!(a.len() > 200, "{} changes", a.len());

    // Board a: the batch's second half before its first, then the whole batch again.
    let (first, second) = a.split_at(a.len() / 2);
    let late = store
        .rank()
        .apply_lane_changes(&bid("ra"), second)
        .await
        .unwrap();
    assert!(!late.gaps.is_empty(), "every lane waits for its first half");
    let early = store
        .rank()
        .apply_lane_changes(&bid("ra"), first)
        .await
        .unwrap();
    assert_eq!(early.applied, first.len());
    let rest = store
        .rank()
        .apply_lane_changes(&bid("ra"), second)
        .await
        .unwrap();
    assert_eq!(late.applied + rest.applied, second.len());
    assert!(rest.gaps.is_empty());
    let again = store
        .rank()
        .apply_lane_changes(&bid("ra"), &a)
        .await
        .unwrap();
    assert_eq!(
        (again.applied, again.already_applied, again.items_written),
        (0, a.len(), 0)
    );
    assert_eq!(
        again.requests, 1,
        "a batch applied before costs its root read only"
    );
    assert_eq!(
        stored_index(&table, "ra").await,
        expected_index(&table, &store, "ra", &players).await
    );

    // Board b: stopped after part of each lane (as when a batch fails half way), then the
    // whole batch, delivered twice.
    let part: Vec<LaneChange> = b
        .iter()
        .filter(|c| c.seq % 3 != 0 || c.seq < 10)
        .cloned()
        .collect();
    let partial = store
        .rank()
        .apply_lane_changes(&bid("rb"), &part)
        .await
        .unwrap();
    assert!(partial.applied < b.len() && !partial.gaps.is_empty());
    let whole = store
        .rank()
        .apply_lane_changes(&bid("rb"), &b)
        .await
        .unwrap();
    assert_eq!(partial.applied + whole.applied, b.len());
    assert!(
        whole.requests > 2,
        "a batch this size needs several chunks: {whole:?}"
    );
    store
        .rank()
        .apply_lane_changes(&bid("rb"), &b)
        .await
        .unwrap();
    let want_b = expected_index(&table, &store, "rb", &players).await;
    assert_eq!(stored_index(&table, "rb").await, want_b);

    // Board b's batch again, on two empty indexes, with a node update failing after the
    // journal and the first node were written: once (the apply re-reads the root, finds its
    // journal pending and finishes it), and for good (the apply gives up; delivered again, it
    // finishes the journal the first delivery left).
    let failing = |first, count| {
        store_with_client(
            &table,
            failing_client(
                &table.endpoint,
                Failures {
                    // The journal's put, then its node writes (puts and updates).
                    operation: "UpdateItem|PutItem",
                    first,
                    count,
                },
            ),
        )
    };
    let once = failing(3, 1)
        .rank()
        .apply_lane_changes(&bid("rd"), &b)
        .await
        .unwrap();
    assert_eq!(once.applied, b.len());
    assert_eq!(stored_index(&table, "rd").await, want_b);
    let gave_up = failing(3, u64::MAX)
        .rank()
        .apply_lane_changes(&bid("re"), &b)
        .await;
    assert!(gave_up.is_err());
    assert_ne!(stored_index(&table, "re").await, want_b);
    let rest = store
        .rank()
        .apply_lane_changes(&bid("re"), &b)
        .await
        .unwrap();
    assert_eq!(rest.applied, b.len(), "{rest:?}");
    assert_eq!(stored_index(&table, "re").await, want_b);

    // Board c: the same batch applied by four appliers at once (as when a batch is retried
    // while its first delivery still runs): each change is written by exactly one of them.
    let rc = bid("rc");
    let applies = (0..4).map(|_| store.rank().apply_lane_changes(&rc, &c));
    let outcomes = futures::future::try_join_all(applies).await.unwrap();
    assert_eq!(
        outcomes.iter().map(|o| o.applied).sum::<usize>(),
        c.len(),
        "{outcomes:?}"
    );
    assert_eq!(
        stored_index(&table, "rc").await,
        expected_index(&table, &store, "rc", &players).await
    );
}

#[tokio::test]
async fn a_built_index_is_the_applied_one_takes_later_changes_and_survives_a_rival_build() {
    let (table, store) = store_without_stream("rank_index_build").await;
    indexed_board(&store, "bd").await;
    let players: Vec<String> = (0..60).map(|i| format!("q{i:02}")).collect();
    let mut rng = StdRng::seed_from_u64(30);
    let mut log = ChangeLog::default();
    let mut round = async |round: u64, log: &mut ChangeLog| {
        for p in &players {
            let score = rng.random_range(0..2_000);
            let ms = 10_000 + round * 200_000 + rng.random_range(0..150_000);
            submit(&store, p, score, &["bd"], ms).await;
            log.after_play(&table, "bd", lane_of(p, LANES)).await;
        }
    };
    round(0, &mut log).await;
    round(1, &mut log).await;
    let first = std::mem::take(&mut log.changes);
    store
        .rank()
        .apply_lane_changes(&bid("bd"), &first)
        .await
        .unwrap();
    let applied = stored_index(&table, "bd").await;
    assert_eq!(
        applied,
        expected_index(&table, &store, "bd", &players).await
    );

    // Built from the Score items: the same counters and watermarks, under a new generation.
    let built = store
        .rank()
        .build_rank_index(&stored_board(&store, "bd").await)
        .await
        .unwrap();
    assert_eq!(built.entries, players.len());
    assert_eq!(stored_index(&table, "bd").await, applied);
    let root = table.raw("RANKV2#bd", "#ROOT").await.unwrap();
    assert_eq!(root["g"].as_n().unwrap(), "1");

    // Its watermarks are the lanes' written counts: the changes before it are all in it.
    let again = store
        .rank()
        .apply_lane_changes(&bid("bd"), &first)
        .await
        .unwrap();
    assert_eq!((again.applied, again.items_written), (0, 0));
    // and later changes apply on top of it.
    round(2, &mut log).await;
    let later = store
        .rank()
        .apply_lane_changes(&bid("bd"), &log.changes)
        .await
        .unwrap();
    assert_eq!(later.applied, log.changes.len());
    let expected = expected_index(&table, &store, "bd", &players).await;
    assert_eq!(stored_index(&table, "bd").await, expected);

    // Two builds at once: each reserves its own generation; the root ends on one whose nodes
    // are all written, and a build that lost says so.
    let board = stored_board(&store, "bd").await;
    let (a, b) = tokio::join!(
        store.rank().build_rank_index(&board),
        store.rank().build_rank_index(&board)
    );
    for r in [&a, &b] {
        assert!(
            matches!(r, Ok(_) | Err(StoreError::Contention { .. })),
            "{r:?}"
        );
    }
    assert!(a.is_ok() || b.is_ok(), "{a:?} {b:?}");
    assert_eq!(stored_index(&table, "bd").await, expected);
    // The reservations never go back, so no later build writes over a generation's leftovers;
    // and only the generation in service has nodes (the loser deleted its own).
    let root = table.raw("RANKV2#bd", "#ROOT").await.unwrap();
    assert_eq!(root["gn"].as_n().unwrap(), "3");
    let generations = nodes_by_generation(&table, "bd").await;
    assert_eq!(
        generations.keys().map(u64::to_string).collect::<Vec<_>>(),
        vec![root["g"].as_n().unwrap().clone()]
    );
}

/// Every board entry's Score sort key, from the table.
pub(crate) async fn score_keys(
    table: &leaderboard_devkit::testing::TestTable,
    board: &str,
) -> Vec<String> {
    let pk = leaderboard_keys::entity::board_pk(&bid(board));
    table
        .dump()
        .await
        .iter()
        .filter(|item| item["pk"].as_s().unwrap() == &pk)
        .map(|item| item["sk"].as_s().unwrap().clone())
        .filter(|sk| sk.starts_with("SCORE#"))
        .collect()
}

/// Other players' entries above `key` (one Score item per player on a `best` board).
pub(crate) fn true_above(keys: &[String], key: &str) -> u64 {
    keys.iter().filter(|k| k.as_str() > key).count() as u64
}

/// A rank lookup of `player` (its rank, freshness and cost) and the true rank among `keys`.
pub(crate) async fn looked_up(
    store: &Store,
    board: &str,
    player: &str,
    keys: &[String],
) -> (u64, Freshness, RankCost, u64) {
    let (entry, cost) = store
        .rank()
        .player_rank_counted(&stored_board(store, board).await, &pid(player))
        .await
        .unwrap()
        .unwrap();
    let truth = true_above(keys, &key_of(store, board, player).await) + 1;
    // The API's read (the board with the pointer, the root with the snapshot) answers the same.
    match store
        .listings()
        .board_and_rank(&bid(board), &pid(player))
        .await
        .unwrap()
    {
        BoardRank::Open(_, Some(api)) => assert_eq!(api, entry, "{player}"),
        other => panic!("{player}: expected the ranked entry, got {other:?}"),
    }
    (entry.rank, entry.freshness.unwrap(), cost, truth)
}

#[tokio::test]
async fn ranks_from_the_index_are_exact_when_settled_and_within_their_lag_when_behind() {
    let (table, store) = store_without_stream("rank_index_lookup").await;
    indexed_board(&store, "lk").await;
    let board = stored_board(&store, "lk").await;
    // 1,200 entries over 150 scores and 300 s: groups (one score within 100 s) of 0 to ~8.
    let mut rng = StdRng::seed_from_u64(31);
    let players: Vec<String> = (0..1_200).map(|i| format!("r{i:04}")).collect();
    let entries: Vec<_> = players
        .iter()
        .map(|p| {
            (
                pid(p),
                rng.random_range(0..150u64),
                at(rng.random_range(0..300_000)),
            )
        })
        .collect();
    store
        .boards()
        .import_entries(&board, &entries)
        .await
        .unwrap();
    store.rank().build_rank_index(&board).await.unwrap();
    let sample: Vec<&String> = players.iter().step_by(20).collect();

    // Settled: every rank exact, in at most 4 requests and 20 items read by key.
    let keys = score_keys(&table, "lk").await;
    let (mut tails, mut no_tails) = (0, 0);
    for p in &sample {
        let (rank, f, cost, truth) = looked_up(&store, "lk", p, &keys).await;
        assert_eq!((rank, f.rank_exact, f.rank_lag), (truth, true, 0), "{p}");
        assert_eq!(f.player_count, 1_200);
        assert!(cost.requests <= 4 && cost.items <= 20, "{p}: {cost:?}");
        assert!(cost.keys_counted <= 1_000);
        match cost.count_queries {
            0 => no_tails += 1,
            _ => tails += 1,
        }
    }
    // both kinds of lookup were made: with the group's tail counted, and without
    assert!(tails > 0 && no_tails > 0, "{tails} {no_tails}");

    // Plays the index has not applied: each answer within its lag, exact only when right.
    let mut log = ChangeLog::default();
    let mut behind = 0;
    for (i, p) in sample.iter().enumerate().take(40) {
        let out = submit(&store, p, 150 + i as u64 % 7, &["lk"], 400_000 + i as u64).await;
        log.after_play(&table, "lk", lane_of(p, LANES)).await;
        let o = &out.session.outcomes[0];
        let f = o.freshness.unwrap();
        let keys = score_keys(&table, "lk").await;
        let truth = true_above(&keys, &key_of(&store, "lk", p).await);
        assert!(
            (o.rank - 1).abs_diff(truth) <= f.rank_lag,
            "{p}: {o:?} truth {truth}"
        );
        assert!(!f.rank_exact || o.rank == truth + 1, "{p}");
    }
    let keys = score_keys(&table, "lk").await;
    for p in &sample {
        let (rank, f, _, truth) = looked_up(&store, "lk", p, &keys).await;
        assert!(rank.abs_diff(truth) <= f.rank_lag, "{p}");
        assert!(!f.rank_exact || rank == truth, "{p}");
        behind += usize::from(f.rank_lag > 0);
    }
    assert!(behind > 0, "the index is behind: some answers say so");

    // Applied: exact again.
    store
        .rank()
        .apply_lane_changes(&bid("lk"), &log.changes)
        .await
        .unwrap();
    for p in &sample {
        let (rank, f, _, truth) = looked_up(&store, "lk", p, &keys).await;
        assert_eq!((rank, f.rank_exact), (truth, true), "{p}");
    }
}
