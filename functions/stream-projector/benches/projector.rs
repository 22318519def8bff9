//! What a stream batch costs the projector.
//!
//! 1. **DynamoDB requests per 100-record batch** of Session INSERTs of 1, 10 and 100 distinct
//!    players, counted by an SDK interceptor on every request the store sends (measured, not
//!    computed): first delivery, re-delivery of the same batch, and re-delivery after only its
//!    first half was applied. Needs DynamoDB Local (`DYNAMODB_ENDPOINT`, or it starts one).
//! 2. **CPU time per record** of the handler's pure part (criterion): sorting out and grouping
//!    a 100-record batch, and the same with the Lambda event's JSON deserialised first.
//!
//! Run with `cargo bench -p stream-projector`.
//! With `BENCH_OUT` set (scripts/bench) it also writes both tables to
//! `$BENCH_OUT/80-projector.md`.

#[path = "../../../bench/src/fragment.rs"]
mod fragment;
use fragment::say;

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use common::{Scenario, cost, counted_store, failures, is_session_insert, player_name};
use criterion::{BatchSize, Criterion, Throughput};
use leaderboard_keys::time::Timestamp;
use stream_projector::{plan, project};

const BATCH: usize = 100;

/// Requests for one delivery: (UpdateItem, GetItem, all).
type Cost = (u64, u64, u64);

async fn deliver(sc: &Scenario, batch: &[EventRecord]) -> Cost {
    let (store, counter) = counted_store(&sc.table);
    let response = project(&store, batch.to_vec(), Timestamp::now()).await;
    assert!(failures(&response).is_empty());
    cost(&counter)
}

/// 100 Session INSERTs of `players` distinct players, from a table's real stream.
async fn sessions(players: usize) -> (Scenario, Vec<EventRecord>) {
    let mut sc = Scenario::new(&format!("bench_{players}")).await;
    // Every player plays BATCH / players times, round robin.
    for i in 0..BATCH as u64 {
        sc.play(&player_name(i as usize % players), i, 1, i * 1_000)
            .await;
    }
    let records: Vec<EventRecord> = sc
        .stream()
        .await
        .into_iter()
        .filter(is_session_insert)
        .collect();
    assert_eq!(records.len(), BATCH);
    (sc, records)
}

async fn write_costs() -> String {
    let mut md = String::new();
    say!(
        md,
        "DynamoDB requests per {BATCH}-record batch of Session INSERTs"
    );
    say!(
        md,
        "(UpdateItem + GetItem = total; measured by an SDK interceptor)"
    );
    say!(md);
    say!(
        md,
        "| distinct players | first delivery | same batch again | first half applied, then all |"
    );
    say!(md, "| ---: | --- | --- | --- |");
    let show = |(u, g, t): Cost| format!("{u} + {g} = {t}");
    for players in [1, 10, 100] {
        let (sc, batch) = sessions(players).await;
        let first = deliver(&sc, &batch).await;
        let again = deliver(&sc, &batch).await;
        // A fresh table for the half-applied case.
        let half = Scenario::empty(&format!("bench_half_{players}")).await;
        deliver(&half, &batch[..BATCH / 2]).await;
        let rest = deliver(&half, &batch).await;
        say!(
            md,
            "| {players} | {} | {} | {} |",
            show(first),
            show(again),
            show(rest)
        );
    }
    say!(md);
    md
}

/// A Session INSERT as the stream carries it, for player `p` and sequence number `seq`.
fn session_record(template: &serde_json::Value, p: usize, seq: usize) -> serde_json::Value {
    let mut r = template.clone();
    let player = player_name(p);
    let session =
        leaderboard_keys::ids::SessionId::from_parts(1_767_225_600_000 + seq as u64, seq as u128)
            .unwrap()
            .to_string();
    let d = &mut r["dynamodb"];
    d["Keys"]["pk"]["S"] = format!("PLAYER#{player}").into();
    d["Keys"]["sk"]["S"] = format!("SESSION#{session}").into();
    d["NewImage"]["pk"]["S"] = format!("PLAYER#{player}").into();
    d["NewImage"]["sk"]["S"] = format!("SESSION#{session}").into();
    d["NewImage"]["playerId"]["S"] = player.into();
    d["NewImage"]["sessionId"]["S"] = session.clone().into();
    d["NewImage"]["gsi2sk"]["S"] = format!("SESSION#{session}").into();
    d["SequenceNumber"] = format!("{seq:021}").into();
    r
}

