//! A play under contention DynamoDB Local never raises (every transaction cancelled by a
//! conflicting one, injected by the devkit's contended client): the handler keeps retrying
//! within the invocation's time budget, then answers the contract's 503 `unavailable` with
//! `Retry-After` before the deadline, and nothing is written. And a play whose write committed
//! but whose answer came too late: 503 in time, and its repeat answers what committed.

use crate::common;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime};

use lambda_http::{Context, RequestExt};
use leaderboard_devkit::contention::{Fault, faulty_client, slow_client};
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::Operator;
use leaderboard_store::{Config, Store, new_session_id};
use serde_json::{Value, json};
use submit_score::{App, handle};

const SESSIONS: &str = include_str!("../../../events/submit-score/post-sessions.json");

/// How far ahead the invocation's deadline is: room enough for a play's reads before its
/// transaction on a busy machine. The tests assert what the budget cut off (a request held
/// past the deadline, or retried for ever, answered all the same), never how long it took:
/// that is machine speed.
const DEADLINE_IN: Duration = Duration::from_secs(4);

/// The store's configuration for `table`.
fn config(table: &TestTable) -> Config {
    Config {
        table_name: table.name.clone(),
        cursor_secret: b"t".to_vec(),
    }
}

/// The board `busy`, open from an hour ago to a day ahead.
async fn busy_board(table: &TestTable, config: &Config) {
    let store = Store::new(table.client.clone(), config);
    common::open_board(&store, "busy", Order::Desc, Operator::Best, 1_000).await;
}

/// `POST /sessions` with `play`, in an invocation whose deadline is `deadline`.
fn play_request(play: &Value, deadline: SystemTime) -> lambda_http::Request {
    let mut event: Value = serde_json::from_str(SESSIONS).unwrap();
    event["body"] = json!(play.to_string());
    let mut context = Context::default();
    context.deadline = deadline
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    lambda_http::request::from_str(&event.to_string())
        .unwrap()
        .with_lambda_context(context)
}

#[tokio::test]
async fn a_play_under_contention_answers_503_before_the_deadline_and_writes_nothing() {
    let table = TestTable::without_stream("budget_submit").await;
    let config = config(&table);
    busy_board(&table, &config).await;
    let (client, transactions) = faulty_client(
        &table.endpoint,
        &["TransactWriteItems"],
        Fault::Conflict,
        u64::MAX,
    );
    let app = App::new(Store::new(client, &config));

    let play = json!({"score": 5, "gameId": "tetris", "leaderboardIds": ["busy"]});
    let deadline = SystemTime::now() + DEADLINE_IN;
    let req = play_request(&play, deadline);

    let before = table.dump().await;
    let started = Instant::now();
    let resp = handle(&app, req).await.unwrap();
    let answered = SystemTime::now();
    assert_eq!(resp.status(), 503);
    assert_eq!(resp.headers()["retry-after"], "1");
    let body: Value = serde_json::from_slice(resp.body().as_ref()).unwrap();
    assert_eq!(body["error"]["code"], "unavailable", "{body}");
    // The answer names the session id the server chose, for the client's retry.
    let chosen = body["error"]["sessionId"].as_str().unwrap_or_default();
    assert!(
        leaderboard_keys::ids::SessionId::parse(chosen, Timestamp::now().as_millis()).is_ok(),
        "{body}"
    );
    // It kept trying until the budget ran out (every transaction conflicts for ever: that it
    // answered at all is the budget cutting it off).
    assert!(transactions.load(Ordering::SeqCst) >= 2);
    eprintln!(
        "answered after {:?}, {:?} before the deadline",
        started.elapsed(),
        deadline.duration_since(answered).unwrap_or_default()
    );
    assert_eq!(
        table.dump().await,
        before,
        "a play that was not accepted wrote"
    );
}

#[tokio::test]
async fn a_play_whose_answer_comes_too_late_is_503_and_its_repeat_answers_what_committed() {
    let table = TestTable::without_stream("budget_slow").await;
    let config = config(&table);
    busy_board(&table, &config).await;
    // The transaction is applied at once; its answer arrives after the deadline.
    let slow = slow_client(&table.endpoint, &["TransactWriteItems"], DEADLINE_IN * 2);
    let session = new_session_id(Timestamp::now()).unwrap().to_string();
    let play =
        json!({"score": 5, "gameId": "tetris", "leaderboardIds": ["busy"], "sessionId": session});
    let deadline = SystemTime::now() + DEADLINE_IN;
    let resp = handle(
        &App::new(Store::new(slow, &config)),
        play_request(&play, deadline),
    )
    .await
    .unwrap();
    assert_eq!(resp.status(), 503);
    assert_eq!(resp.headers()["retry-after"], "1");
    let body: Value = serde_json::from_slice(resp.body().as_ref()).unwrap();
    assert_eq!(body["error"]["sessionId"], json!(session), "{body}");

    // The play committed all the same; the client's retry with its sessionId answers it, as a
    // duplicate, and writes nothing.
    let committed = table.dump().await;
    let session_key = format!("SESSION#{session}");
    assert!(
        committed
            .iter()
            .any(|i| leaderboard_devkit::testing::s(i, "sk") == Some(session_key.as_str()))
    );
    let retry = handle(
        &App::new(Store::new(table.client.clone(), &config)),
        play_request(&play, SystemTime::now() + DEADLINE_IN),
    )
    .await
    .unwrap();
    assert_eq!(retry.status(), 200);
    let answer: Value = serde_json::from_slice(retry.body().as_ref()).unwrap();
    assert_eq!(answer["duplicate"], true, "{answer}");
    assert_eq!(answer["sessionId"], json!(session), "{answer}");
    let result = &answer["results"][0];
    assert_eq!(
        (&result["best"], &result["improved"], &result["rank"]),
        (&json!(5), &json!(true), &json!(1)),
        "{answer}"
    );
    assert_eq!(table.dump().await, committed, "the repeat wrote");
}

