//! Every access pattern of the store against DynamoDB Local (no mocks): AP1 and AP2 (players),
//! board creation and AP9, AP3 (top-N with cursors), AP4 and AP5 (a player's entries), AP6, AP7
//! and AP8 (sessions), AP10 (exact rank on a board whose count spans several 1 MB pages) and
//! the around-player window. Expected orders are computed here, from the contract's rules, and
//! never through the key crate.

mod common;

use std::collections::{BTreeSet, HashMap, HashSet};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::*;
use futures::{StreamExt, TryStreamExt};
use leaderboard_devkit::testing::{RawItem, TestTable, n, s};
use leaderboard_keys::ids::{Email, PlayerId, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::freshness::{Freshness, TopPercent};
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
            .map(|c| store.import_entries(board, c)),
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
            .top_scores(&bid(board), limit, cursor.as_deref())
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

// ---------------------------------------------------------------------------------------------
// AP1 and AP2: players
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn ap1_profile_is_created_read_back_and_updated() {
    let (table, store) = store("ap1").await;
    let alice = pid("p_alice");
    // GIVEN no profile
    assert_eq!(store.get_player(&alice).await.unwrap(), None);

    // WHEN alice creates hers with an email
    let created = store
        .put_profile(
            &alice,
            "  Alice  ",
            Some(&email("alice@example.com")),
            at(1_000),
        )
        .await
        .unwrap();
    // THEN it is the new profile (name trimmed, totals zero) and reads back equal
    assert_eq!(
        created,
        Player {
            player_id: alice.clone(),
            name: "Alice".into(),
            email: Some(email("alice@example.com")),
            lifetime_score: 0,
            games_played: 0,
            last_played_at: None,
            created_at: at(1_000),
            updated_at: at(1_000),
        }
    );
    assert_eq!(
        store.get_player(&alice).await.unwrap(),
        Some(created.clone())
    );
    // and the raw item carries the contract's keys, GSI1 included
    let raw = table.raw("PLAYER#p_alice", "#METADATA").await.unwrap();
    assert_eq!(
        keys_of(&raw),
        want_keys(&[
            ("pk", "PLAYER#p_alice"),
            ("sk", "#METADATA"),
            ("gsi1pk", "PLAYER_EMAIL#alice@example.com"),
            ("gsi1sk", "PLAYER#p_alice"),
        ])
    );
    assert_eq!(s(&raw, "playerId"), Some("p_alice"));
    assert_eq!(s(&raw, "name"), Some("Alice"));
    assert_eq!(s(&raw, "email"), Some("alice@example.com"));
    assert_eq!(n(&raw, "lifetimeScore"), Some("0"));
    assert_eq!(n(&raw, "gamesPlayed"), Some("0"));
    assert_eq!(s(&raw, "createdAt"), Some("2026-01-01T00:00:01.000Z"));
    assert_eq!(s(&raw, "updatedAt"), Some("2026-01-01T00:00:01.000Z"));
    assert!(!raw.contains_key("lastPlayedAt"));

    // WHEN she renames herself without giving an email
    let renamed = store
        .put_profile(&alice, "Alice B.", None, at(5_000))
        .await
        .unwrap();
    // THEN the name and updatedAt change, createdAt and the stored email are kept
    assert_eq!(
        renamed,
        Player {
            name: "Alice B.".into(),
            updated_at: at(5_000),
            ..created.clone()
        }
    );
    assert_eq!(
        store.get_player(&alice).await.unwrap(),
        Some(renamed.clone())
    );
    let raw = table.raw("PLAYER#p_alice", "#METADATA").await.unwrap();
    assert_eq!(s(&raw, "gsi1pk"), Some("PLAYER_EMAIL#alice@example.com"));
    assert_eq!(s(&raw, "createdAt"), Some("2026-01-01T00:00:01.000Z"));
    assert_eq!(s(&raw, "updatedAt"), Some("2026-01-01T00:00:05.000Z"));
    assert_eq!(
        store
            .find_player_by_email(&email("alice@example.com"))
            .await
            .unwrap(),
        Some(renamed.clone())
    );

    // WHEN she changes her email
    let moved = store
        .put_profile(
            &alice,
            "Alice B.",
            Some(&email("ab@new.example")),
            at(9_000),
        )
        .await
        .unwrap();
    // THEN GSI1 follows: the new address finds her, the old one no longer does
    assert_eq!(moved.email, Some(email("ab@new.example")));
    assert_eq!(moved.created_at, at(1_000));
    let raw = table.raw("PLAYER#p_alice", "#METADATA").await.unwrap();
    assert_eq!(s(&raw, "gsi1pk"), Some("PLAYER_EMAIL#ab@new.example"));
    assert_eq!(s(&raw, "gsi1sk"), Some("PLAYER#p_alice"));
    assert_eq!(
        store
            .find_player_by_email(&email("ab@new.example"))
            .await
            .unwrap(),
        Some(moved)
    );
    assert_eq!(
        store
            .find_player_by_email(&email("alice@example.com"))
            .await
            .unwrap(),
        None
    );

    // WHEN a player without an email creates a profile
    let bob = store
        .put_profile(&pid("p_bob"), "Bob", None, at(2_000))
        .await
        .unwrap();
    // THEN the item has no GSI1 attribute at all, and no email
    assert_eq!(bob.email, None);
    assert_eq!(
        store.get_player(&pid("p_bob")).await.unwrap(),
        Some(bob.clone())
    );
    let raw = table.raw("PLAYER#p_bob", "#METADATA").await.unwrap();
    assert_eq!(
        keys_of(&raw),
        want_keys(&[("pk", "PLAYER#p_bob"), ("sk", "#METADATA")])
    );
    assert!(!raw.contains_key("email"));
    assert_eq!(n(&raw, "lifetimeScore"), Some("0"));
    assert_eq!(n(&raw, "gamesPlayed"), Some("0"));

    // AND an unknown player is None
    assert_eq!(store.get_player(&pid("p_nobody")).await.unwrap(), None);
}

#[tokio::test]
async fn ap1_invalid_names_are_refused_and_nothing_is_written() {
    let (table, store) = store("ap1_invalid").await;
    // GIVEN one existing player
    store
        .put_profile(&pid("p_a"), "A", Some(&email("a@example.com")), at(0))
        .await
        .unwrap();
    let before = table.dump().await;
    let long = "x".repeat(129);
    let long_wide = "é".repeat(129);
    let bad_names = [
        "",
        "   ",
        "a\u{0}b",
        "tab\tinside",
        "new\nline",
        "del\u{7f}",
        "esc\u{1b}[0m",
        long.as_str(),
        long_wide.as_str(),
    ];
    // WHEN each bad name is given, for the existing player and for a new one
    for bad in bad_names {
        for player in ["p_a", "p_new"] {
            let r = store
                .put_profile(&pid(player), bad, Some(&email("x@example.com")), at(7))
                .await;
            // THEN Invalid
            assert!(is_invalid(r), "{player} {bad:?}");
        }
    }
    // AND the table is exactly as it was
    assert_eq!(table.dump().await, before);
    assert_eq!(store.get_player(&pid("p_new")).await.unwrap(), None);
    // 128 characters (not bytes) is the limit, and it is accepted
    let ok = store
        .put_profile(&pid("p_b"), &"é".repeat(128), None, at(1))
        .await
        .unwrap();
    assert_eq!(ok.name.chars().count(), 128);
}

#[tokio::test]
async fn ap2_player_by_email() {
    let (_table, store) = store("ap2").await;
    // GIVEN three players, two with an email
    let a = store
        .put_profile(&pid("p_a"), "A", Some(&email("a@example.com")), at(1))
        .await
        .unwrap();
    let b = store
        .put_profile(
            &pid("p_b"),
            "B",
            Some(&email("B.Smith+x@Example.org")),
            at(2),
        )
        .await
        .unwrap();
    store
        .put_profile(&pid("p_c"), "C", None, at(3))
        .await
        .unwrap();
    // THEN each email finds its player, exactly as set
    assert_eq!(
        store
            .find_player_by_email(&email("a@example.com"))
            .await
            .unwrap(),
        Some(a)
    );
    assert_eq!(
        store
            .find_player_by_email(&email("B.Smith+x@Example.org"))
            .await
            .unwrap(),
        Some(b)
    );
    // AND an unknown address (or another case of a known one) finds nobody
    for unknown in [
        "nobody@example.com",
        "b.smith+x@example.org",
        "a@example.co",
    ] {
        assert_eq!(
            store.find_player_by_email(&email(unknown)).await.unwrap(),
            None,
            "{unknown}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Board creation and AP9
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn create_board_writes_the_contract_item_and_ap9_reads_it_back() {
    let (table, store) = store("boards").await;
    // GIVEN an asc, latest, weekly board of a game that ends 7 days and 123 ms after T0
    let mut nb = new_board("speed_run-1.a", Order::Asc, Operator::Latest, 999_999);
    nb.name = " Speed run ".into();
    nb.ends_at = Some(at(7 * 86_400_000 + 123));
    nb.recurrence = leaderboard_store::model::Recurrence::Weekly;
    nb.game_id = Some(gid("tetris"));
    // WHEN it is created
    let created = store.create_board(nb.clone(), at(42)).await.unwrap();
    // THEN the raw item is the contract's, listed open under GSI2 by its end
    let raw = table
        .raw("LEADERBOARD#speed_run-1.a", "#METADATA")
        .await
        .unwrap();
    assert_eq!(
        keys_of(&raw),
        want_keys(&[
            ("pk", "LEADERBOARD#speed_run-1.a"),
            ("sk", "#METADATA"),
            ("gsi2pk", "BOARDS#OPEN"),
            ("gsi2sk", "2026-01-08T00:00:00.123Z#speed_run-1.a"),
        ])
    );
    assert_eq!(s(&raw, "leaderboardId"), Some("speed_run-1.a"));
    assert_eq!(s(&raw, "name"), Some("Speed run"));
    assert_eq!(s(&raw, "status"), Some("open"));
    assert_eq!(s(&raw, "order"), Some("asc"));
    assert_eq!(s(&raw, "operator"), Some("latest"));
    assert_eq!(n(&raw, "maxScore"), Some("999999"));
    assert_eq!(s(&raw, "recurrence"), Some("weekly"));
    assert_eq!(s(&raw, "gameId"), Some("tetris"));
    assert_eq!(s(&raw, "startsAt"), Some("2026-01-01T00:00:00.000Z"));
    assert_eq!(s(&raw, "endsAt"), Some("2026-01-08T00:00:00.123Z"));
    assert_eq!(s(&raw, "createdAt"), Some("2026-01-01T00:00:00.042Z"));
    // AND AP9 reads back what create returned
    assert_eq!(
        store.get_board(&bid("speed_run-1.a")).await.unwrap(),
        Some(created.clone())
    );

    // GIVEN a board with no end and no start (it starts at creation)
    let mut open_ended = new_board("forever", Order::Desc, Operator::Best, 9_999_999_999);
    open_ended.starts_at = None;
    open_ended.ends_at = None;
    let forever = store.create_board(open_ended, at(5)).await.unwrap();
    // THEN it has no GSI2 attributes at all, and startsAt is the creation time
    let raw = table.raw("LEADERBOARD#forever", "#METADATA").await.unwrap();
    assert_eq!(
        keys_of(&raw),
        want_keys(&[("pk", "LEADERBOARD#forever"), ("sk", "#METADATA")])
    );
    assert!(!raw.contains_key("endsAt"));
    assert!(!raw.contains_key("gameId"));
    assert_eq!(s(&raw, "startsAt"), Some("2026-01-01T00:00:00.005Z"));
    assert_eq!(s(&raw, "order"), Some("desc"));
    assert_eq!(s(&raw, "operator"), Some("best"));
    assert_eq!(s(&raw, "recurrence"), Some("none"));
    assert_eq!(n(&raw, "maxScore"), Some("9999999999"));
    assert_eq!(
        store.get_board(&bid("forever")).await.unwrap(),
        Some(forever)
    );

    // WHEN the same id is created again, even with other settings
    let before = table.dump().await;
    let mut again = new_board("speed_run-1.a", Order::Desc, Operator::Best, 10);
    again.name = "Other".into();
    let err = store.create_board(again, at(99)).await.unwrap_err();
    // THEN AlreadyExists, and nothing changed
    assert!(
        matches!(&err, StoreError::AlreadyExists { what: "leaderboard", id } if id == "speed_run-1.a"),
        "{err:?}"
    );
    assert_eq!(table.dump().await, before);
    assert_eq!(
        store.get_board(&bid("speed_run-1.a")).await.unwrap(),
        Some(created)
    );

    // AND an unknown board is None
    assert_eq!(store.get_board(&bid("nope")).await.unwrap(), None);
}

#[tokio::test]
async fn create_board_refuses_invalid_boards_and_writes_nothing() {
    let (table, store) = store("boards_invalid").await;
    let before = table.dump().await;
    let base = || new_board("bad", Order::Desc, Operator::Best, 9_999_999_999);
    let mut cases = Vec::new();
    // endsAt equal to startsAt, and before it
    let mut b = base();
    b.ends_at = b.starts_at;
    cases.push(("endsAt == startsAt", b));
    let mut b = base();
    b.starts_at = Some(at(10_000));
    b.ends_at = Some(at(9_999));
    cases.push(("endsAt < startsAt", b));
    // no startsAt (= now) and an end not after now
    let mut b = base();
    b.starts_at = None;
    b.ends_at = Some(at(500));
    cases.push(("endsAt == now", b));
    // names
    for (why, name) in [
        ("empty name", ""),
        ("blank name", "  "),
        ("control in name", "a\u{0}b"),
    ] {
        let mut b = base();
        b.name = name.into();
        cases.push((why, b));
    }
    let mut b = base();
    b.name = "n".repeat(129);
    cases.push(("129-character name", b));
    // maxScore above 10^18 - 1
    cases.push((
        "maxScore 10^18",
        new_board(
            "bad",
            Order::Desc,
            Operator::Best,
            1_000_000_000_000_000_000,
        ),
    ));
    cases.push((
        "maxScore u64::MAX",
        new_board("bad", Order::Asc, Operator::Best, u64::MAX),
    ));
    for (why, nb) in cases {
        // WHEN it is created
        let r = store.create_board(nb, at(500)).await;
        // THEN Invalid
        assert!(is_invalid(r), "{why}");
    }
    // AND nothing was written
    assert_eq!(table.dump().await, before);
    assert_eq!(store.get_board(&bid("bad")).await.unwrap(), None);
    // while the largest maxScore is accepted
    store
        .create_board(
            new_board(
                "widest",
                Order::Desc,
                Operator::Best,
                999_999_999_999_999_999,
            ),
            at(500),
        )
        .await
        .unwrap();
}

// ---------------------------------------------------------------------------------------------
// AP3: top-N with cursors
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn ap3_top_scores_pages_every_entry_once_in_rank_order() {
    let (_table, store) = store("ap3").await;
    let board = common::board(&store, "top", Order::Desc, Operator::Best).await;
    // GIVEN 36 plays of 24 players (12 play twice; `best` keeps the better, and an equal score
    // keeps the earlier entry)
    let mut want: HashMap<PlayerId, (u64, Timestamp)> = HashMap::new();
    let mut ms = 1_000;
    for round in 0..2u64 {
        for i in 0..24u64 {
            if round == 1 && i % 2 == 1 {
                continue;
            }
            let player = format!("p_play_{i:02}");
            // scores 0..=11, so plays tie with each other and with imported entries
            let score = (i * 7 + round * 5) % 12 * 100;
            ms += 10;
            submit(&store, &player, score, &["top"], ms).await;
            let e = want.entry(pid(&player)).or_insert((score, at(ms)));
            if score > e.0 {
                *e = (score, at(ms));
            }
        }
    }
    // AND 276 imported entries with tied scores and times (300 entries in all)
    let imported: Vec<Entry> = (0..276u64)
        .map(|i| {
            let prefix = ["p_imp_", "P-", "p.", "q"][(i % 4) as usize];
            (
                pid(&format!("{prefix}{i}")),
                (i % 12) * 100,
                at(1_000 + (i % 5) * 10),
            )
        })
        .collect();
    import(&store, &board, &imported).await;
    let mut all: Vec<Entry> = want.into_iter().map(|(p, (sc, t))| (p, sc, t)).collect();
    all.extend(imported);
    assert_eq!(all.len(), 300);
    let expected = rank_order(Order::Desc, all);

    for limit in [7, 10, 299, 300, 1000] {
        // WHEN the board is read `limit` at a time
        let pages = top_pages(&store, "top", limit).await;
        // THEN every entry comes exactly once, in rank order, ranked 1..=300, and the last
        // page (also a page that exactly fills the end) has no cursor
        assert_eq!(page_sizes(&pages), want_sizes(300, limit), "limit {limit}");
        let flat: Vec<RankedEntry> = pages.into_iter().flatten().collect();
        assert_eq!(flat, expected, "limit {limit}");
    }

    // WHEN a cursor is continued with another limit
    let first = store.top_scores(&bid("top"), 7, None).await.unwrap();
    let rest = store
        .top_scores(&bid("top"), 1000, first.next_cursor.as_deref())
        .await
        .unwrap();
    // THEN the ranks carry on from the cursor
    assert_eq!(first.items, expected[..7]);
    assert_eq!(rest.items, expected[7..]);
    assert_eq!(rest.next_cursor, None);
}

#[tokio::test]
async fn ap3_a_thousand_entries_in_pages_of_137() {
    let (_table, store) = bulk_store("ap3_1000").await;
    let board = common::board(&store, "k", Order::Desc, Operator::Best).await;
    // GIVEN 1,000 imported entries, scores 0..50 and times 0..7 (many full ties)
    let entries: Vec<Entry> = (0..1000u64)
        .map(|i| {
            (
                pid(&format!("p{:x}", i * 7919 % 1000)),
                i * 31 % 50,
                at(i % 7),
            )
        })
        .collect();
    import(&store, &board, &entries).await;
    let expected = rank_order(Order::Desc, entries);
    // WHEN it is read 137 at a time
    let pages = top_pages(&store, "k", 137).await;
    // THEN 7 full pages and 41 on the last, every entry once, ranks 1..=1000
    assert_eq!(page_sizes(&pages), want_sizes(1000, 137));
    let flat: Vec<RankedEntry> = pages.into_iter().flatten().collect();
    assert_eq!(
        flat.iter().map(|e| e.rank).collect::<Vec<_>>(),
        (1..=1000).collect::<Vec<_>>()
    );
    let players: HashSet<&str> = flat.iter().map(|e| e.player_id.as_str()).collect();
    assert_eq!(players.len(), 1000);
    assert_eq!(flat, expected);
    // AND 1000 a page is one page, 200 a page five (the last exactly filling the end)
    assert_eq!(page_sizes(&top_pages(&store, "k", 1000).await), [1000]);
    assert_eq!(
        page_sizes(&top_pages(&store, "k", 200).await),
        [200, 200, 200, 200, 200]
    );
}

#[tokio::test]
async fn ap3_asc_board_lists_lower_scores_first() {
    let (_table, store) = store("ap3_asc").await;
    let board = store
        .create_board(
            new_board("speed", Order::Asc, Operator::Best, 99_999),
            at(0),
        )
        .await
        .unwrap();
    // GIVEN plays (lower is better: a second, lower time improves) and imported entries
    let mut want: HashMap<PlayerId, (u64, Timestamp)> = HashMap::new();
    for (i, (player, score)) in [
        ("p_a", 5_000),
        ("p_b", 4_000),
        ("p_a", 3_000),
        ("p_c", 4_000),
        ("p_b", 4_500),
        ("p_d", 0),
        ("p_e", 99_999),
    ]
    .into_iter()
    .enumerate()
    {
        let ms = 100 + i as u64;
        submit(&store, player, score, &["speed"], ms).await;
        let e = want.entry(pid(player)).or_insert((score, at(ms)));
        if score < e.0 {
            *e = (score, at(ms));
        }
    }
    let imported: Vec<Entry> = (0..95u64)
        .map(|i| (pid(&format!("x{i}")), (i % 10) * 1_000, at(200 + i % 4)))
        .collect();
    import(&store, &board, &imported).await;
    let mut all: Vec<Entry> = want.into_iter().map(|(p, (sc, t))| (p, sc, t)).collect();
    all.extend(imported);
    assert_eq!(all.len(), 100);
    let expected = rank_order(Order::Asc, all);
    assert_eq!(expected[0].player_id.as_str(), "p_d");
    assert_eq!(expected[0].score, 0);
    assert_eq!(expected[99].player_id.as_str(), "p_e");
    // WHEN read 9 at a time, and 100 at a time (exactly the board)
    for limit in [9, 100] {
        let pages = top_pages(&store, "speed", limit).await;
        // THEN lower scores first, ties by the earlier time
        assert_eq!(page_sizes(&pages), want_sizes(100, limit));
        assert_eq!(
            pages.into_iter().flatten().collect::<Vec<_>>(),
            expected,
            "limit {limit}"
        );
    }
}

#[tokio::test]
async fn ap3_a_cursor_outlives_the_entry_it_stopped_at() {
    let (_table, store) = store("ap3_live").await;
    common::board(&store, "live", Order::Desc, Operator::Best).await;
    // GIVEN p0..p9 with 100..1000 (p9 on top)
    for i in 0..10u64 {
        submit(&store, &format!("p{i}"), (i + 1) * 100, &["live"], 10 + i).await;
    }
    // AND a first page of 3 that stopped at p7
    let first = store.top_scores(&bid("live"), 3, None).await.unwrap();
    let names = |items: &[RankedEntry]| -> Vec<String> {
        items.iter().map(|e| e.player_id.to_string()).collect()
    };
    assert_eq!(names(&first.items), ["p9", "p8", "p7"]);
    // WHEN p7 improves to the top (its Score item is replaced under a new key)
    submit(&store, "p7", 5_000, &["live"], 100).await;
    // THEN the cursor still works: it continues below where p7 was, ranks carrying on
    let second = store
        .top_scores(&bid("live"), 3, first.next_cursor.as_deref())
        .await
        .unwrap();
    assert_eq!(names(&second.items), ["p6", "p5", "p4"]);
    assert_eq!(
        second.items.iter().map(|e| e.rank).collect::<Vec<_>>(),
        [4, 5, 6]
    );
    // AND a fresh read shows p7 on top
    let fresh = store.top_scores(&bid("live"), 2, None).await.unwrap();
    assert_eq!(names(&fresh.items), ["p7", "p9"]);
}

#[tokio::test]
async fn ap3_empty_board_bad_limits_and_bad_cursors() {
    let (_table, store) = store("ap3_refusals").await;
    common::board(&store, "empty", Order::Desc, Operator::Best).await;
    let full = common::board(&store, "full", Order::Desc, Operator::Best).await;
    let other = common::board(&store, "other", Order::Desc, Operator::Best).await;
    let entries: Vec<Entry> = (0..20u64)
        .map(|i| (pid(&format!("p{i}")), i, at(i)))
        .collect();
    import(&store, &full, &entries).await;
    import(&store, &other, &entries).await;

    // An empty board: no items and no cursor, at any limit
    for limit in [1, 100, 1000] {
        let page = store.top_scores(&bid("empty"), limit, None).await.unwrap();
        assert!(page.items.is_empty());
        assert_eq!(page.next_cursor, None);
    }
    // An unknown board reads as an empty one
    let page = store.top_scores(&bid("unknown"), 10, None).await.unwrap();
    assert!(page.items.is_empty() && page.next_cursor.is_none());

    // limit 0 and 1001: Invalid; 1 and 1000 are fine
    assert!(is_invalid(store.top_scores(&bid("full"), 0, None).await));
    assert!(is_invalid(store.top_scores(&bid("full"), 1001, None).await));
    assert_eq!(
        store
            .top_scores(&bid("full"), 1, None)
            .await
            .unwrap()
            .items
            .len(),
        1
    );

    // GIVEN a genuine cursor of `full` after 5 entries
    let page = store.top_scores(&bid("full"), 5, None).await.unwrap();
    let cursor = page.next_cursor.unwrap();
    assert!(
        store
            .top_scores(&bid("full"), 5, Some(&cursor))
            .await
            .is_ok()
    );
    // WHEN it is used on another board, even one with the same entries
    // THEN BadCursor
    assert!(is_bad_cursor(
        store.top_scores(&bid("other"), 5, Some(&cursor)).await
    ));
    assert!(is_bad_cursor(
        store.top_scores(&bid("empty"), 5, Some(&cursor)).await
    ));
    // WHEN it is fed to another listing: BadCursor
    assert!(is_bad_cursor(
        store.player_sessions(&pid("p1"), 5, Some(&cursor)).await
    ));
    assert!(is_bad_cursor(
        store.game_sessions(&gid("tetris"), 5, Some(&cursor)).await
    ));

    // WHEN it is tampered with: any character of it flipped
    let (payload, tag) = cursor.split_once('.').unwrap();
    for i in [
        0,
        payload.len() / 2,
        payload.len() - 1,
        payload.len() + 1,
        cursor.len() - 1,
    ] {
        let mut bytes = cursor.clone().into_bytes();
        bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
        let edited = String::from_utf8(bytes).unwrap();
        assert!(
            is_bad_cursor(store.top_scores(&bid("full"), 5, Some(&edited)).await),
            "edit at {i}"
        );
    }
    // or its payload rewritten to start over on another board, keeping the tag
    let json = String::from_utf8(URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
    assert!(json.contains("LEADERBOARD#full"), "{json}");
    for forged in [
        json.replace("LEADERBOARD#full", "LEADERBOARD#other"),
        json.replace("\"n\":5", "\"n\":0"),
    ] {
        assert_ne!(forged, json);
        let forged = format!("{}.{tag}", URL_SAFE_NO_PAD.encode(forged));
        assert!(is_bad_cursor(
            store.top_scores(&bid("full"), 5, Some(&forged)).await
        ));
        assert!(is_bad_cursor(
            store.top_scores(&bid("other"), 5, Some(&forged)).await
        ));
    }
    // AND garbage is refused too
    let long = "A".repeat(5_000);
    for junk in [
        "",
        ".",
        "garbage",
        "abc.def",
        "!!!.???",
        "eyJ9.AAAAAAAAAAAAAAAAAAAAAA",
        long.as_str(),
    ] {
        assert!(
            is_bad_cursor(store.top_scores(&bid("full"), 5, Some(junk)).await),
            "{junk:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// AP4 and AP5: a player's entries
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn ap4_player_entry_and_entry_pointer_agree_with_the_score_item() {
    let (table, store) = store("ap4").await;
    common::board(&store, "b", Order::Desc, Operator::Best).await;
    // GIVEN p1 plays 100, then 250 (better), then 50 (worse); p2 plays 300
    submit(&store, "p1", 100, &["b"], 10).await;
    let better = submit(&store, "p1", 250, &["b"], 20).await;
    submit(&store, "p1", 50, &["b"], 30).await;
    submit(&store, "p2", 300, &["b"], 40).await;

    // WHEN p1's entry is read through the pointer and through GSI1
    let pointer = store
        .entry_pointer(&bid("b"), &pid("p1"))
        .await
        .unwrap()
        .unwrap();
    let entry = store
        .player_entry(&bid("b"), &pid("p1"))
        .await
        .unwrap()
        .unwrap();
    // THEN both are the 250 of the second play
    let want = ScoreEntry {
        entry: leaderboard_store::model::Entry {
            metadata: None,
            name: Some("p1".into()),
            board_id: bid("b"),
            player_id: pid("p1"),
            score: 250,
            attained_at: at(20),
        },
        saturated: false,
        session_id: better.session.session_id.clone(),
    };
    assert_eq!(entry, want);
    assert_eq!(pointer.score_entry(), want);
    assert_eq!(pointer.version, 2);
    let sk = format!("SCORE#0000000250#{}#p1", tiebreak(T0 + 20));
    assert_eq!(sk, "SCORE#0000000250#8232774399979#p1");
    assert_eq!(pointer.score_sk, sk);
    // AND the Score item at the pointer's key holds the same entry, the only one of p1
    let raw = table.raw("LEADERBOARD#b", &sk).await.unwrap();
    assert_eq!(
        keys_of(&raw),
        want_keys(&[
            ("pk", "LEADERBOARD#b"),
            ("sk", &sk),
            ("gsi1pk", "PLAYER#p1"),
            ("gsi1sk", "SCORE#b"),
        ])
    );
    assert_eq!(s(&raw, "leaderboardId"), Some("b"));
    assert_eq!(s(&raw, "playerId"), Some("p1"));
    assert_eq!(n(&raw, "score"), Some("250"));
    assert_eq!(s(&raw, "attainedAt"), Some("2026-01-01T00:00:00.020Z"));
    assert_eq!(
        s(&raw, "sessionId"),
        Some(better.session.session_id.as_str())
    );
    let p1_scores = table
        .dump()
        .await
        .into_iter()
        .filter(|i| s(i, "pk") == Some("LEADERBOARD#b") && s(i, "playerId") == Some("p1"))
        .count();
    assert_eq!(p1_scores, 1);
    // AND the pointer item is keyed PLAYER#p1 / ENTRY#b
    let raw = table.raw("PLAYER#p1", "ENTRY#b").await.unwrap();
    assert_eq!(s(&raw, "scoreSk"), Some(sk.as_str()));
    assert_eq!(n(&raw, "version"), Some("2"));
    // AND the ranked read agrees
    assert_eq!(
        store
            .player_rank(&stored_board(&store, "b").await, &pid("p1"))
            .await
            .unwrap()
            .map(|e| exact(e, 2)),
        Some(RankedEntry {
            metadata: None,
            name: "p1".into(),
            rank: 2,
            player_id: pid("p1"),
            score: 250,
            attained_at: at(20),
            freshness: None,
        })
    );

    // A player with no entry, and an unknown board: None everywhere
    for (board, player) in [("b", "p_none"), ("nope", "p1")] {
        assert_eq!(
            store.player_entry(&bid(board), &pid(player)).await.unwrap(),
            None
        );
        assert_eq!(
            store
                .entry_pointer(&bid(board), &pid(player))
                .await
                .unwrap(),
            None
        );
        assert_eq!(
            store
                .player_rank(&stored_board(&store, board).await, &pid(player))
                .await
                .unwrap(),
            None
        );
    }
}

#[tokio::test]
async fn ap5_player_entries_across_boards() {
    let (_table, store) = store("ap5").await;
    // GIVEN three boards created in an order other than their id order
    common::board(&store, "zeta", Order::Desc, Operator::Increment).await;
    common::board(&store, "Mid", Order::Desc, Operator::Latest).await;
    common::board(&store, "alpha", Order::Desc, Operator::Best).await;
    // AND p1 plays twice on all three, p2 once on alpha only
    let first = submit(&store, "p1", 10, &["zeta", "Mid", "alpha"], 1).await;
    let second = submit(&store, "p1", 5, &["alpha", "zeta", "Mid"], 2).await;
    let p2 = submit(&store, "p2", 7, &["alpha"], 3).await;
    let s1 = first.session.session_id;
    let s2 = second.session.session_id;
    let entry = |board: &str, player: &str, score, ms, session: &SessionId| ScoreEntry {
        entry: leaderboard_store::model::Entry {
            metadata: None,
            name: Some(player.into()),
            board_id: bid(board),
            player_id: pid(player),
            score,
            attained_at: at(ms),
        },
        saturated: false,
        session_id: session.clone(),
    };
    // WHEN p1's entries are listed
    let got = store.player_entries(&pid("p1"), 100, None).await.unwrap();
    assert_eq!(got.next_cursor, None);
    let got = got.items;
    // THEN one per board, in board id byte order, each as its operator left it
    assert_eq!(
        got,
        vec![
            entry("Mid", "p1", 5, 2, &s2),
            entry("alpha", "p1", 10, 1, &s1),
            entry("zeta", "p1", 15, 2, &s2),
        ]
    );
    // AND each agrees with its pointer
    for e in &got {
        let pointer = store
            .entry_pointer(&e.entry.board_id, &e.entry.player_id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(&pointer.score_entry(), e);
    }
    assert_eq!(
        store
            .player_entries(&pid("p2"), 100, None)
            .await
            .unwrap()
            .items,
        vec![entry("alpha", "p2", 7, 3, &p2.session.session_id)]
    );
    // AND a player with no entries gets none
    let none = store.player_entries(&pid("p3"), 100, None).await.unwrap();
    assert!(none.items.is_empty() && none.next_cursor.is_none());
    // AND pages of 2 follow one another to the end
    let first = store.player_entries(&pid("p1"), 2, None).await.unwrap();
    assert_eq!(first.items, got[..2]);
    let cursor = first.next_cursor.expect("a second page");
    let second = store
        .player_entries(&pid("p1"), 2, Some(&cursor))
        .await
        .unwrap();
    assert_eq!(
        (second.items.as_slice(), second.next_cursor),
        (&got[2..], None)
    );
    // AND the cursor is bound to its listing and its player: another player's, another
    // listing's, or an edited one is refused before any read
    for (player, c) in [("p2", cursor.clone()), ("p1", format!("{}x", cursor))] {
        let refused = store.player_entries(&pid(player), 2, Some(&c)).await;
        assert!(
            matches!(refused, Err(StoreError::BadCursor)),
            "{player}: {refused:?}"
        );
    }
    let refused = store.player_results(&pid("p1"), 2, Some(&cursor)).await;
    assert!(matches!(refused, Err(StoreError::BadCursor)), "{refused:?}");
}

// ---------------------------------------------------------------------------------------------
// AP6, AP7, AP8: sessions
// ---------------------------------------------------------------------------------------------

fn game_play(player: &str, game: &str, score: u64, ms: u64, salt: u128) -> leaderboard_store::Play {
    let mut p = play(player, score, &["b"], sid(ms, salt));
    p.game_id = Some(gid(game));
    p
}

#[tokio::test]
async fn ap6_player_sessions_newest_first_in_pages() {
    let (_table, store) = store("ap6").await;
    common::board(&store, "b", Order::Desc, Operator::Best).await;
    // GIVEN 25 sessions of p1 at increasing times, interleaved with 5 of p2
    let mut p1 = Vec::new();
    for i in 0..25u64 {
        let ms = 1_000 * (i + 1);
        let out = store
            .record_play(&game_play("p1", "tetris", i, ms, i as u128), at(ms))
            .await
            .unwrap();
        p1.push(out.session);
        if i % 5 == 0 {
            store
                .record_play(&game_play("p2", "tetris", i, ms + 1, 0), at(ms + 1))
                .await
                .unwrap();
        }
    }
    p1.reverse();

    // WHEN p1's sessions are read 10 at a time
    let pages = session_pages(&store, "p1", 10).await;
    // THEN 10, 10, 5, newest first, exactly the sessions record_play returned
    assert_eq!(page_sizes(&pages), [10, 10, 5]);
    assert_eq!(pages.concat(), p1);
    // AND at 5 a page (exactly filling the end), 25 and 1000: the last page has no cursor
    for (limit, sizes) in [
        (5, vec![5, 5, 5, 5, 5]),
        (25, vec![25]),
        (1000, vec![25]),
        (24, vec![24, 1]),
    ] {
        let pages = session_pages(&store, "p1", limit).await;
        assert_eq!(page_sizes(&pages), sizes, "limit {limit}");
        assert_eq!(pages.concat(), p1, "limit {limit}");
    }
    assert_eq!(session_pages(&store, "p2", 3).await.concat().len(), 5);

    // A player with no sessions: nothing, no cursor
    let page = store.player_sessions(&pid("p3"), 10, None).await.unwrap();
    assert!(page.items.is_empty());
    assert_eq!(page.next_cursor, None);

    // Bad limits and cursors
    assert!(is_invalid(store.player_sessions(&pid("p1"), 0, None).await));
    assert!(is_invalid(
        store.player_sessions(&pid("p1"), 1001, None).await
    ));
    let cursor = store
        .player_sessions(&pid("p1"), 10, None)
        .await
        .unwrap()
        .next_cursor
        .unwrap();
    assert!(is_bad_cursor(
        store.player_sessions(&pid("p2"), 10, Some(&cursor)).await
    ));
    assert!(is_bad_cursor(
        store.game_sessions(&gid("tetris"), 10, Some(&cursor)).await
    ));
    assert!(is_bad_cursor(
        store.top_scores(&bid("b"), 10, Some(&cursor)).await
    ));
}

#[tokio::test]
async fn ap7_game_sessions_across_players_newest_first() {
    let (_table, store) = store("ap7").await;
    common::board(&store, "b", Order::Desc, Operator::Best).await;
    // GIVEN 18 tetris sessions of three players, interleaved in time, and 4 chess sessions
    let mut tetris = Vec::new();
    let mut chess = Vec::new();
    for i in 0..18u64 {
        let player = ["p1", "p2", "p3"][(i % 3) as usize];
        let ms = 500 + 37 * i;
        let out = store
            .record_play(&game_play(player, "tetris", i, ms, 7), at(ms))
            .await
            .unwrap();
        tetris.push(out.session);
        if i % 5 == 0 {
            let out = store
                .record_play(&game_play(player, "chess", i, ms + 1, 9), at(ms + 1))
                .await
                .unwrap();
            chess.push(out.session);
        }
    }
    tetris.reverse();
    chess.reverse();
    // WHEN tetris' sessions are read 4 at a time
    let pages = game_pages(&store, "tetris", 4).await;
    // THEN 4, 4, 4, 4, 2, newest first across players
    assert_eq!(page_sizes(&pages), [4, 4, 4, 4, 2]);
    assert_eq!(pages.concat(), tetris);
    // AND 6 a page exactly fills the end; 1000 is one page
    assert_eq!(
        page_sizes(&game_pages(&store, "tetris", 6).await),
        [6, 6, 6]
    );
    assert_eq!(game_pages(&store, "tetris", 1000).await, [tetris.clone()]);
    // AND chess has only its own
    assert_eq!(game_pages(&store, "chess", 3).await.concat(), chess);
    // AND an unknown game has none
    let page = store.game_sessions(&gid("go"), 10, None).await.unwrap();
    assert!(page.items.is_empty() && page.next_cursor.is_none());
    // AND a tetris cursor is refused for chess, and limits are checked
    let cursor = store
        .game_sessions(&gid("tetris"), 4, None)
        .await
        .unwrap()
        .next_cursor
        .unwrap();
    assert!(is_bad_cursor(
        store.game_sessions(&gid("chess"), 4, Some(&cursor)).await
    ));
    assert!(is_bad_cursor(
        store.player_sessions(&pid("p1"), 4, Some(&cursor)).await
    ));
    assert!(is_invalid(
        store.game_sessions(&gid("tetris"), 0, None).await
    ));
    assert!(is_invalid(
        store.game_sessions(&gid("tetris"), 1001, None).await
    ));
}

#[tokio::test]
async fn ap8_get_session_reads_the_play_back() {
    let (table, store) = store("ap8").await;
    common::board(&store, "b1", Order::Desc, Operator::Best).await;
    common::board(&store, "b2", Order::Asc, Operator::Best).await;
    // GIVEN a play on two boards
    let session_id = sid(777, 12345);
    let mut p = play("p1", 420, &["b2", "b1"], session_id.clone());
    p.game_id = Some(gid("chess-960"));
    p.duration_sec = Some(93);
    let out = store.record_play(&p, at(777)).await.unwrap();
    // WHEN it is read back
    let got = store.get_session(&pid("p1"), &session_id).await.unwrap();
    // THEN it equals what record_play returned
    assert_eq!(got, Some(out.session.clone()));
    assert_eq!(out.session.board_ids, [bid("b2"), bid("b1")]);
    assert_eq!(out.session.duration_sec, Some(93));
    // AND the raw item has the contract's keys
    let sk = format!("SESSION#{}", session_id.as_str());
    let raw = table.raw("PLAYER#p1", &sk).await.unwrap();
    assert_eq!(
        keys_of(&raw),
        want_keys(&[
            ("pk", "PLAYER#p1"),
            ("sk", &sk),
            ("gsi2pk", "GAME#chess-960"),
            ("gsi2sk", &sk),
        ])
    );
    assert_eq!(s(&raw, "sessionId"), Some(session_id.as_str()));
    assert_eq!(s(&raw, "gameId"), Some("chess-960"));
    assert_eq!(n(&raw, "score"), Some("420"));
    assert_eq!(n(&raw, "durationSec"), Some("93"));
    assert_eq!(s(&raw, "attainedAt"), Some("2026-01-01T00:00:00.777Z"));
    // AND a repeat changes nothing and answers the same session
    let before = table.dump().await;
    let again = store.record_play(&p, at(999)).await.unwrap();
    assert!(again.duplicate);
    assert_eq!(again.session, out.session);
    assert_eq!(table.dump().await, before);
    // AND an unknown session, or this session under another player, is None
    assert_eq!(
        store.get_session(&pid("p1"), &sid(777, 1)).await.unwrap(),
        None
    );
    assert_eq!(
        store.get_session(&pid("p2"), &session_id).await.unwrap(),
        None
    );
}

// ---------------------------------------------------------------------------------------------
// AP10: exact rank
// ---------------------------------------------------------------------------------------------

/// At least `want` positions to check, from every part of the board: every `step`-th, the
/// last three, the edges of the full-tie runs (equal score and time, so ordered by playerId
/// alone) in the middle and at the end of the board, and then the top of the board (which is
/// full of ties) until there are `want`. A rank costs one read of every entry above, so the
/// sample leans to the top while still reaching every page.
fn sample(expected: &[RankedEntry], want: usize, step: usize) -> BTreeSet<usize> {
    let last = expected.len() - 1;
    let mut picks: BTreeSet<usize> = (0..=last).step_by(step).collect();
    picks.extend([last - 2, last - 1, last]);
    // the full-tie run around `at`: its first index and its last
    let run = |at: usize| {
        let same =
            |a: &RankedEntry, b: &RankedEntry| a.score == b.score && a.attained_at == b.attained_at;
        let (mut i, mut j) = (at, at);
        while i > 0 && same(&expected[i - 1], &expected[at]) {
            i -= 1;
        }
        while j < last && same(&expected[j + 1], &expected[at]) {
            j += 1;
        }
        (i, j)
    };
    for at in [expected.len() / 2, last] {
        let (i, j) = run(at);
        assert!(j >= i + 3, "no full tie at {at}");
        picks.extend([i - 1, i, i + 1, j - 1, j]);
    }
    let mut top = 0;
    while picks.len() < want {
        picks.insert(top);
        top += 1;
    }
    assert!(
        top > 2 && run(0).1 > 0,
        "the top must be sampled, ties included"
    );
    picks
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

#[tokio::test]
async fn ap10_exact_ranks_from_the_index_on_a_board_of_15000() {
    let (table, store) = bulk_store("ap10").await;
    let board = common::board(&store, "big", Order::Desc, Operator::Best).await;
    // GIVEN 15,000 entries: 40 scores and 25 times, so many share a score and many more than
    // one share score and time (full ties, ordered by playerId bytes); ids of mixed
    // characters and lengths
    let prefixes = ["p_", "P-", "p.", "z", "player_with_a_longer_id_", "A"];
    let entries: Vec<Entry> = (0..15_000u64)
        .map(|i| {
            let j = i * 7_919 % 15_000; // scatter the import order
            (
                pid(&format!("{}{j}", prefixes[(j % 6) as usize])),
                (j * 13 % 40) * 25,
                at(10_000 + (j / 40 % 25) * 1_000),
            )
        })
        .collect();
    let started = std::time::Instant::now();
    import(&store, &board, &entries).await;
    eprintln!("imported 15,000 entries in {:?}", started.elapsed());
    let expected = rank_order(Order::Desc, entries);
    // AND its rank index (layout v2, the default) built from its entries
    store.build_rank_index(&board).await.unwrap();
    let big = stored_board(&store, "big").await;

    // WHEN the last player's rank is read
    let (last, cost) = store
        .player_rank_counted(&big, &expected[14_999].player_id)
        .await
        .unwrap()
        .unwrap();
    // THEN it is exact from the index: the pointer with the root, one snapshot of the root and
    // the key's path, the group's tail counted when others share it, the lanes
    assert_eq!(exact(last, 15_000).rank, 15_000);
    assert_within_v2_bounds(&cost);
    // AND what a lookup says it cost is what it sent: 30 lookups, one at a time, through a
    // client that counts every request
    let (client, counter) = leaderboard_devkit::local::counting_client(&table.endpoint);
    let counted = common::store_with_client(&table, client);
    for i in (0..15_000).step_by(500) {
        counter.reset();
        let (entry, cost) = counted
            .player_rank_counted(&big, &expected[i].player_id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(exact(entry, 15_000), expected[i], "position {i}");
        assert_eq!(
            counter.total(),
            u64::from(cost.requests),
            "{:?}",
            counter.snapshot()
        );
        assert_within_v2_bounds(&cost);
    }

    // AND top-N lists the whole board in the same order, 1,000 a page
    assert_eq!(top_pages(&store, "big", 1000).await.concat(), expected);

    // WHEN a sample of players (the top, the bottom, spread, full ties) read their ranked entry
    let picks = sample(&expected, 300, 2_500);
    assert!(picks.len() >= 300, "{}", picks.len());
    let started = std::time::Instant::now();
    let got: Vec<(usize, Option<(RankedEntry, RankCost)>)> =
        futures::stream::iter(picks.iter().map(|&i| {
            let store = store.clone();
            let player = expected[i].player_id.clone();
            async move {
                let big = stored_board(&store, "big").await;
                let r = store.player_rank_counted(&big, &player).await?;
                Ok::<_, StoreError>((i, r))
            }
        }))
        .buffer_unordered(3)
        .try_collect()
        .await
        .unwrap();
    eprintln!("{} ranks in {:?}", picks.len(), started.elapsed());
    // THEN each is the entry at its place in the contract's order, exact
    let mut tails = 0;
    for (i, r) in got {
        let (entry, cost) = r.unwrap();
        assert_eq!(exact(entry, 15_000), expected[i], "position {i}");
        assert_within_v2_bounds(&cost);
        tails += cost.count_queries;
    }
    // every group here is one score and time of 15 players: each lookup counted its tail
    assert_eq!(tails, picks.len() as u32);
    drop_table(&table).await;
}

/// A layout v2 lookup's bound, whatever the board's size: at most 4 requests, 20 items read by
/// key (pointer and root, root and the 8 nodes of the path, 10 lanes) and 1,000 keys counted.
fn assert_within_v2_bounds(cost: &RankCost) {
    assert!(cost.requests <= 4, "{cost:?}");
    assert!(cost.items <= 20, "{cost:?}");
    assert!(
        cost.count_queries <= 1 && cost.keys_counted <= 1_000,
        "{cost:?}"
    );
}

#[tokio::test]
async fn ap10_exact_rank_on_an_asc_board() {
    let (_table, store) = store("ap10_asc").await;
    let board = store
        .create_board(new_board("golf", Order::Asc, Operator::Best, 200), at(0))
        .await
        .unwrap();
    // GIVEN 600 entries on strokes 60..=80 at 6 times, plus a few plays
    let entries: Vec<Entry> = (0..600u64)
        .map(|i| (pid(&format!("g{i}")), 60 + i * 7 % 21, at(i * 11 % 6)))
        .collect();
    import(&store, &board, &entries).await;
    let mut all = entries;
    for (i, (player, score)) in [("pa", 59), ("pb", 60), ("pc", 200), ("pd", 0)]
        .into_iter()
        .enumerate()
    {
        let ms = 100 + i as u64;
        submit(&store, player, score, &["golf"], ms).await;
        all.push((pid(player), score, at(ms)));
    }
    let expected = rank_order(Order::Asc, all);
    assert_eq!(expected[0].player_id.as_str(), "pd");
    assert_eq!(expected[1].player_id.as_str(), "pa");
    assert_eq!(expected[603].player_id.as_str(), "pc");
    // WHEN every player's rank is read
    let golf = stored_board(&store, "golf").await;
    let got: Vec<_> = futures::stream::iter(
        expected
            .iter()
            .map(|e| store.player_rank(&golf, &e.player_id)),
    )
    .buffered(4)
    .try_collect()
    .await
    .unwrap();
    // THEN each is exact (the index has applied nothing here, so the capped count of the
    // keys above makes it so): lower first, ties by the earlier time, then playerId bytes
    for (want, got) in expected.iter().zip(got) {
        assert_eq!(got.map(|e| exact(e, 604)).as_ref(), Some(want));
    }
    // AND top_scores agrees
    assert_eq!(top_pages(&store, "golf", 1000).await.concat(), expected);
}

// ---------------------------------------------------------------------------------------------
// Around a player
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn around_player_at_the_top_the_bottom_and_the_middle() {
    let (_table, store) = store("around").await;
    let board = common::board(&store, "b", Order::Desc, Operator::Best).await;
    // GIVEN 40 entries with ties
    let entries: Vec<Entry> = (0..40u64)
        .map(|i| (pid(&format!("p{i:02}")), i * 3 % 8, at(i % 3)))
        .collect();
    import(&store, &board, &entries).await;
    let expected = rank_order(Order::Desc, entries);
    let len = expected.len();
    for i in [0, 1, 2, 4, 19, 20, 35, 37, 38, 39] {
        for n in 1..=5 {
            // WHEN the window of n around the player at position i is read
            let got = store
                .around_player(&stored_board(&store, "b").await, &expected[i].player_id, n)
                .await
                .unwrap()
                .unwrap();
            // THEN up to n above, the player, up to n below, with exact ranks
            let want = &expected[i.saturating_sub(n)..(i + n + 1).min(len)];
            let got: Vec<RankedEntry> = got.into_iter().map(|e| exact(e, 40)).collect();
            assert_eq!(got, want, "position {i}, n {n}");
        }
    }
    // AND n = 50 on a board of 40 is the whole board, from anywhere
    for i in [0, 21, 39] {
        let got = store
            .around_player(&stored_board(&store, "b").await, &expected[i].player_id, 50)
            .await
            .unwrap()
            .unwrap();
        let got: Vec<RankedEntry> = got.into_iter().map(|e| exact(e, 40)).collect();
        assert_eq!(got, expected);
    }
    // AND a player with no entry gets None; n = 0 and n = 51 are Invalid
    assert_eq!(
        store
            .around_player(&stored_board(&store, "b").await, &pid("p_none"), 3)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .around_player(
                &stored_board(&store, "nope").await,
                &expected[0].player_id,
                3
            )
            .await
            .unwrap(),
        None
    );
    let p = &expected[10].player_id;
    assert!(is_invalid(
        store
            .around_player(&stored_board(&store, "b").await, p, 0)
            .await
    ));
    assert!(is_invalid(
        store
            .around_player(&stored_board(&store, "b").await, p, 51)
            .await
    ));
    // AND a board of one: just the player
    let solo = common::board(&store, "solo", Order::Asc, Operator::Best).await;
    import(&store, &solo, &[(pid("only"), 5, at(1))]).await;
    assert_eq!(
        store
            .around_player(&stored_board(&store, "solo").await, &pid("only"), 5)
            .await
            .unwrap()
            .unwrap(),
        [RankedEntry {
            metadata: None,
            name: "only".into(),
            rank: 1,
            player_id: pid("only"),
            score: 5,
            attained_at: at(1),
            freshness: Some(Freshness::exact(1, 1)),
        }]
    );
}
