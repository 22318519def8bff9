//! Rewards at close through the API handler on DynamoDB Local (contract section 13): a board
//! takes its bands and refuses bad ones with nothing written; after its close a player lists
//! their rewards by status and claims each once (32 racing claims: one 200, 31 409), and
//! another player's reward is 404, nothing written.

use crate::common;

use std::sync::Arc;

use leaderboard_keys::time::Timestamp;
use serde_json::{Value, json};

use common::*;

/// Creates board `id` (an hour long, ended an hour ago) with `rewards` through the API, gives
/// it `scores` (player, score) and closes it.
async fn closed_with(h: &Harness, id: &str, rewards: Value, scores: &[(&str, u64)]) {
    let now = Timestamp::now().as_millis();
    let body = json!({"leaderboardId": id, "name": "Cup", "rewards": rewards,
        "startsAt": Timestamp::from_millis(now - 7_200_000).unwrap().to_string(),
        "endsAt": Timestamp::from_millis(now - 3_600_000).unwrap().to_string()});
    let (status, board) = h
        .call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
        .await;
    assert_eq!(status, 201, "{board}");
    assert_eq!(board["rewards"], rewards);
    let board = h
        .store
        .boards()
        .get_board(&leaderboard_keys::ids::BoardId::parse(id).unwrap())
        .await
        .unwrap()
        .unwrap();
    let entries: Vec<_> = scores
        .iter()
        .enumerate()
        .map(|(i, (p, score))| {
            let at = Timestamp::from_millis(now - 7_000_000 + i as u64).unwrap();
            (
                leaderboard_keys::ids::PlayerId::parse(p).unwrap(),
                *score,
                at,
            )
        })
        .collect();
    h.store
        .boards()
        .import_entries(&board, &entries)
        .await
        .unwrap();
    h.store
        .close()
        .close_board(&board.board_id, Timestamp::now(), &Default::default())
        .await
        .unwrap();
}

#[tokio::test]
async fn bad_bands_are_refused_and_nothing_is_written() {
    let h = harness("api_reward_bands").await;
    let before = h.table.dump().await;
    let many: Vec<Value> = (0..21)
        .map(|_| json!({"ranks": [1, 1], "reward": "gold"}))
        .collect();
    for (rewards, says) in [
        (json!([{"ranks": [0, 3], "reward": "gold"}]), "ranks"),
        (json!([{"ranks": [5, 2], "reward": "gold"}]), "ranks"),
        (json!([{"reward": "gold"}]), "exactly one"),
        (
            json!([{"ranks": [1, 1], "topPercent": 5, "reward": "x"}]),
            "exactly one",
        ),
        (json!([{"topPercent": 0, "reward": "x"}]), "topPercent"),
        (
            json!([{"topPercent": 12.345, "reward": "x"}]),
            "two decimals",
        ),
        (json!([{"ranks": [1, 1], "reward": "gold#1"}]), "reward"),
        (
            json!([{"ranks": [1, 1], "reward": "gold", "amount": 5}]),
            "amount",
        ),
        (json!(many), "at most 20"),
    ] {
        let body = json!({"leaderboardId": "cup", "name": "Cup", "rewards": rewards});
        h.refused_board(&body, says, &before).await;
    }
}

