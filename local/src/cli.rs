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

async fn run(seed_demo: bool) -> Result<(), Error> {
    let settings = Settings::from_env()?;
    let origins = settings.cors_origins.join(",");
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
    if !origins.is_empty() {
        println!(
            "Browser pages from {origins} may call the API (CORS). The browser client: \
             python3 -m http.server 8080 --bind 127.0.0.1 -d examples/web, then open \
             http://localhost:8080/?api={}&board=season_1 and paste TOKEN",
            stack.api_url()
        );
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
