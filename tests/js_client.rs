//! The JavaScript client (`clients/js`) against the local stack: built from openapi.yaml as its
//! `npm run build` does (openapi-typescript's types, then `tsc`), then its Node tests
//! (`clients/js/test/`, node's test runner) run against a stack started here, with a board, two
//! players' tokens, and a Cognito user pool on loopback (moto's) whose tokens the stack takes, for
//! the client's sign-in.

use crate::support;

use chrono::Utc;
use http::Method;
use leaderboard_local::jwt::{DEFAULT_SECRET, JwtKey};
use serde_json::json;
use support::cognito::Cognito;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_js_client_and_its_play_queue_work_against_the_local_stack() {
    let root = leaderboard_devkit::repo_root();
    let client = root.join("clients/js");
    let bin = root.join("node_modules/.bin");
    support::run(
        &client,
        bin.join("openapi-typescript"),
        &[
            "../../openapi.yaml",
            "--default-non-nullable",
            "false",
            "-o",
            "src/generated/api.ts",
        ],
        &[],
    );
    support::run(&client, bin.join("tsc"), &["-p", "."], &[]);

    // A user pool shaped as the template's, whose tokens the stack takes beside its own, and
    // which it makes guests in.
    let cognito = Cognito::new().await;
    let (pool, pool_client) = cognito.pool("js_players").await;
    let stack = cognito.stack_with_guests(&pool, &pool_client, 10);
    let key = JwtKey::new(DEFAULT_SECRET);
    let now = Utc::now().timestamp();
    let admin = key.token_for("ops", &["admin"], now, 600);
    let board = "js_client";
    let created = stack
        .api
        .post(
            "/leaderboards",
            Some(&admin),
            &json!({"leaderboardId": board, "name": "JS", "gameId": "jsgame", "operator": "increment", "maxScore": 1_000_000}),
        )
        .await
        .unwrap();
    assert_eq!(created.status, 201, "{}", created.body);
    // A league of this week and the next, cohorts of 2.
    let league = "js_league_2026-w01";
    let ends = (Utc::now() + chrono::Duration::days(7)).to_rfc3339();
    let created = stack
        .api
        .post(
            "/leaderboards",
            Some(&admin),
            &json!({"leaderboardId": league, "name": "JS league", "gameId": "jsgame",
                    "recurrence": "weekly", "endsAt": ends,
                    "league": {"tiers": ["low", "high"], "cohortSize": 2, "promote": 1, "relegate": 1}}),
        )
        .await
        .unwrap();
    assert_eq!(created.status, 201, "{}", created.body);
    // Points, then the faster time.
    let race = "js_race";
    let created = stack
        .api
        .post(
            "/leaderboards",
            Some(&admin),
            &json!({"leaderboardId": race, "name": "JS race", "gameId": "jsgame",
                    "columns": [{"name": "time", "order": "asc", "max": 3_600_000}]}),
        )
        .await
        .unwrap();
    assert_eq!(created.status, 201, "{}", created.body);
    // A tournament of one player with one try, reset on Fridays at 18:00 in Berlin.
    let cup = "js_cup_1";
    let created = stack
        .api
        .post(
            "/leaderboards",
            Some(&admin),
            &json!({"leaderboardId": cup, "name": "JS cup", "gameId": "jsgame",
                    "recurrence": {"cron": "0 18 * * FRI", "timezone": "Europe/Berlin"},
                    "joinRequired": true, "maxEntrants": 1, "maxAttempts": 1}),
        )
        .await
        .unwrap();
    assert_eq!(created.status, 201, "{}", created.body);
    // A board whose winner gets `gold`, won by p_js, ended now and closed by the schedule.
    let prize = "js_prize";
    let player = key.token_for("p_js", &[], now, 600);
    for (path, token, body) in [
        (
            "/leaderboards".to_owned(),
            &admin,
            json!({"leaderboardId": prize, "name": "JS prize", "gameId": "jsgame",
                   "rewards": [{"ranks": [1, 1], "reward": "gold"}]}),
        ),
        (
            format!("/leaderboards/{prize}/scores"),
            &player,
            json!({"score": 10, "gameId": "jsgame"}),
        ),
        (format!("/leaderboards/{prize}/close"), &admin, json!({})),
    ] {
        let answer = stack.api.post(&path, Some(token), &body).await.unwrap();
        assert!(answer.status < 300, "{path}: {}", answer.body);
    }
    let summary = stack
        .api
        .send(Method::POST, "/local/schedule/season-close", None, None)
        .await
        .unwrap();
    assert_eq!(
        summary.body["closed"][0]["leaderboardId"], prize,
        "{}",
        summary.body
    );
    support::run(
        &client,
        std::path::Path::new("node"),
        &["--test", "test/"],
        &[
            ("API_URL", format!("http://127.0.0.1:{}", stack.api_port)),
            ("TOKEN", key.token_for("p_js", &[], now, 600)),
            ("OTHER_TOKEN", key.token_for("p_js_other", &[], now, 600)),
            ("QUEUE_TOKEN", key.token_for("p_queue", &[], now, 600)),
            ("ADMIN_TOKEN", key.token_for("ops_js", &["admin"], now, 600)),
            ("BOARD", board.to_owned()),
            ("LEAGUE", league.to_owned()),
            ("RACE", race.to_owned()),
            ("CUP", cup.to_owned()),
            ("PRIZE", prize.to_owned()),
            ("COGNITO_URL", format!("{}/", cognito.endpoint)),
            ("COGNITO_CLIENT", pool_client.clone()),
        ],
    );
}
