//! Every access pattern of the store against DynamoDB Local (no mocks): AP1 and AP2 (players),
//! board creation and AP9, AP3 (top-N with cursors), AP4 and AP5 (a player's entries), AP6, AP7
//! and AP8 (sessions), AP10 (exact rank on a board whose count spans several 1 MB pages) and
//! the around-player window. Expected orders are computed here, from the contract's rules, and
//! never through the key crate.

use crate::common;

mod boards;
mod entries;
mod players;
mod ranks;
mod sessions;
mod top;

use std::collections::{BTreeSet, HashMap, HashSet};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::*;
use futures::{StreamExt, TryStreamExt};
use leaderboard_devkit::testing::{RawItem, TestTable, n, s};
use leaderboard_keys::ids::{Email, PlayerId, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::freshness::{EXACT_TOP, Freshness, TopPercent};
use leaderboard_store::model::{Board, Operator, Player, RankedEntry, ScoreEntry, Session};
use leaderboard_store::{RankCost, Store, StoreError};

/// One entry as `import_entries` takes it: player, score, attainedAt.
type Entry = (PlayerId, u64, Timestamp);

fn email(s: &str) -> Email {
    Email::parse(s).unwrap()
}

/// The contract's rank order: the better score first (higher on `desc`, lower on `asc`), then
/// the earlier `attainedAt`, then, for full ties, the greater playerId bytes (the sort key
/// `SCORE#<rankKey>#<playerId>` read descending).
fn rank_order(order: Order, entries: Vec<Entry>) -> Vec<RankedEntry> {
    leaderboard_devkit::testing::ranked(entries, order)
        .into_iter()
        .zip(1u64..)
        .map(|((player_id, score, attained_at), rank)| RankedEntry {
            subscores: Default::default(),
            metadata: None,
            name: player_id.to_string(),
            rank,
            player_id,
            score,
            attained_at,
            freshness: None,
        })
        .collect()
}

/// An own-rank answer checked exact (`rankExact`, no lag, `topPercent` from its rank and
/// count), without its freshness, to compare with the contract's order.
fn exact(entry: RankedEntry, player_count: u64) -> RankedEntry {
    let f = entry.freshness.expect("an own rank carries its freshness");
    assert!(f.rank_exact, "{entry:?}");
    assert_eq!(f.rank_lag, 0, "{entry:?}");
    assert_eq!(f.player_count, player_count, "{entry:?}");
    assert_eq!(f.top_percent, TopPercent::of(entry.rank, player_count));
    RankedEntry {
        freshness: None,
        ..entry
    }
}

/// Imports `entries` in four concurrent slices (each player appears once).
async fn import(store: &Store, board: &Board, entries: &[Entry]) {
    let ids: HashSet<&str> = entries.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(ids.len(), entries.len(), "a player must appear once");
    let slice = entries.len().div_ceil(4).max(1);
    futures::future::try_join_all(
        entries
            .chunks(slice)
            .map(|c| store.boards().import_entries(board, c)),
    )
    .await
    .unwrap();
}

/// Every page of the board's top-N listing at `limit` a page, checking that every page but the
/// last is full and that only the last has no cursor.
async fn top_pages(store: &Store, board: &str, limit: usize) -> Vec<Vec<RankedEntry>> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = store
            .listings()
            .top_scores(&stored_board(store, board).await, limit, cursor.as_deref())
            .await
            .unwrap();
        assert!(page.items.len() <= limit);
        pages.push(page.items);
        match page.next_cursor {
            Some(c) => {
                assert_eq!(
                    pages.last().unwrap().len(),
                    limit,
                    "a page with a cursor must be full (page {})",
                    pages.len()
                );
                cursor = Some(c);
            }
            None => return pages,
        }
        assert!(pages.len() <= 20_000, "the listing does not end");
    }
}

fn page_sizes<T>(pages: &[Vec<T>]) -> Vec<usize> {
    pages.iter().map(Vec::len).collect()
}

/// The sizes of the pages of `total` items at `limit` a page: full pages, then the rest if any
/// (an empty listing is one empty page).
fn want_sizes(total: usize, limit: usize) -> Vec<usize> {
    if total == 0 {
        return vec![0];
    }
    let mut sizes = vec![limit; total / limit];
    if !total.is_multiple_of(limit) {
        sizes.push(total % limit);
    }
    sizes
}

/// Every page of a player's sessions.
async fn session_pages(store: &Store, player: &str, limit: usize) -> Vec<Vec<Session>> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = store
            .listings()
            .player_sessions(&pid(player), limit, cursor.as_deref())
            .await
            .unwrap();
        pages.push(page.items);
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => return pages,
        }
        assert!(pages.len() <= 1_000, "the listing does not end");
    }
}

/// Every page of a game's sessions.
async fn game_pages(store: &Store, game: &str, limit: usize) -> Vec<Vec<Session>> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = store
            .listings()
            .game_sessions(&gid(game), limit, cursor.as_deref())
            .await
            .unwrap();
        pages.push(page.items);
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => return pages,
        }
        assert!(pages.len() <= 1_000, "the listing does not end");
    }
}

fn is_invalid<T: std::fmt::Debug>(r: Result<T, StoreError>) -> bool {
    matches!(r, Err(StoreError::Invalid(_)))
}

fn is_bad_cursor<T: std::fmt::Debug>(r: Result<T, StoreError>) -> bool {
    matches!(r, Err(StoreError::BadCursor))
}

/// The key attributes (`pk` .. `gsi2sk`) an item carries, with their values.
fn keys_of(item: &RawItem) -> Vec<(&'static str, String)> {
    ["pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk"]
        .into_iter()
        .filter_map(|k| item.get(k).map(|v| (k, v.as_s().unwrap().clone())))
        .collect()
}

fn want_keys(keys: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    keys.iter().map(|(k, v)| (*k, (*v).to_owned())).collect()
}

/// `9999999999999 - ms`, padded to 13 digits: the contract's tiebreak, by hand.
fn tiebreak(ms: u64) -> String {
    format!("{:013}", 9_999_999_999_999 - ms)
}

/// A store over a fresh table whose stream is turned off, for tests that bulk-load thousands
/// of entries. DynamoDB Local keeps every stream record in memory, and once some ten thousand
/// exist, every write to a *new* stream-enabled table of the same instance slows down tenfold
/// or more (a batch of 25 took ~0.5 s after one 30,000-item import instead of ~15 ms), so a
/// bulk load with the stream on would slow down every test that runs after it on the shared
/// instance. Nothing here reads the stream.
async fn bulk_store(label: &str) -> (TestTable, Store) {
    let (table, store) = store(label).await;
    table.set_stream(false).await;
    (table, store)
}

/// Drops a big table once its test is done with it, so that a DynamoDB Local shared by the
/// whole run (and kept in memory) does not hold it until the end.
async fn drop_table(table: &TestTable) {
    table
        .client
        .delete_table()
        .table_name(&table.name)
        .send()
        .await
        .unwrap();
}
