//! The operator console (`console/`) on the local stack, in a real browser: type-checked against
//! the client typed from openapi.yaml, its PKCE challenge checked (`console/test/`), and bundled
//! as the run command does (`npm run console`),
//! served at `/console/`, and driven in headless Chromium (`tests/browser/console.mjs`,
//! puppeteer-core): a player's token and a malformed one are refused at sign-in and nothing is
//! kept; with the admin's token the boards, a board (its shape from the stats route, two pages
//! of its top, a player found on it) and a player show; the player's entry is removed, they are
//! banned and unbanned, and the trail beside the actions and the audit trail page show all
//! three, as the API does; an erasure waits for its typed confirmation. Screenshots of each
//! page at 1280x800 and at a 390-pixel phone width go to `target/browser/console-*.png`. The
//! refusals of the admin routes themselves are checked over HTTP first, so they are tested even
//! where no Chromium can be installed; the browser part is then skipped with a message.

use crate::support;

use std::path::Path;
use std::process::Command;

use chrono::Utc;
use http::Method;
use leaderboard_local::jwt::{DEFAULT_SECRET, JwtKey};
use serde_json::{Value, json};
use support::LocalStack;

/// Copies the `.ts` files directly in `from` into `to`.
fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "ts") {
            std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
        }
    }
}

/// The console as the run command serves it: type-checked against the client's types generated
/// from openapi.yaml, then bundled into `console/public`. The check runs on a copy of both
/// sources under `target/console-check`, with the types generated there: the JS client's test
/// writes `clients/js/src/generated` while other test jobs run, and a check reading it then
/// could see it half written.
fn build_console(root: &Path) {
    let check = root.join("target/console-check");
    let _ = std::fs::remove_dir_all(&check);
    copy_sources(&root.join("clients/js/src"), &check.join("clients/js/src"));
    copy_sources(&root.join("console/src"), &check.join("console/src"));
    std::fs::copy(
        root.join("console/tsconfig.json"),
        check.join("console/tsconfig.json"),
    )
    .unwrap();
    let openapi = root.join("openapi.yaml");
    let generated = check.join("clients/js/src/generated/api.ts");
    support::run(
        root,
        "node_modules/.bin/openapi-typescript",
        &[
            openapi.to_str().unwrap(),
            "--default-non-nullable",
            "false",
            "-o",
            generated.to_str().unwrap(),
        ],
        &[],
    );
    let tsconfig = check.join("console");
    support::run(
        root,
        "node_modules/.bin/tsc",
        &["-p", tsconfig.to_str().unwrap()],
        &[],
    );
    // The hosted sign-in's PKCE challenge, against RFC 7636's example.
    support::run(root, "node", &["--test", "console/test/"], &[]);
    support::run(root, "npm", &["run", "--silent", "console"], &[]);
    assert!(root.join("console/public/console.js").is_file());
}

