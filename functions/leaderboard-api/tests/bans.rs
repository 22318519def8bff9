//! `PUT` and `DELETE /admin/players/{p}/ban` through the API handler, and a banned player's
//! plays through the submit-score handler, on DynamoDB Local: who may, what a ban removes and
//! keeps, and every refusal writing nothing.

use crate::common;

use leaderboard_devkit::testing::s;
use leaderboard_keys::rank::Order;
use leaderboard_store::model::RankLayout;
use serde_json::{Value, json};

use common::*;

/// `populate` names its players `p00000` and up, so this one has an entry on every board.
const CHEAT: &str = "p00003";

fn ban_path(player: &str) -> String {
    format!("/admin/players/{player}/ban")
}

/// Whether the dump holds an entry (pointer or Score item) of `player` on `board`.
fn has_entry(dump: &[leaderboard_devkit::testing::RawItem], player: &str, board: &str) -> bool {
    dump.iter().any(|i| {
        s(i, "playerId") == Some(player)
            && (s(i, "sk") == Some(&format!("ENTRY#{board}"))
                || (s(i, "pk") == Some(&format!("LEADERBOARD#{board}"))
                    && s(i, "sk").is_some_and(|k| k.starts_with("SCORE#"))))
    })
}

#[tokio::test]
async fn a_ban_removes_entries_on_open_boards_and_refuses_plays_until_lifted() {
    let h = harness("api_ban").await;
    for id in ["ban_a", "ban_b"] {
        let board = h.board(id, Order::Desc).await;
        populate(&h, &board, 30).await;
    }
    // A board made before the rank index (not migrated yet) loses the entry too.
    let old = h
        .board_with("ban_old", Order::Desc, RankLayout::Legacy)
        .await;
    populate(&h, &old, 20).await;
    h.closed_board("ban_closed", 20).await;
    let earlier = h.play(CHEAT, 9_999_999_999, &["ban_a", "ban_b"]).await;

    let ban = json!({ "reason": "impossible scores" });
    let path = ban_path(CHEAT);
    let (status, body) = h.call("PUT", &path, As::Admin("ops"), Some(&ban)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (&body["playerId"], &body["reason"], &body["bannedBy"]),
        (&json!(CHEAT), &json!("impossible scores"), &json!("ops"))
    );
    assert!(body["bannedAt"].is_string(), "{body}");
    assert_eq!(body["removedFrom"], json!(["ban_a", "ban_b", "ban_old"]));
    assert!(body.get("keptOn").is_none(), "{body}");

    // Gone from the open boards; the closed board's standing and the sessions stay.
    let dump = h.table.dump().await;
    for board in ["ban_a", "ban_b"] {
        assert!(!has_entry(&dump, CHEAT, board), "{board}");
        let (status, _) = h
            .get(&format!("/leaderboards/{board}/players/{CHEAT}"))
            .await;
        assert_eq!(status, 404, "{board}");
        let (_, top) = h.get(&format!("/leaderboards/{board}/scores")).await;
        let listed = top["entries"].as_array().unwrap();
        assert_eq!(listed.len(), 29, "{board}");
        assert!(listed.iter().all(|e| e["playerId"] != CHEAT));
    }
    assert!(!has_entry(&dump, CHEAT, "ban_old"));
    let (status, result) = h
        .get(&format!("/leaderboards/ban_closed/players/{CHEAT}"))
        .await;
    assert_eq!((status, result["playerId"].as_str()), (200, Some(CHEAT)));
    let sid = earlier["sessionId"].as_str().unwrap();
    let (status, _) = h.get(&format!("/players/{CHEAT}/sessions/{sid}")).await;
    assert_eq!(status, 200);

    // Every play is refused and writes nothing: new, on the shorthand, and a repeat of a play
    // recorded before the ban.
    let before = h.table.dump().await;
    let plays = [
        (
            None,
            json!({"score": 5, "gameId": "tetris", "leaderboardIds": ["ban_a"]}),
        ),
        (Some("ban_b"), json!({"score": 5, "gameId": "tetris"})),
        (
            None,
            json!({"sessionId": sid, "score": 9_999_999_999u64, "gameId": "tetris",
                   "leaderboardIds": ["ban_a", "ban_b"]}),
        ),
    ];
    for (board, play) in &plays {
        let (status, body) = h.post(CHEAT, *board, play).await;
        assert_eq!((status, code(&body)), (403, "banned"), "{play}: {body}");
        assert!(body["error"]["message"].as_str().unwrap().contains(CHEAT));
    }
    // Nor may the banned player rename themselves or set an email.
    for profile in [
        json!({"name": "Innocent"}),
        json!({"name": "Innocent", "email": "new@example.com"}),
    ] {
        let (status, body) = h
            .call("PUT", "/players/me", As::Player(CHEAT), Some(&profile))
            .await;
        assert_eq!((status, code(&body)), (403, "banned"), "{profile}: {body}");
    }
    assert_eq!(
        h.table.dump().await,
        before,
        "a banned play or rename wrote"
    );
    // Other players play on.
    h.play("p_fair", 40, &["ban_a"]).await;

    // Banning again answers the same, with nothing left to remove.
    let (status, again) = h.call("PUT", &path, As::Admin("ops2"), Some(&ban)).await;
    assert_eq!((status, &again["removedFrom"]), (200, &json!([])));
    assert_eq!(again["bannedBy"], "ops2");

    // Lifted: 204, also when there is no ban; plays make new entries, nothing comes back.
    let delete = |who| h.call("DELETE", &path, who, None);
    assert_eq!(delete(As::Admin("ops")).await, (204, Value::Null));
    assert_eq!(delete(As::Admin("ops")).await, (204, Value::Null));
    let dump = h.table.dump().await;
    assert!(!dump.iter().any(|i| s(i, "sk") == Some("#BAN")));
    assert!(!has_entry(&dump, CHEAT, "ban_a"));
    let (status, body) = h
        .post(
            CHEAT,
            Some("ban_a"),
            &json!({"score": 7, "gameId": "tetris"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, entry) = h.get(&format!("/leaderboards/ban_a/players/{CHEAT}")).await;
    assert_eq!((status, entry["score"].as_u64()), (200, Some(7)));
    let renamed = json!({"name": "Reformed"});
    let (status, body) = h
        .call("PUT", "/players/me", As::Player(CHEAT), Some(&renamed))
        .await;
    assert_eq!((status, &body["name"]), (200, &json!("Reformed")), "{body}");
    assert!(!has_entry(&h.table.dump().await, CHEAT, "ban_b"));
}

#[tokio::test]
async fn only_admins_ban_and_bad_requests_write_nothing() {
    let h = harness("api_ban_refusals").await;
    let board = h.board("ban_r", Order::Desc).await;
    populate(&h, &board, 10).await;
    let before = h.table.dump().await;
    let ok = json!({ "reason": "aimbot" });
    for (method, who) in [
        ("PUT", As::Player(CHEAT)),
        ("PUT", As::Player("p_other")),
        ("DELETE", As::Player(CHEAT)),
    ] {
        let (status, body) = h.call(method, &ban_path(CHEAT), who, Some(&ok)).await;
        assert_eq!((status, code(&body)), (403, "forbidden"), "{method}");
    }
    for method in ["PUT", "DELETE"] {
        let (status, body) = h
            .call(method, &ban_path(CHEAT), As::Anonymous, Some(&ok))
            .await;
        assert_eq!((status, code(&body)), (401, "unauthorized"), "{method}");
    }
    let long = "x".repeat(501);
    let bodies = [
        json!({}),
        json!({ "reason": "" }),
        json!({ "reason": "   " }),
        json!({ "reason": long }),
        json!({ "reason": "tab\there" }),
        json!({ "reason": 5 }),
        json!("aimbot"),
    ];
    for body in &bodies {
        let (status, answer) = h
            .call("PUT", &ban_path(CHEAT), As::Admin("ops"), Some(body))
            .await;
        assert_eq!((status, code(&answer)), (400, "invalid_request"), "{body}");
    }
    for method in ["PUT", "DELETE"] {
        let (status, _) = h
            .call(
                method,
                "/admin/players/bad%23id/ban",
                As::Admin("ops"),
                Some(&ok),
            )
            .await;
        assert_eq!(status, 400, "{method}");
    }
    assert_eq!(h.table.dump().await, before, "a refusal wrote");
    // A reason of exactly 500 characters is fine; a player with no entries is banned too.
    let (status, body) = h
        .call(
            "PUT",
            &ban_path("p_nobody"),
            As::Admin("ops"),
            Some(&json!({ "reason": "é".repeat(500) })),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["removedFrom"], json!([]));
}

#[tokio::test]
async fn the_sample_events_work() {
    let h = harness("api_ban_sample").await;
    h.board("season_3", Order::Desc).await;
    h.play("p_alice", 100, &["season_3"]).await;
    for (sample, status) in [
        (
            include_str!("../../../events/leaderboard-api/put-ban.json"),
            200,
        ),
        (
            include_str!("../../../events/leaderboard-api/delete-ban.json"),
            204,
        ),
    ] {
        let req = lambda_http::request::from_str(sample).unwrap();
        let resp = leaderboard_api::handle(&h.api, req).await.unwrap();
        assert_eq!(resp.status(), status);
    }
    let (status, _) = h.get("/leaderboards/season_3/players/p_alice").await;
    assert_eq!(status, 404);
    h.play("p_alice", 50, &["season_3"]).await;
}
