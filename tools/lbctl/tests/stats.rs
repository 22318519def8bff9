//! `lbctl stats` against DynamoDB Local: a board's entries, percentiles and score distribution
//! from its rank index, each bucket's count equal to the entries' true count in its range and
//! each percentile in the range holding the true one, in the same number of requests at 1,000
//! and 5,000 entries.

use crate::common;

use common::*;
use leaderboard_devkit::local::counting_client;
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::rank::Order;
use leaderboard_store::{Config, Store};
use serde_json::Value;

/// `n` entries with scores spread over 0..100,000 alike whatever `n`.
fn spread(n: usize) -> Entries {
    (0..n)
        .map(|i| {
            let player = PlayerId::parse(&format!("p{i:06}")).unwrap();
            (player, (i as u64 * 7_919 + 13) % 100_000, at(i as u64 * 10))
        })
        .collect()
}

/// Checks `stats` (the JSON document) against the true scores.
fn check(stats: &Value, scores: &mut [u64]) {
    let n = scores.len() as u64;
    assert_eq!(stats["entries"], n);
    assert_eq!(stats["counted"], n);
    assert_eq!(stats["lag"], 0);
    let buckets = stats["buckets"].as_array().unwrap();
    assert!(buckets.len() >= 20, "{} buckets", buckets.len());
    for b in buckets {
        let (low, high) = (b["low"].as_u64().unwrap(), b["high"].as_u64().unwrap());
        let truly = scores.iter().filter(|s| (low..=high).contains(s)).count() as u64;
        assert_eq!(b["count"], truly, "{b}");
    }
    scores.sort_unstable();
    let percentiles = stats["percentiles"].as_array().unwrap();
    assert_eq!(percentiles.len(), lbctl::stats::PERCENTILES.len());
    for p in percentiles {
        let pct = p["p"].as_u64().unwrap();
        let rank = (pct * n).div_ceil(100).max(1);
        let truth = scores[rank as usize - 1];
        let (low, high) = (p["low"].as_u64().unwrap(), p["high"].as_u64().unwrap());
        assert!(
            (low..=high).contains(&truth),
            "p{pct}: {truth} not in {low}..={high}"
        );
    }
}

#[tokio::test]
async fn stats_match_the_entries_in_the_same_requests_at_1000_and_5000_entries() {
    let (table, store) = store("lbctl_stats").await;
    let (counting, counter) = counting_client(&table.endpoint);
    let config = Config {
        table_name: table.name.clone(),
        cursor_secret: b"lbctl-test-cursor-secret-32-characters".to_vec(),
    };
    let counted = Store::new(counting, &config);
    let mut requests = Vec::new();
    for (id, n, order) in [
        ("small", 1_000, Order::Desc),
        ("large", 5_000, Order::Desc),
        ("small_asc", 1_000, Order::Asc),
    ] {
        let (board, _) = board_with(&store, id, order, 999_999, spread(n)).await;
        store.rank().build_rank_index(&board).await.unwrap();
        counter.reset();
        let text = lbctl(&counted, true, &["stats", id]).await.unwrap();
        let total = counter.total();
        let stats: Value = serde_json::from_str(&text).unwrap();
        // The board's read, and the index's as the command reports them.
        assert_eq!(
            total,
            stats["requests"].as_u64().unwrap() + 1,
            "{:?}",
            counter.snapshot()
        );
        requests.push(total);
        let mut scores: Vec<u64> = spread(n).iter().map(|e| e.1).collect();
        check(&stats, &mut scores);
    }
    assert_eq!(requests[0], requests[1], "1,000 and 5,000 entries");
    assert!(requests[0] <= 4, "{requests:?}");

    let text = lbctl(&store, false, &["stats", "large", "--rows", "8"])
        .await
        .unwrap();
    assert!(
        text.starts_with("large (desc, maxScore 999999, open): 5000 entries"),
        "{text}"
    );
    assert!(text.contains("p50"), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.contains('█')).count(),
        8,
        "{text}"
    );
}

#[tokio::test]
async fn a_board_not_indexed_or_unknown_gets_a_clear_exit_code() {
    let (table, store) = store("lbctl_stats_missing").await;
    let e = lbctl(&store, false, &["stats", "nowhere"])
        .await
        .unwrap_err();
    assert_eq!(e.exit_code(), 3);
    board_with(&store, "legacy", Order::Desc, 999, entries(5, 5)).await;
    table
        .update_raw("LEADERBOARD#legacy", "#METADATA", "REMOVE rankLayout")
        .await;
    let e = lbctl(&store, false, &["stats", "legacy"])
        .await
        .unwrap_err();
    assert_eq!(e.exit_code(), 2, "{e}");
    assert!(e.to_string().contains("not on the rank index"), "{e}");
    // An empty board: nothing counted, no percentiles.
    board_with(&store, "empty", Order::Desc, 999, Vec::new()).await;
    let text = lbctl(&store, true, &["stats", "empty"]).await.unwrap();
    let stats: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (
            stats["entries"].as_i64(),
            stats["buckets"].as_array().map(Vec::len)
        ),
        (Some(0), Some(0))
    );
}
