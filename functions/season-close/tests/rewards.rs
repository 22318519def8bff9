//! Rewards at close against DynamoDB Local: a close of 5,000 entries stopped after every page,
//! one page written again after a player claimed a reward on it, grants every band's reward to
//! exactly the right final standings once and leaves the claim as it was; each reward is
//! published under one stable id; a tie at a band's cutoff goes to the earlier attainment; on
//! moto's EventBridge a close delivers one `RewardGranted` per reward to a rule's queue; and a
//! winner erased while the close runs keeps no reward and is published by pseudonym.

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;

use common::*;
use leaderboard_devkit::contention::{Fault, faulty_client};
use leaderboard_devkit::sqs;
use leaderboard_devkit::testing::{RawItem, TestTable, n, s};
use leaderboard_events::eventbridge::Bus;
use leaderboard_events::{EventLog, Publisher};
use leaderboard_keys::entity::RewardId;
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::NewBoard;
use leaderboard_store::rewards::{RewardBand, reward_for};
use leaderboard_store::{CloseOptions, Store};
use season_close::{App, run};
use serde_json::{Value, json};

fn bands(value: Value) -> Vec<RewardBand> {
    serde_json::from_value(value).unwrap()
}

/// A one-off board `id` with `rewards` that ended an hour ago, holding `entries`.
async fn rewarded_board(
    store: &Store,
    id: &str,
    rewards: Vec<RewardBand>,
    entries: &[(PlayerId, u64, Timestamp)],
) {
    let now = Timestamp::now().as_millis();
    let board = store
        .boards()
        .create_board(
            NewBoard {
                rewards,
                ..board_body(id, Order::Desc, now - 3 * HOUR, now - HOUR)
            },
            Timestamp::from_millis(now - 3 * HOUR).unwrap(),
        )
        .await
        .unwrap();
    store
        .boards()
        .import_entries(&board, entries)
        .await
        .unwrap();
}

/// Every reward item in the table, by rank: (playerId, reward, the item).
async fn rewards_by_rank(table: &TestTable) -> BTreeMap<u64, (String, String, RawItem)> {
    let mut by_rank = BTreeMap::new();
    for item in table.dump().await {
        if !s(&item, "sk").unwrap().starts_with("REWARD#") {
            continue;
        }
        let rank: u64 = n(&item, "rank").unwrap().parse().unwrap();
        let player = s(&item, "playerId").unwrap().to_owned();
        let reward = s(&item, "reward").unwrap().to_owned();
        let old = by_rank.insert(rank, (player, reward, item));
        assert!(old.is_none(), "two rewards of rank {rank}");
    }
    by_rank
}

/// Every final standing's player, by rank.
async fn finals_by_rank(table: &TestTable) -> BTreeMap<u64, String> {
    snapshot(table)
        .await
        .iter()
        .filter(|i| s(i, "sk").unwrap().starts_with("FINAL#"))
        .map(|i| {
            let rank = n(i, "rank").unwrap().parse().unwrap();
            (rank, s(i, "playerId").unwrap().to_owned())
        })
        .collect()
}

