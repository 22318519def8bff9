//! A browser game's client in a real browser: `examples/web` served from one origin, the local
//! stack allowing that origin only (`LOCAL_CORS_ORIGINS`), and headless Chromium driving the
//! page (`tests/browser/drive.mjs`, puppeteer-core): the top 10 renders with names, a score
//! posted from the page shows up in the listing, a play posted offline waits on the device and
//! is applied once when the page is online again (the page shows the new rank), a play posted
//! offline in a tab then closed is sent by the page opened again (IndexedDB), and the same page
//! from another origin gets nothing and posts nothing. The CORS answers themselves (preflight
//! allowed and refused) are checked over HTTP first, so they are tested even where no Chromium
//! can be installed; the browser part is then skipped with a message. Screenshots are written to
//! `target/browser/web-example.png` and `target/browser/web-offline.png`.

use crate::support;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::Utc;
use http::Method;
use hyper::body::Bytes;
use leaderboard_local::jwt::{DEFAULT_SECRET, JwtKey};
use serde_json::{Value, json};
use support::LocalStack;

/// Serves the files of `dir` over HTTP/1.1 on 127.0.0.1 (any free port), one request per
/// connection, on a thread of its own for the test's lifetime. Returns the port.
fn serve_static(dir: PathBuf) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = Vec::new();
            let mut buf = [0u8; 4096];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buf[..n]),
                }
            }
            let line = String::from_utf8_lossy(&request);
            let path = line.split_whitespace().nth(1).unwrap_or("/");
            let path = path.split('?').next().unwrap_or("/");
            let name = match path.trim_start_matches('/') {
                "" => "index.html",
                n => n,
            };
            let file = (!name.contains("..")).then(|| dir.join(name));
            let (status, kind, body) = match file.and_then(|f| std::fs::read(&f).ok()) {
                Some(body) => ("200 OK", content_type(Path::new(name)), body),
                None => ("404 Not Found", "text/plain", b"not found".to_vec()),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\ncontent-type: {kind}\r\ncontent-length: {}\r\n\
                 cache-control: no-store\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    port
}

/// `examples/web` as the run command serves it: its files, and the JS client bundled beside them
/// (`leaderboard-client.js`, by `npm run web`, the pinned esbuild), in a folder of the test's
/// own under `target/browser/web`. Returns the folder.
fn web_example(root: &Path) -> PathBuf {
    let dir = root.join("target/browser/web");
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["index.html", "app.js", "style.css"] {
        std::fs::copy(root.join("examples/web").join(file), dir.join(file)).unwrap();
    }
    // The run command's bundle (`npm run web`), written into this folder instead.
    let out = Command::new("npm")
        .args(["run", "--silent", "web"])
        .current_dir(root)
        .env("WEB_DIR", &dir)
        .output()
        .expect("run npm");
    assert!(
        out.status.success() && dir.join("leaderboard-client.js").is_file(),
        "npm run web: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn cors_headers(resp: &http::Response<Bytes>) -> Vec<(String, String)> {
    resp.headers()
        .iter()
        .filter(|(k, _)| k.as_str().starts_with("access-control-"))
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_owned()))
        .collect()
}

