//! Boards of 2 and 8 write shards read exactly like a plain board, against DynamoDB Local: the
//! same entries (ties of score and of time included, asc and desc) give the same top-N pages
//! walked by cursor at any page size; a cursor is bound to its board; a page costs one Query a
//! shard.

use crate::common;

use common::*;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{Board, Operator};
use leaderboard_store::{Store, StoreError};

type Entries = Vec<(leaderboard_keys::ids::PlayerId, u64, Timestamp)>;

/// Entries of the boards walked: ties of score and of time, and pages at each limit; the walk
/// one entry at a time (a Query a page and shard) is most of this file's time.
const ENTRIES: usize = 120;

/// `ENTRIES` entries: scores repeat every 37 players, 20 players share each second, so a score
/// is often shared and now and then a score and a time (the playerId breaks those ties).
fn entries() -> Entries {
    (0..ENTRIES as u64)
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
        let board = store.boards().create_board(nb, at(0)).await.unwrap();
        store
            .boards()
            .import_entries(&board, &entries())
            .await
            .unwrap();
        out.push(board);
    }
    out
}

/// Every entry of `board` walked `limit` at a time: (rank, player, score), and the pages.
async fn walk(store: &Store, board: &Board, limit: usize) -> (Vec<(u64, String, u64)>, usize) {
    let (mut all, mut pages, mut cursor) = (Vec::new(), 0, None::<String>);
    loop {
        let page = store
            .listings()
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
        for limit in [1, 7, 100, ENTRIES - 1, ENTRIES, 1000] {
            let (plain, pages) = walk(&store, &boards[0], limit).await;
            assert_eq!(plain.len(), ENTRIES);
            assert_eq!(pages, ENTRIES.div_ceil(limit).max(1), "{limit}");
            for sharded in &boards[1..] {
                assert_eq!(
                    walk(&store, sharded, limit).await,
                    (plain.clone(), pages),
                    "{} at {limit}",
                    sharded.board_id
                );
            }
        }
        // The operator's reads in key order from any rank (lbctl browse, verify).
        for from in [1, 37, 110, ENTRIES as u64, ENTRIES as u64 + 1] {
            let keys = |page: leaderboard_store::StoredPage| {
                let e = page.entries.iter();
                e.map(|e| (e.rank, e.sort_key.clone())).collect::<Vec<_>>()
            };
            let plain = keys(
                store
                    .inspect()
                    .stored_entries(&boards[0], from, 20)
                    .await
                    .unwrap(),
            );
            assert_eq!(plain.len(), 20.min(ENTRIES + 1 - from as usize), "{from}");
            for sharded in &boards[1..] {
                let page = store
                    .inspect()
                    .stored_entries(sharded, from, 20)
                    .await
                    .unwrap();
                assert_eq!(keys(page), plain, "{} from {from}", sharded.board_id);
            }
        }
    }
}