#[tokio::test]
async fn a_5000_entry_close_stopped_after_every_page_grants_each_reward_once() {
    let (table, store) = store("rewards5k").await;
    let bands = bands(json!([
        {"ranks": [1, 1], "reward": "gold"},
        {"ranks": [2, 10], "reward": "silver"},
        {"topPercent": 10, "reward": "bronze"},
        {"topPercent": 50, "reward": "half"},
    ]));
    let now = Timestamp::now().as_millis();
    rewarded_board(
        &store,
        "cup",
        bands.clone(),
        &entries(5_000, now - 2 * HOUR),
    )
    .await;
    let log = Arc::new(EventLog::new(10_000));
    let app = App::new(
        store.clone(),
        CloseOptions {
            page_size: 500,
            max_pages: Some(1),
            ..CloseOptions::default()
        },
    )
    .with_publisher(Publisher::Log(log.clone()));

    // Page 1, then page 2, each run stopped after its page.
    run(&app, None).await.unwrap();
    let after_first = table.raw("LEADERBOARD#cup", "#METADATA").await.unwrap();
    assert_eq!(n(&after_first, "closeRank"), Some("500"));
    run(&app, None).await.unwrap();
    // A player claims their reward of page 2 (rank 700: the top half's).
    let granted = rewards_by_rank(&table).await;
    assert_eq!(granted.len(), 1_000, "two pages granted");
    let (player, reward, item) = &granted[&700];
    assert_eq!(reward, "half");
    let id = RewardId::parse(s(item, "rewardId").unwrap()).unwrap();
    let player = PlayerId::parse(player).unwrap();
    let claimed_at = Timestamp::now();
    let claimed = store
        .rewards()
        .claim(&player, &id, claimed_at)
        .await
        .unwrap();
    assert_eq!(claimed.claimed_at, Some(claimed_at));
    // Page 2's checkpoint is lost, as if its run stopped between the page's writes and its
    // checkpoint: the next run writes page 2 again.
    table
        .update_raw_with(
            "LEADERBOARD#cup",
            "#METADATA",
            "SET closeRank = :rank, closeCursor = :cursor",
            &[
                (":rank", after_first["closeRank"].clone()),
                (":cursor", after_first["closeCursor"].clone()),
            ],
        )
        .await;
    let mut runs = 2;
    while run(&app, None).await.unwrap().close().closed.is_empty() {
        runs += 1;
        assert!(runs < 20, "the close never finished");
    }

    // Every standing of the top half has its band's reward, once; none past it.
    let finals = finals_by_rank(&table).await;
    assert_eq!(finals.len(), 5_000);
    let granted = rewards_by_rank(&table).await;
    assert_eq!(granted.len(), 2_500);
    for (rank, player) in &finals {
        let want = reward_for(&bands, *rank, 5_000).map(|r| r.as_str().to_owned());
        let got = granted.get(rank).map(|(p, r, _)| {
            assert_eq!(p, player, "rank {rank}");
            r.clone()
        });
        assert_eq!(got, want, "rank {rank}");
    }
    let names = |name: &str| granted.values().filter(|(_, r, _)| r == name).count();
    assert_eq!(
        [
            names("gold"),
            names("silver"),
            names("bronze"),
            names("half")
        ],
        [1, 9, 490, 2_000]
    );
    // The claim made before page 2 was written again stands.
    let (_, _, item) = &granted[&700];
    assert_eq!(s(item, "claimedAt"), Some(claimed_at.to_string().as_str()));
    assert_eq!(s(item, "gsi1pk"), None, "off the unclaimed index");
    let unclaimed = store
        .rewards()
        .player_rewards(&player, None, 10, None)
        .await
        .unwrap();
    assert_eq!(unclaimed.items.len(), 1, "one reward, not two");

    // Each reward published under its one id; page 2's again, identical.
    let mut events: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for e in log.newest_first() {
        if e["detail-type"] == "RewardGranted" {
            let id = e["detail"]["eventId"].as_str().unwrap().to_owned();
            events.entry(id).or_default().push(e["detail"].clone());
        }
    }
    assert_eq!(events.len(), 2_500);
    for (_, player, item) in granted.values().map(|(p, r, i)| (r, p, i)) {
        let id = s(item, "rewardId").unwrap();
        let published = &events[&format!("reward:{id}")];
        let rank: u64 = n(item, "rank").unwrap().parse().unwrap();
        let times = if (501..=1_000).contains(&rank) { 2 } else { 1 };
        assert_eq!(published.len(), times, "rank {rank}");
        assert!(published.iter().all(|e| e == &published[0]));
        assert_eq!(published[0]["playerId"], player.as_str());
        assert_eq!(published[0]["rank"], rank);
        assert_eq!(published[0]["reward"], s(item, "reward").unwrap());
        assert_eq!(published[0]["playerCount"], 5_000);
    }
}

#[tokio::test]
async fn a_tie_at_a_bands_cutoff_goes_to_the_earlier_attainment() {
    let (table, store) = store("rewards_tie").await;
    let now = Timestamp::now().as_millis();
    let at = |ms| Timestamp::from_millis(now - 2 * HOUR + ms).unwrap();
    let p = |id: &str| PlayerId::parse(id).unwrap();
    // Three tie at 100 for the band's two places; the later attainment ranks third.
    let entries = vec![
        (p("late"), 100, at(30)),
        (p("first"), 100, at(10)),
        (p("second"), 100, at(20)),
        (p("low"), 50, at(0)),
    ];
    let bands = bands(json!([{"ranks": [1, 2], "reward": "podium"}]));
    rewarded_board(&store, "tie", bands, &entries).await;
    let app = App::new(store.clone(), CloseOptions::default());
    assert_eq!(run(&app, None).await.unwrap().close().closed.len(), 1);
    let granted = rewards_by_rank(&table).await;
    let who: Vec<(u64, &str)> = granted
        .iter()
        .map(|(rank, (player, _, _))| (*rank, player.as_str()))
        .collect();
    assert_eq!(who, [(1, "first"), (2, "second")]);
}

