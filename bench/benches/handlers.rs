//! CPU per invocation of each function's handler, excluding I/O (criterion).
//!
//! Method: each handler runs in process with an aws-sdk-dynamodb client whose HTTP client is an
//! in-process replay double (`leaderboard_bench::replay`): it answers with DynamoDB Local's own
//! responses to the same invocation, recorded through the counting proxy just before. So one
//! iteration is the whole invocation as the function's code runs it (event JSON → Lambda type,
//! the handler, the SDK's serialisation, SigV4 signing, response parsing), with no socket I/O and
//! no waiting. Not included: the runtime's HTTP exchange with the Runtime API, and serialising
//! the handler's response.
//!
//! `cargo bench -p leaderboard-bench --bench handlers` (needs DynamoDB Local:
//! `DYNAMODB_ENDPOINT`, or devkit starts one). With `BENCH_OUT`, writes `40-cpu.md`.

#[path = "../src/fragment.rs"]
mod fragment;

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use lambda_runtime::{Context, LambdaEvent};
use leaderboard_bench::proxy::{Exchange, Proxy};
use leaderboard_bench::replay::Replay;
use leaderboard_bench::seed::{self, Function};
use leaderboard_devkit::template::TableDefinition;
use leaderboard_store::{Config, Store};
use tokio::runtime::Runtime;

fn config(table: &str) -> Config {
    Config {
        table_name: table.to_owned(),
        cursor_secret: b"bench-cursor-secret".to_vec(),
    }
}

fn context() -> Context {
    let mut c = Context::default();
    c.request_id = "bench".into();
    c.deadline = (chrono::Utc::now().timestamp_millis() + 900_000) as u64;
    c
}

/// One invocation of `f` over `store` with `event`; returns a short check of its response.
async fn invoke(f: Function, store: &Store, event: &str) -> Result<String, String> {
    match f {
        Function::SubmitScore => {
            let app = submit_score::App::new(store.clone());
            let req = lambda_http::request::from_str(event).map_err(|e| e.to_string())?;
            let resp = submit_score::handle(&app, req)
                .await
                .map_err(|e| e.to_string())?;
            Ok(resp.status().to_string())
        }
        Function::LeaderboardApi => {
            let app = leaderboard_api::App::new(store.clone());
            let req = lambda_http::request::from_str(event).map_err(|e| e.to_string())?;
            let resp = leaderboard_api::handle(&app, req)
                .await
                .map_err(|e| e.to_string())?;
            Ok(resp.status().to_string())
        }
        Function::LeaderboardWrites => {
            let app = leaderboard_api::App::new(store.clone());
            let req = lambda_http::request::from_str(event).map_err(|e| e.to_string())?;
            let resp = leaderboard_api::handle_writes(&app, req)
                .await
                .map_err(|e| e.to_string())?;
            Ok(resp.status().to_string())
        }
        Function::StreamProjector => {
            let e: aws_lambda_events::event::dynamodb::Event =
                serde_json::from_str(event).map_err(|e| e.to_string())?;
            let resp = stream_projector::handle(store, LambdaEvent::new(e, context()))
                .await
                .map_err(|e| e.to_string())?;
            Ok(format!("{} failures", resp.batch_item_failures.len()))
        }
        Function::SeasonClose => {
            let app = season_close::App::from_env(store.clone()).map_err(|e| e.to_string())?;
            let e: serde_json::Value = serde_json::from_str(event).map_err(|e| e.to_string())?;
            let resp = season_close::handle(&app, LambdaEvent::new(e, context()))
                .await
                .map_err(|e| e.to_string())?;
            Ok(format!("{} closed", resp.close().closed.len()))
        }
    }
}

