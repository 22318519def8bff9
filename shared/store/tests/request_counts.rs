//! The requests each store operation sends, by DynamoDB operation, on DynamoDB Local: a
//! census that pins the cost of every access pattern, so a change to how requests are built
//! (or a new retry) cannot add a request unnoticed. Scenarios are deterministic: fixed times,
//! fixed players, no concurrency.

use crate::common;

use crate::census::{census, counted, counted_on};
use common::*;
use leaderboard_keys::ids::{Email, GameId, IdempotencyKey};
use leaderboard_keys::rank::Order;
use leaderboard_store::model::Operator;
use leaderboard_store::{
    BoardRank, CloseOptions, CloseProgress, ProjectedSession, SequenceNumber, StoreError,
};

/// Every operation's requests against the expected ones; reports all differences at once.
#[derive(Default)]
struct Misses(Vec<String>);

impl Misses {
    fn expect(&mut self, what: &str, got: &str, expected: &str) {
        if got != expected {
            self.0
                .push(format!("{what}: sent {got:?}, expected {expected:?}"));
        }
    }

    fn none(self) {
        assert!(self.0.is_empty(), "{:#?}", self.0);
    }
}

#[tokio::test]
async fn players_boards_and_sessions() {
    let mut m = Misses::default();
    let (_t, store, counter) = counted("census_reads").await;
    let (boards, players, listings) = (store.boards(), store.players(), store.listings());
    let (_, c) = census(
        &counter,
        boards.create_board(new_board("cb", Order::Desc, Operator::Best, 1000), at(0)),
    )
    .await;
    // The board and its listing item, together.
    m.expect("create_board", &c, "TransactWriteItems 1");
    let (_, c) = census(&counter, boards.get_board(&bid("cb"))).await;
    m.expect("get_board", &c, "GetItem 1");

    let email = Email::parse("ada@example.com").unwrap();
    let (r, c) = census(
        &counter,
        players.put_profile(&pid("ada"), "Ada", Some(&email), at(1)),
    )
    .await;
    r.unwrap();
    // Setting an email reads the profile for the address it frees and the new address's owner
    // (one claimed before proof was required is taken over), writes the profile with the
    // address's owner in one transaction, and answers the profile as stored.
    m.expect("put_profile", &c, "GetItem 3, TransactWriteItems 1");
    let (r, c) = census(
        &counter,
        players.put_profile(&pid("ada"), "Ada", None, at(2)),
    )
    .await;
    r.unwrap();
    m.expect(
        "put_profile, email kept",
        &c,
        "GetItem 1, TransactWriteItems 1",
    );
    let (r, c) = census(&counter, players.get_player(&pid("ada"))).await;
    assert!(r.unwrap().is_some());
    m.expect("get_player", &c, "GetItem 1");
    let (r, c) = census(&counter, players.find_player_by_email(&email)).await;
    assert!(r.unwrap().is_some());
    // The address's owner item, then the owner's profile.
    m.expect("find_player_by_email", &c, "GetItem 2");

    let outcome = submit(&store, "ada", 10, &["cb"], 10).await;
    let session = outcome.session.session_id.clone();
    let (r, c) = census(&counter, listings.get_session(&pid("ada"), &session)).await;
    assert!(r.unwrap().is_some());
    m.expect("get_session", &c, "GetItem 1");
    let (r, c) = census(&counter, listings.player_sessions(&pid("ada"), 10, None)).await;
    assert_eq!(r.unwrap().items.len(), 1);
    m.expect("player_sessions", &c, "Query 1");
    let (r, c) = census(
        &counter,
        listings.game_sessions(&GameId::parse("tetris").unwrap(), 10, None),
    )
    .await;
    assert_eq!(r.unwrap().items.len(), 1);
    // The game's feed item says over how many shards its sessions are: none here.
    m.expect("game_sessions", &c, "GetItem 1, Query 1");
    m.none();
}

