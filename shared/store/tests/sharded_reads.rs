//! Boards of 2 and 8 write shards read exactly like a plain board, against DynamoDB Local: the
//! same entries (ties of score and of time included, asc and desc) give the same top-N pages
//! walked by cursor at any page size; a cursor is bound to its board; a page costs one Query a
//! shard.

mod common;

use common::*;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{Board, Operator};
use leaderboard_store::{Store, StoreError};

type Entries = Vec<(leaderboard_keys::ids::PlayerId, u64, Timestamp)>;

/// 300 entries: scores repeat every 37 players, 20 players share each second, so a score is
/// often shared and now and then a score and a time (the playerId breaks those ties).
fn entries() -> Entries {
    (0..300u64)
        .map(|i| {
            (
                pid(&format!("p{i:03}")),
                100 + (i * 11) % 37,
                at(1_000 * (i / 20)),
            )
        })
        .collect()
}

/// Boards `<prefix>_1`, `_2` and `_8` of `order` with the same entries.
async fn boards(store: &Store, prefix: &str, order: Order) -> Vec<Board> {
    let mut out = Vec::new();
    for shards in [1u8, 2, 8] {
        let mut nb = new_board(&format!("{prefix}_{shards}"), order, Operator::Best, 999);
        nb.write_shards = shards;
        let board = store.create_board(nb, at(0)).await.unwrap();
        store.import_entries(&board, &entries()).await.unwrap();
        out.push(board);
    }
    out
}

/// Every entry of `board` walked `limit` at a time: (rank, player, score), and the pages.
async fn walk(store: &Store, board: &Board, limit: usize) -> (Vec<(u64, String, u64)>, usize) {
    let (mut all, mut pages, mut cursor) = (Vec::new(), 0, None::<String>);
    loop {
        let page = store
            .top_scores(board, limit, cursor.as_deref())
            .await
            .unwrap();
        assert!(page.items.len() <= limit);
        pages += 1;
        all.extend(
            page.items
                .iter()
                .map(|e| (e.rank, e.player_id.to_string(), e.score)),
        );
        cursor = page.next_cursor;
        if cursor.is_none() {
            return (all, pages);
        }
    }
}

#[tokio::test]
async fn top_n_pages_of_a_sharded_board_are_the_plain_boards() {
    let (_table, store) = store_without_stream("sharded_top").await;
    for (prefix, order) in [("desc", Order::Desc), ("asc", Order::Asc)] {
        let boards = boards(&store, prefix, order).await;
        for limit in [1, 7, 100, 299, 300, 1000] {
            let (plain, pages) = walk(&store, &boards[0], limit).await;
            assert_eq!(plain.len(), 300);
            assert_eq!(pages, 300usize.div_ceil(limit).max(1), "{limit}");
            for sharded in &boards[1..] {
                assert_eq!(
                    walk(&store, sharded, limit).await,
                    (plain.clone(), pages),
                    "{} at {limit}",
                    sharded.board_id
                );
            }
        }
    }
}

#[tokio::test]
async fn a_cursor_is_bound_to_its_board_and_an_edited_one_is_refused() {
    let (_table, store) = store_without_stream("sharded_cursor").await;
    let boards = boards(&store, "c", Order::Desc).await;
    let first = store.top_scores(&boards[2], 5, None).await.unwrap();
    let cursor = first.next_cursor.unwrap();
    for other in &boards[..2] {
        let e = store.top_scores(other, 5, Some(&cursor)).await.unwrap_err();
        assert!(
            matches!(e, StoreError::BadCursor),
            "{}: {e}",
            other.board_id
        );
    }
    let mut edited = cursor.clone().into_bytes();
    let i = edited.len() / 2;
    edited[i] = if edited[i] == b'A' { b'B' } else { b'A' };
    let edited = String::from_utf8(edited).unwrap();
    let e = store
        .top_scores(&boards[2], 5, Some(&edited))
        .await
        .unwrap_err();
    assert!(matches!(e, StoreError::BadCursor), "{e}");
    // On its own board the next page follows on.
    let next = store
        .top_scores(&boards[2], 5, Some(&cursor))
        .await
        .unwrap();
    assert_eq!(next.items[0].rank, 6);
}
