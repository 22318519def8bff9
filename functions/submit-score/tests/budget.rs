//! A play under contention DynamoDB Local never raises (every transaction cancelled by a
//! conflicting one, injected by the devkit's contended client): the handler keeps retrying
//! within the invocation's time budget, then answers the contract's 503 `unavailable` with
//! `Retry-After` before the deadline, and nothing is written. And a play whose write committed
//! but whose answer came too late: 503 in time, and its repeat answers what committed.

mod common;

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

/// How far ahead the invocation's deadline is.
const DEADLINE_IN: Duration = Duration::from_secs(2);

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
    let config = Config {
        table_name: table.name.clone(),
        cursor_secret: b"t".to_vec(),
    };
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
    // It kept trying until the budget ran out, and answered before the deadline.
    assert!(transactions.load(Ordering::SeqCst) >= 2);
    assert!(
        answered < deadline,
        "answered {:?} after",
        started.elapsed()
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
    let config = Config {
        table_name: table.name.clone(),
        cursor_secret: b"t".to_vec(),
    };
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
    assert!(SystemTime::now() < deadline, "answered after the deadline");
    assert_eq!(resp.status(), 503);
    assert_eq!(resp.headers()["retry-after"], "1");

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