#[tokio::test]
async fn plays_and_rank_reads() {
    let mut m = Misses::default();
    let (_t, store, counter) = counted("census_plays").await;
    // Small boards (fewer entries than the exact top): ranks are counted.
    board(&store, "pa", Order::Desc, Operator::Best).await;
    board(&store, "pb", Order::Asc, Operator::Best).await;
    for (i, p) in ["p1", "p2", "p3", "p4"].iter().enumerate() {
        submit(&store, p, 100 + i as u64, &["pa", "pb"], 100 + i as u64).await;
    }

    // A first play on two boards, an improvement on one of them, one that improves nothing,
    // and the same session again.
    let first = play("ada", 50, &["pa", "pb"], sid(1_000, 1));
    let (r, c) = census(&counter, store.plays().record_play(&first, at(1_000))).await;
    assert!(!r.unwrap().duplicate);
    m.expect(
        "first play",
        &c,
        "BatchGetItem 1, Query 4, TransactWriteItems 1, UpdateItem 1",
    );
    let better = play("ada", 60, &["pa", "pb"], sid(2_000, 2));
    let (_, c) = census(&counter, store.plays().record_play(&better, at(2_000))).await;
    m.expect(
        "improves one",
        &c,
        "BatchGetItem 1, Query 4, TransactWriteItems 1, UpdateItem 1",
    );
    let worse = play("ada", 1, &["pa"], sid(3_000, 3));
    let (_, c) = census(&counter, store.plays().record_play(&worse, at(3_000))).await;
    m.expect(
        "improves none",
        &c,
        "BatchGetItem 1, Query 2, TransactWriteItems 1, UpdateItem 1",
    );
    let (r, c) = census(&counter, store.plays().record_play(&first, at(4_000))).await;
    assert!(r.unwrap().duplicate);
    // The Session is not read with the play: its put in the transaction fails on its
    // condition, and the Session read then answers the repeat.
    m.expect(
        "the same session again",
        &c,
        "BatchGetItem 1, GetItem 1, TransactWriteItems 1",
    );
    // With an Idempotency-Key: one key more in the read and one item more in the transaction;
    // its repeat (under a new session id, as a client that sends only the key makes) reads the
    // session the key names.
    let mut keyed = play("ada", 1, &["pa"], sid(5_000, 5));
    keyed.idempotency_key = Some(IdempotencyKey::parse("k-1").unwrap());
    let (r, c) = census(&counter, store.plays().record_play(&keyed, at(5_000))).await;
    assert!(!r.unwrap().duplicate);
    m.expect(
        "a play with an Idempotency-Key",
        &c,
        "BatchGetItem 1, Query 2, TransactWriteItems 1, UpdateItem 1",
    );
    keyed.session_id = sid(5_001, 6);
    let (r, c) = census(&counter, store.plays().record_play(&keyed, at(5_001))).await;
    assert_eq!(r.unwrap().session.session_id, sid(5_000, 5));
    m.expect("the same key again", &c, "BatchGetItem 1, GetItem 1");
    // Under the rate limit: the player's rate log is one item more in the read and in the
    // transaction, no request more; a play past the limit is refused after the read and a read
    // of its Session (a repeat would be answered, whatever the window says).
    let limited = store.clone().with_plays_per_minute(1);
    let rated = play("bo", 1, &["pa"], sid(6_000, 7));
    let (r, c) = census(&counter, limited.plays().record_play(&rated, at(6_000))).await;
    assert!(!r.unwrap().duplicate);
    m.expect(
        "a play under the rate limit",
        &c,
        "BatchGetItem 1, Query 2, TransactWriteItems 1, UpdateItem 1",
    );
    let past = play("bo", 2, &["pa"], sid(6_001, 8));
    let (r, c) = census(&counter, limited.plays().record_play(&past, at(6_001))).await;
    assert!(matches!(r, Err(StoreError::RateLimited { .. })), "{r:?}");
    m.expect(
        "a play past the rate limit",
        &c,
        "BatchGetItem 1, GetItem 1",
    );

    let pa = store.boards().get_board(&bid("pa")).await.unwrap().unwrap();
    let (r, c) = census(
        &counter,
        store
            .listings()
            .top_scores(&stored_board(&store, "pa").await, 3, None),
    )
    .await;
    assert_eq!(r.unwrap().items.len(), 3);
    m.expect("top_scores", &c, "Query 1");
    let (r, c) = census(
        &counter,
        store.listings().player_entry(&bid("pa"), &pid("ada")),
    )
    .await;
    assert!(r.unwrap().is_some());
    m.expect("player_entry", &c, "Query 1");
    let (r, c) = census(
        &counter,
        store.listings().player_entries(&pid("ada"), 50, None),
    )
    .await;
    assert_eq!(r.unwrap().items.len(), 2);
    m.expect("player_entries", &c, "Query 1");
    let (r, c) = census(&counter, store.listings().player_rank(&pa, &pid("p2"))).await;
    assert_eq!(r.unwrap().unwrap().rank, 3);
    m.expect("player_rank, small board", &c, "BatchGetItem 1, Query 2");
    // The API's lookup on a small board: the board, the pointer and the root, then the count.
    let (r, c) = census(
        &counter,
        store.listings().board_and_rank(&bid("pa"), &pid("p2")),
    )
    .await;
    match r.unwrap() {
        BoardRank::Open(_, Some(entry)) => assert_eq!(entry.rank, 3),
        other => panic!("expected the ranked entry, got {other:?}"),
    }
    m.expect("board_and_rank, small board", &c, "BatchGetItem 1, Query 2");
    let (r, c) = census(&counter, store.listings().around_player(&pa, &pid("p2"), 1)).await;
    assert_eq!(r.unwrap().unwrap().len(), 3);
    m.expect("around_player, small board", &c, "BatchGetItem 1, Query 4");

    m.none();
}

