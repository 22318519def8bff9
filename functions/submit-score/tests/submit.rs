//! submit-score against DynamoDB Local, through the handler, with API Gateway v2 events built
//! from the fixtures in `events/submit-score/`.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use lambda_http::{Context, Request, RequestExt};
use leaderboard_devkit::testing::{RawItem, TestTable, n, s};
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{NewBoard, Operator, Recurrence};
use leaderboard_store::{Config, Store};
use rand::Rng;
use serde_json::{Value, json};
use submit_score::{App, handle};

use common::{SESSIONS, request};

const WITH_ID: &str =
    include_str!("../../../events/submit-score/post-sessions-with-session-id.json");
const BOARD_SCORES: &str = include_str!("../../../events/submit-score/post-board-scores.json");
const NO_CLAIMS: &str = include_str!("../../../events/submit-score/post-sessions-no-claims.json");

struct Harness {
    table: TestTable,
    store: Store,
    app: Arc<App>,
}

async fn harness(label: &str) -> Harness {
    // No test here reads the stream; see TestTable::without_stream.
    let table = TestTable::without_stream(label).await;
    let store = Store::new(
        table.client.clone(),
        &Config {
            table_name: table.name.clone(),
            cursor_secret: b"t".to_vec(),
        },
    );
    let app = Arc::new(App::new(store.clone()));
    Harness { table, store, app }
}

impl Harness {
    /// An open board that started an hour ago and ends in a day.
    async fn board(&self, id: &str, order: Order, operator: Operator, max_score: u64) {
        common::open_board(&self.store, id, order, operator, max_score).await;
    }

    async fn call(&self, req: Request) -> (u16, Value) {
        // These tests are about what a play writes, under any concurrency: the invocation gets
        // a deadline far enough that the machine's speed never decides the answer (the time
        // budget has its own tests, in budget.rs).
        let mut context = Context::default();
        context.deadline = Timestamp::now().as_millis() + 600_000;
        let resp = handle(&self.app, req.with_lambda_context(context))
            .await
            .unwrap();
        let status = resp.status().as_u16();
        let body: Value = serde_json::from_slice(resp.body().as_ref()).unwrap_or(Value::Null);
        (status, body)
    }

    async fn post(&self, sub: &str, body: Value) -> (u16, Value) {
        self.call(request("/sessions", Some(sub), &body.to_string()))
            .await
    }

    async fn score_items(&self) -> Vec<RawItem> {
        self.table
            .dump()
            .await
            .into_iter()
            .filter(|i| s(i, "sk").is_some_and(|k| k.starts_with("SCORE#")))
            .collect()
    }

    async fn session_items(&self) -> Vec<RawItem> {
        self.table
            .dump()
            .await
            .into_iter()
            .filter(|i| s(i, "sk").is_some_and(|k| k.starts_with("SESSION#")))
            .collect()
    }
}

/// A POST to `path` built from the fixture, with `sub` as the verified subject (None: no
/// authorizer claims at all) and `body` as the raw body.
fn with_method(req: Request, method: &str) -> Request {
    let (mut parts, body) = req.into_parts();
    parts.method = method.parse().unwrap();
    Request::from_parts(parts, body)
}

fn num(item: &RawItem, attr: &str) -> u64 {
    n(item, attr).unwrap().parse().unwrap()
}

