//! End to end: the run command's binary as a child process (on free ports, `--no-demo`),
//! driven over HTTP only, as a game and an operator would: profiles, boards, submissions,
//! top-N, rank, around, the projected `lifetimeScore`/`gamesPlayed` (through the stream
//! poller), season close through the schedule trigger, final standings and results; tokens
//! refused; and SIGTERM stopping everything, DynamoDB Local included.

use crate::support;

use std::time::{Duration, Instant};

use chrono::{SecondsFormat, Utc};
use http::Method;
use leaderboard_local::client::ApiResponse;
use leaderboard_local::jwt::{DEFAULT_SECRET, JwtKey};
use serde_json::{Value, json};
use support::{LocalStack, port_is_free};

fn ok(resp: ApiResponse, status: u16) -> Value {
    assert_eq!(resp.status, status, "{}", resp.body);
    resp.body
}

/// A list of ranked entries as (rank, playerId, score).
fn ranked(entries: &Value) -> Vec<(u64, &str, u64)> {
    entries
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["rank"].as_u64().unwrap(),
                e["playerId"].as_str().unwrap(),
                e["score"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn rfc3339(t: chrono::DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Polls `check` until it returns `Some`, or fails after `limit`: a guard against a hang,
/// minutes past what a projection takes even on a busy machine, never a bound on its speed.
async fn eventually<T, F, Fut>(what: &str, limit: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + limit;
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_local_stack_end_to_end_over_http() {
    // GIVEN the stack, with no scheduled close during the test (the trigger runs it).
    let mut stack = LocalStack::start(&[("LOCAL_CLOSE_EVERY_SECS", "3600")]);
    let api = stack.api;
    let key = JwtKey::new(DEFAULT_SECRET);
    let now = Utc::now();
    let token = |sub: &str| key.token_for(sub, &[], Utc::now().timestamp(), 600);
    let admin = key.token_for("ops", &["admin"], now.timestamp(), 600);
    let (alice, bob, carol) = (token("p_alice"), token("p_bob"), token("p_carol"));

    // Tokens: none, expired, badly signed, malformed -> 401 before any handler; a player's
    // token on an admin route -> 403 from the handler.
    let body = json!({"name": "alice"});
    for bad in [
        None,
        Some(key.token_for("p_alice", &[], now.timestamp() - 120, 60)),
        Some(JwtKey::new("not-the-secret").token_for("p_alice", &[], now.timestamp(), 60)),
        Some("not-a-jwt".to_owned()),
    ] {
        let r = api.put("/players/me", bad.as_deref(), &body).await.unwrap();
        let err = ok(r, 401);
        assert_eq!(err["error"]["code"], "unauthorized");
    }
    let r = api
        .post(
            "/leaderboards",
            Some(&alice),
            &json!({"leaderboardId": "x"}),
        )
        .await
        .unwrap();
    assert_eq!(ok(r, 403)["error"]["code"], "forbidden");
    let r = api.get("/no/such/route").await.unwrap();
    assert_eq!(ok(r, 404)["error"]["code"], "not_found");

    // Profiles.
    for (t, name) in [(&alice, "alice"), (&bob, "bob"), (&carol, "carol")] {
        let p = ok(
            api.put("/players/me", Some(t), &json!({"name": name}))
                .await
                .unwrap(),
            200,
        );
        assert_eq!(p["name"], name);
    }

    // Boards: a season board, and a short one that ends in half a minute. Every submission
    // below counts on the short one too, so it must stay open for all of them: on the stack's
    // fresh DynamoDB Local (a cold JVM) they took 1.3 to 3.5 s after its creation, and a busy
    // machine (a second test run beside this one) takes several times that; 10 s left some
    // runs without a second to spare. The close below waits for the end, a wait the test's
    // projection checks mostly fill.
    let short_ends = Utc::now() + chrono::Duration::seconds(30);
    for (id, ends) in [
        ("season_e2e", now + chrono::Duration::days(30)),
        ("sprint_e2e", short_ends),
    ] {
        let b = ok(
            api.post(
                "/leaderboards",
                Some(&admin),
                &json!({
                    "leaderboardId": id, "name": id, "gameId": "e2e",
                    "startsAt": rfc3339(now - chrono::Duration::minutes(1)),
                    "endsAt": rfc3339(ends),
                }),
            )
            .await
            .unwrap(),
            201,
        );
        assert_eq!(b["leaderboardId"], id);
    }
    // An "any" route needs no token.
    let b = ok(api.get("/leaderboards/season_e2e").await.unwrap(), 200);
    assert_eq!(b["status"], "open");
    // CORS is off without LOCAL_CORS_ORIGINS, as it is without CorsAllowOrigins: a browser's
    // preflight finds no route, and no answer carries a CORS header.
    let origin = ("origin", "http://localhost:8080".to_owned());
    let preflight = [
        origin.clone(),
        ("access-control-request-method", "POST".to_owned()),
    ];
    for (method, headers, status) in [
        (Method::OPTIONS, &preflight[..], 404),
        (Method::GET, &[origin][..], 200),
    ] {
        let resp = api
            .exchange(
                method,
                "/leaderboards/season_e2e",
                headers,
                Default::default(),
            )
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), status);
        assert!(
            !resp
                .headers()
                .keys()
                .any(|k| k.as_str().starts_with("access-control-")),
            "{:?}",
            resp.headers()
        );
    }

    // Submissions: POST /sessions to both boards, and the one-board shorthand.
    let boards = json!(["season_e2e", "sprint_e2e"]);
    let mut expected: Vec<(&str, u64, u64)> = Vec::new(); // (player, lifetime, games)
    for (t, player, scores) in [
        (&alice, "p_alice", &[500u64, 900][..]),
        (&bob, "p_bob", &[700][..]),
        (&carol, "p_carol", &[300, 100, 200][..]),
    ] {
        for score in scores {
            let r = ok(
                api.post(
                    "/sessions",
                    Some(t),
                    &json!({"score": score, "gameId": "e2e", "leaderboardIds": boards}),
                )
                .await
                .unwrap(),
                200,
            );
            assert_eq!(r["playerId"], player);
            assert_eq!(r["results"].as_array().unwrap().len(), 2);
        }
        expected.push((player, scores.iter().sum(), scores.len() as u64));
    }
    // Alice leads the season board once the projector has applied those plays (GET
    // /local/events lists it); bob's next play takes the lead from her.
    eventually(
        "the season's first leader",
        Duration::from_secs(180),
        || async move {
            let listed = api.get("/local/events").await.ok()?.body;
            listed["events"]
                .as_array()?
                .iter()
                .any(|e| {
                    e["detail-type"] == "NewLeader" && e["detail"]["leaderboardId"] == "season_e2e"
                })
                .then_some(())
        },
    )
    .await;
    let r = ok(
        api.post(
            "/leaderboards/season_e2e/scores",
            Some(&bob),
            &json!({"score": 1000, "gameId": "e2e"}),
        )
        .await
        .unwrap(),
        200,
    );
    assert_eq!(
        (r["best"].as_u64(), r["rank"].as_u64()),
        (Some(1000), Some(1))
    );
    // Exact (a three-player board: the capped count covers it even while the index lags),
    // with the board's size and share.
    assert_eq!(
        (
            &r["rankExact"],
            &r["rankLag"],
            &r["playerCount"],
            &r["topPercent"]
        ),
        (&json!(true), &json!(0), &json!(3), &json!(33.34))
    );
    expected[1] = ("p_bob", 1700, 2);

    // Top-N, rank, around.
    let top = ok(
        api.get("/leaderboards/season_e2e/scores?limit=10")
            .await
            .unwrap(),
        200,
    );
    let order: Vec<(&str, u64)> = top["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["playerId"].as_str().unwrap(),
                e["score"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(order, [("p_bob", 1000), ("p_alice", 900), ("p_carol", 300)]);
    let rank = ok(
        api.get("/leaderboards/season_e2e/players/p_alice")
            .await
            .unwrap(),
        200,
    );
    assert_eq!(
        (rank["rank"].as_u64(), rank["score"].as_u64()),
        (Some(2), Some(900))
    );
    assert_eq!(
        (
            &rank["rankExact"],
            &rank["rankLag"],
            &rank["playerCount"],
            &rank["topPercent"]
        ),
        (&json!(true), &json!(0), &json!(3), &json!(66.67))
    );
    let around = ok(
        api.get("/leaderboards/season_e2e/players/p_alice/around?n=1")
            .await
            .unwrap(),
        200,
    );
    let ranks: Vec<u64> = around["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["rank"].as_u64().unwrap())
        .collect();
    assert_eq!(ranks, [1, 2, 3]);
    assert!(
        around["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["rankExact"] == json!(true) && e["playerCount"] == json!(3)),
        "{around}"
    );

    // The projector counts every play once, through the stream poller, eventually.
    for (player, lifetime, games) in expected {
        eventually(
            &format!("{player}'s projected totals"),
            Duration::from_secs(180),
            || async move {
                let p = api.get(&format!("/players/{player}")).await.ok()?.body;
                (p["lifetimeScore"].as_u64() == Some(lifetime)
                    && p["gamesPlayed"].as_u64() == Some(games))
                .then_some(())
            },
        )
        .await;
    }

    // Season close through the schedule trigger, once the short board has ended.
    let wait = (short_ends - Utc::now()).to_std().unwrap_or_default() + Duration::from_millis(500);
    tokio::time::sleep(wait).await;
    let summary = ok(
        api.send(Method::POST, "/local/schedule/season-close", None, None)
            .await
            .unwrap(),
        200,
    );
    let closed: Vec<&str> = summary["closed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["leaderboardId"].as_str().unwrap())
        .collect();
    assert_eq!(closed, ["sprint_e2e"], "{summary}");
    assert_eq!(summary["closed"][0]["playerCount"], 3);

    // The events the stack would have put on its bus, newest first: the close's BoardClosed
    // with the final top, and each board's changes of leader (the projector's, eventually).
    // The season board changed hands once (alice, then bob's 1,000); the sprint's leader was
    // alice from her first play on (500, or 900 when both her plays were one batch).
    let (closed, sprint, season) = eventually(
        "the boards' events",
        Duration::from_secs(180),
        || async move {
            let listed = api.get("/local/events").await.ok()?.body;
            let events = listed["events"].as_array()?.clone();
            let of = |kind: &str, board: &str| {
                events
                    .iter()
                    .filter(|e| e["detail-type"] == kind && e["detail"]["leaderboardId"] == board)
                    .map(|e| e["detail"].clone())
                    .collect::<Vec<Value>>()
            };
            let closed = of("BoardClosed", "sprint_e2e");
            let (sprint, season) = (of("NewLeader", "sprint_e2e"), of("NewLeader", "season_e2e"));
            (!closed.is_empty() && !sprint.is_empty() && season.len() == 2)
                .then_some((closed, sprint, season))
        },
    )
    .await;
    assert_eq!(closed.len(), 1, "{closed:?}");
    let detail = &closed[0];
    assert_eq!(detail["eventId"], "closed:sprint_e2e");
    assert_eq!(detail["playerCount"], 3);
    assert_eq!(detail["nextLeaderboardId"], Value::Null);
    assert_eq!(
        ranked(&detail["top"]),
        [(1, "p_alice", 900), (2, "p_bob", 700), (3, "p_carol", 300)]
    );
    assert_eq!(sprint.len(), 1, "{sprint:?}");
    assert_eq!(
        (&sprint[0]["playerId"], &sprint[0]["previousLeaderId"]),
        (&json!("p_alice"), &Value::Null)
    );
    assert!([500, 900].contains(&sprint[0]["score"].as_u64().unwrap()));
    let hands: Vec<(&Value, &Value, &Value)> = season
        .iter()
        .map(|d| (&d["playerId"], &d["score"], &d["previousLeaderId"]))
        .collect();
    assert_eq!(
        hands,
        [
            (&json!("p_bob"), &json!(1000), &json!("p_alice")),
            (&json!("p_alice"), hands[1].1, &Value::Null),
        ],
        "newest first"
    );

    // Final standings, the board's status, results, and no more scores on it.
    let board = ok(api.get("/leaderboards/sprint_e2e").await.unwrap(), 200);
    assert_eq!(board["status"], "closed");
    let standings = ok(
        api.get("/leaderboards/sprint_e2e/scores").await.unwrap(),
        200,
    );
    assert_eq!(
        ranked(&standings["entries"]),
        [(1, "p_alice", 900), (2, "p_bob", 700), (3, "p_carol", 300)]
    );
    let results = ok(api.get("/players/p_bob/results").await.unwrap(), 200);
    let sprint = results["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["leaderboardId"] == "sprint_e2e")
        .unwrap_or_else(|| panic!("no sprint_e2e result: {results}"));
    assert_eq!(
        (
            sprint["rank"].as_u64(),
            sprint["score"].as_u64(),
            sprint["playerCount"].as_u64()
        ),
        (Some(2), Some(700), Some(3))
    );
    let late = api
        .post(
            "/leaderboards/sprint_e2e/scores",
            Some(&alice),
            &json!({"score": 5}),
        )
        .await
        .unwrap();
    assert_eq!(ok(late, 409)["error"]["code"], "board_closed");

    // SIGTERM stops everything it started: exit 0, both ports free again.
    let status = stack.terminate();
    assert!(status.success(), "{status}");
    let (api_port, dynamodb_port) = (stack.api_port, stack.dynamodb_port);
    eventually(
        "ports free after stop",
        Duration::from_secs(60),
        || async move { (port_is_free(api_port) && port_is_free(dynamodb_port)).then_some(()) },
    )
    .await;
}