#[tokio::test]
async fn a_cursor_is_bound_to_its_board_and_an_edited_one_is_refused() {
    let (_table, store) = store_without_stream("sharded_cursor").await;
    let boards = boards(&store, "c", Order::Desc).await;
    let first = store
        .listings()
        .top_scores(&boards[2], 5, None)
        .await
        .unwrap();
    let cursor = first.next_cursor.unwrap();
    for other in &boards[..2] {
        let e = store
            .listings()
            .top_scores(other, 5, Some(&cursor))
            .await
            .unwrap_err();
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
        .listings()
        .top_scores(&boards[2], 5, Some(&edited))
        .await
        .unwrap_err();
    assert!(matches!(e, StoreError::BadCursor), "{e}");
    // On its own board the next page follows on.
    let next = store
        .listings()
        .top_scores(&boards[2], 5, Some(&cursor))
        .await
        .unwrap();
    assert_eq!(next.items[0].rank, 6);
}

/// What a board answers, as comparable values: its top-N walked 7 at a time, each player's
/// rank and around window, one friends listing, then (closed) its final standings and each
/// player's result.
async fn answers(store: &Store, board: &Board, players: &[String]) -> Vec<String> {
    let mut out = vec![format!("{:?}", walk(store, board, 7).await.0)];
    for p in players {
        let rank = store.listings().player_rank(board, &pid(p)).await.unwrap();
        out.push(format!("{p} {:?}", rank.map(|e| (e.rank, e.score))));
        let around = store
            .listings()
            .around_player(board, &pid(p), 3)
            .await
            .unwrap();
        let around: Option<Vec<_>> = around.map(|w| {
            w.iter()
                .map(|e| (e.rank, e.player_id.to_string()))
                .collect()
        });
        out.push(format!("{p} around {around:?}"));
    }
    let friends: Vec<_> = players.iter().step_by(5).map(|p| pid(p)).collect();
    let (entries, _) = store.listings().entries_of(board, &friends).await.unwrap();
    out.push(format!(
        "friends {:?}",
        entries
            .iter()
            .map(|e| (e.rank, e.player_id.to_string()))
            .collect::<Vec<_>>()
    ));
    out
}

async fn closed(store: &Store, board: &Board, players: &[String]) -> Vec<String> {
    let end = Timestamp::from_millis(T0 + 366 * 86_400_000).unwrap();
    loop {
        let progress = store
            .close()
            .close_board(&board.board_id, end, &Default::default())
            .await
            .unwrap();
        if matches!(progress, leaderboard_store::CloseProgress::Closed { .. }) {
            break;
        }
    }
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = store
            .listings()
            .final_standings(&board.board_id, 9, cursor.as_deref())
            .await
            .unwrap();
        out.extend(
            page.items
                .iter()
                .map(|e| format!("{} {} {}", e.rank, e.player_id, e.score)),
        );
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    for p in players {
        let results = store
            .listings()
            .player_results(&pid(p), 100, None)
            .await
            .unwrap();
        let mine = results
            .items
            .iter()
            .find(|r| r.entry.board_id == board.board_id)
            .map(|r| (r.rank, r.player_count, r.entry.score));
        out.push(format!("{p} result {mine:?}"));
    }
    out
}

#[tokio::test]
async fn ranks_windows_friends_closes_and_results_of_sharded_boards_are_the_plain_boards() {
    let (_table, store) = store_without_stream("sharded_model").await;
    let players: Vec<String> = (0..12).map(|i| format!("p{i:02}")).collect();
    for (o, order) in [("d", Order::Desc), ("a", Order::Asc)] {
        for (op, operator) in [
            ("best", Operator::Best),
            ("latest", Operator::Latest),
            ("incr", Operator::Increment),
        ] {
            let mut boards = Vec::new();
            for shards in [1u8, 2, 8] {
                let mut nb = new_board(&format!("m_{o}_{op}_{shards}"), order, operator, 9_999);
                nb.write_shards = shards;
                boards.push(store.boards().create_board(nb, at(0)).await.unwrap());
            }
            let ids: Vec<String> = boards.iter().map(|b| b.board_id.to_string()).collect();
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            // Each play counts on the three boards at once; scores repeat (ties), and two
            // players share each second.
            for round in 0..3u64 {
                for (i, p) in players.iter().enumerate() {
                    let i = i as u64;
                    let score = 10 + (i * 7 + round * 13) % 11;
                    submit(&store, p, score, &ids, 1_000 * (round * 100 + i / 2) + 1).await;
                }
            }
            for b in &boards {
                store.rank().build_rank_index(b).await.unwrap();
            }
            let plain = answers(&store, &boards[0], &players).await;
            let ranked = plain.iter().filter(|l| l.contains(" Some((")).count();
            assert_eq!(ranked, players.len(), "every player ranked: {plain:?}");
            for b in &boards[1..] {
                assert_eq!(answers(&store, b, &players).await, plain, "{}", b.board_id);
            }
            let plain = closed(&store, &boards[0], &players).await;
            assert_eq!(
                plain.iter().filter(|l| l.contains(" result Some")).count(),
                players.len()
            );
            for b in &boards[1..] {
                assert_eq!(closed(&store, b, &players).await, plain, "{}", b.board_id);
            }
        }
    }
}

#[tokio::test]
async fn a_page_of_a_board_of_k_shards_is_k_queries() {
    use leaderboard_devkit::local::counting_client;
    let (table, _) = store_without_stream("sharded_cost").await;
    let (client, counter) = counting_client(&table.endpoint);
    let store = store_with_client(&table, client);
    let boards = boards(&store, "k", Order::Desc).await;
    for (board, k) in boards.iter().zip([1u64, 2, 8]) {
        counter.reset();
        let page = store.listings().top_scores(board, 50, None).await.unwrap();
        assert_eq!(page.items.len(), 50);
        assert_eq!(
            counter.snapshot().get("Query"),
            Some(&k),
            "{}",
            board.board_id
        );
        assert_eq!(counter.total(), k, "{}", board.board_id);
        counter.reset();
        let next = store
            .listings()
            .top_scores(board, 50, page.next_cursor.as_deref())
            .await
            .unwrap();
        assert_eq!(next.items[0].rank, 51);
        assert_eq!(counter.total(), k, "{}", board.board_id);
    }
}

#[tokio::test]
async fn a_count_on_k_shards_reads_them_at_once_and_goes_on_where_one_holds_more() {
    use leaderboard_keys::entity;
    let (_table, store) = store_without_stream("sharded_count").await;
    let mut nb = new_board("crowd", Order::Desc, Operator::Best, 999);
    nb.write_shards = 8;
    let board = store.boards().create_board(nb, at(0)).await.unwrap();
    // 60 players on write shard 00 and 7 on the others, all above the player looked up (on a
    // board of at most 100 entries, a rank is that count, capped at 100 keys)
    let shard_of = |p: &str| entity::score_pk(&bid("crowd"), 8, &pid(p));
    let on_00 = entity::score_pks(&bid("crowd"), 8)[0].clone();
    let names = (0..).map(|i| format!("c{i:04}"));
    let mut crowd: Vec<String> = names
        .clone()
        .filter(|p| shard_of(p) == on_00)
        .take(60)
        .collect();
    crowd.extend(names.filter(|p| shard_of(p) != on_00).take(7));
    let mut entries: Vec<_> = crowd.iter().map(|p| (pid(p), 500, at(1_000))).collect();
    entries.push((pid("me"), 100, at(1_000)));
    store
        .boards()
        .import_entries(&board, &entries)
        .await
        .unwrap();
    let (entry, cost) = store
        .rank()
        .player_rank_counted(&board, &pid("me"))
        .await
        .unwrap()
        .unwrap();
    // THEN the count is whole: the first round reads at most 12 keys a shard, and shard 00 goes
    // on with what is left of the 100
    assert_eq!(entry.rank, 68, "{cost:?}");
    assert!(entry.freshness.unwrap().rank_exact);
    assert_eq!(cost.count_queries, 9, "{cost:?}");
    assert!(cost.keys_counted <= 100, "{cost:?}");
}
