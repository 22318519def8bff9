//! Fair play through the handler on DynamoDB Local: a board's score rules (`minScore`,
//! `maxScore`, `minDurationSec`, its `gameId`) refuse a play at their edges with nothing written,
//! and accept it on the other side of each edge.

mod common;

use leaderboard_keys::ids::GameId;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::Operator;
use serde_json::{Value, json};

use common::{harness, new_board};

#[tokio::test]
async fn a_boards_score_rules_refuse_plays_past_their_edges_and_write_nothing() {
    let h = harness("fair_rules").await;
    let mut ruled = new_board("ruled", Order::Desc, Operator::Best, 1000);
    ruled.min_score = 10;
    ruled.min_duration_sec = Some(30);
    ruled.game_id = Some(GameId::parse("tetris").unwrap());
    h.store.create_board(ruled, Timestamp::now()).await.unwrap();
    let mut other = new_board("other_game", Order::Desc, Operator::Best, 1000);
    other.game_id = Some(GameId::parse("pong").unwrap());
    h.store.create_board(other, Timestamp::now()).await.unwrap();
    h.board("no_game", Order::Desc, Operator::Best, 1000).await;
    let play = |extra: Value| {
        let mut body = json!({"score": 10, "durationSec": 30, "gameId": "tetris",
                              "leaderboardIds": ["ruled"]});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        body.as_object_mut().unwrap().retain(|_, v| !v.is_null());
        body
    };
    let before = h.table.dump().await;
    let cases: Vec<(&str, Value, &str, &str)> = vec![
        (
            "one under minScore",
            play(json!({"score": 9})),
            "score_out_of_range",
            "10..=1000",
        ),
        (
            "one over maxScore",
            play(json!({"score": 1001})),
            "score_out_of_range",
            "10..=1000",
        ),
        (
            "no durationSec",
            play(json!({"durationSec": null})),
            "invalid_request",
            "at least 30 s",
        ),
        (
            "one second short",
            play(json!({"durationSec": 29})),
            "invalid_request",
            "at least 30 s",
        ),
        (
            "another game",
            play(json!({"gameId": "pong"})),
            "invalid_request",
            "game tetris, not pong",
        ),
        (
            "no gameId, boards of two games",
            play(json!({"gameId": null, "leaderboardIds": ["ruled", "other_game"]})),
            "invalid_request",
            "games tetris and pong",
        ),
        (
            "no gameId, no board names one",
            play(json!({"gameId": null, "leaderboardIds": ["no_game"]})),
            "invalid_request",
            "gameId is required",
        ),
    ];
    for (case, body, code, says) in cases {
        let (status, resp) = h.post("p1", body).await;
        assert_eq!(
            (status, resp["error"]["code"].as_str()),
            (400, Some(code)),
            "{case}: {resp}"
        );
        let message = resp["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{case}: {message}");
        assert_eq!(h.table.dump().await, before, "{case} wrote something");
    }

    // On the edges themselves, the plays count.
    let (status, resp) = h.post("p1", play(json!({}))).await;
    assert_eq!(status, 200, "{resp}");
    assert_eq!(resp["results"][0]["best"], json!(10), "{resp}");
    // A play that leaves gameId out takes its board's.
    let (status, resp) = h
        .post(
            "p2",
            play(json!({"score": 1000, "durationSec": 31, "gameId": null})),
        )
        .await;
    assert_eq!(status, 200, "{resp}");
    let sessions = h.session_items().await;
    assert_eq!(sessions.len(), 2);
    for session in &sessions {
        assert_eq!(
            leaderboard_devkit::testing::s(session, "gameId"),
            Some("tetris")
        );
    }
    // A board without a game takes a play of any game.
    let body = json!({"score": 0, "gameId": "anything", "leaderboardIds": ["no_game"]});
    let (status, resp) = h.post("p1", body).await;
    assert_eq!(status, 200, "{resp}");
}
