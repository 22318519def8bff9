//! What season close reports (docs/operating.md "Metrics"), read back from its EMF lines after real runs
//! on DynamoDB Local: a run that closes one due board and leaves another part-way (its close
//! backlog the age of the one left), the next run that finishes it (no backlog), and a run that
//! cannot list the due boards. Each line has the metrics and dimensions docs/operating.md documents,
//! and no board's id.

use crate::common;

use common::*;
use lambda_runtime::{Context, LambdaEvent};
use leaderboard_devkit::contention::{Fault, faulty_client};
use leaderboard_devkit::emf;
use leaderboard_metrics::Sink;
use leaderboard_store::CloseOptions;
use leaderboard_store::model::Recurrence;
use season_close::{App, handle};
use serde_json::{Value, json};

const BOARDS: [&str; 2] = ["ended-metrics-long", "ended-metrics-short"];

#[tokio::test]
async fn each_run_writes_its_entry_and_its_outcome() {
    let (table, store) = store("metrics_close").await;
    // The long one ended two hours ago and needs three pages of ten; the short one, one.
    ended_board(&store, BOARDS[0], Recurrence::None, 2 * HOUR, 30).await;
    ended_board(&store, BOARDS[1], Recurrence::None, HOUR, 5).await;
    let (sink, recorded) = Sink::recording();
    let pages = |max_pages| CloseOptions {
        page_size: 10,
        max_pages,
        ..CloseOptions::default()
    };
    let invoke = |app: App| async move {
        let event = LambdaEvent::new(json!({}), Context::default());
        handle(&app, event).await.is_ok()
    };

    // One page each: the short board closes, the long one pauses.
    assert!(invoke(App::new(store.clone(), pages(Some(1))).with_metrics(sink.clone())).await);
    // Unlimited: the long one finishes.
    assert!(invoke(App::new(store.clone(), pages(None)).with_metrics(sink.clone())).await);
    // The due boards cannot be listed.
    let (client, _) = faulty_client(&table.endpoint, &["Query"], Fault::Throttled, u64::MAX);
    let failing = App::new(store_over(&table, client), pages(None)).with_metrics(sink.clone());
    assert!(!invoke(failing).await);

    let entries = emf::checked(&recorded.lines(), &BOARDS, "season-close");
    assert_eq!(entries.len(), 6, "two lines per run");
    let runs: Vec<&Value> = entries.iter().skip(1).step_by(2).collect();
    let outcomes: Vec<&str> = runs
        .iter()
        .map(|e| e["Outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["ok", "ok", "failed"]);
    let column = |name: &str| emf::column(&runs[..2], name);
    assert_eq!(column("BoardsDue"), [2, 1]);
    assert_eq!(column("BoardsClosed"), [1, 1]);
    assert_eq!(column("BoardsPaused"), [1, 0]);
    assert_eq!(column("BoardsBusy"), [0, 0]);
    assert_eq!(column("BoardsFailed"), [0, 0]);
    assert_eq!(column("IndexesRepaired"), [0, 0]);
    assert_eq!(column("RepairsFailed"), [0, 0]);
    assert_eq!(emf::column(&runs, "ColdStart"), [1, 0, 0]);
    // The long board, left part-way, ended two hours before the run (which took well under
    // ten minutes); the next run left nothing; the failed run could not say.
    let backlog = column("CloseBacklogAge");
    assert!(
        (2 * HOUR..2 * HOUR + 600_000).contains(&backlog[0]),
        "{backlog:?}"
    );
    assert_eq!(backlog[1], 0);
    assert!(runs[2].get("CloseBacklogAge").is_none(), "{}", runs[2]);
}

#[tokio::test]
async fn a_job_that_fails_is_its_own_outcome_and_the_jobs_after_it_run() {
    let (table, store) = store("metrics_job_failed").await;
    ended_board(&store, BOARDS[1], Recurrence::None, HOUR, 5).await;
    // Every Scan fails: the passes over the table (the rank sweep, the board listing) cannot
    // read a page. No recount was asked for: that job reads its run item and is done.
    let (client, seen) = faulty_client(&table.endpoint, &["Scan"], Fault::ItemConflict, u64::MAX);
    let (sink, recorded) = Sink::recording();
    let app = App::new(store_over(&table, client), CloseOptions::default()).with_metrics(sink);
    let event = LambdaEvent::new(json!({}), Context::default());
    let summary = handle(&app, event).await.unwrap();
    assert!(seen.load(std::sync::atomic::Ordering::SeqCst) > 0);
    let answer = serde_json::to_value(&summary).unwrap();
    assert_eq!(
        answer["close"]["closed"][0]["leaderboardId"], BOARDS[1],
        "{answer}"
    );
    assert_eq!(
        answer["closed"], answer["close"]["closed"],
        "the answer from before"
    );
    assert_eq!(
        answer["rankSweep"]["failed"],
        "DynamoDB Scan(rank layout sweep): TransactionConflictException"
    );
    assert_eq!(
        answer["boardListing"]["failed"],
        "DynamoDB Scan(listing pass): TransactionConflictException"
    );
    assert_eq!(answer["erasures"], json!({"finished": 0}), "{answer}");
    assert_eq!(answer["recount"]["idle"], true, "{answer}");
    assert_eq!(summary.failures(), 2);
    let entries = emf::checked(&recorded.lines(), &BOARDS, "season-close");
    assert_eq!(entries[1]["Outcome"], "partial");
}
