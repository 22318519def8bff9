//! `DELETE /players/me` and `DELETE /admin/players/{p}` through the API handler on DynamoDB
//! Local: afterwards a scan finds the player's id and email nowhere, the closed board lists the
//! pseudonym at the player's rank, the id's plays and profile writes are 403 `erased` and write
//! nothing, a repeat is 204 and writes nothing, who may erase whom, and a request out of time
//! answers 202 with the receipt and its repeat finishes; the sample events of the data-rights
//! routes work.

use crate::common;

use lambda_http::Context;
use leaderboard_api::handle;
use leaderboard_devkit::testing::RawItem;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use serde_json::{Value, json};

use common::*;

/// `populate` names its players `p00000` and up: this one has an entry on every board.
const GONE: &str = "p00003";
const EMAIL: &str = "gone@example.com";

/// The items that hold `needle` anywhere: every key and value, nested ones too, shows in an
/// item's debug form verbatim (ids and addresses have nothing to escape).
async fn holding(h: &Harness, needle: &str) -> Vec<RawItem> {
    let dump = h.table.dump().await;
    dump.into_iter()
        .filter(|i| format!("{i:?}").contains(needle))
        .collect()
}

/// An open board and a closed one of 20 players each, the player's profile with an email and a
/// play of their own.
async fn with_the_player(h: &Harness) {
    let open = h.board("er_open", Order::Desc).await;
    populate(h, &open, 20).await;
    h.closed_board("er_closed", 20).await;
    let profile = json!({"name": "Gone", "email": EMAIL});
    let (status, body) = h
        .call("PUT", "/players/me", As::Player(GONE), Some(&profile))
        .await;
    assert_eq!(status, 200, "{body}");
    h.play(GONE, 9_999_999_999, &["er_open"]).await;
}