fn actions(rows: &Value) -> Vec<String> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| r[1].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_moderates_from_the_console_and_the_trail_shows_it() {
    // GIVEN the console built and a stack serving it, with a board of 30 named players, a
    // second board, a player on both, and a player to erase.
    let root = leaderboard_devkit::repo_root();
    build_console(&root);
    let stack = LocalStack::start(&[("LOCAL_CLOSE_EVERY_SECS", "3600")]);
    let api = &stack.api;
    let key = JwtKey::new(DEFAULT_SECRET);
    let now = Utc::now().timestamp();
    let admin = key.token_for("ops_console", &["admin"], now, 600);
    let (board, other, cheat, erase) = ("console_board", "console_other", "p_cheat", "p_erase");
    for (id, name) in [(board, "Console season"), (other, "Console daily")] {
        let created = api
            .post(
                "/leaderboards",
                Some(&admin),
                &json!({"leaderboardId": id, "name": name, "gameId": "consolegame"}),
            )
            .await
            .unwrap();
        assert_eq!(created.status, 201, "{}", created.body);
    }
    let mut players: Vec<(String, u64)> = (1..=28u64)
        .map(|i| (format!("p_{i:02}"), i * 37_000 % 1_000_000))
        .collect();
    players.push((cheat.to_owned(), 999_999));
    players.push((erase.to_owned(), 1));
    for (player, score) in &players {
        let token = key.token_for(player, &[], now, 600);
        let named = api
            .put(
                "/players/me",
                Some(&token),
                &json!({"name": format!("Name of {player}")}),
            )
            .await
            .unwrap();
        assert_eq!(named.status, 200);
        let boards = if player == cheat {
            vec![board, other]
        } else {
            vec![board]
        };
        let play = json!({"score": score, "gameId": "consolegame", "leaderboardIds": boards});
        let played = api.post("/sessions", Some(&token), &play).await.unwrap();
        assert_eq!(played.status, 200, "{}", played.body);
    }

    // The admin routes the console calls refuse anyone but an admin, over HTTP.
    let player_token = key.token_for("p_01", &[], now, 600);
    let stats_path = format!("/admin/leaderboards/{board}/stats");
    for (token, status) in [(None, 401), (Some(&player_token), 403)] {
        let refused = api
            .send(Method::GET, &stats_path, token.map(String::as_str), None)
            .await
            .unwrap();
        assert_eq!(refused.status, status, "{}", refused.body);
    }
    // The console's page is served, and only under /console/.
    let page = api
        .send(Method::GET, "/console/", None, None)
        .await
        .unwrap();
    assert_eq!(page.status, 200);

    let Some(chromium) = support::chromium_or_skip() else {
        return;
    };

    // WHEN an admin works through the console in Chromium.
    let shots = root.join("target/browser");
    std::fs::create_dir_all(&shots).unwrap();
    let out = Command::new("node")
        .arg(root.join("tests/browser/console.mjs"))
        .current_dir(&root)
        .env("CHROMIUM", &chromium)
        .env(
            "CONSOLE_URL",
            format!("http://127.0.0.1:{}/console/", stack.api_port),
        )
        .env("ADMIN_TOKEN", &admin)
        .env("PLAYER_TOKEN", &player_token)
        .env("BOARD", board)
        .env("CHEAT", cheat)
        .env("ERASE", erase)
        .env("SHOTS", &shots)
        .output()
        .expect("run node");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "console.mjs failed: {stderr}");
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("console.mjs printed no report ({e}): {stderr}"));
    println!("the console, as Chromium showed it: {report:#}");

    // THEN the refused tokens were kept nowhere, and said why.
    let refused = report["playerRefused"].as_str().unwrap();
    assert!(refused.contains("not an admin"), "{refused}");
    let bad = report["badRefused"].as_str().unwrap();
    assert!(bad.contains("refused this token"), "{bad}");
    assert_eq!(report["keptAfterRefusals"], 0);
    // The boards, newest first; the board with its shape and its top in pages of 25.
    assert_eq!(report["boards"], json!([other, board]));
    let shown = &report["board"];
    assert_eq!(shown["heading"], format!("Console season {board}"));
    assert_eq!(shown["facts"]["Entries"], "30", "{shown}");
    assert_eq!(shown["facts"]["Write shards"], "1");
    assert!(shown["bars"].as_u64().unwrap() >= 5, "{shown}");
    let first = shown["firstPage"].as_array().unwrap();
    assert_eq!(first.len(), 25);
    assert_eq!(first[0][0], "1");
    assert_eq!(first[0][1], cheat);
    assert_eq!(first[0][2], format!("Name of {cheat}"));
    assert_eq!(shown["secondPage"].as_array().unwrap().len(), 5);
    assert_eq!(shown["secondPage"][0][0], "26");
    assert_eq!(shown["found"][0], "1");
    // The player: on both boards, then removed from one, banned (and so removed from the
    // other), unbanned; the trail beside the actions shows all three, newest first.
    assert_eq!(report["player"]["entries"], json!([board, other]));
    assert!(
        report["removed"].as_str().unwrap().contains("Removed"),
        "{}",
        report["removed"]
    );
    assert!(
        report["banned"]
            .as_str()
            .unwrap()
            .contains("entries removed from 1 open boards"),
        "{}",
        report["banned"]
    );
    assert_eq!(report["bannedStatus"], "banned");
    assert!(
        report["unbanned"]
            .as_str()
            .unwrap()
            .contains("may play again")
    );
    assert_eq!(report["player"]["entriesAfter"], json!([]));
    let expected = ["unbanned", "banned", "entry_removed"];
    assert_eq!(actions(&report["player"]["trail"]), expected);
    assert_eq!(actions(&report["audit"]), expected);
    assert_eq!(report["audit"][0][2], "ops_console");
    assert_eq!(report["audit"][1][4], "aim assist");
    assert_eq!(report["audit"][2][3], board);
    // The erasure waited for the whole id, then ran.
    assert_eq!(report["eraseDisabledPartway"], true);
    assert_eq!(report["eraseDisabledTyped"], false);
    assert!(
        report["erased"].as_str().unwrap().contains(erase),
        "{}",
        report["erased"]
    );
    assert_eq!(report["shots"].as_array().unwrap().len(), 12);

    // And the API agrees: the trail, the removed entries, the erased player.
    let trail = api
        .send(
            Method::GET,
            &format!("/admin/audit?playerId={cheat}"),
            Some(&admin),
            None,
        )
        .await
        .unwrap();
    let got: Vec<&str> = trail.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["action"].as_str().unwrap())
        .collect();
    assert_eq!(got, expected);
    for b in [board, other] {
        let entry = api
            .send(
                Method::GET,
                &format!("/leaderboards/{b}/players/{cheat}"),
                None,
                None,
            )
            .await
            .unwrap();
        assert_eq!(entry.status, 404, "{b}: {}", entry.body);
    }
    let gone = api
        .send(Method::GET, &format!("/players/{erase}"), None, None)
        .await
        .unwrap();
    assert_eq!(gone.status, 404, "{}", gone.body);
}