#[tokio::test]
async fn the_sample_events_work() {
    let h = harness("fixtures").await;
    for b in ["season_3", "daily_2026-11-21", "weekly_2026-w47"] {
        h.board(b, Order::Desc, Operator::Best, 9_999_999_999).await;
    }
    let (status, body) = h
        .call(lambda_http::request::from_str(SESSIONS).unwrap())
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["playerId"], "p_alice");
    assert_eq!(body["score"], 9850);
    assert_eq!(body["duplicate"], false);
    let results = body["results"].as_array().unwrap();
    let boards: Vec<_> = results
        .iter()
        .map(|r| r["leaderboardId"].as_str().unwrap())
        .collect();
    assert_eq!(boards, ["season_3", "daily_2026-11-21", "weekly_2026-w47"]);
    assert!(
        results
            .iter()
            .all(|r| r["rank"] == 1 && r["best"] == 9850 && r["improved"] == true)
    );
    // The sample's metadata is on its Session and on its three Score items.
    let with_metadata = h
        .table
        .dump()
        .await
        .iter()
        .filter(|i| {
            s(i, "sk").is_some_and(|k| k.starts_with("SESSION#") || k.starts_with("SCORE#"))
        })
        .filter(|i| {
            i.get("metadata")
                .and_then(|m| m.as_m().ok())
                .is_some_and(|m| m.len() == 3)
        })
        .count();
    assert_eq!(with_metadata, 4);

    let (status, body) = h
        .call(lambda_http::request::from_str(WITH_ID).unwrap())
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["sessionId"], "01JDAW6K2Z8Q4T1V5X7Y9B3C5D");
    assert_eq!(body["results"][0]["best"], 9850);
    assert_eq!(body["results"][0]["improved"], false);

    let (status, body) = h
        .call(lambda_http::request::from_str(BOARD_SCORES).unwrap())
        .await;
    assert_eq!(status, 200, "{body}");
    let keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for k in [
        "leaderboardId",
        "playerId",
        "sessionId",
        "score",
        "best",
        "improved",
        "rank",
        "duplicate",
    ] {
        assert!(keys.contains(&k), "{k} missing from {body}");
    }
    assert_eq!(body["leaderboardId"], "season_3");
    assert_eq!(body["playerId"], "p_bob");
    // Same score as alice, attained later: ranks second.
    assert_eq!(body["rank"], 2);

    let before = h.table.dump().await;
    let (status, body) = h
        .call(lambda_http::request::from_str(NO_CLAIMS).unwrap())
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (401, Some("unauthorized"))
    );
    assert_eq!(h.table.dump().await, before);
}

/// The result an operator gives over all plays, computed in the test.
fn model(operator: Operator, order: Order, plays: &[(u64, String, u64)]) -> u64 {
    // plays: (score, attainedAt text, session id order key) as read back from the sessions.
    match (operator, order) {
        (Operator::Best, Order::Desc) => plays.iter().map(|p| p.0).max().unwrap(),
        (Operator::Best, Order::Asc) => plays.iter().map(|p| p.0).min().unwrap(),
        (Operator::Increment, _) => plays.iter().map(|p| p.0).sum(),
        (Operator::Latest, _) => {
            plays
                .iter()
                .max_by(|a, b| (&a.1, a.2).cmp(&(&b.1, b.2)))
                .unwrap()
                .0
        }
    }
}

#[tokio::test]
async fn sixty_four_concurrent_plays_leave_one_entry_per_operator() {
    for (order, operator) in [
        (Order::Desc, Operator::Best),
        (Order::Asc, Operator::Best),
        (Order::Desc, Operator::Increment),
        (Order::Desc, Operator::Latest),
    ] {
        let h = harness("concurrent64").await;
        h.board("b", order, operator, 9_999_999_999).await;
        // WHEN 64 plays of one player with random scores (many ties) arrive at once
        let scores: Vec<u64> = (0..64).map(|_| rand::rng().random_range(0..40)).collect();
        let mut calls: FuturesUnordered<_> = scores
            .iter()
            .map(|&score| {
                let h = &h;
                async move {
                    h.post(
                        "p1",
                        json!({"score": score, "gameId": "g", "leaderboardIds": ["b"]}),
                    )
                    .await
                }
            })
            .collect();
        while let Some((status, body)) = calls.next().await {
            assert_eq!(status, 200, "{operator:?} {body}");
            assert_eq!(body["duplicate"], false);
        }
        // THEN there are 64 sessions and exactly one Score item, holding the operator's result
        let sessions = h.session_items().await;
        assert_eq!(sessions.len(), 64, "{operator:?}");
        let plays: Vec<(u64, String, u64)> = sessions
            .iter()
            .enumerate()
            .map(|(i, it)| {
                (
                    num(it, "score"),
                    s(it, "attainedAt").unwrap().to_owned(),
                    i as u64,
                )
            })
            .collect();
        // Sessions are dumped in sk (= ULID) order, so `i` orders session ids.
        let want = model(operator, order, &plays);
        let items = h.score_items().await;
        assert_eq!(items.len(), 1, "{operator:?}: {items:?}");
        assert_eq!(num(&items[0], "score"), want, "{operator:?}");
        let pointer = h.table.raw("PLAYER#p1", "ENTRY#b").await.unwrap();
        assert_eq!(s(&pointer, "scoreSk"), s(&items[0], "sk"));
        if operator == Operator::Latest {
            // The newest play: the greatest (attainedAt, sessionId).
            let newest = plays
                .iter()
                .max_by(|a, b| (&a.1, a.2).cmp(&(&b.1, b.2)))
                .unwrap();
            assert_eq!(s(&items[0], "attainedAt"), Some(newest.1.as_str()));
        }
    }
}