#[tokio::test]
async fn index_lookups_plays_rebuild_and_apply() {
    let mut m = Misses::default();
    let (table, store, counter) = counted("census_v2").await;
    let pv = board(&store, "pv", Order::Desc, Operator::Best).await;
    // 1,100 entries, more than the exact top, so a lookup reads the index: one per score,
    // except "tie" and "tie2" (one score, one time: one group).
    let mut entries: Vec<_> = (0..1_100u64)
        .map(|i| (pid(&format!("e{i:04}")), 10 + i * 3, at(i * 1_000)))
        .collect();
    entries.push((pid("tie"), 11, at(5_000_000)));
    entries.push((pid("tie2"), 11, at(5_000_000)));
    store.boards().import_entries(&pv, &entries).await.unwrap();
    let (r, c) = census(&counter, store.rank().build_rank_index(&pv)).await;
    assert_eq!(r.unwrap().entries, 1_102);
    // (no generation served before it: nothing to list and delete)
    m.expect(
        "build_rank_index of 1,102",
        &c,
        // (compact: a node only where two keys share a prefix, under 50 for these scores)
        "BatchWriteItem 2, Query 3, TransactWriteItems 1, UpdateItem 1",
    );

    let (r, c) = census(&counter, store.listings().player_rank(&pv, &pid("e0005"))).await;
    assert_eq!(r.unwrap().unwrap().rank, 1_095);
    m.expect(
        "player_rank, v2, alone in its group",
        &c,
        "BatchGetItem 2, Query 1",
    );
    let (r, c) = census(&counter, store.listings().player_rank(&pv, &pid("tie"))).await;
    assert_eq!(r.unwrap().unwrap().rank, 1_101);
    m.expect(
        "player_rank, v2, group shared",
        &c,
        "BatchGetItem 2, Query 2",
    );

    // The API's lookup: the board, the pointer and the root in one read, then the path's nodes
    // (with the root again) and the lanes.
    let (r, c) = census(
        &counter,
        store.listings().board_and_rank(&bid("pv"), &pid("e0005")),
    )
    .await;
    match r.unwrap() {
        BoardRank::Open(_, Some(entry)) => assert_eq!(entry.rank, 1_095),
        other => panic!("expected the ranked entry, got {other:?}"),
    }
    m.expect(
        "board_and_rank, v2, alone in its group",
        &c,
        "BatchGetItem 2, Query 1",
    );
    let (r, c) = census(
        &counter,
        store.listings().board_and_rank(&bid("pv"), &pid("tie")),
    )
    .await;
    match r.unwrap() {
        BoardRank::Open(_, Some(entry)) => assert_eq!(entry.rank, 1_101),
        other => panic!("expected the ranked entry, got {other:?}"),
    }
    m.expect(
        "board_and_rank, v2, group shared",
        &c,
        "BatchGetItem 2, Query 2",
    );
    let (r, c) = census(
        &counter,
        store.listings().board_and_rank(&bid("nope"), &pid("tie")),
    )
    .await;
    assert!(matches!(r.unwrap(), BoardRank::NoBoard));
    m.expect("board_and_rank, no such board", &c, "BatchGetItem 1");

    let first = play("ada", 7, &["pv"], sid(6_000_000, 1));
    let (r, c) = census(&counter, store.plays().record_play(&first, at(6_000_000))).await;
    assert_eq!(r.unwrap().session.outcomes[0].rank, 1_103);
    // (the root read with the play's own read, before its transaction: no request more)
    m.expect(
        "first play, v2",
        &c,
        "BatchGetItem 2, Query 1, TransactWriteItems 1, UpdateItem 1",
    );
    let lane = leaderboard_keys::rank_index::lane_of("ada", leaderboard_keys::rank_index::LANES);
    let key = leaderboard_keys::entity::grouped_lane(&bid("pv"), lane);
    let written = table.raw(&key.pk, &key.sk).await.unwrap()["written"]
        .as_n()
        .unwrap()
        .parse()
        .unwrap();
    let pointer = store
        .listings()
        .entry_pointer(&bid("pv"), &pid("ada"))
        .await
        .unwrap()
        .unwrap();
    let change = leaderboard_keys::rank_index::LaneChange {
        lane,
        seq: written,
        old: None,
        new: Some(leaderboard_keys::rank_index::CountedKey::parse(&pointer.score_sk).unwrap()),
        score: None,
        ..Default::default()
    };
    let (r, c) = census(
        &counter,
        store
            .rank()
            .apply_lane_changes(&bid("pv"), std::slice::from_ref(&change)),
    )
    .await;
    assert_eq!(r.unwrap().applied, 1);
    // The root's read, the live nodes the change touches read a level at a time (4 levels),
    // the journal, their 4 writes, the root's update; and the board's top entry (the board's
    // GetItem and one Query): a root its build wrote records no leader, so its first apply
    // learns who leads.
    m.expect(
        "apply_lane_changes",
        &c,
        "BatchGetItem 4, GetItem 2, PutItem 1, Query 1, UpdateItem 5",
    );
    let (r, c) = census(
        &counter,
        store.rank().apply_lane_changes(&bid("pv"), &[change]),
    )
    .await;
    assert_eq!(r.unwrap().already_applied, 1);
    m.expect("apply_lane_changes again", &c, "GetItem 1");
    // A rebuild replaces a generation: it lists the old one's nodes, one Query per partition,
    // and deletes them, 25 a request.
    let (r, c) = census(&counter, store.rank().build_rank_index(&pv)).await;
    assert_eq!(r.unwrap().entries, 1_103);
    m.expect(
        "build_rank_index again",
        &c,
        "BatchWriteItem 4, Query 103, TransactWriteItems 1, UpdateItem 1",
    );
    // The rebuild switched generations: the play's own read brings the root naming the new one,
    // so its snapshot is read once, as the next play's.
    let second = play("ada", 8, &["pv"], sid(6_100_000, 2));
    let (r, c) = census(&counter, store.plays().record_play(&second, at(6_100_000))).await;
    assert_eq!(r.unwrap().session.outcomes[0].rank, 1_103);
    m.expect(
        "a play after a rebuild",
        &c,
        "BatchGetItem 2, Query 1, TransactWriteItems 1, UpdateItem 1",
    );
    let third = play("ada", 9, &["pv"], sid(6_200_000, 3));
    let (r, c) = census(&counter, store.plays().record_play(&third, at(6_200_000))).await;
    assert_eq!(r.unwrap().session.outcomes[0].rank, 1_103);
    m.expect(
        "the play after it",
        &c,
        "BatchGetItem 2, Query 1, TransactWriteItems 1, UpdateItem 1",
    );
    // The API's lookup in a fresh process, after the rebuild switched the board's generation:
    // the root comes with the board and the pointer, so the snapshot is read once.
    let (fresh, fresh_counter) = counted_on(&table);
    let (r, c) = census(
        &fresh_counter,
        fresh.listings().board_and_rank(&bid("pv"), &pid("e0005")),
    )
    .await;
    match r.unwrap() {
        BoardRank::Open(_, Some(entry)) => assert_eq!(entry.rank, 1_095),
        other => panic!("expected the ranked entry, got {other:?}"),
    }
    m.expect(
        "board_and_rank, v2, first in its process",
        &c,
        "BatchGetItem 2, Query 1",
    );
    m.none();
}