fn header<'a>(resp: &'a http::Response<Bytes>, name: &str) -> &'a str {
    resp.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_example_works_from_an_allowed_origin_and_gets_nothing_from_another() {
    // GIVEN the page served on one port, reachable as two origins (127.0.0.1 and localhost),
    // and the local stack allowing only the first.
    let root = leaderboard_devkit::repo_root();
    let web_port = serve_static(web_example(&root));
    let allowed = format!("http://127.0.0.1:{web_port}");
    let foreign = format!("http://localhost:{web_port}");
    let stack = LocalStack::start(&[
        ("LOCAL_CORS_ORIGINS", allowed.as_str()),
        ("LOCAL_CLOSE_EVERY_SECS", "3600"),
    ]);
    let api = stack.api;
    let key = JwtKey::new(DEFAULT_SECRET);
    let now = Utc::now();
    let admin = key.token_for("ops", &["admin"], now.timestamp(), 600);
    let board = "web_board";
    let created = api
        .post(
            "/leaderboards",
            Some(&admin),
            &json!({"leaderboardId": board, "name": "Web", "gameId": "webgame"}),
        )
        .await
        .unwrap();
    assert_eq!(created.status, 201, "{}", created.body);
    // Twelve named players with scores 1,000..12,000, and the page's player, who has none.
    for i in 1..=12u64 {
        let t = key.token_for(&format!("p_{i:02}"), &[], now.timestamp(), 600);
        let name = json!({"name": format!("Player {i:02}")});
        assert_eq!(
            api.put("/players/me", Some(&t), &name)
                .await
                .unwrap()
                .status,
            200
        );
        let play = json!({"score": i * 1000});
        let r = api
            .post(&format!("/leaderboards/{board}/scores"), Some(&t), &play)
            .await
            .unwrap();
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let me = "p_browser";
    let token = key.token_for(me, &[], now.timestamp(), 600);
    let r = api
        .put(
            "/players/me",
            Some(&token),
            &json!({"name": "Browser Hero"}),
        )
        .await
        .unwrap();
    assert_eq!(r.status, 200);

    // The CORS answers over HTTP. A preflight from the allowed origin, before any token check.
    let path = format!("/leaderboards/{board}/scores");
    let preflight = |origin: &str| {
        vec![
            ("origin", origin.to_owned()),
            ("access-control-request-method", "POST".to_owned()),
            (
                "access-control-request-headers",
                "authorization,content-type,idempotency-key".to_owned(),
            ),
        ]
    };
    let ok = api
        .exchange(Method::OPTIONS, &path, &preflight(&allowed), Bytes::new())
        .await
        .unwrap();
    assert_eq!(ok.status(), 204);
    assert_eq!(header(&ok, "access-control-allow-origin"), allowed);
    assert!(header(&ok, "access-control-allow-methods").contains("POST"));
    let allowed_headers = header(&ok, "access-control-allow-headers");
    for h in ["authorization", "content-type", "idempotency-key"] {
        assert!(allowed_headers.contains(h), "{allowed_headers}");
    }
    // From another origin: no CORS header at all, which a browser takes as a refusal.
    let refused = api
        .exchange(Method::OPTIONS, &path, &preflight(&foreign), Bytes::new())
        .await
        .unwrap();
    assert_eq!(cors_headers(&refused), [], "{:?}", refused.headers());
    // An answer to the allowed origin names it and exposes Retry-After; another's has neither.
    for (origin, expected) in [(&allowed, allowed.as_str()), (&foreign, "")] {
        let get = api
            .exchange(
                Method::GET,
                &path,
                &[("origin", origin.clone())],
                Bytes::new(),
            )
            .await
            .unwrap();
        assert_eq!(get.status(), 200);
        assert_eq!(header(&get, "access-control-allow-origin"), expected);
        let exposed = header(&get, "access-control-expose-headers");
        assert_eq!(
            exposed,
            if expected.is_empty() {
                ""
            } else {
                "retry-after"
            }
        );
    }

    let Some(chromium) = support::chromium_or_skip() else {
        return;
    };

    // WHEN the page is driven in Chromium.
    let screenshot = root.join("target/browser/web-example.png");
    let offline_screenshot = root.join("target/browser/web-offline.png");
    let score = 99_000u64;
    let (offline_score, closed_score) = (120_000u64, 130_000u64);
    let page = |origin: &str| format!("{origin}/?api={}&board={board}", stack_url(&stack));
    let out = Command::new("node")
        .arg(root.join("tests/browser/drive.mjs"))
        .current_dir(&root)
        .env("CHROMIUM", &chromium)
        .env("PAGE_URL", page(&allowed))
        .env("FOREIGN_URL", page(&foreign))
        .env("TOKEN", &token)
        .env("SCORE", score.to_string())
        .env("OFFLINE_SCORE", offline_score.to_string())
        .env("CLOSED_SCORE", closed_score.to_string())
        .env("SCREENSHOT", &screenshot)
        .env("OFFLINE_SCREENSHOT", &offline_screenshot)
        .output()
        .expect("run node");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "drive.mjs failed: {stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("drive.mjs printed no report ({e}): {stderr}");
    });
    println!("the page, as Chromium showed it: {report:#}");
    println!(
        "screenshots: {} and {}",
        screenshot.display(),
        offline_screenshot.display()
    );

    // THEN the top 10 rendered with names, in the API's order.
    let cells = |rows: &Value| -> Vec<Vec<String>> {
        rows.as_array()
            .unwrap()
            .iter()
            .map(|r| serde_json::from_value(r["cells"].clone()).unwrap())
            .collect()
    };
    let expected: Vec<Vec<String>> = (3..=12u64)
        .rev()
        .enumerate()
        .map(|(rank, i)| {
            vec![
                (rank + 1).to_string(),
                format!("Player {i:02}"),
                (i * 1000).to_string(),
            ]
        })
        .collect();
    assert_eq!(cells(&report["topBefore"]), expected);
    assert!(
        report["meBefore"]
            .as_str()
            .unwrap()
            .contains("no score on this board yet"),
        "{}",
        report["meBefore"]
    );
    // The play was saved, and the listing shows it first, under the player's name.
    assert_eq!(report["posted"]["state"], "ok", "{}", report["posted"]);
    let after = cells(&report["topAfter"]);
    assert_eq!(after.len(), 10);
    assert_eq!(after[0], ["1", "Browser Hero", "99000"]);
    assert_eq!(report["topAfter"][0]["me"], true);
    let moved_down: Vec<Vec<String>> = expected[..9]
        .iter()
        .enumerate()
        .map(|(i, row)| vec![(i + 2).to_string(), row[1].clone(), row[2].clone()])
        .collect();
    assert_eq!(&after[1..], &moved_down[..]);
    // Rank 1 is exact at once (a rank within the first 100 is counted when the index lags);
    // the player count may still be catching up, and the page says so.
    assert!(
        report["meAfter"]
            .as_str()
            .unwrap()
            .starts_with("p_browser: Rank 1 of "),
        "{}",
        report["meAfter"]
    );
    assert!(std::fs::metadata(&screenshot).unwrap().len() > 0);

    // Offline, the play was stored on the device and waited, the page showing it; online
    // again, it was sent and the page showed the new best and rank.
    let offline = &report["offline"];
    assert_eq!(offline["pending"], 1, "{offline}");
    let queued = offline["queued"][0].as_str().unwrap();
    assert!(
        queued.starts_with(&format!("{offline_score} on {board}, sent ")),
        "{queued}"
    );
    assert!(
        offline["text"]
            .as_str()
            .unwrap()
            .starts_with("Kept on this device"),
        "{offline}"
    );
    assert!(std::fs::metadata(&offline_screenshot).unwrap().len() > 0);
    let online = report["online"]["text"].as_str().unwrap();
    assert!(
        online.starts_with(&format!(
            "Saved {offline_score}: best {offline_score}, rank 1"
        )),
        "{online}"
    );
    let online_me = report["onlineMe"].as_str().unwrap();
    assert!(
        online_me.starts_with("p_browser: Rank 1 of "),
        "{online_me}"
    );
    // The tab closed while offline: the page opened again found the play in IndexedDB and,
    // once signed in, sent it.
    assert_eq!(report["closedOffline"]["pending"], 1);
    assert_eq!(report["reopened"]["pending"], 1, "{}", report["reopened"]);
    assert!(
        report["reopened"]["queued"][0]
            .as_str()
            .unwrap()
            .starts_with(&format!("{closed_score} on {board}")),
        "{}",
        report["reopened"]
    );
    assert!(
        report["reopenedMe"]
            .as_str()
            .unwrap()
            .contains(&format!("best {closed_score} ")),
        "{}",
        report["reopenedMe"]
    );
    let entry = api
        .get(&format!("/leaderboards/{board}/players/{me}"))
        .await
        .unwrap();
    assert_eq!(entry.body["score"], closed_score);
    assert_eq!(entry.body["rank"], 1);

    // And from the other origin the browser refused the API's answers and the play's
    // preflight: nothing rendered, and the play stayed on that origin's device.
    assert_eq!(report["foreignLoad"]["state"], "error");
    assert!(
        report["foreignLoad"]["text"]
            .as_str()
            .unwrap()
            .contains("CORS origins do not list"),
        "{}",
        report["foreignLoad"]
    );
    assert_eq!(report["foreignTop"], json!([]));
    let foreign = &report["foreignPost"];
    assert_eq!(foreign["pending"], 1, "{foreign}");
    assert!(
        foreign["text"]
            .as_str()
            .unwrap()
            .contains("CORS origins do not list"),
        "{foreign}"
    );
    let console = report["foreignConsole"].to_string();
    assert!(console.contains("CORS policy"), "{console}");
    // Each of the three plays applied exactly once, however often the page tried to send it;
    // the other origin's never.
    let sessions = api.get(&format!("/players/{me}/sessions")).await.unwrap();
    assert_eq!(sessions.status, 200);
    let mut scores: Vec<u64> = sessions.body["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["score"].as_u64().unwrap())
        .collect();
    scores.sort_unstable();
    assert_eq!(
        scores,
        [score, offline_score, closed_score],
        "{}",
        sessions.body
    );
}

fn stack_url(stack: &LocalStack) -> String {
    format!("http://127.0.0.1:{}", stack.api_port)
}
