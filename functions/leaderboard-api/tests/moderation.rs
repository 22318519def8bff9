//! `DELETE /leaderboards/{b}/players/{p}` through the API handler on DynamoDB Local: who may,
//! what it removes and keeps, and every refusal writing nothing.

use crate::common;

use leaderboard_devkit::testing::s;
use leaderboard_keys::rank::Order;
use leaderboard_store::model::RankLayout;
use serde_json::Value;

use common::*;

#[tokio::test]
async fn an_admin_removes_an_entry_and_keeps_the_sessions() {
    let h = harness("api_remove_entry").await;
    let board = h.board("mod_b", Order::Desc).await;
    populate(&h, &board, 50).await;
    let played = h.play("p_cheat", 9_999_999_999, &["mod_b"]).await;
    let sid = played["sessionId"].as_str().unwrap().to_owned();

    let before = h.table.dump().await;
    let remove = |who| h.call("DELETE", "/leaderboards/mod_b/players/p_cheat", who, None);
    let (status, body) = remove(As::Player("p_cheat")).await;
    assert_eq!((status, code(&body)), (403, "forbidden"));
    let (status, body) = remove(As::Anonymous).await;
    assert_eq!((status, code(&body)), (401, "unauthorized"));
    for path in [
        "/leaderboards/nope/players/p_cheat",
        "/leaderboards/mod_b/players/p_nobody",
        "/leaderboards/mod_b/players/bad%23id",
    ] {
        let (status, body) = h.call("DELETE", path, As::Admin("ops"), None).await;
        let want = if path.contains("bad") { 400 } else { 404 };
        assert_eq!(status, want, "{path}: {body}");
    }
    assert_eq!(h.table.dump().await, before, "a refusal wrote");

    let (status, body) = remove(As::Admin("ops")).await;
    assert_eq!((status, body), (204, Value::Null));
    // Gone from every read; the pointer and the Score item are gone from the table.
    let (status, _) = h.get("/leaderboards/mod_b/players/p_cheat").await;
    assert_eq!(status, 404);
    let (_, top) = h.get("/leaderboards/mod_b/scores?limit=100").await;
    let listed = top["entries"].as_array().unwrap();
    assert_eq!(listed.len(), 50);
    assert_eq!(listed[0]["rank"], 1);
    assert!(listed.iter().all(|e| e["playerId"] != "p_cheat"));
    let after = h.table.dump().await;
    assert!(
        !after
            .iter()
            .any(|i| s(i, "sk") == Some("ENTRY#mod_b") && s(i, "playerId") == Some("p_cheat"))
    );
    assert!(!after.iter().any(|i| s(i, "pk") == Some("LEADERBOARD#mod_b")
        && s(i, "playerId") == Some("p_cheat")));
    // The session stays.
    let (status, session) = h.get(&format!("/players/p_cheat/sessions/{sid}")).await;
    assert_eq!(
        (status, session["score"].as_u64()),
        (200, Some(9_999_999_999))
    );
    // Removing again finds nothing; a new play makes a new entry.
    let (status, _) = remove(As::Admin("ops")).await;
    assert_eq!(status, 404);
    h.play("p_cheat", 10, &["mod_b"]).await;
    let (status, entry) = h.get("/leaderboards/mod_b/players/p_cheat").await;
    assert_eq!((status, entry["score"].as_u64()), (200, Some(10)));
}

#[tokio::test]
async fn a_closed_board_is_409_and_keeps_its_entries() {
    let h = harness("api_remove_closed").await;
    let entries = h.closed_board("mod_closed", 20).await;
    let before = h.table.dump().await;
    let path = format!("/leaderboards/mod_closed/players/{}", entries[3].0);
    let (status, body) = h.call("DELETE", &path, As::Admin("ops"), None).await;
    assert_eq!((status, code(&body)), (409, "board_closed"), "{body}");
    assert_eq!(h.table.dump().await, before);
}

#[tokio::test]
async fn a_board_made_before_the_index_removes_entries_too() {
    let h = harness("api_remove_old").await;
    let board = h
        .board_with("mod_old", Order::Desc, RankLayout::Legacy)
        .await;
    let entries = populate(&h, &board, 20).await;
    let gone = entries[3].0.to_string();
    let path = format!("/leaderboards/mod_old/players/{gone}");
    let (status, body) = h.call("DELETE", &path, As::Admin("ops"), None).await;
    assert_eq!(status, 204, "{body}");
    let (status, _) = h.get(&path).await;
    assert_eq!(status, 404);
    let (_, top) = h.get("/leaderboards/mod_old/scores?limit=100").await;
    let listed = top["entries"].as_array().unwrap();
    assert_eq!(listed.len(), 19);
    assert!(listed.iter().all(|e| e["playerId"] != gone.as_str()));
}

#[tokio::test]
async fn the_sample_event_works() {
    let h = harness("api_remove_sample").await;
    h.board("season_3", Order::Desc).await;
    h.play("p_alice", 100, &["season_3"]).await;
    let sample = include_str!("../../../events/leaderboard-api/delete-entry.json");
    let req = lambda_http::request::from_str(sample).unwrap();
    let resp = leaderboard_api::handle(&h.api, req).await.unwrap();
    assert_eq!(resp.status(), 204);
    let (status, _) = h.get("/leaderboards/season_3/players/p_alice").await;
    assert_eq!(status, 404);
}