#[tokio::test]
async fn projection_import_and_close() {
    let mut m = Misses::default();
    let (_t, store, counter) = counted("census_close").await;
    let sessions: Vec<ProjectedSession> = (1..=3)
        .map(|i| ProjectedSession {
            sequence_number: SequenceNumber::parse(&format!("{i}00")).unwrap(),
            score: 10,
            attained_at: at(i * 1_000),
        })
        .collect();
    let (r, c) = census(
        &counter,
        store
            .projection()
            .project_sessions(&pid("ada"), &sessions, at(9_000)),
    )
    .await;
    assert_eq!(r.unwrap().applied, 3);
    // The write made the profile: the player's first projection reads the erasure marker.
    m.expect("project_sessions (first)", &c, "GetItem 1, UpdateItem 1");
    let next = [ProjectedSession {
        sequence_number: SequenceNumber::parse("400").unwrap(),
        score: 10,
        attained_at: at(4_000),
    }];
    let (r, c) = census(
        &counter,
        store
            .projection()
            .project_sessions(&pid("ada"), &next, at(9_000)),
    )
    .await;
    assert_eq!(r.unwrap().applied, 1);
    m.expect("project_sessions", &c, "UpdateItem 1");
    let (r, c) = census(
        &counter,
        store
            .projection()
            .project_sessions(&pid("ada"), &sessions, at(9_000)),
    )
    .await;
    assert_eq!(r.unwrap().applied, 0);
    m.expect("project_sessions again", &c, "GetItem 1, UpdateItem 1");

    let mut short = new_board("cl", Order::Desc, Operator::Best, 1000);
    short.ends_at = Some(at(60_000));
    let cl = store.boards().create_board(short, at(0)).await.unwrap();
    let entries: Vec<_> = (0..30)
        .map(|i| (pid(&format!("q{i:02}")), i, at(i)))
        .collect();
    let (r, c) = census(&counter, store.boards().import_entries(&cl, &entries)).await;
    r.unwrap();
    m.expect(
        "import_entries of 30",
        &c,
        "BatchWriteItem 3, UpdateItem 10",
    );

    let (r, c) = census(&counter, store.close().due_boards(at(61_000))).await;
    assert_eq!(r.unwrap(), vec![bid("cl")]);
    m.expect("due_boards", &c, "Query 1");
    let options = CloseOptions {
        page_size: 10,
        ..CloseOptions::default()
    };
    let (r, c) = census(
        &counter,
        store.close().close_board(&bid("cl"), at(61_000), &options),
    )
    .await;
    assert!(matches!(
        r.unwrap(),
        CloseProgress::Closed {
            player_count: 30,
            ..
        }
    ));
    // The closing fence: the board read again once closing, and its 10 lanes closed.
    m.expect(
        "close_board of 30 in pages of 10",
        &c,
        "BatchWriteItem 6, GetItem 2, Query 4, UpdateItem 17",
    );

    let (r, c) = census(
        &counter,
        store.listings().final_standings(&bid("cl"), 5, None),
    )
    .await;
    assert_eq!(r.unwrap().items.len(), 5);
    m.expect("final_standings", &c, "Query 1");
    let (r, c) = census(
        &counter,
        store.listings().final_standings_between(&bid("cl"), 3, 7),
    )
    .await;
    assert_eq!(r.unwrap().len(), 5);
    m.expect("final_standings_between", &c, "Query 1");
    let (r, c) = census(
        &counter,
        store.listings().season_result(&pid("q05"), &bid("cl")),
    )
    .await;
    assert!(r.unwrap().is_some());
    m.expect("season_result", &c, "GetItem 1");
    let (r, c) = census(
        &counter,
        store.listings().player_results(&pid("q05"), 50, None),
    )
    .await;
    assert_eq!(r.unwrap().items.len(), 1);
    m.expect("player_results", &c, "Query 1");
    m.none();
}