#[tokio::test]
async fn a_thousand_plays_of_fifty_players_on_three_boards_match_the_model() {
    let h = harness("thousand").await;
    let boards = [
        ("b_best", Order::Desc, Operator::Best),
        ("b_asc", Order::Asc, Operator::Best),
        ("b_sum", Order::Desc, Operator::Increment),
    ];
    for (id, order, op) in boards {
        h.board(id, order, op, 999_999_999).await;
    }
    // GIVEN 1,000 plays of 50 players, each on a random 1 to 3 of the 3 boards
    let mut rng = rand::rng();
    let plays: Vec<(String, u64, Vec<&str>)> = (0..1000)
        .map(|_| {
            let player = format!("p{}", rng.random_range(0..50));
            let score = rng.random_range(0..10_000);
            let mut on: Vec<&str> = boards
                .iter()
                .filter(|_| rng.random_bool(0.5))
                .map(|b| b.0)
                .collect();
            if on.is_empty() {
                on.push(boards[rng.random_range(0..3)].0);
            }
            (player, score, on)
        })
        .collect();
    // WHEN they are submitted 8 at a time
    let results: Vec<(u16, Value)> = futures::stream::iter(plays.iter())
        .map(|(p, score, on)| {
            h.post(
                p,
                json!({"score": score, "gameId": "g", "leaderboardIds": on}),
            )
        })
        .buffer_unordered(8)
        .collect()
        .await;
    assert!(
        results.iter().all(|(status, _)| *status == 200),
        "{:?}",
        results.iter().find(|r| r.0 != 200)
    );
    // THEN exactly one Score item per (player, board) played, equal to the model
    let mut want: BTreeMap<(String, String), u64> = BTreeMap::new();
    for (p, score, on) in &plays {
        for b in on {
            let (_, order, op) = boards.iter().find(|x| x.0 == *b).unwrap();
            let e = want.entry((p.clone(), (*b).to_owned()));
            match (op, order) {
                (Operator::Increment, _) => *e.or_insert(0) += score,
                (_, Order::Desc) => {
                    let v = e.or_insert(0);
                    *v = (*v).max(*score);
                }
                (_, Order::Asc) => {
                    let v = e.or_insert(u64::MAX);
                    *v = (*v).min(*score);
                }
            }
        }
    }
    let mut got: BTreeMap<(String, String), u64> = BTreeMap::new();
    for item in h.score_items().await {
        let key = (
            s(&item, "playerId").unwrap().to_owned(),
            s(&item, "leaderboardId").unwrap().to_owned(),
        );
        assert!(
            got.insert(key.clone(), num(&item, "score")).is_none(),
            "two Score items for {key:?}"
        );
    }
    assert_eq!(got, want);
    assert_eq!(h.session_items().await.len(), 1000);
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
        h.store
            .create_board(
                NewBoard {
                    leaderboard_id: BoardId::parse(id).unwrap(),
                    name: id.into(),
                    order: Order::Desc,
                    operator: Operator::Best,
                    max_score: 1000,
                    starts_at: Some(Timestamp::from_millis(start).unwrap()),
                    ends_at: Some(Timestamp::from_millis(end).unwrap()),
                    recurrence: Recurrence::None,
                    game_id: None,
                    rank_layout: Default::default(),
                },
                Timestamp::from_millis(start).unwrap(),
            )
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
async fn the_body_never_chooses_whose_score_is_written() {
    let h = harness("identity").await;
    h.board("b", Order::Desc, Operator::Best, 1000).await;
    let (status, body) = h
        .post(
            "p_alice",
            json!({"score": 7, "gameId": "g", "leaderboardIds": ["b"], "playerId": "p_mallory"}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["playerId"], "p_alice");
    let items = h.score_items().await;
    assert_eq!(items.len(), 1);
    assert_eq!(s(&items[0], "playerId"), Some("p_alice"));
    assert!(
        h.table
            .dump()
            .await
            .iter()
            .all(|i| !s(i, "pk").unwrap().contains("p_mallory"))
    );
}

#[tokio::test]
async fn ties_rank_the_earlier_first_and_asc_boards_rank_lower_first() {
    let h = harness("ties").await;
    h.board("desc", Order::Desc, Operator::Best, 1000).await;
    h.board("asc", Order::Asc, Operator::Best, 100_000).await;
    let (_, first) = h
        .post(
            "p_first",
            json!({"score": 500, "gameId": "g", "leaderboardIds": ["desc"]}),
        )
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let (_, second) = h
        .post(
            "p_second",
            json!({"score": 500, "gameId": "g", "leaderboardIds": ["desc"]}),
        )
        .await;
    assert_eq!(first["results"][0]["rank"], 1);
    assert_eq!(second["results"][0]["rank"], 2);
    let top = h
        .store
        .top_scores(&BoardId::parse("desc").unwrap(), 10, None)
        .await
        .unwrap();
    let order: Vec<_> = top.items.iter().map(|e| e.player_id.as_str()).collect();
    assert_eq!(order, ["p_first", "p_second"]);

    for (p, t) in [("slow", 61_250), ("fast", 58_100), ("mid", 60_000)] {
        let (status, _) = h
            .post(
                p,
                json!({"score": t, "gameId": "g", "leaderboardIds": ["asc"]}),
            )
            .await;
        assert_eq!(status, 200);
    }
    let top = h
        .store
        .top_scores(&BoardId::parse("asc").unwrap(), 10, None)
        .await
        .unwrap();
    let order: Vec<_> = top
        .items
        .iter()
        .map(|e| (e.player_id.as_str(), e.rank))
        .collect();
    assert_eq!(order, [("fast", 1), ("mid", 2), ("slow", 3)]);
    let (_, faster) = h
        .post(
            "slow",
            json!({"score": 50_000, "gameId": "g", "leaderboardIds": ["asc"]}),
        )
        .await;
    assert_eq!(faster["results"][0]["rank"], 1);
    assert_eq!(faster["results"][0]["improved"], true);
}

#[tokio::test]
async fn a_repeated_session_id_has_one_effect_sequential_and_concurrent() {
    let h = harness("duplicates").await;
    h.board("sum", Order::Desc, Operator::Increment, 1_000_000)
        .await;
    h.board("best", Order::Desc, Operator::Best, 1_000_000)
        .await;
    // Sequential: the repeat (even with another score) gets the first outcome.
    let id = "01JDAW6K2Z8Q4T1V5X7Y9B3C5D";
    let (s1, first) = h
        .post(
            "p1",
            json!({"score": 10, "gameId": "g", "leaderboardIds": ["sum", "best"], "sessionId": id}),
        )
        .await;
    let (s2, again) = h
        .post(
            "p1",
            json!({"score": 99, "gameId": "g", "leaderboardIds": ["sum", "best"], "sessionId": id}),
        )
        .await;
    assert_eq!((s1, s2), (200, 200));
    assert_eq!(first["duplicate"], false);
    assert_eq!(again["duplicate"], true);
    assert_eq!(again["results"], first["results"]);
    assert_eq!(again["score"], 10);
    // The same id of another player is another session.
    let (_, other) = h
        .post(
            "p2",
            json!({"score": 3, "gameId": "g", "leaderboardIds": ["sum"], "sessionId": id}),
        )
        .await;
    assert_eq!(other["duplicate"], false);

    // Concurrent: 16 copies of one request race; one wins, all answer alike, one effect.
    let id2 = "01JDAW6K2Z8Q4T1V5X7Y9B3C5E";
    let body =
        json!({"score": 7, "gameId": "g", "leaderboardIds": ["sum", "best"], "sessionId": id2});
    let answers: Vec<(u16, Value)> =
        futures::future::join_all((0..16).map(|_| h.post("p1", body.clone()))).await;
    assert!(answers.iter().all(|(st, _)| *st == 200));
    assert_eq!(
        answers
            .iter()
            .filter(|(_, b)| b["duplicate"] == false)
            .count(),
        1
    );
    assert!(
        answers
            .iter()
            .all(|(_, b)| b["results"] == answers[0].1["results"])
    );
    let sessions: HashMap<String, u64> = h
        .session_items()
        .await
        .iter()
        .map(|i| {
            (
                format!("{}{}", s(i, "pk").unwrap(), s(i, "sk").unwrap()),
                num(i, "score"),
            )
        })
        .collect();
    assert_eq!(sessions.len(), 3);
    let sum = h.table.raw("PLAYER#p1", "ENTRY#sum").await.unwrap();
    assert_eq!(
        num(&sum, "score"),
        17,
        "the increment board counted each session once"
    );
    let scores = h.score_items().await;
    assert_eq!(scores.len(), 3); // p1 on sum and best, p2 on sum
}
