//! A player's rewards on DynamoDB Local: 32 claims of one reward racing give exactly one
//! claim (one `claimedAt` in the table, 31 `already_claimed`), another player's reward and one
//! that does not exist are `not_found` and write nothing, the listings by status page newest
//! board end first and follow a claim, and a league's bands are granted in each cohort.

use std::sync::Arc;

use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::entity::RewardId;
use leaderboard_keys::rank::Order;
use leaderboard_store::model::Operator;
use leaderboard_store::rewards::{Reward, RewardStatus};
use leaderboard_store::{CloseOptions, CloseProgress, Store, StoreError};
use serde_json::json;

use crate::common::*;
use crate::leagues::{league, league_board};

const HOUR: u64 = 3_600_000;

/// A board `id` with `rewards` that ran for an hour from `start` ms after T0, holding
/// `entries` (player, score), closed.
async fn closed_with_rewards(
    store: &Store,
    id: &str,
    start: u64,
    rewards: serde_json::Value,
    entries: &[(&str, u64)],
) {
    let new = leaderboard_store::model::NewBoard {
        starts_at: Some(at(start)),
        ends_at: Some(at(start + HOUR)),
        rewards: serde_json::from_value(rewards).unwrap(),
        ..new_board(id, Order::Desc, Operator::Best, 1_000_000)
    };
    let board = store.boards().create_board(new, at(start)).await.unwrap();
    let entries: Vec<_> = entries
        .iter()
        .enumerate()
        .map(|(i, (p, score))| (pid(p), *score, at(start + i as u64)))
        .collect();
    store
        .boards()
        .import_entries(&board, &entries)
        .await
        .unwrap();
    let closed = store
        .close()
        .close_board(&bid(id), at(start + 2 * HOUR), &CloseOptions::default())
        .await
        .unwrap();
    assert!(matches!(closed, CloseProgress::Closed { .. }), "{closed:?}");
}

async fn rewards_of(store: &Store, player: &str, status: Option<RewardStatus>) -> Vec<Reward> {
    store
        .rewards()
        .player_rewards(&pid(player), status, 100, None)
        .await
        .unwrap()
        .items
}

async fn reward_items(table: &TestTable) -> Vec<leaderboard_devkit::testing::RawItem> {
    table
        .dump()
        .await
        .into_iter()
        .filter(|i| i["sk"].as_s().unwrap().starts_with("REWARD#"))
        .collect()
}

