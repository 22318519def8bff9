//! `GET /admin/audit` through the API handler on DynamoDB Local: each admin action made over
//! HTTP (entry removal, ban, unban, erasure) is listed once, newest first, with who, what, when
//! and why; pages follow their cursor; an erased player's trail is found by the pseudonym; and
//! the listing refuses what it cannot answer.

use crate::common;

use leaderboard_keys::rank::Order;
use serde_json::{Value, json};

use common::*;

/// `populate` names its players `p00000` and up.
const TARGET: &str = "p00002";

fn audit(query: &str) -> String {
    format!("/admin/audit?{query}")
}

#[tokio::test]
async fn the_trail_lists_each_admin_action_once_newest_first() {
    let h = harness("api_audit").await;
    let board = h.board("aud_b", Order::Desc).await;
    populate(&h, &board, 5).await;
    let admin = As::Admin("ops");
    let entry = format!("/leaderboards/aud_b/players/{TARGET}");
    let ban = format!("/admin/players/{TARGET}/ban");
    let (status, _) = h.call("DELETE", &entry, admin, None).await;
    assert_eq!(status, 204);
    let (status, _) = h.call("DELETE", &entry, admin, None).await;
    assert_eq!(status, 404, "nothing removed, nothing audited");
    let reason = json!({"reason": "smurf account"});
    let (status, _) = h.call("PUT", &ban, admin, Some(&reason)).await;
    assert_eq!(status, 200);
    let (status, _) = h.call("DELETE", &ban, admin, None).await;
    assert_eq!(status, 204);

    let (status, body) = h
        .call("GET", &audit(&format!("playerId={TARGET}")), admin, None)
        .await;
    assert_eq!(status, 200, "{body}");
    let items = body["items"].as_array().unwrap();
    let what: Vec<&str> = items
        .iter()
        .map(|i| i["action"].as_str().unwrap())
        .collect();
    assert_eq!(what, ["unbanned", "banned", "entry_removed"]);
    assert!(
        items
            .iter()
            .all(|i| i["actor"] == "ops" && i["playerId"] == TARGET)
    );
    assert_eq!(items[1]["reason"], json!("smurf account"));
    assert_eq!(items[2]["leaderboardId"], json!("aud_b"));
    assert!(items.iter().all(|i| i["at"].is_string()));

    // Two a page: the cursor leads to the rest.
    let (_, first) = h
        .call(
            "GET",
            &audit(&format!("playerId={TARGET}&limit=2")),
            admin,
            None,
        )
        .await;
    assert_eq!(first["items"].as_array().unwrap().len(), 2);
    let cursor = first["nextCursor"].as_str().unwrap();
    let (_, rest) = h
        .call(
            "GET",
            &audit(&format!("playerId={TARGET}&limit=2&cursor={cursor}")),
            admin,
            None,
        )
        .await;
    assert_eq!(rest["items"], json!([items[2].clone()]));
    assert_eq!(rest["nextCursor"], Value::Null);

    // Erased: the trail is the pseudonym's, the erasure first.
    let (status, _) = h
        .call("DELETE", &format!("/admin/players/{TARGET}"), admin, None)
        .await;
    assert_eq!(status, 204);
    let (_, gone) = h
        .call("GET", &audit(&format!("playerId={TARGET}")), admin, None)
        .await;
    assert_eq!(gone["items"], json!([]));
    let (_, top) = h.get("/leaderboards/aud_b/scores").await;
    assert_eq!(top["entries"].as_array().unwrap().len(), 4);
    let dump = h.table.dump().await;
    let pseudonym = dump
        .iter()
        .find_map(|i| leaderboard_devkit::testing::s(i, "pseudonym"))
        .unwrap()
        .to_owned();
    let (status, moved) = h
        .call(
            "GET",
            &audit(&format!("pseudonym={pseudonym}")),
            admin,
            None,
        )
        .await;
    assert_eq!(status, 200, "{moved}");
    let what: Vec<&str> = moved["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["action"].as_str().unwrap())
        .collect();
    assert_eq!(what, ["erased", "unbanned", "banned", "entry_removed"]);
    assert_eq!(moved["items"][0]["playerId"], json!(pseudonym));
    assert!(moved["items"][0]["removed"].is_object(), "{moved}");
}

#[tokio::test]
async fn the_trail_refuses_what_it_cannot_answer() {
    let h = harness("api_audit_refusals").await;
    for who in [As::Anonymous, As::Player("p1")] {
        let (status, _) = h.call("GET", &audit("playerId=p1"), who, None).await;
        assert!(status == 401 || status == 403, "{status}");
    }
    let admin = As::Admin("ops");
    for query in [
        "",
        "playerId=p1&pseudonym=erased_0123456789abcdef",
        "pseudonym=p1",
        "playerId=p1&limit=0",
        "playerId=p1&limit=101",
        "playerId=p1&cursor=forged",
    ] {
        let (status, body) = h.call("GET", &audit(query), admin, None).await;
        assert_eq!((status, code(&body)), (400, "invalid_request"), "{query}");
    }
}
