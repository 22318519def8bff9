//! Season close's count of a board's entries (`playerCount`): an indexed board's lanes count
//! them, so the count is one read of the lanes whatever the board's size, where counting the
//! Score items took a Query per 1 MB of them (4,681 played entries).

use crate::common;

use crate::census::{census, counted};
use common::*;
use leaderboard_keys::rank::Order;
use leaderboard_store::model::Operator;
use leaderboard_store::{CloseOptions, CloseProgress};

#[tokio::test]
async fn a_close_counts_a_large_board_from_its_lanes_in_one_read() {
    let (_t, store, counter) = counted("close_count").await;
    let mut new = new_board("big", Order::Desc, Operator::Best, 1_000_000);
    new.ends_at = Some(at(60_000));
    let board = store.boards().create_board(new, at(0)).await.unwrap();
    // Past one 1 MB page of these Score items (an imported one has no name: about 5,500 a
    // page), so that counting them takes two Queries.
    let entries: Vec<_> = (0..6_000u64)
        .map(|i| (pid(&format!("p{i:05}")), i, at(i)))
        .collect();
    store
        .boards()
        .import_entries(&board, &entries)
        .await
        .unwrap();
    // No page of the walk: what the close sends before it (closing, the fence, the count).
    let options = CloseOptions {
        max_pages: Some(0),
        ..CloseOptions::default()
    };
    let (r, c) = census(
        &counter,
        store.close().close_board(&bid("big"), at(61_000), &options),
    )
    .await;
    assert!(
        matches!(
            r.unwrap(),
            CloseProgress::Paused {
                done: 0,
                total: 6_000,
                ..
            }
        ),
        "the close counts 6,000"
    );
    // The lease, the board read again once closing, its 10 lanes closed; the count is the
    // lanes' one Query (grouped lanes), and its record.
    assert_eq!(c, "GetItem 2, Query 1, UpdateItem 14");
    let stored = store
        .boards()
        .get_board(&bid("big"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.player_count, Some(6_000));
}
