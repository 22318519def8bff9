//! Creating and reading boards through the API handler on DynamoDB Local: a body field the
//! board does not know is refused, naming it, with nothing written; the score rules are checked
//! at creation and read back; and a board past its end reads `ended` until its close begins.

use crate::common;

use serde_json::json;

use common::*;

#[tokio::test]
async fn a_board_with_a_field_it_does_not_know_is_refused_naming_it() {
    let h = harness("api_board_fields").await;
    let before = h.table.dump().await;
    for (field, value) in [
        ("maxscore", json!(100)),
        ("minscore", json!(10)),
        ("writeShard", json!(4)),
        ("status", json!("closed")),
        ("playerCount", json!(7)),
    ] {
        let mut body = json!({"leaderboardId": "typo", "name": "Typo", "maxScore": 1_000});
        body[field] = value;
        h.refused_board(&body, &format!("`{field}`"), &before).await;
    }
    // Spelled right, the same board is made.
    let body = json!({"leaderboardId": "typo", "name": "Typo", "maxScore": 1_000});
    let (status, board) = h
        .call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
        .await;
    assert_eq!(
        (status, &board["maxScore"]),
        (201, &json!(1_000)),
        "{board}"
    );
}

#[tokio::test]
async fn a_boards_score_rules_are_checked_at_creation_and_read_back() {
    let h = harness("api_board_rules").await;
    let before = h.table.dump().await;
    for (body, says) in [
        (
            json!({"leaderboardId": "r", "name": "R", "maxScore": 100, "minScore": 101}),
            "minScore 101 must be at most maxScore 100",
        ),
        (
            json!({"leaderboardId": "r", "name": "R", "minScore": -1}),
            "-1",
        ),
        (
            json!({"leaderboardId": "r", "name": "R", "minDurationSec": "30"}),
            "\"30\"",
        ),
        (
            json!({"leaderboardId": "r", "name": "R", "writers": "admins"}),
            "admins",
        ),
        // No play could last longer than durationSec's year, so none could meet it.
        (
            json!({"leaderboardId": "r", "name": "R", "minDurationSec": 31_536_001}),
            "minDurationSec must be at most 31536000",
        ),
        (
            json!({"leaderboardId": "r", "name": "R", "minDurationSec": 9_223_372_036_854_775_808u64}),
            "minDurationSec must be at most 31536000",
        ),
    ] {
        h.refused_board(&body, says, &before).await;
    }
    let body = json!({"leaderboardId": "r", "name": "R", "maxScore": 100, "minScore": 100,
                      "minDurationSec": 30, "gameId": "tetris", "writers": "servers"});
    let (status, created) = h
        .call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
        .await;
    assert_eq!(status, 201, "{created}");
    let (status, board) = h.get("/leaderboards/r").await;
    assert_eq!(status, 200, "{board}");
    assert_eq!(
        (
            &board["minScore"],
            &board["maxScore"],
            &board["minDurationSec"],
            &board["gameId"],
            &board["writers"]
        ),
        (
            &json!(100),
            &json!(100),
            &json!(30),
            &json!("tetris"),
            &json!("servers")
        ),
        "{board}"
    );
    // Left out, minScore reads 0 and minDurationSec is absent.
    let body = json!({"leaderboardId": "plain", "name": "Plain"});
    let (status, _) = h
        .call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
        .await;
    assert_eq!(status, 201);
    let (_, board) = h.get("/leaderboards/plain").await;
    assert_eq!(board["minScore"], json!(0), "{board}");
    assert_eq!(board["writers"], json!("players"), "{board}");
    assert!(board.get("minDurationSec").is_none(), "{board}");
}

