//! The compact layout (3) in the table, on DynamoDB Local: a fresh board's index starts on it;
//! batches of spread and of narrow scores leave its live nodes counting exactly the entries,
//! spread ones with far fewer node writes a change than layout 2's whole paths; ranks read
//! from it are exact once applied; and a delivery that meets another's journal left half
//! written finishes that one before its own.

use crate::common;
use crate::index_check;
use crate::rank_index::{indexed_board, looked_up, score_keys};

use common::*;
use index_check::{ChangeLog, expected_index, stored_index};
use leaderboard_devkit::local::{Failures, failing_client};
use leaderboard_keys::rank_index::{LANES, LaneChange, Watermarks, fold, lane_of, root_key};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Item writes layout 2 would make for `changes` applied in batches of `size`: per batch the
/// journal, and each node of the changes' whole paths (the root's included).
fn layout_2_writes(changes: &[LaneChange], size: usize) -> usize {
    let mut at = Watermarks::default();
    let mut writes = 0;
    for batch in changes.chunks(size) {
        let folded = fold(&at, batch);
        writes += folded.deltas.len() + 1;
        at = folded.watermarks;
    }
    writes
}

#[tokio::test]
async fn a_fresh_index_is_compact_exact_and_writes_few_nodes_a_change() {
    let (table, store) = store_without_stream("rank_compact").await;
    indexed_board(&store, "sp").await;
    indexed_board(&store, "nr").await;
    let players: Vec<String> = (0..200).map(|i| format!("c{i:03}")).collect();
    let mut rng = StdRng::seed_from_u64(41);
    let (mut spread, mut narrow) = (ChangeLog::default(), ChangeLog::default());
    for round in 0..3u64 {
        for (i, p) in players.iter().enumerate() {
            let ms = 10_000 + round * 300_000 + i as u64 * 1_000;
            submit(&store, p, rng.random_range(0..1_000_000_000), &["sp"], ms).await;
            spread.after_play(&table, "sp", lane_of(p, LANES)).await;
            // Narrow: scores shared, groups of several, subtrees going from two keys to one
            // and back.
            submit(&store, p, rng.random_range(0..300), &["nr"], ms).await;
            narrow.after_play(&table, "nr", lane_of(p, LANES)).await;
        }
    }
    for (board, log) in [("sp", &spread), ("nr", &narrow)] {
        let (mut written, mut applied, mut read) = (0, 0, 0);
        for batch in log.changes.chunks(25) {
            let out = store
                .rank()
                .apply_lane_changes(&bid(board), batch)
                .await
                .unwrap();
            written += out.items_written;
            applied += out.applied;
            read += out.nodes_read;
        }
        assert_eq!(applied, log.changes.len());
        let root = root_key(&bid(board));
        let root = table.raw(&root.pk, &root.sk).await.unwrap();
        assert_eq!(
            root["ly"].as_n().unwrap(),
            "3",
            "{board}: a fresh index is compact"
        );
        assert_eq!(
            stored_index(&table, board).await,
            expected_index(&table, &store, board, &players).await,
            "{board}"
        );
        let per_change = written as f64 / applied as f64;
        let before = layout_2_writes(&log.changes, 25) as f64 / applied as f64;
        eprintln!(
            "{board}: {per_change:.2} item writes and {:.2} node reads a change, layout 2 {before:.2}",
            read as f64 / applied as f64
        );
        if board == "sp" {
            // Spread scores: a key is alone below its score's first digits.
            assert!(
                per_change * 2.0 < before,
                "{per_change:.2} against {before:.2}"
            );
        }
    }
    // Nodes that came to hold one key are kept cleared, with the journal that cleared them.
    let cleared = table
        .dump()
        .await
        .into_iter()
        .filter(|item| {
            item["pk"].as_s().unwrap().starts_with("RANKV2#nr#")
                && item.keys().all(|a| ["pk", "sk", "j"].contains(&a.as_str()))
        })
        .count();
    assert!(cleared > 0, "narrow scores clear some nodes");

    // Ranks from it: exact, at the same cost as layout 2's.
    for board in ["sp", "nr"] {
        let keys = score_keys(&table, board).await;
        for p in players.iter().step_by(15) {
            let (rank, f, cost, truth) = looked_up(&store, board, p, &keys).await;
            assert_eq!(
                (rank, f.rank_exact, f.rank_lag),
                (truth, true, 0),
                "{board} {p}"
            );
            assert!(cost.requests <= 4 && cost.items <= 20, "{p}: {cost:?}");
        }
    }
}