#[tokio::test]
async fn a_player_erases_themselves_and_is_gone_but_for_a_pseudonym() {
    let h = harness("api_erase_me").await;
    with_the_player(&h).await;
    let (_, before) = h.get("/leaderboards/er_closed/scores").await;
    let rank_of = |top: &Value, p: &str| {
        top["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["playerId"] == p)
            .map(|e| e["rank"].clone())
    };
    let rank = rank_of(&before, GONE).expect("ranked on the closed board");

    let (status, body) = h
        .call("DELETE", "/players/me", As::Player(GONE), None)
        .await;
    assert_eq!((status, &body), (204, &Value::Null));
    assert_eq!(holding(&h, GONE).await, Vec::<RawItem>::new());
    assert_eq!(holding(&h, EMAIL).await, Vec::<RawItem>::new());

    // The closed board shows the pseudonym at the player's rank, without a name; every other
    // standing is as it was.
    let (_, after) = h.get("/leaderboards/er_closed/scores").await;
    let entries = after["entries"].as_array().unwrap();
    let shown = entries.iter().find(|e| e["rank"] == rank).unwrap();
    let pseudonym = shown["playerId"].as_str().unwrap();
    assert!(
        pseudonym.starts_with("erased_") && pseudonym.len() == 23,
        "{shown}"
    );
    assert_ne!(shown["name"], json!("Gone"));
    for (old, new) in before["entries"].as_array().unwrap().iter().zip(entries) {
        if old["playerId"] != GONE {
            assert_eq!(old, new);
        }
    }
    // Gone from the open board, where the others close up and the count follows.
    let (status, _) = h
        .get(&format!("/leaderboards/er_open/players/{GONE}"))
        .await;
    assert_eq!(status, 404);
    let (_, top) = h.get("/leaderboards/er_open/scores").await;
    assert_eq!(top["entries"].as_array().unwrap().len(), 19);
    assert_eq!(top["entries"][0]["rank"], json!(1));
    let (status, _) = h.get(&format!("/players/{GONE}")).await;
    assert_eq!(status, 404);

    // From now on the id's plays and profile writes are refused, and a repeat changes nothing.
    let dump = h.table.dump().await;
    let play = json!({"score": 5, "gameId": "tetris", "leaderboardIds": ["er_open"]});
    let (status, body) = h.post(GONE, None, &play).await;
    assert_eq!((status, code(&body)), (403, "erased"), "{body}");
    let profile = json!({"name": "Back"});
    let (status, body) = h
        .call("PUT", "/players/me", As::Player(GONE), Some(&profile))
        .await;
    assert_eq!((status, code(&body)), (403, "erased"), "{body}");
    let (status, _) = h
        .call("DELETE", "/players/me", As::Player(GONE), None)
        .await;
    assert_eq!(status, 204);
    assert_eq!(h.table.dump().await, dump);
}

#[tokio::test]
async fn only_an_admin_erases_another_player() {
    let h = harness("api_erase_admin").await;
    with_the_player(&h).await;
    let path = format!("/admin/players/{GONE}");
    let dump = h.table.dump().await;
    for who in [As::Anonymous, As::Player("p00004"), As::Player(GONE)] {
        let (status, body) = h.call("DELETE", &path, who, None).await;
        assert!(status == 401 || status == 403, "{status} {body}");
    }
    let (status, body) = h
        .call("DELETE", "/admin/players/bad%23id", As::Admin("ops"), None)
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(h.table.dump().await, dump, "a refusal wrote");

    let (status, _) = h.call("DELETE", &path, As::Admin("ops"), None).await;
    assert_eq!(status, 204);
    assert_eq!(holding(&h, GONE).await, Vec::<RawItem>::new());
    // A player with nothing stored: 204 too.
    let (status, _) = h
        .call(
            "DELETE",
            "/admin/players/p_never_seen",
            As::Admin("ops"),
            None,
        )
        .await;
    assert_eq!(status, 204);
}

#[tokio::test]
async fn an_erasure_out_of_time_answers_202_and_its_repeat_finishes() {
    let h = harness("api_erase_late").await;
    with_the_player(&h).await;
    // A request whose invocation ends within a second: time for the marker only.
    let mut context = Context::default();
    context.deadline = Timestamp::now().as_millis() + 1_000;
    let req = request("DELETE", "/players/me", As::Player(GONE), None);
    let req = lambda_http::RequestExt::with_lambda_context(req, context);
    let resp = handle(&h.api, req).await.unwrap();
    assert_eq!(resp.status().as_u16(), 202);
    let receipt: Value = serde_json::from_slice(resp.body().as_ref()).unwrap();
    assert!(
        receipt["pseudonym"]
            .as_str()
            .unwrap()
            .starts_with("erased_")
    );
    assert_eq!(receipt["requestedBy"], json!("player"));
    assert!(receipt.get("finishedAt").is_none(), "{receipt}");
    // Blocked already; the repeat finishes.
    let play = json!({"score": 5, "gameId": "tetris", "leaderboardIds": ["er_open"]});
    let (status, _) = h.post(GONE, None, &play).await;
    assert_eq!(status, 403);
    let (status, _) = h
        .call("DELETE", "/players/me", As::Player(GONE), None)
        .await;
    assert_eq!(status, 204);
    assert_eq!(holding(&h, GONE).await, Vec::<RawItem>::new());
}

#[tokio::test]
async fn the_sample_events_work() {
    let h = harness("api_erase_sample").await;
    h.board("season_3", Order::Desc).await;
    h.play("p_alice", 100, &["season_3"]).await;
    let (status, _) = h
        .call(
            "DELETE",
            "/leaderboards/season_3/players/p_alice",
            As::Admin("ops"),
            None,
        )
        .await;
    assert_eq!(status, 204);
    h.play("p_alice", 50, &["season_3"]).await;
    for (sample, status) in [
        (
            include_str!("../../../events/leaderboard-api/get-players-me-export.json"),
            200,
        ),
        (
            include_str!("../../../events/leaderboard-api/get-admin-audit.json"),
            200,
        ),
        (
            include_str!("../../../events/leaderboard-api/delete-admin-player.json"),
            204,
        ),
        (
            include_str!("../../../events/leaderboard-api/delete-players-me.json"),
            204,
        ),
    ] {
        let req = lambda_http::request::from_str(sample).unwrap();
        let resp = handle(&h.api, req).await.unwrap();
        assert_eq!(resp.status().as_u16(), status, "{sample}");
    }
    assert!(!format!("{:?}", h.table.dump().await).contains("p_alice"));
}