#[tokio::test]
async fn a_close_delivers_one_reward_granted_per_reward_to_a_rules_queue() {
    let (table, store) = store("rewards_bus").await;
    let now = Timestamp::now().as_millis();
    let bands = bands(json!([
        {"ranks": [1, 3], "reward": "gold"},
        {"topPercent": 20, "reward": "silver"},
    ]));
    rewarded_board(&store, "bus_cup", bands, &entries(30, now - 2 * HOUR)).await;
    let endpoint = sqs::endpoint().await;
    let events = sqs::eventbridge_client(&endpoint);
    events
        .create_event_bus()
        .name("lb-rewards")
        .send()
        .await
        .unwrap();
    let url = sqs::queue_for_events(&endpoint, "lb-rewards", "RewardGranted", "lb-rewards-q").await;
    let app = App::new(store.clone(), CloseOptions::default()).with_publisher(
        Publisher::EventBridge(Bus::with_client(events, "lb-rewards")),
    );
    assert_eq!(run(&app, None).await.unwrap().close().closed.len(), 1);

    let got = sqs::drain(&url).await;
    let granted = rewards_by_rank(&table).await;
    assert_eq!(granted.len(), 6, "ranks 1-3 gold, 4-6 the top 20%");
    assert_eq!(got.len(), 6, "one event per reward: {got:?}");
    let mut published: Vec<Value> = got.iter().map(|e| e["detail"].clone()).collect();
    published.sort_by_key(|d| d["rank"].as_u64());
    for (detail, (rank, (player, reward, item))) in published.iter().zip(&granted) {
        let id = s(item, "rewardId").unwrap();
        assert_eq!(
            detail,
            &json!({"eventId": format!("reward:{id}"), "rewardId": id,
                    "leaderboardId": "bus_cup", "playerId": player, "rank": rank,
                    "playerCount": 30, "reward": reward,
                    "grantedAt": s(item, "grantedAt").unwrap()})
        );
    }
    assert!(got.iter().all(|e| e["detail-type"] == "RewardGranted"));
    // Closed: a run after publishes nothing more.
    run(&app, None).await.unwrap();
    assert!(sqs::drain(&url).await.is_empty());
}

#[tokio::test]
async fn a_winner_erased_during_the_close_keeps_no_reward_and_is_published_by_pseudonym() {
    let (table, store) = store("rewards_erased").await;
    let now = Timestamp::now().as_millis();
    let bands = bands(json!([{"ranks": [1, 3], "reward": "podium"}]));
    rewarded_board(&store, "cup_erased", bands, &entries(5, now - 2 * HOUR)).await;
    // The close has begun and snapshotted nothing when the winner asks to be erased: the
    // erasure waits for the close to archive their entry.
    let (top, waiting) = erase_top_while_closing(&store, "cup_erased").await;
    let log = Arc::new(EventLog::new(100));
    let app = App::new(store.clone(), CloseOptions::default())
        .with_publisher(Publisher::Log(log.clone()));
    assert_eq!(run(&app, None).await.unwrap().close().closed.len(), 1);

    // The run granted the podium, published the winner's by pseudonym, and finished the
    // erasure, which deleted the winner's reward.
    let erasure = store.moderation().erasure_of(&top).await.unwrap().unwrap();
    assert!(erasure.finished(), "{erasure:?}");
    let granted = rewards_by_rank(&table).await;
    assert_eq!(granted.keys().copied().collect::<Vec<_>>(), [2, 3]);
    let published: Vec<Value> = log
        .newest_first()
        .into_iter()
        .filter(|e| e["detail-type"] == "RewardGranted")
        .map(|e| e["detail"].clone())
        .collect();
    assert_eq!(published.len(), 3);
    let first = published.iter().find(|d| d["rank"] == 1).unwrap();
    assert_eq!(first["playerId"], waiting.pseudonym.as_str());
    let left = items_naming(&table, &top).await;
    assert!(left.is_empty(), "{left:?}");
}

#[tokio::test]
async fn an_erasure_waits_for_a_page_written_but_not_checkpointed() {
    let (table, store) = store("rewards_unchecked").await;
    let now = Timestamp::now().as_millis();
    let bands = bands(json!([{"ranks": [1, 6], "reward": "place"}]));
    rewarded_board(&store, "cup_redo", bands, &entries(6, now - 2 * HOUR)).await;
    let top = top_player(&store, "cup_redo").await;
    // The first page (ranks 1 and 2) is granted, written and archived, and its checkpoint
    // never reaches the table: the close stops there.
    let (client, _) = faulty_client(
        &table.endpoint,
        &["UpdateItem:closeRank"],
        Fault::Throttled,
        u64::MAX,
    );
    let pages = CloseOptions {
        page_size: 2,
        ..CloseOptions::default()
    };
    let stopped = store_over(&table, client)
        .close()
        .close_board(&bid("cup_redo"), Timestamp::now(), &pages)
        .await;
    assert!(stopped.is_err(), "{stopped:?}");
    assert_eq!(rewards_by_rank(&table).await.len(), 2);
    // The winner, archived on that page, is erased: the erasure waits for the close.
    let waiting = waiting_erasure(&store, &top).await;
    let app = App::new(store.clone(), pages);
    assert_eq!(run(&app, None).await.unwrap().close().closed.len(), 1);

    // The close wrote the page again with the winner in it: six ranks, one reward a player,
    // and the erasure, finished after it, left the winner's rank to the pseudonym.
    let erasure = store.moderation().erasure_of(&top).await.unwrap().unwrap();
    assert!(erasure.finished(), "{erasure:?}");
    let finals = finals_by_rank(&table).await;
    assert_eq!(
        finals.keys().copied().collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6]
    );
    assert_eq!(finals[&1], waiting.pseudonym.as_str());
    let granted = rewards_by_rank(&table).await;
    assert_eq!(granted.keys().copied().collect::<Vec<_>>(), [2, 3, 4, 5, 6]);
    for (rank, (player, _, _)) in &granted {
        assert_eq!(player, &finals[rank], "rank {rank}");
    }
}
