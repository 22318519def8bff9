//! `lbctl leagues` against DynamoDB Local: a league period's cohorts with their players, and a
//! player's tier history across two periods after the first one's close.

use crate::common;

use common::*;
use leaderboard_keys::ids::TierName;
use leaderboard_keys::rank::Order;
use leaderboard_store::CloseOptions;
use leaderboard_store::league::League;
use leaderboard_store::model::Recurrence;
use serde_json::Value;

const DAY: u64 = 86_400_000;

#[tokio::test]
async fn cohorts_and_a_players_tier_history() {
    let (_table, store) = store("lbctl_leagues").await;
    let mut nb = new_board("cup_2026-w01", Order::Desc, 999);
    nb.recurrence = Recurrence::Weekly;
    nb.ends_at = Some(at(7 * DAY));
    nb.league = Some(League {
        tiers: ["low", "high"]
            .map(|t| TierName::parse(t).unwrap())
            .to_vec(),
        cohort_size: 2,
        promote: 1,
        relegate: 1,
    });
    store.boards().create_board(nb, at(0)).await.unwrap();
    for (i, p) in ["ann", "bob", "cy"].iter().enumerate() {
        play(&store, p, 10 - i as u64, "cup_2026-w01", DAY + i as u64).await;
    }
    let text = lbctl(&store, false, &["leagues", "cohorts", "cup_2026-w01"])
        .await
        .unwrap();
    assert!(
        text.contains("cup_2026-w01.low.1") && text.contains("cup_2026-w01.low.2"),
        "{text}"
    );
    let json = lbctl(
        &store,
        true,
        &["leagues", "cohorts", "cup_2026-w01", "--tier", "low"],
    )
    .await
    .unwrap();
    let cohorts: Vec<Value> = serde_json::from_str(&json).unwrap();
    let members: Vec<u64> = cohorts
        .iter()
        .map(|c| c["members"].as_u64().unwrap())
        .collect();
    assert_eq!(members, [2, 1]);
    // The first period closes (its cohorts, then the league); ann plays the next.
    for _ in 0..3 {
        for due in store.close().due_boards(at(7 * DAY)).await.unwrap() {
            store
                .close()
                .close_board(&due, at(7 * DAY), &CloseOptions::default())
                .await
                .unwrap();
        }
    }
    play(&store, "ann", 5, "cup_2026-w02", 8 * DAY).await;
    let json = lbctl(&store, true, &["leagues", "player", "ann", "cup_2026-w02"])
        .await
        .unwrap();
    let history: Vec<Value> = serde_json::from_str(&json).unwrap();
    let rows: Vec<(&str, &str, Option<&str>)> = history
        .iter()
        .map(|p| {
            (
                p["leaderboardId"].as_str().unwrap(),
                p["tier"].as_str().unwrap(),
                p["movement"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("cup_2026-w02", "high", None),
            ("cup_2026-w01", "low", Some("promoted"))
        ]
    );
    let text = lbctl(&store, false, &["leagues", "player", "ann", "cup_2026-w01"])
        .await
        .unwrap();
    assert!(
        text.contains("promoted") && text.contains("(playing)"),
        "{text}"
    );
    let e = lbctl(&store, false, &["leagues", "cohorts", "nope"])
        .await
        .unwrap_err();
    assert!(e.to_string().contains("nope"), "{e}");
}
