//! `GET /players/me/export` through the API handler on DynamoDB Local: the caller's own data,
//! email included, with entries ranked on open boards; nobody else's; refusals write nothing.

use crate::common;

use leaderboard_keys::rank::Order;
use serde_json::json;

use common::*;

#[tokio::test]
async fn a_player_exports_their_own_data_and_only_theirs() {
    let h = harness("api_export").await;
    let board = h.board("exp_b", Order::Desc).await;
    populate(&h, &board, 3).await;
    let profile = json!({"name": "Exporter", "email": "exp@example.com"});
    let (status, _) = h
        .call("PUT", "/players/me", As::Player("p_exp"), Some(&profile))
        .await;
    assert_eq!(status, 200);
    let play = h.play("p_exp", 9_999_999_999, &["exp_b"]).await;
    let cup = json!({"leaderboardId": "exp_cup", "name": "Cup", "joinRequired": true});
    let (status, _) = h
        .call("POST", "/leaderboards", As::Admin("ops"), Some(&cup))
        .await;
    assert_eq!(status, 201);
    let (status, _) = h
        .call(
            "POST",
            "/leaderboards/exp_cup/join",
            As::Player("p_exp"),
            None,
        )
        .await;
    assert_eq!(status, 200);

    let (status, doc) = h
        .call("GET", "/players/me/export", As::Player("p_exp"), None)
        .await;
    assert_eq!(status, 200, "{doc}");
    assert_eq!(doc["playerId"], json!("p_exp"));
    assert_eq!(doc["profile"]["email"], json!("exp@example.com"));
    assert_eq!(doc["ban"], json!(null));
    assert_eq!(doc["entries"][0]["leaderboardId"], json!("exp_b"));
    assert_eq!(doc["entries"][0]["rank"], json!(1));
    assert_eq!(doc["entries"][0]["boardStatus"], json!("open"));
    assert_eq!(doc["entries"][0]["playerCount"], json!(4));
    assert_eq!(doc["sessions"][0]["sessionId"], play["sessionId"]);
    assert_eq!(doc["results"], json!([]));
    let place = &doc["entrants"][0];
    assert_eq!(
        (&place["leaderboardId"], &place["attempts"]),
        (&json!("exp_cup"), &json!(0))
    );
    assert!(place["joinedAt"].is_string(), "{place}");
    assert_eq!(doc["nextCursor"], json!(null));

    // Another player's export holds nothing of this one's.
    let (_, other) = h
        .call("GET", "/players/me/export", As::Player("p00001"), None)
        .await;
    assert_eq!(other["playerId"], json!("p00001"));
    assert!(!other.to_string().contains("p_exp"), "{other}");

    let dump = h.table.dump().await;
    let (status, _) = h
        .call("GET", "/players/me/export", As::Anonymous, None)
        .await;
    assert_eq!(status, 401);
    let (status, body) = h
        .call(
            "GET",
            "/players/me/export?cursor=forged",
            As::Player("p_exp"),
            None,
        )
        .await;
    assert_eq!((status, code(&body)), (400, "invalid_request"));
    assert_eq!(h.table.dump().await, dump);
}
