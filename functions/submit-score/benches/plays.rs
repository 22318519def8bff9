//! Requests per play and latency of the submit path against DynamoDB Local, through the handler.
//!
//! For each scenario (1 or 3 boards; improving or not) it reports the DynamoDB requests one play
//! sends, by operation, counted by an SDK interceptor (not computed), and the p50/p99 latency and
//! throughput of 400 plays at 8-way concurrency. Boards hold 1,000 entries each: more than
//! the 100 a rank counts whole, so the response's rank comes from the index. Prints a Markdown table.
//!
//! `cargo bench -p submit-score --bench plays` (uses `DYNAMODB_ENDPOINT`, or starts DynamoDB Local).
//! With `BENCH_OUT` set (scripts/bench) it also writes its table to `$BENCH_OUT/60-plays.md`.

#[path = "../../../bench/src/fragment.rs"]
mod fragment;
use fragment::say;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use futures::StreamExt;
use leaderboard_devkit::local::counting_client;
use leaderboard_devkit::testing::{TestTable, endpoint};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{NewBoard, Operator, Recurrence};
use leaderboard_store::{Config, Store};
use serde_json::{Value, json};
use submit_score::{App, handle};

const PLAYERS: usize = 1000;
const PLAYS: usize = 400;

fn request(player: &str, score: u64, boards: &[&str]) -> lambda_http::Request {
    let mut e: Value = serde_json::from_str(include_str!(
        "../../../events/submit-score/post-sessions.json"
    ))
    .unwrap();
    e["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = json!(player);
    e["body"] =
        json!(json!({"score": score, "gameId": "bench", "leaderboardIds": boards}).to_string());
    lambda_http::request::from_str(&e.to_string()).unwrap()
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() {
    let ep = endpoint().await;
    // The template's table without its stream: the bench measures the submit path, and a fed
    // stream slows DynamoDB Local down for everything after it.
    let table = TestTable::without_stream("bench_plays").await;
    let (client, counter) = counting_client(&ep);
    let config = Config {
        table_name: table.name.clone(),
        cursor_secret: b"bench".to_vec(),
    };
    let store = Store::new(client, &config);
    let now = Timestamp::now();
    let boards = ["b1", "b2", "b3"];
    for b in boards {
        let board = store
            .boards()
            .create_board(
                NewBoard {
                    order: Order::Desc,
                    operator: Operator::Best,
                    max_score: 9_999_999_999,
                    starts_at: Some(Timestamp::from_millis(now.as_millis() - 3_600_000).unwrap()),
                    ends_at: Some(now.plus_millis(86_400_000)),
                    recurrence: Recurrence::None,
                    ..NewBoard::named(BoardId::parse(b).unwrap(), b.into())
                },
                now,
            )
            .await
            .unwrap();
        let entries: Vec<_> = (0..PLAYERS)
            .map(|i| {
                (
                    PlayerId::parse(&format!("p{i:04}")).unwrap(),
                    1 + (i as u64 * 7919) % 5000,
                    now,
                )
            })
            .collect();
        store
            .boards()
            .import_entries(&board, &entries)
            .await
            .unwrap();
        store.rank().build_rank_index(&board).await.unwrap();
    }
    // The same function with the rate limit on (at the template's default, which no player here
    // reaches): its log is one item more in the play's read and in its transaction.
    let limited = App::new(store.clone().with_plays_per_minute(60));
    let app = App::new(store);
    let mut md = String::from(
        "## Submit path (requests per play, DynamoDB Local)\n\n\
         `cargo bench -p submit-score --bench plays`: through the handler, against DynamoDB Local.\n\n",
    );
    say!(
        md,
        "| scenario | requests per play (by operation) | total | p50 ms | p99 ms | plays/s |"
    );
    say!(md, "| --- | --- | --- | --- | --- | --- |");
    let mut next_score = 1_000_000u64;
    let scenarios = [
        ("1 board, improving", &boards[..1], true),
        ("1 board, not improving", &boards[..1], false),
        ("3 boards, improving", &boards[..], true),
        ("3 boards, not improving", &boards[..], false),
    ];
    for (label, on, improving, app) in scenarios
        .iter()
        .map(|&(label, on, improving)| (label.to_owned(), on, improving, &app))
        .chain(scenarios.iter().map(|&(label, on, improving)| {
            (format!("{label}, rate limit on"), on, improving, &limited)
        }))
    {
        // Requests per play: sequential plays, counted.
        counter.reset();
        let sample = 50;
        for i in 0..sample {
            next_score += 1;
            let score = if improving { next_score } else { 0 };
            let resp = handle(
                app,
                request(&format!("p{:04}", i * 13 % PLAYERS), score, on),
            )
            .await
            .unwrap();
            assert_eq!(resp.status(), 200);
        }
        let per_play: BTreeMap<String, f64> = counter
            .snapshot()
            .into_iter()
            .map(|(op, n)| (op, n as f64 / sample as f64))
            .collect();
        let total: f64 = per_play.values().sum();
        // Latency at 8-way concurrency.
        let started = Instant::now();
        let mut latencies: Vec<Duration> = futures::stream::iter(0..PLAYS)
            .map(|i| {
                next_score += 1;
                let score = if improving { next_score } else { 0 };
                let req = request(&format!("p{:04}", (i * 7 + 3) % PLAYERS), score, on);
                async move {
                    let t = Instant::now();
                    let resp = handle(app, req).await.unwrap();
                    assert_eq!(resp.status(), 200);
                    t.elapsed()
                }
            })
            .buffer_unordered(8)
            .collect()
            .await;
        let secs = started.elapsed().as_secs_f64();
        latencies.sort();
        let ops: Vec<String> = per_play
            .iter()
            .map(|(op, n)| format!("{op} {n:.2}"))
            .collect();
        say!(
            md,
            "| {label} | {} | {total:.2} | {:.1} | {:.1} | {:.0} |",
            ops.join(", "),
            percentile(&latencies, 0.5),
            percentile(&latencies, 0.99),
            PLAYS as f64 / secs
        );
    }
    say!(md);
    say!(
        md,
        "Boards of {PLAYERS} entries; {PLAYS} plays per scenario at 8-way concurrency through the handler; \
         requests counted by an SDK interceptor over 50 sequential plays. The write path is the \
         BatchGetItem and the TransactWriteItems; each board's rank is its path's nodes (one \
         BatchGetItem), its group's tail (a Query: the entries here were imported at one instant, so \
         every group holds others) and its lanes (a Query). \
         \"rate limit on\": `PLAYS_PER_MINUTE` 60 (no player here reaches it): the player's rate log is \
         one key more in the BatchGetItem and one item more in the TransactWriteItems, no request more."
    );
    fragment::write("60-plays.md", &md);
}
