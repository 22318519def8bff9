//! A play under contention DynamoDB Local never raises (every transaction cancelled by a
//! conflicting one, injected by the devkit's contended client): the handler keeps retrying
//! within the invocation's time budget, then answers the contract's 503 `unavailable` with
//! `Retry-After` before the deadline, and nothing is written.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime};

use lambda_http::{Context, RequestExt};
use leaderboard_devkit::contention::{Fault, faulty_client};
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{NewBoard, Operator, Recurrence};
use leaderboard_store::{Config, Store};
use serde_json::{Value, json};
use submit_score::{App, handle};

const SESSIONS: &str = include_str!("../../../events/submit-score/post-sessions.json");

/// How far ahead the invocation's deadline is.
const DEADLINE_IN: Duration = Duration::from_secs(2);

#[tokio::test]
async fn a_play_under_contention_answers_503_before_the_deadline_and_writes_nothing() {
    let table = TestTable::without_stream("budget_submit").await;
    let config = Config {
        table_name: table.name.clone(),
        cursor_secret: b"t".to_vec(),
    };
    let now = Timestamp::now();
    Store::new(table.client.clone(), &config)
        .create_board(
            NewBoard {
                leaderboard_id: BoardId::parse("busy").unwrap(),
                name: "busy".into(),
                order: Order::Desc,
                operator: Operator::Best,
                max_score: 1_000,
                starts_at: Some(Timestamp::from_millis(now.as_millis() - 3_600_000).unwrap()),
                ends_at: Some(now.plus_millis(86_400_000)),
                recurrence: Recurrence::None,
                game_id: None,
                rank_layout: Default::default(),
            },
            now,
        )
        .await
        .unwrap();
    let (client, transactions) = faulty_client(
        &table.endpoint,
        &["TransactWriteItems"],
        Fault::Conflict,
        u64::MAX,
    );
    let app = App::new(Store::new(client, &config));

    let mut event: Value = serde_json::from_str(SESSIONS).unwrap();
    let play = json!({"score": 5, "gameId": "tetris", "leaderboardIds": ["busy"]});
    event["body"] = json!(play.to_string());
    let mut context = Context::default();
    let deadline = SystemTime::now() + DEADLINE_IN;
    context.deadline = deadline
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let req = lambda_http::request::from_str(&event.to_string())
        .unwrap()
        .with_lambda_context(context);

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