#[tokio::test]
async fn a_board_past_its_end_reads_ended_until_its_close_begins() {
    let h = harness("api_board_ended").await;
    h.board("still_open", leaderboard_keys::rank::Order::Desc)
        .await;
    h.ended_board("past_end").await;
    h.closed_board("done", 3).await;
    let status = |id: &'static str| {
        let h = &h;
        async move {
            let (code, board) = h.get(&format!("/leaderboards/{id}")).await;
            assert_eq!(code, 200, "{board}");
            board["status"].as_str().unwrap().to_owned()
        }
    };
    assert_eq!(status("still_open").await, "open");
    assert_eq!(status("past_end").await, "ended");
    assert_eq!(status("done").await, "closed");
    // What reads `ended` refuses plays, and is still stored `open` for season close to find.
    let (code, body) = h
        .post("p1", Some("past_end"), &json!({"score": 5, "gameId": "g"}))
        .await;
    assert_eq!(
        (code, body["error"]["code"].as_str()),
        (409, Some("board_closed"))
    );
    let stored = h
        .table
        .raw("LEADERBOARD#past_end", "#METADATA")
        .await
        .unwrap();
    assert_eq!(stored["status"].as_s().unwrap(), "open");
    // The close that begins moves it on.
    h.store
        .close()
        .close_board(
            &leaderboard_keys::ids::BoardId::parse("past_end").unwrap(),
            leaderboard_keys::time::Timestamp::now(),
            &Default::default(),
        )
        .await
        .unwrap();
    assert_eq!(status("past_end").await, "closed");
}

#[tokio::test]
async fn a_board_with_tiebreak_columns_ranks_and_shows_them_and_refuses_bad_ones() {
    let h = harness("api_board_columns").await;
    let before = h.table.dump().await;
    let time = json!({"name": "time", "order": "asc", "max": 99_999});
    let with = |columns: serde_json::Value, operator: &str| json!({"leaderboardId": "race", "name": "Race", "operator": operator, "columns": columns});
    for (body, says) in [
        (with(json!([time]), "increment"), "increment"),
        (
            with(
                json!([time, {"name": "b", "order": "asc", "max": 9}, {"name": "c", "order": "asc", "max": 9}]),
                "best",
            ),
            "at most 2",
        ),
        (with(json!([time, time]), "best"), "twice"),
        (
            with(json!([{"name": "score", "order": "asc", "max": 9}]), "best"),
            "score",
        ),
        (
            with(json!([{"name": "t", "order": "asc", "max": 0}]), "best"),
            "1 to",
        ),
        (
            with(
                json!([{"name": "t", "order": "asc", "max": 1_000_000_000_001u64}]),
                "best",
            ),
            "1 to",
        ),
        (
            with(json!([{"name": "t", "order": "up", "max": 9}]), "best"),
            "up",
        ),
        (
            with(
                json!([{"name": "t", "order": "asc", "max": 9, "maxx": 9}]),
                "best",
            ),
            "maxx",
        ),
        (
            with(json!([{"name": "t#1", "order": "asc", "max": 9}]), "best"),
            "column name",
        ),
    ] {
        h.refused_board(&body, says, &before).await;
    }
    let kills = json!({"name": "kills", "order": "desc", "max": 99});
    let body = with(json!([time, kills]), "best");
    let (status, created) = h
        .call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
        .await;
    assert_eq!(status, 201, "{created}");
    let (_, board) = h.get("/leaderboards/race").await;
    assert_eq!(board["columns"], json!([time, kills]), "{board}");
    // three players on 10 points: the shorter time first, then (same time) more kills
    for (player, t, k) in [("p_a", 500, 1), ("p_b", 400, 0), ("p_c", 500, 7)] {
        let play = json!({"score": 10, "gameId": "tetris", "leaderboardIds": ["race"],
                          "subscores": {"time": t, "kills": k}});
        let (status, answer) = h.post(player, None, &play).await;
        assert_eq!(status, 200, "{answer}");
    }
    let (_, page) = h.get("/leaderboards/race/scores").await;
    let top: Vec<_> = page["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["playerId"].clone(), e["subscores"].clone()))
        .collect();
    assert_eq!(
        top,
        [
            (json!("p_b"), json!({"time": 400, "kills": 0})),
            (json!("p_c"), json!({"time": 500, "kills": 7})),
            (json!("p_a"), json!({"time": 500, "kills": 1})),
        ]
    );
    let (_, own) = h.get("/leaderboards/race/players/p_a").await;
    assert_eq!(
        (&own["rank"], &own["subscores"]),
        (&json!(3), &json!({"time": 500, "kills": 1}))
    );
    let (_, around) = h.get("/leaderboards/race/players/p_c/around?n=1").await;
    assert_eq!(around["entries"].as_array().unwrap().len(), 3, "{around}");
    assert_eq!(
        around["entries"][1]["subscores"],
        json!({"time": 500, "kills": 7})
    );
}
