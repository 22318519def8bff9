//! A top-N page of a board of K write shards reads each shard in chunks, not the whole page from
//! every shard: against DynamoDB Local, a 1,000-entry page of a 32-shard board asks for at most
//! `limit + 1 + K * c` items (the merge's bound, `c` its first chunk), reads eventually
//! consistent, and answers exactly what the plain board answers, whether the players are spread
//! over the shards by their hash or the whole top of the board sits in one shard.

use crate::common;

use std::sync::{Arc, Mutex};

use common::*;
use leaderboard_keys::entity::shard_of;
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::Store;
use leaderboard_store::model::{Board, Operator};

/// What the Queries of one read asked for: the sum of their `Limit`s (the most items they can
/// read), how many there were, and how many asked for a consistent read.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Asked {
    queries: u64,
    items: u64,
    consistent: u64,
}

/// A store whose client records every Query's `Limit` and `ConsistentRead`.
fn observed(table: &leaderboard_devkit::testing::TestTable) -> (Store, Arc<Mutex<Asked>>) {
    let asked = Arc::new(Mutex::new(Asked::default()));
    let seen = asked.clone();
    let client = leaderboard_devkit::local::observing_client(&table.endpoint, move |op, body| {
        if op != "Query" {
            return;
        }
        let body: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
        let mut a = seen.lock().unwrap();
        a.queries += 1;
        a.items += body["Limit"].as_u64().unwrap_or(u64::MAX / 2);
        a.consistent += u64::from(body["ConsistentRead"].as_bool() == Some(true));
    });
    (store_with_client(table, client), asked)
}

/// The most items a page of `limit` on `k` shards may ask for: `limit + 1` and each shard's
/// last chunk of `c = ceil(n / k) + 2 * ceil(sqrt(n / k))`.
fn bound(limit: u64, k: u64) -> u64 {
    let n = limit + 1;
    let share = n.div_ceil(k);
    let root = (1..).find(|r| r * r >= share).unwrap();
    n + k * (share + 2 * root)
}

/// Boards `<prefix>_1` and `<prefix>_<k>` with the same `entries`.
async fn pair(
    store: &Store,
    prefix: &str,
    k: u8,
    entries: &[(PlayerId, u64, Timestamp)],
) -> (Board, Board) {
    let mut out = Vec::new();
    for shards in [1, k] {
        let mut nb = new_board(
            &format!("{prefix}_{shards}"),
            Order::Desc,
            Operator::Best,
            1 << 20,
        );
        nb.write_shards = shards;
        let board = store.boards().create_board(nb, at(0)).await.unwrap();
        store
            .boards()
            .import_entries(&board, entries)
            .await
            .unwrap();
        out.push(board);
    }
    let sharded = out.pop().unwrap();
    (out.pop().unwrap(), sharded)
}

/// Every page of `board`, `limit` at a time: (rank, player, score) and what each page asked.
async fn walk(
    store: &Store,
    asked: &Mutex<Asked>,
    board: &Board,
    limit: usize,
) -> (Vec<(u64, String, u64)>, Vec<Asked>) {
    let (mut all, mut costs, mut cursor) = (Vec::new(), Vec::new(), None::<String>);
    loop {
        *asked.lock().unwrap() = Asked::default();
        let page = store
            .listings()
            .top_scores(board, limit, cursor.as_deref())
            .await
            .unwrap();
        costs.push(*asked.lock().unwrap());
        let e = page.items.iter();
        all.extend(e.map(|e| (e.rank, e.player_id.to_string(), e.score)));
        cursor = page.next_cursor;
        if cursor.is_none() {
            return (all, costs);
        }
    }
}

/// Walks both boards and checks the sharded one: the plain board's pages, each within the bound
/// and eventually consistent. Returns the sharded board's pages' costs.
async fn same_pages_within_bound(
    store: &Store,
    asked: &Mutex<Asked>,
    (plain, sharded): (&Board, &Board),
    k: u64,
    limit: usize,
) -> Vec<Asked> {
    let (expected, _) = walk(store, asked, plain, limit).await;
    let (got, costs) = walk(store, asked, sharded, limit).await;
    assert_eq!(got, expected, "{} at {limit}", sharded.board_id);
    for cost in &costs {
        assert!(cost.items <= bound(limit as u64, k), "{cost:?} at {limit}");
        assert_eq!(cost.consistent, 0, "{cost:?}");
    }
    costs
}

#[tokio::test]
async fn a_thousand_entry_page_of_32_shards_reads_a_chunk_a_shard() {
    let (table, _) = store_without_stream("chunks_spread").await;
    let (store, asked) = observed(&table);
    let entries: Vec<_> = (0..1_500u64)
        .map(|i| (pid(&format!("p{i:04}")), 10 + (i * 7919) % 100_000, at(i)))
        .collect();
    let (plain, sharded) = pair(&store, "spread", 32, &entries).await;
    let costs = same_pages_within_bound(&store, &asked, (&plain, &sharded), 32, 1000).await;
    // Reading the page from every shard asked for 32 * 1,001 items; the first page's chunks
    // ask for about a twentieth of that.
    assert!(costs[0].items <= bound(1000, 32), "{:?}", costs[0]);
    assert!(costs[0].items < 32 * 1001 / 10, "{:?}", costs[0]);
    for limit in [97, 333] {
        same_pages_within_bound(&store, &asked, (&plain, &sharded), 32, limit).await;
    }
}

#[tokio::test]
async fn a_board_whose_top_is_in_one_shard_reads_more_only_from_that_shard() {
    let (table, _) = store_without_stream("chunks_skew").await;
    let (store, asked) = observed(&table);
    // The 200 best scores all belong to players of shard 0 of 8, the rest to the others.
    let mut entries = Vec::new();
    let (mut best, mut rest) = (0u64, 0u64);
    for i in 0.. {
        let player = pid(&format!("q{i:05}"));
        let score = if shard_of(&player, 8) == 0 {
            best += 1;
            1_000_000 - best
        } else {
            rest += 1;
            100_000 - rest
        };
        entries.push((player, score, at(i)));
        if best >= 200 && rest >= 300 {
            break;
        }
    }
    let (plain, sharded) = pair(&store, "skew", 8, &entries).await;
    for limit in [150, 1000] {
        let costs = same_pages_within_bound(&store, &asked, (&plain, &sharded), 8, limit).await;
        // The first round, then more chunks of the one shard that holds the top.
        assert!(costs[0].queries > 8, "{limit}: {:?}", costs[0]);
    }
}
