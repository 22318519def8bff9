//! The API answers exactly what `openapi.yaml` says: Schemathesis (a fuzzer that reads the
//! document, sends generated valid and invalid requests and checks every answer against it;
//! pinned in `scripts/template-tools.txt`, installed into `.venv-tools/` by the test command)
//! runs against a local stack started for it alone (making guests in a user pool on loopback),
//! seeded with a board, a board to close, a league, a game, two players, a session and a
//! reward, with
//! every check but one, every phase, a fixed seed and a bounded number of examples
//! (`tests/fuzz/schemathesis.toml`), and the rules no schema can state applied by
//! `tests/fuzz/hooks.py`. Any failure, error or warning fails the test; the run's summary
//! (operations, test cases generated, failures) is printed with the test output.

use crate::support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use leaderboard_local::client::ApiClient;
use leaderboard_local::stack::Stack;
use serde_json::json;

/// The email the seeded player's token proves, as an ID token does.
const PLAYER_EMAIL: &str = "zoe@example.com";

/// The fuzzer's own limit is its examples; this is for a run that hangs.
const RUN_LIMIT: Duration = Duration::from_secs(600);

/// The value of the dictionary `name` in the config (`[dictionaries.<name>]`, then
/// `values = ["<value>"]`): the ids the fuzzer puts in paths, which the test seeds.
fn dictionary(config: &str, name: &str) -> String {
    let header = format!("[dictionaries.{name}]");
    let mut lines = config.lines().skip_while(|l| l.trim() != header).skip(1);
    let values = lines.next().unwrap_or_default();
    let value = values
        .strip_prefix("values = [\"")
        .and_then(|v| v.strip_suffix("\"]"))
        .unwrap_or_else(|| panic!("{header} has no one-value `values` line: {values:?}"));
    value.to_owned()
}

