//! Leagues through the API: a league board created and shown, its bad settings refused with
//! nothing written, plays answered with their cohort and tier, a player's standing, the
//! period's cohorts paged, a cohort read as an ordinary board, and results after the close.

use leaderboard_keys::time::Timestamp;
use leaderboard_store::CloseOptions;
use serde_json::{Value, json};

use crate::common::*;

const DAY: u64 = 86_400_000;

fn rfc3339(ms: u64) -> String {
    Timestamp::from_millis(ms).unwrap().to_string()
}

/// A weekly league board `id` open from yesterday for a week, with `league`.
fn league_body(id: &str, league: Value) -> Value {
    let now = Timestamp::now().as_millis();
    json!({
        "leaderboardId": id, "name": "Weekly league", "recurrence": "weekly",
        "startsAt": rfc3339(now - DAY), "endsAt": rfc3339(now + 6 * DAY), "league": league
    })
}

fn tiers() -> Value {
    json!({"tiers": ["bronze", "silver", "gold"], "cohortSize": 3, "promote": 1, "relegate": 1})
}

#[tokio::test]
async fn a_league_is_created_shown_and_its_bad_settings_write_nothing() {
    let h = harness("api_league_create").await;
    let body = league_body("lg_2026-w01", tiers());
    let (status, created) = h
        .call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
        .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["league"], tiers());
    let (status, got) = h.get("/leaderboards/lg_2026-w01").await;
    assert_eq!((status, &got["league"]), (200, &tiers()));
    let before = h.table.dump().await;
    let bad = [
        json!({"tiers": ["a"], "cohortSize": 3, "promote": 1, "relegate": 1}),
        json!({"tiers": ["a", "b"], "cohortSize": 3, "promote": 1, "relegate": 1, "extra": 1}),
        json!({"tiers": "a,b", "cohortSize": 3, "promote": 1, "relegate": 1}),
        json!({"tiers": ["a", "b"], "cohortSize": 3, "promote": 2, "relegate": 1}),
        json!({"tiers": ["a", "b#c"], "cohortSize": 3, "promote": 1, "relegate": 1}),
        json!({"tiers": ["a", "b"], "cohortSize": 3}),
    ];
    for league in bad {
        let body = league_body("lg2_2026-w01", league.clone());
        let (status, answer) = h
            .call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
            .await;
        assert_eq!(
            (status, code(&answer)),
            (400, "invalid_request"),
            "{league}: {answer}"
        );
        assert_eq!(h.table.dump().await, before, "{league} wrote something");
    }
    let mut one_off = league_body("lg3", tiers());
    one_off["recurrence"] = json!("none");
    let (status, answer) = h
        .call("POST", "/leaderboards", As::Admin("ops"), Some(&one_off))
        .await;
    assert_eq!(
        (status, code(&answer)),
        (400, "invalid_request"),
        "{answer}"
    );
    assert_eq!(h.table.dump().await, before);
}

