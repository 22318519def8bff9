//! The run command's binary, `leaderboard-local`: starts the local stack, seeds the demo
//! (unless `--no-demo`), and serves until Ctrl-C or SIGTERM, then stops everything it started.
//! Its `main` is here so that the end-to-end tests (`tests/` at the workspace's top) can build
//! the very same binary and drive it as a child process.

use std::process::ExitCode;
use std::time::Duration;

use crate::demo::{self, DEMO_ADMIN, DEMO_EMAIL, DEMO_PLAYER, DemoSize};
use crate::{Error, Settings, Stack};
use tracing_subscriber::EnvFilter;

use lambda_runtime::tracing::subscriber as tracing_subscriber;

const USAGE: &str = "\
usage: leaderboard-local [--no-demo]

Runs the leaderboard locally: DynamoDB Local, the table from template.yaml, the HTTP API with
JWT verification, the stream projector's poller and the season-close schedule.

  --no-demo   do not seed the demo boards, players and plays

Environment: DYNAMODB_PORT (8000), LOCAL_API_PORT (3000), TABLE_NAME (leaderboard-local),
LOCAL_JWT_SECRET (local-dev-secret), CURSOR_SECRET, LOCAL_CLOSE_EVERY_SECS (the template's
schedule, 60), RUST_LOG (warn,leaderboard_local=info).";

async fn shutdown_signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate => {}
    }
}

/// How to open the browser client from an origin the stack allows (`LOCAL_CORS_ORIGINS`): the
/// first local one (`http://localhost:<port>` or `http://127.0.0.1:<port>`) is served with
/// Python's HTTP server on its own port; with `*`, port 8080; with only remote origins, the
/// page is served from one of them. `None` when no origin is allowed.
fn browser_hint(origins: &[String], api: &str) -> Option<String> {
    let first = origins.first()?;
    let allowed = format!(
        "Browser pages from {} may call the API (CORS).",
        origins.join(",")
    );
    let local = origins.iter().find_map(|o| {
        let rest = o
            .strip_prefix("http://localhost:")
            .or_else(|| o.strip_prefix("http://127.0.0.1:"))?;
        rest.parse::<u16>().ok().map(|port| (o.as_str(), port))
    });
    let (origin, port) = match (local, first.as_str()) {
        (Some(local), _) => local,
        (None, "*") => ("http://localhost:8080", 8080),
        (None, remote) => {
            return Some(format!(
                "{allowed} The browser client: serve examples/web from {remote}, then open \
                 {remote}/?api={api}&board=season_1 and paste TOKEN"
            ));
        }
    };
    Some(format!(
        "{allowed} The browser client: python3 -m http.server {port} --bind 127.0.0.1 -d \
         examples/web, then open {origin}/?api={api}&board=season_1 and paste TOKEN"
    ))
}

async fn run(seed_demo: bool) -> Result<(), Error> {
    let settings = Settings::from_env()?;
    let origins = settings.cors_origins.clone();
    let stack = Stack::start(settings).await?;
    let now = chrono::Utc::now().timestamp();
    let key = stack.key();
    println!(
        "leaderboard local stack ready on {} (DynamoDB Local on :{}, table {}, season close every {} s)",
        stack.api_url(),
        stack.dynamodb_port(),
        stack.table_name(),
        stack.close_every().as_secs()
    );
    println!("Sample tokens (HS256 with LOCAL_JWT_SECRET, valid 24 h):");
    println!(
        "  export TOKEN={}   # player {DEMO_PLAYER}, email {DEMO_EMAIL} (verified)",
        key.token_proving(DEMO_PLAYER, DEMO_EMAIL, now, 24 * 3600)
    );
    println!(
        "  export ADMIN={}   # {DEMO_ADMIN}, cognito:groups [admin]",
        key.token_for(DEMO_ADMIN, &["admin"], now, 24 * 3600)
    );
    println!(
        "  export SERVER={}   # game_server, cognito:groups [server]: names playerId in its plays",
        key.token_for("game_server", &["server"], now, 24 * 3600)
    );
    println!(
        "Operator console: {}/console/ (paste ADMIN's token)",
        stack.api_url()
    );
    if let Some(hint) = browser_hint(&origins, &stack.api_url()) {
        println!("{hint}");
    }
    let signal = shutdown_signal();
    tokio::pin!(signal);
    let mut interrupted = false;
    if seed_demo {
        let mut stdout = std::io::stdout();
        tokio::select! {
            result = demo::run(&stack, DemoSize::default(), &mut stdout) => {
                if let Err(e) = result {
                    eprintln!("the demo could not be seeded: {e}");
                }
            }
            _ = &mut signal => interrupted = true,
        }
    }
    if !interrupted {
        println!("Serving until Ctrl-C.");
        signal.await;
    }
    eprintln!("stopping (HTTP API, stream poller, schedule, DynamoDB Local)...");
    let stopped = tokio::time::timeout(Duration::from_secs(30), stack.stop()).await;
    if stopped.is_err() {
        eprintln!("gave up waiting for the stack to stop");
    }
    eprintln!("stopped");
    Ok(())
}

/// The binary's `main`: parses the arguments, then runs the stack until a signal stops it.
pub fn main() -> ExitCode {
    let mut seed_demo = true;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--no-demo" => seed_demo = false,
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("unknown argument {other:?}\n\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_env_filter(
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| EnvFilter::new("warn,leaderboard_local=info")),
        )
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(seed_demo)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::browser_hint;

    fn hint(origins: &[&str]) -> Option<String> {
        let origins: Vec<String> = origins.iter().map(|o| o.to_string()).collect();
        browser_hint(&origins, "http://127.0.0.1:3000")
    }

    #[test]
    fn the_browser_hint_names_an_origin_the_stack_allows() {
        assert_eq!(hint(&[]), None);
        let local = hint(&["https://mygame.example", "http://localhost:5173"]).unwrap();
        assert!(local.contains("http.server 5173"), "{local}");
        assert!(local.contains("open http://localhost:5173/?api=http://127.0.0.1:3000"));
        let loopback = hint(&["http://127.0.0.1:9000"]).unwrap();
        assert!(
            loopback.contains("http.server 9000")
                && loopback.contains("open http://127.0.0.1:9000/")
        );
        let any = hint(&["*"]).unwrap();
        assert!(any.contains("http.server 8080") && any.contains("open http://localhost:8080/"));
        let remote = hint(&["https://mygame.example"]).unwrap();
        assert!(
            remote.contains("serve examples/web from https://mygame.example"),
            "{remote}"
        );
        assert!(!remote.contains("8080"), "{remote}");
    }
}