/// Schemathesis: `SCHEMATHESIS`, or the one the test command installed into `.venv-tools/`.
fn schemathesis(root: &Path) -> PathBuf {
    if let Some(path) = std::env::var_os("SCHEMATHESIS") {
        return PathBuf::from(path);
    }
    let path = root.join(".venv-tools/bin/schemathesis");
    assert!(
        path.exists(),
        "no {}: `bash scripts/test` installs the pinned schemathesis there (scripts/template-tools.txt)",
        path.display()
    );
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_answers_as_openapi_yaml_says() {
    let root = leaderboard_devkit::repo_root();
    let config_path = root.join("tests/fuzz/schemathesis.toml");
    let config = std::fs::read_to_string(&config_path).unwrap();
    let [board, game, player, victim, session, league, closable] = [
        "boards",
        "games",
        "players",
        "victims",
        "sessions",
        "leagues",
        "closables",
    ]
    .map(|n| dictionary(&config, n));

    // No rate limit: the fuzzer's plays all reach the rules it checks. Guests are made in a
    // user pool on loopback (moto's), so their route reaches its code: past the hour's limit
    // of a network, its 429 as documented.
    let cognito = support::cognito::Cognito::new().await;
    let (pool, pool_client) = cognito.pool("fuzz_players").await;
    let settings = support::in_process_settings(&[
        ("PLAYS_PER_MINUTE", "0"),
        ("LOCAL_COGNITO_ENDPOINT", &cognito.endpoint),
        ("LOCAL_USER_POOL_ID", &pool),
        ("LOCAL_USER_POOL_CLIENT_ID", &pool_client),
    ]);
    let stack = Stack::start(settings).await.unwrap();
    let api = ApiClient::new(stack.api_addr());
    let now = chrono::Utc::now().timestamp();
    let key = stack.key();
    let admin = key.token_for("fuzz-admin", &["admin"], now, 3600);
    let server = key.token_for("fuzz-server", &["server"], now, 3600);
    let player_token = key.token_proving(&player, PLAYER_EMAIL, now, 3600);
    let victim_token = key.token_for(&victim, &[], now, 3600);

    // The seeded board names no game, so a play of any game may post to it.
    let new_board = json!({"leaderboardId": board, "name": "Fuzz", "order": "desc",
                           "operator": "best", "endsAt": "2099-01-01T00:00:00Z"});
    let created = api.post("/leaderboards", Some(&admin), &new_board).await;
    assert_eq!(created.unwrap().status, 201);
    // A board the fuzzer's closes end, so that the seeded board stays open for its plays.
    let new_closable = json!({"leaderboardId": closable, "name": "Fuzz closable",
                              "endsAt": "2099-01-01T00:00:00Z"});
    let created = api.post("/leaderboards", Some(&admin), &new_closable).await;
    assert_eq!(created.unwrap().status, 201);
    // A league the seeded player plays, for the league reads.
    let new_league = json!({"leaderboardId": league, "name": "Fuzz league", "recurrence": "weekly",
                            "endsAt": "2099-01-01T00:00:00Z",
                            "league": {"tiers": ["low", "high"], "cohortSize": 10, "promote": 1, "relegate": 1}});
    let created = api.post("/leaderboards", Some(&admin), &new_league).await;
    assert_eq!(created.unwrap().status, 201);
    let play = json!({"score": 10, "gameId": game, "leaderboardIds": [league]});
    let played = api
        .post("/sessions", Some(&player_token), &play)
        .await
        .unwrap();
    assert_eq!(played.status, 200, "{:?}", played.body);
    for (token, session) in [(&player_token, Some(&session)), (&victim_token, None)] {
        let mut play = json!({"score": 10, "gameId": game, "leaderboardIds": [board]});
        if let Some(id) = session {
            play["sessionId"] = json!(id);
        }
        let played = api.post("/sessions", Some(token), &play).await.unwrap();
        assert_eq!(played.status, 200, "{:?}", played.body);
        let profile = api
            .put("/players/me", Some(token), &json!({"name": "Fuzz"}))
            .await;
        assert_eq!(profile.unwrap().status, 200);
    }

    // A board the seeded player won, ended now and closed by the schedule: their reward, which
    // half of the fuzzer's claims claim.
    let prize = json!({"leaderboardId": "fuzz-prize", "name": "Fuzz prize",
                       "rewards": [{"ranks": [1, 1], "reward": "gold"}]});
    let created = api.post("/leaderboards", Some(&admin), &prize).await;
    assert_eq!(created.unwrap().status, 201);
    let play = json!({"score": 10, "gameId": game, "leaderboardIds": ["fuzz-prize"]});
    let played = api.post("/sessions", Some(&player_token), &play).await;
    assert_eq!(played.unwrap().status, 200);
    let ended = api
        .post("/leaderboards/fuzz-prize/close", Some(&admin), &json!({}))
        .await;
    assert_eq!(ended.unwrap().status, 200);
    let run = api
        .send(
            http::Method::POST,
            "/local/schedule/season-close",
            None,
            None,
        )
        .await
        .unwrap();
    assert_eq!(
        run.body["closed"][0]["leaderboardId"], "fuzz-prize",
        "{:?}",
        run.body
    );
    let rewards = api
        .send(
            http::Method::GET,
            "/players/me/rewards",
            Some(&player_token),
            None,
        )
        .await
        .unwrap();
    let reward = rewards.body["rewards"][0]["rewardId"]
        .as_str()
        .unwrap()
        .to_owned();

    // In a directory of its own: whatever Schemathesis keeps between runs is not read again.
    let scratch = std::env::temp_dir().join(format!("leaderboard-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    // The reward's id is known only now: the config the fuzzer reads names it (Schemathesis
    // reads the environment in its settings, not in its dictionaries' values).
    let run_config = scratch.join("schemathesis.toml");
    std::fs::write(&run_config, config.replace("${FUZZ_REWARD}", &reward)).unwrap();
    let run = tokio::process::Command::new(schemathesis(&root))
        .arg("--config-file")
        .arg(&run_config)
        .arg("run")
        .arg(root.join("openapi.yaml"))
        .args(["--url", &stack.api_url(), "--no-color"])
        .current_dir(&scratch)
        .env("FUZZ_HOOKS", root.join("tests/fuzz/hooks.py"))
        .env("FUZZ_BOARD", &board)
        .env("FUZZ_GAME", &game)
        .env("FUZZ_PLAYER", &player)
        .env("FUZZ_PLAYER_EMAIL", PLAYER_EMAIL)
        .env("FUZZ_PLAYER_TOKEN", &player_token)
        .env("FUZZ_VICTIM_TOKEN", &victim_token)
        .env("FUZZ_ADMIN_TOKEN", &admin)
        .env("FUZZ_SERVER_TOKEN", &server)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(RUN_LIMIT, run)
        .await
        .expect("schemathesis ran past its limit")
        .expect("schemathesis runs");
    let _ = std::fs::remove_dir_all(&scratch);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary = stdout.find("SUMMARY").map_or(&stdout[..], |at| {
        &stdout[stdout[..at].rfind('\n').unwrap_or(0)..]
    });
    // Past libtest's capture, so the test command's log shows the run's summary.
    let _ = writeln!(std::io::stdout(), "schemathesis:{summary}");
    assert!(
        out.status.success(),
        "schemathesis found failures ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stack.stop().await;
}