#[tokio::test]
async fn a_delivery_meeting_a_journal_left_half_written_finishes_it_before_its_own() {
    let (table, store) = store_without_stream("rank_compact_half").await;
    indexed_board(&store, "hw").await;
    let players: Vec<String> = (0..120).map(|i| format!("h{i:03}")).collect();
    let mut rng = StdRng::seed_from_u64(42);
    let mut log = ChangeLog::default();
    for round in 0..2u64 {
        for (i, p) in players.iter().enumerate() {
            let ms = 10_000 + round * 300_000 + i as u64 * 500;
            submit(&store, p, rng.random_range(0..400), &["hw"], ms).await;
            log.after_play(&table, "hw", lane_of(p, LANES)).await;
        }
    }
    // A first delivery writes its journal and one node, then every write fails: it gives up.
    let first = &log.changes[..log.changes.len() / 2];
    let failing = store_with_client(
        &table,
        failing_client(
            &table.endpoint,
            Failures {
                operation: "UpdateItem|PutItem",
                first: 3,
                count: u64::MAX,
            },
        ),
    );
    assert!(
        failing
            .rank()
            .apply_lane_changes(&bid("hw"), first)
            .await
            .is_err()
    );
    // The whole log: its plan reads nodes the journal left half written, and its own journal
    // waits for that one.
    let out = store
        .rank()
        .apply_lane_changes(&bid("hw"), &log.changes)
        .await
        .unwrap();
    assert!(out.applied > log.changes.len() - first.len(), "{out:?}");
    assert_eq!(
        stored_index(&table, "hw").await,
        expected_index(&table, &store, "hw", &players).await
    );
}

#[tokio::test]
async fn a_damaged_index_is_said_and_its_apply_writes_nothing() {
    let (table, store) = store_without_stream("rank_compact_damaged").await;
    indexed_board(&store, "dm").await;
    let mut log = ChangeLog::default();
    submit(&store, "ada", 5_000, &["dm"], 10_000).await;
    log.after_play(&table, "dm", lane_of("ada", LANES)).await;
    let first = log.changes.clone();
    store
        .rank()
        .apply_lane_changes(&bid("dm"), &first)
        .await
        .unwrap();
    // The root's one entry loses the key it names.
    let root = root_key(&bid("dm"));
    let item = table.raw(&root.pk, &root.sk).await.unwrap();
    let rest = item.keys().find(|a| a.starts_with('r')).unwrap().clone();
    table
        .update_raw(&root.pk, &root.sk, &format!("REMOVE {rest}"))
        .await;
    submit(&store, "bob", 5_001, &["dm"], 20_000).await;
    log.after_play(&table, "dm", lane_of("bob", LANES)).await;
    let index_items = |dump: Vec<leaderboard_devkit::testing::RawItem>| {
        dump.into_iter()
            .filter(|i| i["pk"].as_s().unwrap().starts_with("RANKV2#dm"))
            .collect::<Vec<_>>()
    };
    let before = index_items(table.dump().await);
    let out = store
        .rank()
        .apply_lane_changes(&bid("dm"), &log.changes[1..])
        .await;
    assert!(
        matches!(out, Err(leaderboard_store::StoreError::Corrupt { .. })),
        "{out:?}"
    );
    assert_eq!(index_items(table.dump().await), before);
}
