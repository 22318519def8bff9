//! Every refusal of a play, through the handler on DynamoDB Local: its status and code, the
//! `sessionId` it names once one was chosen, and nothing written on any board.

use crate::common;

use lambda_http::Request;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::Operator;
use serde_json::{Value, json};

use common::{harness, new_board, request};

/// The request `req` with another method.
fn with_method(req: Request, method: &str) -> Request {
    let (mut parts, body) = req.into_parts();
    parts.method = method.parse().unwrap();
    Request::from_parts(parts, body)
}

#[tokio::test]
async fn refusals_write_nothing_on_any_board() {
    let h = harness("refusals").await;
    h.board("open", Order::Desc, Operator::Best, 1000).await;
    h.board("small", Order::Desc, Operator::Best, 10).await;
    // A board that ended a second ago, and one that starts in an hour (not a minute: the cases
    // below must all run before it starts, however slow the machine).
    let now = Timestamp::now();
    for (id, start, end) in [
        ("ended", now.as_millis() - 60_000, now.as_millis() - 1_000),
        (
            "future",
            now.as_millis() + 3_600_000,
            now.as_millis() + 7_200_000,
        ),
    ] {
        let mut new = new_board(id, Order::Desc, Operator::Best, 1000);
        new.starts_at = Some(Timestamp::from_millis(start).unwrap());
        new.ends_at = Some(Timestamp::from_millis(end).unwrap());
        h.store
            .boards()
            .create_board(new, Timestamp::from_millis(start).unwrap())
            .await
            .unwrap();
    }
    let before = h.table.dump().await;
    let cases: Vec<(Value, u16, &str)> = vec![
        (
            json!({"score": 5, "gameId": "g", "leaderboardIds": ["open", "ended"]}),
            409,
            "board_closed",
        ),
        (
            json!({"score": 5, "gameId": "g", "leaderboardIds": ["future", "open"]}),
            409,
            "board_closed",
        ),
        (
            json!({"score": 5, "gameId": "g", "leaderboardIds": ["open", "nope"]}),
            404,
            "not_found",
        ),
        (
            json!({"score": 11, "gameId": "g", "leaderboardIds": ["open", "small"]}),
            400,
            "score_out_of_range",
        ),
        (
            json!({"score": 1001, "gameId": "g", "leaderboardIds": ["open"]}),
            400,
            "score_out_of_range",
        ),
        (
            json!({"score": 5, "leaderboardIds": ["open"]}),
            400,
            "invalid_request",
        ),
    ];
    for (body, status, code) in cases {
        let (got, resp) = h.post("p1", body.clone()).await;
        assert_eq!(
            (got, resp["error"]["code"].as_str()),
            (status, Some(code)),
            "{body} -> {resp}"
        );
        assert!(
            resp["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
        // Each refusal names the session id the server chose, for a retry.
        assert!(
            resp["error"]["sessionId"]
                .as_str()
                .is_some_and(|id| id.len() == 26),
            "{resp}"
        );
        assert_eq!(h.table.dump().await, before, "{body} wrote something");
    }
}

#[tokio::test]
async fn every_bad_input_is_refused_with_its_code_and_writes_nothing() {
    let h = harness("bad_input").await;
    h.board("b", Order::Desc, Operator::Best, 1000).await;
    let future_ulid =
        leaderboard_keys::ids::SessionId::from_parts(Timestamp::now().as_millis() + 600_000, 1)
            .unwrap()
            .to_string();
    let ok = |extra: Value| {
        let mut body = json!({"score": 5, "gameId": "g", "leaderboardIds": ["b"]});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        body.to_string()
    };
    let too_many: Vec<String> = (0..11).map(|i| format!("b{i}")).collect();
    let cases: Vec<(&str, String, u16, &str)> = vec![
        (
            "malformed json",
            "{\"score\": 5,".into(),
            400,
            "invalid_request",
        ),
        ("empty body", String::new(), 400, "invalid_request"),
        ("array body", "[1,2]".into(), 400, "invalid_request"),
        (
            "oversized body",
            format!("{{\"score\": 5, \"pad\": \"{}\"}}", "x".repeat(20_000)),
            400,
            "invalid_request",
        ),
        (
            "fractional score",
            ok(json!({"score": 5.5})),
            400,
            "invalid_request",
        ),
        (
            "string score",
            ok(json!({"score": "5"})),
            400,
            "invalid_request",
        ),
        (
            "missing score",
            json!({"gameId": "g", "leaderboardIds": ["b"]}).to_string(),
            400,
            "invalid_request",
        ),
        (
            "negative score",
            ok(json!({"score": -5})),
            400,
            "score_out_of_range",
        ),
        (
            "score above maxScore",
            ok(json!({"score": 1001})),
            400,
            "score_out_of_range",
        ),
        (
            "delimiter in board id",
            ok(json!({"leaderboardIds": ["b#1"]})),
            400,
            "invalid_request",
        ),
        (
            "slash in board id",
            ok(json!({"leaderboardIds": ["b/1"]})),
            400,
            "invalid_request",
        ),
        (
            "control char in board id",
            ok(json!({"leaderboardIds": ["b\u{1}"]})),
            400,
            "invalid_request",
        ),
        (
            "empty board id",
            ok(json!({"leaderboardIds": [""]})),
            400,
            "invalid_request",
        ),
        (
            "65-char board id",
            ok(json!({"leaderboardIds": ["x".repeat(65)]})),
            400,
            "invalid_request",
        ),
        (
            "delimiter in game id",
            ok(json!({"gameId": "g#1"})),
            400,
            "invalid_request",
        ),
        (
            "non-string game id",
            ok(json!({"gameId": 7})),
            400,
            "invalid_request",
        ),
        (
            "bad ulid",
            ok(json!({"sessionId": "not-a-ulid"})),
            400,
            "invalid_request",
        ),
        (
            "ulid with delimiter",
            ok(json!({"sessionId": "01JDAW6K2Z8Q4T1V5X7Y9B3C5#"})),
            400,
            "invalid_request",
        ),
        (
            "future ulid",
            ok(json!({"sessionId": future_ulid})),
            400,
            "invalid_request",
        ),
        (
            "no boards",
            ok(json!({"leaderboardIds": []})),
            400,
            "invalid_request",
        ),
        (
            "duplicate boards",
            ok(json!({"leaderboardIds": ["b", "b"]})),
            400,
            "invalid_request",
        ),
        (
            "eleven boards",
            ok(json!({"leaderboardIds": too_many})),
            400,
            "invalid_request",
        ),
        (
            "missing boards",
            json!({"score": 5, "gameId": "g"}).to_string(),
            400,
            "invalid_request",
        ),
        (
            "boards not a list",
            ok(json!({"leaderboardIds": "b"})),
            400,
            "invalid_request",
        ),
        (
            "negative duration",
            ok(json!({"durationSec": -1})),
            400,
            "invalid_request",
        ),
    ];
    let before = h.table.dump().await;
    for (what, body, status, code) in cases {
        let (got, resp) = h.call(request("/sessions", Some("p1"), &body)).await;
        assert_eq!(
            (got, resp["error"]["code"].as_str()),
            (status, Some(code)),
            "{what}: {resp}"
        );
        assert_eq!(h.table.dump().await, before, "{what} wrote something");
    }
    // Identity, routes and methods.
    let body = ok(json!({}));
    let (got, resp) = h.call(request("/sessions", None, &body)).await;
    assert_eq!(
        (got, resp["error"]["code"].as_str()),
        (401, Some("unauthorized"))
    );
    // An empty sub names nobody (any other sub is a player: see leaderboard_keys::subject).
    let (got, _) = h.call(request("/sessions", Some(""), &body)).await;
    assert_eq!(got, 401);
    let (got, resp) = h
        .call(with_method(request("/sessions", Some("p1"), &body), "GET"))
        .await;
    assert_eq!(
        (got, resp["error"]["code"].as_str()),
        (405, Some("method_not_allowed"))
    );
    let (got, _) = h.call(request("/nope", Some("p1"), &body)).await;
    assert_eq!(got, 404);
    // The board's route names its board in the path: its body has no `leaderboardIds`.
    let body = json!({"score": 5, "gameId": "g"}).to_string();
    let (got, resp) = h
        .call(request("/leaderboards/b%23x/scores", Some("p1"), &body))
        .await;
    assert_eq!(
        (got, resp["error"]["code"].as_str()),
        (400, Some("invalid_request"))
    );
    let (got, resp) = h
        .call(request("/leaderboards/nope/scores", Some("p1"), &body))
        .await;
    assert_eq!(
        (got, resp["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
    assert_eq!(h.table.dump().await, before);
}

#[tokio::test]
async fn a_play_without_a_game_takes_its_boards_game_only_when_they_agree() {
    let h = harness("boards_game").await;
    let now = Timestamp::now();
    for (id, game) in [
        ("t1", Some("tetris")),
        ("t2", Some("tetris")),
        ("c1", Some("chess")),
        ("none", None),
    ] {
        let mut new = new_board(id, Order::Desc, Operator::Best, 1000);
        new.game_id = game.map(|g| leaderboard_keys::ids::GameId::parse(g).unwrap());
        h.store.boards().create_board(new, now).await.unwrap();
    }
    let before = h.table.dump().await;
    for boards in [
        json!(["t1", "c1"]),
        json!(["none"]),
        json!(["none", "c1", "t2"]),
    ] {
        let (status, resp) = h
            .post("p1", json!({"score": 5, "leaderboardIds": boards}))
            .await;
        assert_eq!(
            (status, resp["error"]["code"].as_str()),
            (400, Some("invalid_request")),
            "{boards}: {resp}"
        );
        assert!(
            resp["error"]["message"]
                .as_str()
                .unwrap()
                .contains("gameId is required"),
            "{resp}"
        );
        assert_eq!(h.table.dump().await, before, "{boards} wrote");
    }
    // Boards that agree (a board without a game does not disagree): the play is of their game.
    let (status, resp) = h
        .post(
            "p1",
            json!({"score": 5, "leaderboardIds": ["t1", "none", "t2"]}),
        )
        .await;
    assert_eq!(status, 200, "{resp}");
    let session = h.session_items().await;
    assert_eq!(
        leaderboard_devkit::testing::s(&session[0], "gameId"),
        Some("tetris")
    );
}

#[tokio::test]
async fn a_field_a_play_does_not_have_is_refused_by_name_and_writes_nothing() {
    let h = harness("unknown_field").await;
    h.board("b", Order::Desc, Operator::Best, 1000).await;
    let before = h.table.dump().await;
    let typo = json!({"score": 5, "scroe": 6, "gameId": "g", "leaderboardIds": ["b"]});
    // `leaderboardIds` is POST /sessions' own: the board's route names its board in the path.
    let elsewhere = json!({"score": 5, "gameId": "g", "leaderboardIds": ["b"]}).to_string();
    for (req, field) in [
        (request("/sessions", Some("p1"), &typo.to_string()), "scroe"),
        (
            request("/leaderboards/b/scores", Some("p1"), &elsewhere),
            "leaderboardIds",
        ),
    ] {
        let (status, resp) = h.call(req).await;
        assert_eq!(
            (status, resp["error"]["code"].as_str()),
            (400, Some("invalid_request"))
        );
        let message = resp["error"]["message"].as_str().unwrap();
        assert!(message.contains(&format!("{field:?}")), "{message}");
        assert!(resp["error"]["sessionId"].is_string(), "{resp}");
        assert_eq!(h.table.dump().await, before, "{field} wrote something");
    }
    // The same play without the typo is saved.
    let (status, _) = h
        .post(
            "p1",
            json!({"score": 5, "gameId": "g", "leaderboardIds": ["b"]}),
        )
        .await;
    assert_eq!(status, 200);
}