/// Records one invocation of each function against DynamoDB Local, on a fresh seeded table.
/// (The replay must use the recorded table's name: batch responses are keyed by it.)
async fn record() -> (String, Vec<(Function, String, Vec<Exchange>, String)>) {
    let endpoint = leaderboard_devkit::testing::endpoint().await;
    let direct = leaderboard_devkit::local::client(&endpoint);
    let table = leaderboard_bench::unique_table("cpu");
    TableDefinition::from_repo()
        .unwrap()
        .create(&direct, &table)
        .await
        .unwrap();
    let seeding = Store::new(direct, &config(&table));
    seed::base(&seeding).await;
    let proxy = Proxy::in_front_of(&endpoint).await.unwrap();
    let store = Store::new(
        leaderboard_devkit::local::client(&proxy.endpoint()),
        &config(&table),
    );
    let mut out = Vec::new();
    for (n, f) in Function::ALL.into_iter().enumerate() {
        seed::before_invocation(&seeding, f, n).await;
        let event = f.event();
        proxy.stats().start_recording();
        let check = invoke(f, &store, &event)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", f.name()));
        let exchanges = proxy.stats().take_recording();
        out.push((f, event, exchanges, check));
    }
    (table, out)
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (table, recorded) = {
        // Recording needs a multi-threaded runtime for DynamoDB Local's devkit watchdog and the
        // proxy; the measurements use the current-thread one, as a Lambda invocation would.
        let mt = Runtime::new().unwrap();
        mt.block_on(record())
    };
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let mut notes = Vec::new();
    {
        let mut group = c.benchmark_group("handler");
        for (f, event, exchanges, check) in &recorded {
            let replay = Replay::new(exchanges.clone());
            let store = Store::new(replay.client(), &config(&table));
            // The replayed invocation answers as the recorded one did.
            // Two invocations first: the second shows what a warm invocation sends.
            for _ in 0..2 {
                replay.reset_counts();
                let replayed = rt.block_on(invoke(*f, &store, event)).unwrap();
                assert_eq!(&replayed, check, "{}: replay differs", f.name());
            }
            let recorded: Vec<&str> = exchanges.iter().map(|e| e.op.as_str()).collect();
            let warm: Vec<String> = replay
                .answered()
                .iter()
                .map(|(op, n)| format!("{op} {n}"))
                .collect();
            notes.push((
                f.name(),
                check.clone(),
                format!("{} (warm: {})", recorded.join(" → "), warm.join(", ")),
            ));
            group.bench_function(f.name(), |b| {
                b.iter(|| rt.block_on(invoke(*f, black_box(&store), black_box(event))))
            });
        }
        group.finish();
    }
    c.final_summary();

    let dir = fragment::criterion_dir(&leaderboard_devkit::repo_root());
    let results = fragment::criterion_results(&dir, &["handler"]);
    let mut md = String::from("## CPU per invocation\n\n");
    md.push_str(
        "`cargo bench -p leaderboard-bench --bench handlers` (criterion, bench profile). **Method:** each \
         handler runs in process with an aws-sdk-dynamodb client whose HTTP client is an in-process replay \
         double answering with DynamoDB Local's own responses to the same invocation (recorded through \
         the counting proxy just before), so an iteration is the whole invocation as the function's code \
         runs it — event JSON parsed into the Lambda type, the handler, the SDK's request serialisation, \
         SigV4 signing and response parsing — with no socket I/O. Not included: the runtime's exchange \
         with the Runtime API and the response's serialisation. One thread (current-thread runtime).\n\n",
    );
    md.push_str("| handler | median CPU per invocation | 95% CI | response | DynamoDB exchanges recorded (and sent by a warm invocation) |\n");
    md.push_str("| --- | ---: | --- | --- | --- |\n");
    for (name, check, ops) in &notes {
        let r = results.iter().find(|r| r.id == format!("handler/{name}"));
        let (m, ci) = match r {
            Some(r) => (
                fragment::human_ns(r.median),
                format!(
                    "{} .. {}",
                    fragment::human_ns(r.lower),
                    fragment::human_ns(r.upper)
                ),
            ),
            None => ("-".into(), "-".into()),
        };
        let _ = writeln!(md, "| {name} | {m} | {ci} | {check} | {ops} |");
    }
    md.push_str("\nEvents: the same as the cold starts (");
    let events: Vec<String> = Function::ALL
        .iter()
        .map(|f| format!("{}: {}", f.name(), f.work()))
        .collect();
    md.push_str(&events.join("; "));
    md.push_str(").\n");
    println!("{md}");
    fragment::write("40-cpu.md", &md);
}
