//! Tournament rules on DynamoDB Local, under races: 64 players joining a board of 10 places
//! leave exactly 10 joined; 16 plays of one player racing on a board of 3 attempts leave
//! exactly 3 accepted; 24 players' first plays racing on a board of 5 entrants without joins
//! leave exactly 5 with entries; a repeated `sessionId` is not an attempt; every refusal
//! writes nothing. Each count is read back from the table. And the requests: a join is one read
//! and one transaction, a play on a tournament one read more than the same play on a plain
//! board.

use std::collections::BTreeSet;

use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::rank::Order;
use leaderboard_store::model::{NewBoard, Operator};
use leaderboard_store::tournament::EntryRefusal;
use leaderboard_store::{Store, StoreError};

use crate::common::*;

async fn tournament(store: &Store, id: &str, rules: impl FnOnce(&mut NewBoard)) {
    let mut new = new_board(id, Order::Desc, Operator::Best, 1_000_000);
    rules(&mut new);
    store.boards().create_board(new, at(0)).await.unwrap();
}

/// The players with an entrant item on `board` (`joined`: only those who joined), the
/// board's entrant count, and the players with a Score item on it.
async fn census(table: &TestTable, board: &str, joined: bool) -> (BTreeSet<String>, u64, usize) {
    let items = table.dump().await;
    let sk = format!("ENTRANT#{board}");
    let entrants = items
        .iter()
        .filter(|i| i["sk"].as_s().is_ok_and(|s| *s == sk))
        .filter(|i| !joined || i.contains_key("joinedAt"))
        .map(|i| i["pk"].as_s().unwrap().clone())
        .collect();
    let pk = format!("LEADERBOARD#{board}");
    let count = items
        .iter()
        .find(|i| i["pk"].as_s().is_ok_and(|p| *p == pk) && i["sk"].as_s().unwrap() == "#ENTRANTS")
        .map_or(0, |i| i["entrants"].as_n().unwrap().parse().unwrap());
    let scores = items
        .iter()
        .filter(|i| i["pk"].as_s().is_ok_and(|p| *p == pk))
        .filter(|i| i["sk"].as_s().unwrap().starts_with("SCORE#"))
        .count();
    (entrants, count, scores)
}

fn refusal(e: &StoreError) -> Option<EntryRefusal> {
    match e {
        StoreError::EntryRefused { refusal, .. } => Some(*refusal),
        _ => None,
    }
}

#[tokio::test]
async fn sixty_four_players_racing_to_join_ten_places_leave_exactly_ten_joined() {
    let (table, store) = store_without_stream("join_race").await;
    tournament(&store, "cup", |b| {
        b.join_required = true;
        b.max_entrants = Some(10);
    })
    .await;
    let joins = (0..64).map(|i| {
        let store = store.clone();
        tokio::spawn(async move {
            let player = pid(&format!("p{i:02}"));
            store
                .tournaments()
                .join_board(&bid("cup"), &player, at(1))
                .await
        })
    });
    let mut full = 0;
    let mut joined = 0;
    for outcome in futures::future::join_all(joins).await {
        match outcome.unwrap() {
            Ok(j) => {
                assert!(j.new);
                joined += 1;
            }
            Err(e) => {
                assert_eq!(refusal(&e), Some(EntryRefusal::BoardFull(10)), "{e}");
                full += 1;
            }
        }
    }
    assert_eq!((joined, full), (10, 54));
    let (entrants, count, _) = census(&table, "cup", true).await;
    assert_eq!((entrants.len(), count), (10, 10));

    // A joined player's repeat answers joined and counts nothing; a latecomer is refused with
    // nothing written.
    let first = entrants
        .iter()
        .next()
        .unwrap()
        .trim_start_matches("PLAYER#");
    let again = store
        .tournaments()
        .join_board(&bid("cup"), &pid(first), at(2))
        .await;
    assert!(!again.unwrap().new);
    let before = table.dump().await;
    let late = store
        .tournaments()
        .join_board(&bid("cup"), &pid("late"), at(2))
        .await;
    assert_eq!(
        refusal(&late.unwrap_err()),
        Some(EntryRefusal::BoardFull(10))
    );
    assert_eq!(table.dump().await, before);

    // Only joined players' plays count; another's is refused, nothing written.
    submit(&store, first, 10, &["cup"], 3).await;
    let refused = store
        .plays()
        .record_play(&play("late", 10, &["cup"], sid(4, 1)), at(4))
        .await;
    assert_eq!(
        refusal(&refused.unwrap_err()),
        Some(EntryRefusal::NotJoined)
    );
    assert_eq!(census(&table, "cup", true).await.2, 1);
}

#[tokio::test]
async fn sixteen_plays_of_one_player_racing_on_three_attempts_leave_exactly_three() {
    let (table, store) = store_without_stream("attempts_race").await;
    tournament(&store, "trial", |b| b.max_attempts = Some(3)).await;
    let plays = (0..16u64).map(|i| {
        let store = store.clone();
        tokio::spawn(async move {
            let p = play("ann", 100 + i, &["trial"], sid(10 + i, u128::from(i)));
            store.plays().record_play(&p, at(10 + i)).await
        })
    });
    let mut accepted = Vec::new();
    for outcome in futures::future::join_all(plays).await {
        match outcome.unwrap() {
            Ok(o) => accepted.push(o),
            Err(e) => assert_eq!(refusal(&e), Some(EntryRefusal::AttemptsExhausted(3)), "{e}"),
        }
    }
    assert_eq!(accepted.len(), 3);
    let sessions = table
        .dump()
        .await
        .iter()
        .filter(|i| i["sk"].as_s().is_ok_and(|s| s.starts_with("SESSION#")))
        .count();
    assert_eq!(sessions, 3, "only accepted plays leave a Session");
    let item = table.raw("PLAYER#ann", "ENTRANT#trial").await.unwrap();
    assert_eq!(item["attempts"].as_n().unwrap(), "3");

    // A repeat of an accepted play's sessionId is answered as the first, not an attempt.
    let first = &accepted[0].session;
    let repeat = play("ann", first.score, &["trial"], first.session_id.clone());
    let before = table.dump().await;
    let again = store.plays().record_play(&repeat, at(40)).await.unwrap();
    assert!(again.duplicate);
    assert_eq!(table.dump().await, before);
}

