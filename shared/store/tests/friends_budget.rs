//! The friends listing's cost on a board where every listed player shares one score with
//! thousands of others, on DynamoDB Local: each of them would need a tail count of up to 1,000
//! keys; the listing's tail counts share one budget (`TAIL_BUDGET`), so the listing counts at
//! most 1,100 keys however the 100 players fall, and every answer stays within its `rankLag`
//! of the true rank.

use crate::common;

use common::*;
use leaderboard_devkit::testing::s;
use leaderboard_keys::rank::Order;
use leaderboard_store::freshness::EXACT_TOP;
use leaderboard_store::friends::TAIL_BUDGET;
use leaderboard_store::model::{Operator, RankLayout};

/// The entries of the board.
const ENTRIES: u64 = 3_000;

#[tokio::test]
async fn a_hundred_players_of_one_score_count_at_most_the_budget() {
    let (table, store) = store_without_stream("friends_budget").await;
    let mut new = new_board("tied", Order::Desc, Operator::Best, 9_999_999_999);
    new.rank_layout = RankLayout::V2;
    let board = store.boards().create_board(new, at(0)).await.unwrap();
    // One score, attained within 50 ms: the index holds them all in one group.
    let entries: Vec<_> = (0..ENTRIES)
        .map(|i| (pid(&format!("t{i:04}")), 500, at(10_000 + i % 50)))
        .collect();
    store
        .boards()
        .import_entries(&board, &entries)
        .await
        .unwrap();
    store.rank().build_rank_index(&board).await.unwrap();
    let board = stored_board(&store, "tied").await;

    // 100 players spread over the whole board.
    let players: Vec<_> = (0..100u64)
        .map(|i| pid(&format!("t{:04}", i * 29 + 7)))
        .collect();
    let (listed, cost) = store.listings().entries_of(&board, &players).await.unwrap();
    eprintln!(
        "friends listing: {} keys counted, {} requests",
        cost.keys_counted, cost.requests
    );
    // (Without the budget this listing counted 84,427 keys in 105 requests.)
    assert_eq!(TAIL_BUDGET + EXACT_TOP, 1_100);
    assert!(
        cost.keys_counted <= 1_100,
        "counted {} keys",
        cost.keys_counted
    );

    // The true ranks, from the Score items' sort keys (descending byte order is rank order).
    let mut keys: Vec<(String, String)> = table
        .dump()
        .await
        .iter()
        .filter(|i| s(i, "sk").is_some_and(|k| k.starts_with("SCORE#")))
        .map(|i| {
            (
                s(i, "sk").unwrap().to_owned(),
                s(i, "playerId").unwrap().to_owned(),
            )
        })
        .collect();
    keys.sort_by(|a, b| b.0.cmp(&a.0));
    assert_eq!(listed.len(), 100);
    let mut inexact = 0;
    for e in &listed {
        let truth = 1 + keys
            .iter()
            .position(|(_, p)| p == e.player_id.as_str())
            .unwrap() as u64;
        let f = e.freshness.unwrap();
        assert!(
            e.rank.abs_diff(truth) <= f.rank_lag,
            "{}: rank {} ± {}, truly {truth}",
            e.player_id,
            e.rank,
            f.rank_lag
        );
        assert_eq!(f.player_count, ENTRIES);
        if !f.rank_exact {
            inexact += 1;
        }
    }
    // The budget bit: some players past it were answered from the index, not counted.
    assert!(inexact > 0, "every answer was exact: the budget never bit");
    // In rank order.
    assert!(listed.windows(2).all(|w| w[0].rank <= w[1].rank));
}