/// 100-record batches built from the captured sample events: only Session INSERTs of 10
/// players, and a mix like the real stream (about one record in four is a Session INSERT; the
/// rest are boards, entry pointers and Score items).
fn batches() -> (String, String) {
    let path = leaderboard_devkit::repo_root().join("events/stream-projector/captured-plays.json");
    let captured: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let records = captured["Records"].as_array().unwrap();
    let session = records
        .iter()
        .find(|r| {
            r["eventName"] == "INSERT"
                && r["dynamodb"]["Keys"]["sk"]["S"]
                    .as_str()
                    .is_some_and(|s| s.starts_with("SESSION#"))
        })
        .unwrap();
    let others: Vec<&serde_json::Value> = records
        .iter()
        .filter(|r| {
            !r["dynamodb"]["Keys"]["sk"]["S"]
                .as_str()
                .is_some_and(|s| s.starts_with("SESSION#"))
        })
        .collect();
    let sessions: Vec<serde_json::Value> = (0..BATCH)
        .map(|i| session_record(session, i % 10, i + 1))
        .collect();
    let mixed: Vec<serde_json::Value> = (0..BATCH)
        .map(|i| {
            if i % 4 == 0 {
                session_record(session, i % 10, i + 1)
            } else {
                let mut r = others[i % others.len()].clone();
                r["dynamodb"]["SequenceNumber"] = format!("{:021}", i + 1).into();
                r
            }
        })
        .collect();
    let json =
        |records: Vec<serde_json::Value>| serde_json::json!({ "Records": records }).to_string();
    (json(sessions), json(mixed))
}

fn cpu(c: &mut Criterion) {
    let (sessions, mixed) = batches();
    let mut group = c.benchmark_group("projector");
    group.throughput(Throughput::Elements(BATCH as u64));
    for (name, json) in [("sessions", &sessions), ("mixed", &mixed)] {
        let event: Event = serde_json::from_str(json).unwrap();
        let plan_of = plan(&mut event.records.clone());
        assert_eq!(plan_of.skipped + plan_of.sessions, BATCH);
        group.bench_function(format!("plan/{name}"), |b| {
            b.iter_batched(
                || event.records.clone(),
                // The records are handed back so that dropping them is not timed.
                |mut records| {
                    let plan = plan(&mut records);
                    (records, black_box(plan))
                },
                BatchSize::SmallInput,
            )
        });
        group.bench_function(format!("json+plan/{name}"), |b| {
            b.iter(|| {
                let event: Event = serde_json::from_str(black_box(json)).unwrap();
                let mut records = event.records;
                let plan = plan(&mut records);
                (records, black_box(plan))
            })
        });
    }
    group.finish();
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let costs = runtime.block_on(write_costs());
    drop(runtime);
    let mut c = Criterion::default().configure_from_args();
    cpu(&mut c);
    c.final_summary();

    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let results = fragment::criterion_results(&fragment::criterion_dir(&root), &["projector"]);
    let mut md = String::from(
        "## Stream projector\n\n`cargo bench -p stream-projector --bench projector`.\n\n",
    );
    md.push_str(&costs);
    md.push_str(&format!(
        "CPU per {BATCH}-record batch of the handler's pure part (criterion; `plan` sorts out and groups \
         the records, `json+plan` parses the Lambda event first; divide by {BATCH} for one record):\n\n"
    ));
    md.push_str(&fragment::criterion_table(&results));
    println!("{md}");
    fragment::write("80-projector.md", &md);
}