/// The items of the table that are Sessions.
fn sessions(items: &[leaderboard_devkit::testing::RawItem]) -> usize {
    items
        .iter()
        .filter(|i| {
            leaderboard_devkit::testing::s(i, "sk").is_some_and(|sk| sk.starts_with("SESSION#"))
        })
        .count()
}

#[tokio::test]
async fn a_play_whose_rank_reads_fail_after_the_commit_is_200_and_its_retry_a_duplicate() {
    let table = TestTable::without_stream("budget_ranks").await;
    let config = config(&table);
    busy_board(&table, &config).await;
    let store = Store::new(table.client.clone(), &config);
    common::open_board(&store, "second", Order::Asc, Operator::Increment, 1_000).await;
    // Every rank's reads of the lanes and counts (all Queries) are throttled, retries included
    // (each rank reads one or the other): the play's transaction is not, so it commits and only
    // its ranks fail.
    let (client, rank_reads) =
        faulty_client(&table.endpoint, &["Query"], Fault::Throttled, u64::MAX);
    let play = json!({"score": 5, "gameId": "tetris", "leaderboardIds": ["busy", "second"]});
    let resp = handle(
        &App::new(Store::new(client, &config)),
        play_request(&play, SystemTime::now() + DEADLINE_IN * 3),
    )
    .await
    .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(
        rank_reads.load(Ordering::SeqCst) >= 1,
        "no rank read was tried"
    );
    let answer: Value = serde_json::from_slice(resp.body().as_ref()).unwrap();
    assert_eq!(answer["duplicate"], false, "{answer}");
    for result in answer["results"].as_array().unwrap() {
        // Written, its rank unknown: absent, and said not to be exact.
        assert_eq!(result["best"], 5, "{answer}");
        assert_eq!(result["improved"], true, "{answer}");
        assert_eq!(result.get("rank"), None, "{answer}");
        assert_eq!(result["rankExact"], false, "{answer}");
    }
    let session = answer["sessionId"].as_str().unwrap().to_owned();
    let committed = table.dump().await;
    assert_eq!(sessions(&committed), 1);

    // The client's retry with that sessionId is the same play: a duplicate that reads the
    // ranks now and writes nothing (so no entry, lifetimeScore or gamesPlayed counts it twice).
    let retry = json!({"score": 5, "gameId": "tetris", "leaderboardIds": ["busy", "second"], "sessionId": session});
    let resp = handle(
        &App::new(Store::new(table.client.clone(), &config)),
        play_request(&retry, SystemTime::now() + DEADLINE_IN),
    )
    .await
    .unwrap();
    assert_eq!(resp.status(), 200);
    let answer: Value = serde_json::from_slice(resp.body().as_ref()).unwrap();
    assert_eq!(answer["duplicate"], true, "{answer}");
    for result in answer["results"].as_array().unwrap() {
        assert_eq!(
            (&result["best"], &result["rank"], &result["rankExact"]),
            (&json!(5), &json!(1), &json!(true)),
            "{answer}"
        );
    }
    assert_eq!(table.dump().await, committed, "the retry wrote");
}

#[tokio::test]
async fn a_play_whose_budget_ends_after_the_commit_is_200() {
    let table = TestTable::without_stream("budget_late_ranks").await;
    let config = config(&table);
    busy_board(&table, &config).await;
    // The rank's reads of the lanes and counts (all Queries) answer only after the deadline.
    let slow = slow_client(&table.endpoint, &["Query"], DEADLINE_IN * 2);
    let play = json!({"score": 7, "gameId": "tetris", "leaderboardIds": ["busy"]});
    let deadline = SystemTime::now() + DEADLINE_IN;
    let req = play_request(&play, deadline);
    let resp = handle(&App::new(Store::new(slow, &config)), req)
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let answer: Value = serde_json::from_slice(resp.body().as_ref()).unwrap();
    let result = &answer["results"][0];
    assert_eq!(result["best"], 7, "{answer}");
    assert_eq!(result.get("rank"), None, "{answer}");
    assert_eq!(result["rankExact"], false, "{answer}");
    assert_eq!(sessions(&table.dump().await), 1);
}