#[tokio::test]
async fn friends_listing_of_a_hundred_players_on_5000_entries() {
    let mut m = Misses::default();
    let (_t, store, counter) = counted("census_friends").await;
    board(&store, "fr", Order::Desc, Operator::Best).await;
    let fr = stored_board(&store, "fr").await;
    // 5,000 entries, one score each: more than the exact top, and no group shared.
    let entries: Vec<_> = (0..5_000u64)
        .map(|i| (pid(&format!("e{i:04}")), 10 + i * 3, at(i * 1_000)))
        .collect();
    store.boards().import_entries(&fr, &entries).await.unwrap();
    store.rank().build_rank_index(&fr).await.unwrap();
    // 95 players spread over the whole board, and 5 who never played.
    let mut players: Vec<_> = (0..95u64)
        .map(|i| pid(&format!("e{:04}", i * 52)))
        .collect();
    players.extend((0..5).map(|i| pid(&format!("nobody{i}"))));
    let (r, c) = census(&counter, store.listings().entries_of(&fr, &players)).await;
    let (listed, cost) = r.unwrap();
    // Best first: e4940 is 5,000 - 4,940 = 60th.
    let want: Vec<_> = (0..95u64).rev().map(|i| i * 52).collect();
    assert_eq!(listed.len(), want.len());
    for (e, i) in listed.iter().zip(want) {
        assert_eq!(
            (e.player_id.as_str(), e.rank),
            (format!("e{i:04}").as_str(), 5_000 - i)
        );
        let f = e.freshness.unwrap();
        assert!(f.rank_exact && f.player_count == 5_000, "{e:?}");
    }
    // Pointers and root (101 keys, 2 requests), snapshots of at most 100 items (4), the lanes.
    m.expect(
        "entries_of, 100 players on 5,000 entries",
        &c,
        "BatchGetItem 6, Query 1",
    );
    // The cost the listing reports is what it sent.
    let sent: u32 = c
        .split(", ")
        .filter_map(|s| s.rsplit(' ').next()?.parse::<u32>().ok())
        .sum();
    assert_eq!(cost.requests, sent);
    m.none();
}