#[tokio::test]
async fn players_are_placed_ranked_in_their_cohort_and_moved_at_the_close() {
    let h = harness("api_league_play").await;
    let l = "lg_2026-w01";
    let body = league_body(l, tiers());
    assert_eq!(
        h.call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
            .await
            .0,
        201
    );
    // Four players: a cohort of 3 and one of 1.
    for (i, p) in ["ann", "bob", "cat", "dan"].iter().enumerate() {
        let answer = h.play(p, 10 * (i as u64 + 1), &[l]).await;
        let result = &answer["results"][0];
        assert_eq!(result["leaderboardId"], l, "{answer}");
        let cohort = if i < 3 {
            "lg_2026-w01.bronze.1"
        } else {
            "lg_2026-w01.bronze.2"
        };
        assert_eq!(
            (&result["cohortId"], &result["tier"]),
            (&json!(cohort), &json!("bronze"))
        );
    }
    let (status, shorthand) = h
        .post("ann", Some(l), &json!({"score": 5, "gameId": "tetris"}))
        .await;
    assert_eq!(
        (status, &shorthand["cohortId"]),
        (200, &json!("lg_2026-w01.bronze.1"))
    );
    let (status, standing) = h.get(&format!("/players/cat/leagues/{l}")).await;
    assert_eq!(status, 200, "{standing}");
    assert_eq!(
        standing,
        json!({"leaderboardId": l, "tier": "bronze", "cohortId": "lg_2026-w01.bronze.1",
               "rank": 1, "rankExact": true, "rankLag": 0, "playerCount": 3, "topPercent": 33.34,
               "promoteRanks": [1, 1], "relegateRanks": null})
    );
    let (status, answer) = h.get(&format!("/players/eve/leagues/{l}")).await;
    assert_eq!((status, code(&answer)), (404, "not_found"));
    h.board("plain", leaderboard_keys::rank::Order::Desc).await;
    let (status, answer) = h.get("/players/ann/leagues/plain").await;
    assert_eq!((status, code(&answer)), (404, "not_found"));
    // The cohorts, paged: the full one, then the newest with its one player.
    let (status, first) = h.get(&format!("/leaderboards/{l}/cohorts?limit=1")).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["cohorts"][0]["cohortId"], "lg_2026-w01.bronze.1");
    assert_eq!(first["cohorts"][0]["members"], 3);
    let cursor = first["nextCursor"].as_str().unwrap();
    let (_, second) = h
        .get(&format!(
            "/leaderboards/{l}/cohorts?limit=1&cursor={cursor}"
        ))
        .await;
    assert_eq!(second["cohorts"][0]["members"], 1, "{second}");
    assert_eq!(second["nextCursor"], Value::Null);
    let (_, gold) = h.get(&format!("/leaderboards/{l}/cohorts?tier=gold")).await;
    assert_eq!(gold["cohorts"], json!([]));
    let (status, wood) = h.get(&format!("/leaderboards/{l}/cohorts?tier=wood")).await;
    assert_eq!((status, &wood["cohorts"]), (200, &json!([])));
    let (status, answer) = h
        .get(&format!("/leaderboards/{l}/cohorts?tier=a%23b"))
        .await;
    assert_eq!((status, code(&answer)), (400, "invalid_request"));
    // A cohort reads as a board of its own.
    let (status, cohort) = h.get("/leaderboards/lg_2026-w01.bronze.1").await;
    assert_eq!(status, 200);
    assert_eq!(
        (&cohort["cohortOf"], &cohort["tier"]),
        (&json!(l), &json!("bronze"))
    );
    let (_, top) = h.get("/leaderboards/lg_2026-w01.bronze.1/scores").await;
    let order: Vec<&str> = top["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["playerId"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["cat", "bob", "ann"]);
    // The close: cohorts, then the league.
    let after = Timestamp::from_millis(Timestamp::now().as_millis() + 7 * DAY).unwrap();
    for _ in 0..3 {
        for due in h.store.close().due_boards(after).await.unwrap() {
            h.store
                .close()
                .close_board(&due, after, &CloseOptions::default())
                .await
                .unwrap();
        }
    }
    let (_, results) = h.get("/players/cat/results").await;
    let result = &results["results"][0];
    assert_eq!(
        (
            &result["leaderboardId"],
            &result["cohortOf"],
            &result["tier"],
            &result["movement"]
        ),
        (
            &json!("lg_2026-w01.bronze.1"),
            &json!(l),
            &json!("bronze"),
            &json!("promoted")
        ),
        "{results}"
    );
    let (status, standing) = h.get(&format!("/players/ann/leagues/{l}")).await;
    assert_eq!(
        (status, &standing["rank"], &standing["rankExact"]),
        (200, &json!(3), &json!(true))
    );
    let (_, league) = h.get(&format!("/leaderboards/{l}")).await;
    assert_eq!(league["status"], "closed");
    assert_eq!(league["nextLeaderboardId"], "lg_2026-w02");
}