#[tokio::test]
async fn first_plays_racing_on_five_places_without_joins_leave_exactly_five_entrants() {
    let (table, store) = store_without_stream("entrants_race").await;
    tournament(&store, "open_cup", |b| b.max_entrants = Some(5)).await;
    let plays = (0..24u64).map(|i| {
        let store = store.clone();
        tokio::spawn(async move {
            let p = play(&format!("p{i:02}"), i, &["open_cup"], sid(i, u128::from(i)));
            store.plays().record_play(&p, at(i)).await
        })
    });
    let mut in_ = Vec::new();
    for outcome in futures::future::join_all(plays).await {
        match outcome.unwrap() {
            Ok(o) => in_.push(o.session.player_id.to_string()),
            Err(e) => assert_eq!(refusal(&e), Some(EntryRefusal::BoardFull(5)), "{e}"),
        }
    }
    assert_eq!(in_.len(), 5);
    let (entrants, count, scores) = census(&table, "open_cup", false).await;
    assert_eq!((entrants.len(), count, scores), (5, 5, 5));
    // An entrant plays on; a sixth player is refused, nothing written.
    submit(&store, &in_[0], 99, &["open_cup"], 50).await;
    let before = table.dump().await;
    let refused = store
        .plays()
        .record_play(&play("p99", 1, &["open_cup"], sid(51, 9)), at(51))
        .await;
    assert_eq!(
        refusal(&refused.unwrap_err()),
        Some(EntryRefusal::BoardFull(5))
    );
    assert_eq!(table.dump().await, before);
}

#[tokio::test]
async fn a_players_join_racing_their_first_play_takes_one_place() {
    let (table, store) = store_without_stream("join_play_race").await;
    tournament(&store, "drop_in", |b| b.max_entrants = Some(20)).await;
    let mut tasks = Vec::new();
    for i in 0..12u64 {
        let player = format!("p{i:02}");
        let (s1, s2) = (store.clone(), store.clone());
        let p = player.clone();
        tasks.push(tokio::spawn(async move {
            s1.tournaments()
                .join_board(&bid("drop_in"), &pid(&p), at(1))
                .await
                .map(drop)
        }));
        tasks.push(tokio::spawn(async move {
            let p = play(&player, i, &["drop_in"], sid(2 + i, u128::from(i)));
            s2.plays().record_play(&p, at(2 + i)).await.map(drop)
        }));
    }
    for outcome in futures::future::join_all(tasks).await {
        outcome.unwrap().unwrap();
    }
    let (entrants, count, scores) = census(&table, "drop_in", true).await;
    assert_eq!((entrants.len(), count, scores), (12, 12, 12));
}

#[tokio::test]
async fn a_tournament_play_costs_one_read_more_and_a_join_two_requests() {
    use crate::census::{census, counted};
    let (_table, store, counter) = counted("tournament_census").await;
    board(&store, "plain", Order::Desc, Operator::Best).await;
    tournament(&store, "cup", |b| {
        b.join_required = true;
        b.max_entrants = Some(10);
        b.max_attempts = Some(3);
    })
    .await;
    let (cup, ann) = (bid("cup"), pid("ann"));
    let join = store.tournaments().join_board(&cup, &ann, at(1));
    let (r, c) = census(&counter, join).await;
    assert!(r.unwrap().new);
    assert_eq!(c, "BatchGetItem 1, TransactWriteItems 1", "a join");
    let plain = play("ann", 10, &["plain"], sid(2, 2));
    let (_, plain) = census(&counter, store.plays().record_play(&plain, at(2))).await;
    let ruled = play("ann", 10, &["cup"], sid(3, 3));
    let (_, ruled) = census(&counter, store.plays().record_play(&ruled, at(3))).await;
    // The same play, plus the one read of the player's place on the tournament.
    let more = plain.replacen("BatchGetItem 1", "BatchGetItem 2", 1);
    assert_eq!((plain.contains("BatchGetItem 1"), ruled), (true, more));
}

#[tokio::test]
async fn banned_and_erased_players_cannot_join() {
    let (table, store) = store_without_stream("join_fenced").await;
    tournament(&store, "cup", |b| b.join_required = true).await;
    let (cup, ben, eve) = (bid("cup"), pid("ben"), pid("eve"));
    store
        .moderation()
        .ban_player(&ben, "cheating", &pid("ops"), at(1))
        .await
        .unwrap();
    store
        .moderation()
        .erase_player(&eve, "player", at(1), None)
        .await
        .unwrap();
    let before = table.dump().await;
    let banned = store.tournaments().join_board(&cup, &ben, at(2)).await;
    assert!(
        matches!(banned, Err(StoreError::Banned { .. })),
        "{banned:?}"
    );
    let erased = store.tournaments().join_board(&cup, &eve, at(2)).await;
    assert!(
        matches!(erased, Err(StoreError::Erased { .. })),
        "{erased:?}"
    );
    assert_eq!(table.dump().await, before, "a refused join wrote something");
}