#[tokio::test]
async fn thirty_two_racing_claims_of_one_reward_make_one_claim() {
    let (table, store) = store_without_stream("reward_claim_race").await;
    let bands = json!([{"ranks": [1, 1], "reward": "gold"}]);
    closed_with_rewards(&store, "cup", 0, bands, &[("ada", 90), ("bo", 80)]).await;
    let gold = rewards_of(&store, "ada", None).await;
    assert_eq!(gold.len(), 1);
    assert_eq!(gold[0].reward.as_str(), "gold");
    assert_eq!(gold[0].claimed_at, None);
    let id = gold[0].reward_id.clone();

    let store = Arc::new(store);
    let claims: Vec<_> = (0..32u64)
        .map(|i| {
            let (store, id) = (store.clone(), id.clone());
            tokio::spawn(async move {
                store
                    .rewards()
                    .claim(&pid("ada"), &id, at(5 * HOUR + i))
                    .await
            })
        })
        .collect();
    let mut claimed = Vec::new();
    let mut refused = 0;
    for claim in claims {
        match claim.await.unwrap() {
            Ok(reward) => claimed.push(reward),
            Err(StoreError::AlreadyClaimed { reward }) => {
                assert_eq!(reward, id.to_string());
                refused += 1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!((claimed.len(), refused), (1, 31));
    let winner = claimed[0].claimed_at.expect("claimedAt");
    let items = reward_items(&table).await;
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["claimedAt"].as_s().unwrap(), &winner.to_string());
    // One more after the race: still the first claim.
    let again = store.rewards().claim(&pid("ada"), &id, at(9 * HOUR)).await;
    assert!(
        matches!(again, Err(StoreError::AlreadyClaimed { .. })),
        "{again:?}"
    );
    assert_eq!(reward_items(&table).await, items);
}

#[tokio::test]
async fn another_players_reward_or_none_is_not_found_and_writes_nothing() {
    let (table, store) = store_without_stream("reward_not_found").await;
    let bands = json!([{"ranks": [1, 2], "reward": "podium"}]);
    closed_with_rewards(
        &store,
        "cup",
        0,
        bands,
        &[("ada", 90), ("bo", 80), ("cy", 70)],
    )
    .await;
    let ada = rewards_of(&store, "ada", None).await;
    let id = ada[0].reward_id.clone();
    let before = table.dump().await;
    // Bo holds a reward of the same board, under another id; Cy holds none.
    for player in ["bo", "cy"] {
        let claimed = store.rewards().claim(&pid(player), &id, at(5 * HOUR)).await;
        assert!(
            matches!(claimed, Err(StoreError::NotFound { what: "reward", .. })),
            "{claimed:?}"
        );
    }
    let missing = RewardId { rank: 3, ..id };
    let claimed = store
        .rewards()
        .claim(&pid("cy"), &missing, at(5 * HOUR))
        .await;
    assert!(
        matches!(claimed, Err(StoreError::NotFound { .. })),
        "{claimed:?}"
    );
    assert_eq!(table.dump().await, before, "nothing written");
}

#[tokio::test]
async fn the_listings_page_newest_first_and_follow_a_claim() {
    let (_table, store) = store_without_stream("reward_listings").await;
    let bands = json!([{"topPercent": 50, "reward": "half"}]);
    for (i, board) in ["w1", "w2", "w3"].iter().enumerate() {
        let start = i as u64 * 2 * HOUR;
        closed_with_rewards(
            &store,
            board,
            start,
            bands.clone(),
            &[("ada", 9), ("bo", 1)],
        )
        .await;
    }
    let all = rewards_of(&store, "ada", None).await;
    let boards: Vec<&str> = all.iter().map(|r| r.board_id.as_str()).collect();
    assert_eq!(boards, ["w3", "w2", "w1"], "newest board end first");
    assert!(rewards_of(&store, "bo", None).await.is_empty());

    let w2 = all[1].reward_id.clone();
    store
        .rewards()
        .claim(&pid("ada"), &w2, at(9 * HOUR))
        .await
        .unwrap();
    let ids = |rewards: Vec<Reward>| -> Vec<String> {
        rewards
            .into_iter()
            .map(|r| r.board_id.to_string())
            .collect()
    };
    let unclaimed = rewards_of(&store, "ada", Some(RewardStatus::Unclaimed)).await;
    assert_eq!(ids(unclaimed), ["w3", "w1"]);
    let claimed = rewards_of(&store, "ada", Some(RewardStatus::Claimed)).await;
    assert_eq!(claimed[0].claimed_at, Some(at(9 * HOUR)));
    assert_eq!(ids(claimed), ["w2"]);
    assert_eq!(rewards_of(&store, "ada", None).await.len(), 3);

    // One at a time: a cursor each, and none after the last.
    let mut cursor = None;
    let mut seen = Vec::new();
    loop {
        let page = store
            .rewards()
            .player_rewards(
                &pid("ada"),
                Some(RewardStatus::Unclaimed),
                1,
                cursor.as_deref(),
            )
            .await
            .unwrap();
        seen.extend(ids(page.items));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, ["w3", "w1"]);
    // A cursor of one listing does not page another.
    let first = store
        .rewards()
        .player_rewards(&pid("ada"), None, 1, None)
        .await
        .unwrap();
    let foreign = store
        .rewards()
        .player_rewards(
            &pid("ada"),
            Some(RewardStatus::Claimed),
            1,
            first.next_cursor.as_deref(),
        )
        .await;
    assert!(matches!(foreign, Err(StoreError::BadCursor)), "{foreign:?}");
}

#[tokio::test]
async fn a_leagues_cohorts_each_grant_its_bands() {
    let (table, store) = store_without_stream("reward_league").await;
    let mut board = league_board("cup_2026-w01", league(&["low", "high"], 3, 1, 1));
    board.rewards = serde_json::from_value(json!([{"ranks": [1, 1], "reward": "gold"}])).unwrap();
    store.boards().create_board(board, at(0)).await.unwrap();
    // Seven players in order: cohorts of 3, 3 and 1, each won by its best.
    let scores = [
        ("a1", 10),
        ("a2", 30),
        ("a3", 20),
        ("b1", 5),
        ("b2", 6),
        ("b3", 7),
        ("c1", 1),
    ];
    for (i, (p, score)) in scores.iter().enumerate() {
        submit(&store, p, *score, &["cup_2026-w01"], 1_000 * (i as u64 + 1)).await;
    }
    let now = at(8 * 86_400_000);
    for _ in 0..10 {
        for due in store.close().due_boards(now).await.unwrap() {
            let options = CloseOptions::default();
            store
                .close()
                .close_board(&due, now, &options)
                .await
                .unwrap();
        }
    }
    assert!(store.close().due_boards(now).await.unwrap().is_empty());
    let mut won: Vec<(String, String)> = reward_items(&table)
        .await
        .iter()
        .map(|i| {
            let player = i["playerId"].as_s().unwrap().clone();
            (i["leaderboardId"].as_s().unwrap().clone(), player)
        })
        .collect();
    won.sort();
    assert_eq!(
        won,
        [
            ("cup_2026-w01.low.1".to_owned(), "a2".to_owned()),
            ("cup_2026-w01.low.2".to_owned(), "b3".to_owned()),
            ("cup_2026-w01.low.3".to_owned(), "c1".to_owned()),
        ]
    );
}
