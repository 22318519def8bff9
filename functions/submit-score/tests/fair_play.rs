//! Fair play through the handler on DynamoDB Local: a board's score rules (`minScore`,
//! `maxScore`, `minDurationSec`, its `gameId`) refuse a play at their edges with nothing written,
//! and accept it on the other side of each edge; the per-player rate limit accepts exactly its
//! number of concurrent plays across two function instances, counts a repeated session once,
//! and refuses the rest with 429 and `Retry-After`, writing nothing; a servers board takes plays
//! only from a game server's token, for the player it names.

use crate::common;

use std::sync::{Arc, OnceLock};

use lambda_http::RequestExt;
use leaderboard_keys::ids::{GameId, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{Operator, Writers};
use leaderboard_store::{Config, Store};
use serde_json::{Value, json};
use submit_score::App;

use common::{Harness, harness, new_board, request};

#[tokio::test]
async fn a_boards_score_rules_refuse_plays_past_their_edges_and_write_nothing() {
    let h = harness("fair_rules").await;
    let mut ruled = new_board("ruled", Order::Desc, Operator::Best, 1000);
    ruled.min_score = 10;
    ruled.min_duration_sec = Some(30);
    ruled.game_id = Some(GameId::parse("tetris").unwrap());
    h.store
        .boards()
        .create_board(ruled, Timestamp::now())
        .await
        .unwrap();
    let mut other = new_board("other_game", Order::Desc, Operator::Best, 1000);
    other.game_id = Some(GameId::parse("pong").unwrap());
    h.store
        .boards()
        .create_board(other, Timestamp::now())
        .await
        .unwrap();
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

/// The instant the rate tests' clock stands still at: every play of a test happens at it, so
/// however slow the machine, no play leaves the 60 s window while the test runs.
static FROZEN: OnceLock<Timestamp> = OnceLock::new();

fn frozen() -> Timestamp {
    *FROZEN.get_or_init(Timestamp::now)
}

/// A harness whose store accepts `limit` plays a player a minute, on the frozen clock, and a
/// second function instance over the same table: the limit holds across instances.
async fn limited(label: &str, limit: u32) -> (Harness, Harness) {
    let mut h = harness(label).await;
    h.store = h.store.clone().with_plays_per_minute(limit);
    h.app = Arc::new(App::with_clock(h.store.clone(), frozen));
    h.board("b", Order::Desc, Operator::Best, 1_000_000).await;
    let other = Store::new(
        h.table.client.clone(),
        &Config {
            table_name: h.table.name.clone(),
            cursor_secret: b"t".to_vec(),
        },
    )
    .with_plays_per_minute(limit);
    let second = Harness {
        table: h.table.clone(),
        store: other.clone(),
        app: Arc::new(App::with_clock(other, frozen)),
    };
    (h, second)
}

/// `POST /sessions` of `score` on board `b` by `player`, with `session` if given.
fn play_request(player: &str, score: u64, session: Option<&str>) -> lambda_http::Request {
    let mut body = json!({"score": score, "gameId": "g", "leaderboardIds": ["b"]});
    if let Some(s) = session {
        body["sessionId"] = json!(s);
    }
    request("/sessions", Some(player), &body.to_string())
}

#[tokio::test]
async fn concurrent_plays_of_one_player_accept_exactly_the_limit() {
    let (h, second) = limited("fair_rate", 5).await;
    let answers = futures::future::join_all((0..64u64).map(|i| {
        let instance = if i % 2 == 0 { &h } else { &second };
        instance.call_with_headers(play_request("p1", i, None))
    }))
    .await;
    let accepted = answers.iter().filter(|(s, _, _)| *s == 200).count();
    assert_eq!(accepted, 5);
    for (status, headers, body) in answers.iter().filter(|(s, _, _)| *s != 200) {
        assert_eq!(
            (*status, body["error"]["code"].as_str()),
            (429, Some("rate_limited")),
            "{body}"
        );
        // Every play was at the same instant: a slot frees a whole window later.
        assert_eq!(
            headers.get("retry-after").map(|v| v.to_str().unwrap()),
            Some("60")
        );
    }
    assert_eq!(h.session_items().await.len(), 5);
    let rate = h.table.raw("PLAYER#p1", "#PLAYRATE").await.unwrap();
    assert_eq!(rate["times"].as_l().unwrap().len(), 5);
    // Another player has a limit of their own.
    let (status, _, body) = h.call_with_headers(play_request("p2", 1, None)).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn repeats_of_a_session_count_once_and_are_answered_past_the_limit() {
    let (h, second) = limited("fair_rate_repeats", 3).await;
    let repeated = SessionId::from_parts(frozen().as_millis(), 7)
        .unwrap()
        .to_string();
    // 32 requests of one session and 31 others, at once.
    let answers = futures::future::join_all((0..63u64).map(|i| {
        let instance = if i % 2 == 0 { &h } else { &second };
        let session = (i < 32).then_some(repeated.as_str());
        instance.call(play_request("p1", if i < 32 { 500 } else { i }, session))
    }))
    .await;
    let sessions = h.session_items().await;
    assert_eq!(sessions.len(), 3);
    let new: Vec<&Value> = answers
        .iter()
        .filter(|(s, b)| *s == 200 && b["duplicate"] == json!(false))
        .map(|(_, b)| b)
        .collect();
    assert_eq!(new.len(), 3, "{answers:?}");
    let of_repeated = &answers[..32];
    let repeated_won = sessions
        .iter()
        .any(|s| leaderboard_devkit::testing::s(s, "sessionId") == Some(repeated.as_str()));
    for (status, body) in of_repeated {
        if repeated_won {
            // Accepted once; every other request of it is that play, answered again.
            assert_eq!(*status, 200, "{body}");
            assert_eq!(body["sessionId"], json!(repeated));
        } else {
            assert_eq!(body["error"]["code"], json!("rate_limited"), "{body}");
        }
    }
    if repeated_won {
        let duplicates = of_repeated
            .iter()
            .filter(|(_, b)| b["duplicate"] == json!(true))
            .count();
        assert_eq!(duplicates, 31);
    }
    for (status, body) in &answers[32..] {
        assert!(
            *status == 200 || body["error"]["code"] == json!("rate_limited"),
            "{body}"
        );
    }
}

#[tokio::test]
async fn a_play_past_the_limit_writes_nothing_and_a_repeat_is_still_answered() {
    let (h, _) = limited("fair_rate_refusal", 2).await;
    let (status, first) = h.call(play_request("p1", 10, None)).await;
    assert_eq!(status, 200, "{first}");
    let session = first["sessionId"].as_str().unwrap().to_owned();
    for _ in 0..3 {
        let (status, again) = h.call(play_request("p1", 10, Some(&session))).await;
        assert_eq!(
            (status, &again["duplicate"]),
            (200, &json!(true)),
            "{again}"
        );
    }
    let (status, second) = h.call(play_request("p1", 20, None)).await;
    assert_eq!(status, 200, "{second}");
    let before = h.table.dump().await;
    let (status, refused) = h.call(play_request("p1", 30, None)).await;
    assert_eq!(
        (status, refused["error"]["code"].as_str()),
        (429, Some("rate_limited")),
        "{refused}"
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("retry in 60 s"),
        "{refused}"
    );
    assert_eq!(
        h.table.dump().await,
        before,
        "the refused play wrote something"
    );
    // A repeat of an accepted play is answered whatever the limit.
    let (status, again) = h.call(play_request("p1", 10, Some(&session))).await;
    assert_eq!(
        (status, &again["duplicate"]),
        (200, &json!(true)),
        "{again}"
    );
}

/// `POST /sessions` with `body`, by a game server's token (`server` in `cognito:groups`).
fn server_request(body: &Value) -> lambda_http::Request {
    let mut req = request("/sessions", Some("game_server_1"), &body.to_string());
    let ctx = req.request_context_ref().cloned();
    if let Some(lambda_http::request::RequestContext::ApiGatewayV2(mut ctx)) = ctx {
        if let Some(jwt) = ctx.authorizer.as_mut().and_then(|a| a.jwt.as_mut()) {
            jwt.claims
                .insert("cognito:groups".into(), "[server]".into());
        }
        req = req.with_request_context(lambda_http::request::RequestContext::ApiGatewayV2(ctx));
    }
    req
}

#[tokio::test]
async fn a_servers_board_takes_only_a_game_servers_plays_for_the_player_it_names() {
    let h = harness("fair_servers").await;
    let mut servers = new_board("srv", Order::Desc, Operator::Best, 1000);
    servers.writers = Writers::Servers;
    h.store
        .boards()
        .create_board(servers, Timestamp::now())
        .await
        .unwrap();
    h.board("pl", Order::Desc, Operator::Best, 1000).await;
    let body = |player: Option<&str>, boards: &[&str]| {
        let mut b = json!({"score": 50, "gameId": "g", "leaderboardIds": boards});
        if let Some(p) = player {
            b["playerId"] = json!(p);
        }
        b
    };
    let before = h.table.dump().await;
    let refusals = [
        (
            "a player's token on a servers board",
            request("/sessions", Some("p1"), &body(None, &["srv"]).to_string()),
            403,
            "forbidden",
        ),
        (
            "a game server without playerId",
            server_request(&body(None, &["srv"])),
            400,
            "invalid_request",
        ),
        (
            "a game server on a players board",
            server_request(&body(Some("p7"), &["pl"])),
            403,
            "forbidden",
        ),
        (
            "a game server on both kinds",
            server_request(&body(Some("p7"), &["srv", "pl"])),
            403,
            "forbidden",
        ),
    ];
    for (case, req, status, code) in refusals {
        let (got, resp) = h.call(req).await;
        assert_eq!(
            (got, resp["error"]["code"].as_str()),
            (status, Some(code)),
            "{case}: {resp}"
        );
        assert_eq!(h.table.dump().await, before, "{case} wrote something");
    }
    // A game server's play counts for the player it names.
    let (status, resp) = h.call(server_request(&body(Some("p7"), &["srv"]))).await;
    assert_eq!((status, &resp["playerId"]), (200, &json!("p7")), "{resp}");
    let sessions = h.session_items().await;
    assert_eq!(sessions.len(), 1);
    assert_eq!(
        leaderboard_devkit::testing::s(&sessions[0], "pk"),
        Some("PLAYER#p7")
    );
    // A player's token never chooses whose score is written, whatever its body says.
    let (status, resp) = h
        .call(request(
            "/sessions",
            Some("p1"),
            &body(Some("p9"), &["pl"]).to_string(),
        ))
        .await;
    assert_eq!((status, &resp["playerId"]), (200, &json!("p1")), "{resp}");
}

#[tokio::test]
async fn a_game_servers_plays_are_rate_limited_per_player() {
    let h = harness("fair_servers_rate").await;
    let store = h.store.clone().with_plays_per_minute(1);
    let h = Harness {
        app: Arc::new(App::with_clock(store.clone(), frozen)),
        store,
        table: h.table,
    };
    let mut servers = new_board("srv", Order::Desc, Operator::Best, 1000);
    servers.writers = Writers::Servers;
    h.store
        .boards()
        .create_board(servers, Timestamp::now())
        .await
        .unwrap();
    let play = |player: &str| json!({"score": 5, "gameId": "g", "leaderboardIds": ["srv"], "playerId": player});
    let (status, _) = h.call(server_request(&play("p7"))).await;
    assert_eq!(status, 200);
    let (status, resp) = h.call(server_request(&play("p7"))).await;
    assert_eq!(
        (status, resp["error"]["code"].as_str()),
        (429, Some("rate_limited"))
    );
    let (status, _) = h.call(server_request(&play("p8"))).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn the_sample_game_server_event_plays_for_the_player_it_names() {
    let h = harness("fair_server_event").await;
    let mut servers = new_board("tournament_1", Order::Desc, Operator::Best, 1_000_000);
    servers.writers = Writers::Servers;
    servers.game_id = Some(GameId::parse("tetris").unwrap());
    h.store
        .boards()
        .create_board(servers, Timestamp::now())
        .await
        .unwrap();
    let event = include_str!("../../../events/submit-score/post-sessions-server.json");
    let (status, resp) = h.call(lambda_http::request::from_str(event).unwrap()).await;
    assert_eq!(status, 200, "{resp}");
    assert_eq!(
        (&resp["playerId"], &resp["results"][0]["best"]),
        (&json!("p_alice"), &json!(7300))
    );
}