#[tokio::test]
async fn a_player_lists_and_claims_their_rewards_once() {
    let h = harness("api_rewards").await;
    let bands = json!([{"ranks": [1, 1], "reward": "gold"}, {"topPercent": 50, "reward": "half"}]);
    closed_with(
        &h,
        "cup",
        bands,
        &[("ada", 90), ("bo", 80), ("cy", 70), ("di", 60)],
    )
    .await;

    let (status, page) = h
        .call("GET", "/players/me/rewards", As::Player("bo"), None)
        .await;
    assert_eq!(status, 200, "{page}");
    let rewards = page["rewards"].as_array().unwrap();
    assert_eq!(rewards.len(), 1);
    let reward = &rewards[0];
    let id = reward["rewardId"].as_str().unwrap().to_owned();
    assert_eq!(
        (&reward["leaderboardId"], &reward["rank"], &reward["reward"]),
        (&json!("cup"), &json!(2), &json!("half"))
    );
    assert_eq!(reward["claimedAt"], Value::Null);
    assert_eq!(page["entries"], page["rewards"]);
    assert_eq!(page["nextCursor"], Value::Null);
    let (_, none) = h
        .call("GET", "/players/me/rewards", As::Player("cy"), None)
        .await;
    assert_eq!(none["rewards"], json!([]), "the top half of 4 is 2");

    // Ada's reward is not Bo's: 404, nothing written.
    let (_, ada) = h
        .call("GET", "/players/me/rewards", As::Player("ada"), None)
        .await;
    assert_eq!(ada["rewards"][0]["reward"], "gold");
    let ada_id = ada["rewards"][0]["rewardId"].as_str().unwrap().to_owned();
    let before = h.table.dump().await;
    for path in [
        format!("/players/me/rewards/{ada_id}/claim"),
        "/players/me/rewards/not-a-reward/claim".to_owned(),
    ] {
        let (status, resp) = h.call("POST", &path, As::Player("bo"), None).await;
        assert_eq!((status, code(&resp)), (404, "not_found"), "{path}");
    }
    let (status, resp) = h
        .call(
            "GET",
            "/players/me/rewards?status=won",
            As::Player("bo"),
            None,
        )
        .await;
    assert_eq!((status, code(&resp)), (400, "invalid_request"));
    let (status, _) = h
        .call("GET", "/players/me/rewards", As::Anonymous, None)
        .await;
    assert_eq!(status, 401);
    assert_eq!(h.table.dump().await, before, "nothing written");

    // 32 claims race: one 200, 31 409.
    let h = Arc::new(h);
    let path = format!("/players/me/rewards/{id}/claim");
    let claims: Vec<_> = (0..32)
        .map(|_| {
            let (h, path) = (h.clone(), path.clone());
            tokio::spawn(async move { h.call("POST", &path, As::Player("bo"), None).await })
        })
        .collect();
    let mut answers = Vec::new();
    for claim in claims {
        answers.push(claim.await.unwrap());
    }
    let won: Vec<&Value> = answers
        .iter()
        .filter(|(s, _)| *s == 200)
        .map(|(_, b)| b)
        .collect();
    assert_eq!(won.len(), 1, "{answers:?}");
    assert!(
        answers
            .iter()
            .filter(|(s, _)| *s != 200)
            .all(|(s, b)| (*s, code(b)) == (409, "already_claimed")),
        "{answers:?}"
    );
    let claimed_at = won[0]["claimedAt"].as_str().unwrap();
    assert_eq!(won[0]["rewardId"], id.as_str());

    let (_, claimed) = h
        .call(
            "GET",
            "/players/me/rewards?status=claimed",
            As::Player("bo"),
            None,
        )
        .await;
    assert_eq!(claimed["rewards"][0]["claimedAt"], claimed_at);
    let (_, unclaimed) = h
        .call(
            "GET",
            "/players/me/rewards?status=unclaimed",
            As::Player("bo"),
            None,
        )
        .await;
    assert_eq!(unclaimed["rewards"], json!([]));

    // The export lists it; an erasure deletes it.
    let (_, doc) = h
        .call("GET", "/players/me/export", As::Player("bo"), None)
        .await;
    assert_eq!(doc["rewards"][0]["rewardId"], id.as_str());
    assert_eq!(doc["rewards"][0]["claimedAt"], claimed_at);
    let (status, _) = h
        .call("DELETE", "/players/me", As::Player("bo"), None)
        .await;
    assert_eq!(status, 204);
    let left: Vec<_> = h
        .table
        .dump()
        .await
        .into_iter()
        .filter(|i| i["sk"].as_s().is_ok_and(|sk| sk.starts_with("REWARD#")))
        .map(|i| i["pk"].as_s().unwrap().clone())
        .collect();
    assert_eq!(left, ["PLAYER#ada"], "Bo's reward went, Ada's stays");
}
