//! The HTTP functions' requests stay within their policies in `template.yaml`, conditions on
//! `dynamodb:LeadingKeys` included: every route is called through the handler its function
//! runs, over a client that records each item a request touches, and each function's record is
//! checked against its own policy. DynamoDB Local enforces no IAM; this is where a request
//! outside a policy is caught before a deployed stack answers it with AccessDenied.

use crate::common;

use std::sync::Arc;

use common::{As, Harness, harness, request};
use lambda_http::Request;
use leaderboard_devkit::policy::{KeyLog, Policy, recording_client};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::{Config, Store};
use serde_json::{Value, json};

/// A store over `h`'s table whose requests are recorded.
fn recorded(h: &Harness) -> (Store, Arc<KeyLog>) {
    let (client, log) = recording_client(&h.table.endpoint);
    let store = Store::new(
        client,
        &Config {
            table_name: h.table.name.clone(),
            cursor_secret: b"t".to_vec(),
        },
    );
    (store, log)
}

/// The three HTTP functions, each over its own recorded store.
struct Functions {
    reads: leaderboard_api::App,
    writes: leaderboard_api::App,
    submit: submit_score::App,
    logs: [(&'static str, Arc<KeyLog>); 3],
}

impl Functions {
    fn over(h: &Harness) -> Functions {
        let (reads, reads_log) = recorded(h);
        let (writes, writes_log) = recorded(h);
        let (submit, submit_log) = recorded(h);
        Functions {
            reads: leaderboard_api::App::new(reads),
            writes: leaderboard_api::App::new(writes),
            submit: submit_score::App::new(submit),
            logs: [
                ("LeaderboardApiFunction", reads_log),
                ("LeaderboardWritesFunction", writes_log),
                ("SubmitScoreFunction", submit_log),
            ],
        }
    }

    /// Sends `req` to the function whose router serves it; its status and body.
    async fn call(&self, req: Request) -> (u16, Value) {
        let (method, path) = (req.method().clone(), req.uri().path().to_owned());
        let resp = if submit_score::ROUTER.find(&method, &path).is_ok() {
            submit_score::handle(&self.submit, req).await
        } else if leaderboard_api::READ_ROUTER.find(&method, &path).is_ok() {
            leaderboard_api::handle_reads(&self.reads, req).await
        } else {
            leaderboard_api::handle_writes(&self.writes, req).await
        }
        .unwrap();
        (
            resp.status().as_u16(),
            serde_json::from_slice(resp.body().as_ref()).unwrap_or(Value::Null),
        )
    }

    async fn ok(&self, method: &str, path: &str, who: As<'_>, body: Option<&Value>) -> Value {
        let (status, answer) = self.call(request(method, path, who, body)).await;
        assert!(
            (200..300).contains(&status),
            "{method} {path}: {status} {answer}"
        );
        answer
    }
}

#[tokio::test]
async fn every_route_stays_within_its_functions_policy() {
    let h = harness("policy_http").await;
    let f = Functions::over(&h);
    let day = 86_400_000;
    let now = Timestamp::now();
    let board = json!({
        "leaderboardId": "weekly", "name": "Weekly", "order": "desc", "operator": "best",
        "maxScore": 1_000_000, "startsAt": Timestamp::from_millis(now.as_millis() - day).unwrap(),
        "endsAt": now.plus_millis(day), "gameId": "tetris",
    });
    f.ok("POST", "/leaderboards", As::Admin("root"), Some(&board))
        .await;
    // A profile with an email, moved to another (the old address's owner is deleted), and
    // back, so the lookup below finds it.
    for email in ["ada@old.example.com", "ada@example.com"] {
        let me = json!({"name": "Ada", "email": email});
        f.ok("PUT", "/players/me", As::Player("ada"), Some(&me))
            .await;
    }
    // Plays: first entries, an improvement (its old Score item is deleted), a worse play, and
    // the board-scoped shorthand.
    for (player, score) in [
        ("ada", 10),
        ("bob", 20),
        ("cy", 30),
        ("ada", 40),
        ("bob", 5),
    ] {
        let play = json!({"score": score, "gameId": "tetris", "leaderboardIds": ["weekly"]});
        f.ok("POST", "/sessions", As::Player(player), Some(&play))
            .await;
    }
    f.ok(
        "POST",
        "/leaderboards/weekly/scores",
        As::Player("dee"),
        Some(&json!({"score": 7})),
    )
    .await;
    // A league: created, played (placements, a cohort opened and joined), read.
    let now = Timestamp::now().as_millis();
    let ends = Timestamp::from_millis(now + 86_400_000)
        .unwrap()
        .to_string();
    let league = json!({"leaderboardId": "lg_2026-w01", "name": "League", "recurrence": "weekly",
        "endsAt": ends, "league": {"tiers": ["low", "high"], "cohortSize": 2, "promote": 1, "relegate": 1}});
    f.ok("POST", "/leaderboards", As::Admin("root"), Some(&league))
        .await;
    for player in ["ada", "cy", "eve"] {
        let play = json!({"score": 3, "gameId": "tetris", "leaderboardIds": ["lg_2026-w01"]});
        f.ok("POST", "/sessions", As::Player(player), Some(&play))
            .await;
    }
    for path in [
        "/players/ada/leagues/lg_2026-w01",
        "/leaderboards/lg_2026-w01/cohorts",
    ] {
        f.ok("GET", path, As::Anonymous, None).await;
    }
    let sessions = f
        .ok("GET", "/players/ada/sessions", As::Anonymous, None)
        .await;
    let session = sessions["sessions"][0]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    for path in [
        "/leaderboards/weekly".to_owned(),
        "/leaderboards/weekly/scores?limit=2".to_owned(),
        "/leaderboards/weekly/scores?playerIds=ada,bob".to_owned(),
        "/leaderboards/weekly/players/ada".to_owned(),
        "/leaderboards/weekly/players/ada/around?n=1".to_owned(),
        "/players/ada".to_owned(),
        "/players/ada/scores".to_owned(),
        format!("/players/ada/sessions/{session}"),
        "/players/ada/results".to_owned(),
        "/games/tetris/sessions".to_owned(),
    ] {
        f.ok("GET", &path, As::Anonymous, None).await;
    }
    // A closed board's standings and results.
    h.closed_board("season_1", 5).await;
    for path in [
        "/leaderboards/season_1/scores",
        "/leaderboards/season_1/players/p00001",
        "/leaderboards/season_1/players/p00001/around",
        "/players/p00001/results",
    ] {
        f.ok("GET", path, As::Anonymous, None).await;
    }
    // Moderation and the admin lookup.
    f.ok(
        "GET",
        "/admin/players?email=ada%40example.com",
        As::Admin("root"),
        None,
    )
    .await;
    f.ok(
        "DELETE",
        "/leaderboards/weekly/players/cy",
        As::Admin("root"),
        None,
    )
    .await;
    let ban = json!({"reason": "cheating"});
    let banned = f
        .ok(
            "PUT",
            "/admin/players/bob/ban",
            As::Admin("root"),
            Some(&ban),
        )
        .await;
    assert_eq!(banned["removedFrom"], json!(["weekly"]), "{banned}");
    f.ok("DELETE", "/admin/players/bob/ban", As::Admin("root"), None)
        .await;
    // Data rights: the audit trail, an export, and erasures (one by an admin of a player with a
    // trail to move and an entry on a closed board; one by a player of themselves).
    f.ok("GET", "/admin/audit?playerId=bob", As::Admin("root"), None)
        .await;
    f.ok("GET", "/players/me/export", As::Player("ada"), None)
        .await;
    f.ok("DELETE", "/admin/players/bob", As::Admin("root"), None)
        .await;
    f.ok("DELETE", "/admin/players/p00002", As::Admin("root"), None)
        .await;
    f.ok("DELETE", "/players/me", As::Player("ada"), None).await;

    for (function, log) in &f.logs {
        let policy = Policy::of(function).unwrap();
        assert!(!log.touched().is_empty(), "{function} sent nothing");
        assert_eq!(policy.refusals(log), Vec::<String>::new(), "{function}");
    }
    // The deletes were exercised: an improved entry's old Score item (submit), and an entry
    // removal's Score item and pointer and an unban's ban (writes).
    let deleted = |log: &KeyLog| -> Vec<String> {
        log.touched()
            .into_iter()
            .filter(|(action, _)| action == "dynamodb:DeleteItem")
            .map(|(_, pk)| pk.split('#').next().unwrap_or_default().to_owned())
            .collect()
    };
    assert!(deleted(&f.logs[2].1).contains(&"LEADERBOARD".to_owned()));
    let by_writes = deleted(&f.logs[1].1);
    for partition in ["LEADERBOARD", "PLAYER", "EMAIL", "AUDIT"] {
        assert!(by_writes.contains(&partition.to_owned()), "{partition}");
    }
    // And the check has teeth: the read-only function's policy refuses what the others sent.
    let reads = Policy::of("LeaderboardApiFunction").unwrap();
    assert!(!reads.refusals(&f.logs[1].1).is_empty());
    assert!(!reads.refusals(&f.logs[2].1).is_empty());
}
