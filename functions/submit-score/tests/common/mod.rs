//! What the submit-score tests share: the open boards they play on, the requests they post, and
//! the harness that calls the handler over DynamoDB Local.
#![allow(dead_code)]

use std::sync::Arc;

use lambda_http::{Context, Request, RequestExt};
use leaderboard_devkit::testing::{RawItem, TestTable, n, s};
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{NewBoard, Operator, Recurrence};
use leaderboard_store::{Config, Store};
use serde_json::{Value, json};
use submit_score::{App, handle};

/// The sample `POST /sessions` event.
pub const SESSIONS: &str = include_str!("../../../../events/submit-score/post-sessions.json");

/// The sample event, posted to `path` with `body`, by the player `sub` (no authorizer without).
pub fn request(path: &str, sub: Option<&str>, body: &str) -> lambda_http::Request {
    let mut e: Value = serde_json::from_str(SESSIONS).unwrap();
    e["rawPath"] = json!(path);
    e["requestContext"]["http"]["path"] = json!(path);
    e["body"] = json!(body);
    match sub {
        Some(sub) => e["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = json!(sub),
        None => {
            e["requestContext"]
                .as_object_mut()
                .unwrap()
                .remove("authorizer");
        }
    }
    lambda_http::request::from_str(&e.to_string()).unwrap()
}

/// A board `id` open from an hour ago to a day ahead, with no game: for a test to adjust.
pub fn new_board(id: &str, order: Order, operator: Operator, max_score: u64) -> NewBoard {
    let now = Timestamp::now();
    NewBoard {
        order,
        operator,
        max_score,
        starts_at: Some(Timestamp::from_millis(now.as_millis() - 3_600_000).unwrap()),
        ends_at: Some(now.plus_millis(86_400_000)),
        recurrence: Recurrence::None,
        ..NewBoard::named(BoardId::parse(id).unwrap(), id.to_owned())
    }
}

/// An open board `id` that started an hour ago and ends in a day.
pub async fn open_board(store: &Store, id: &str, order: Order, operator: Operator, max_score: u64) {
    let new = new_board(id, order, operator, max_score);
    store
        .boards()
        .create_board(new, Timestamp::now())
        .await
        .unwrap();
}

/// A table, a store over it, and the function over the store.
pub struct Harness {
    pub table: TestTable,
    pub store: Store,
    pub app: Arc<App>,
}

/// The harness over a new table (no stream) named after `label`.
pub async fn harness(label: &str) -> Harness {
    // No test here reads the stream; see TestTable::without_stream.
    let table = TestTable::without_stream(label).await;
    let store = Store::new(
        table.client.clone(),
        &Config {
            table_name: table.name.clone(),
            cursor_secret: b"t".to_vec(),
        },
    );
    let app = Arc::new(App::new(store.clone()));
    Harness { table, store, app }
}

impl Harness {
    /// An open board that started an hour ago and ends in a day.
    pub async fn board(&self, id: &str, order: Order, operator: Operator, max_score: u64) {
        open_board(&self.store, id, order, operator, max_score).await;
    }

    /// Calls the handler with `req`: its status and JSON body.
    pub async fn call(&self, req: Request) -> (u16, Value) {
        let (status, _, body) = self.call_with_headers(req).await;
        (status, body)
    }

    /// The same, with the answer's headers.
    pub async fn call_with_headers(
        &self,
        req: Request,
    ) -> (u16, lambda_http::http::HeaderMap, Value) {
        // These tests are about what a play writes, under any concurrency: the invocation gets
        // a deadline far enough that the machine's speed never decides the answer (the time
        // budget has its own tests, in budget.rs).
        let mut context = Context::default();
        context.deadline = Timestamp::now().as_millis() + 600_000;
        let resp = handle(&self.app, req.with_lambda_context(context))
            .await
            .unwrap();
        let status = resp.status().as_u16();
        let body: Value = serde_json::from_slice(resp.body().as_ref()).unwrap_or(Value::Null);
        (status, resp.headers().clone(), body)
    }

    /// `POST /sessions` by `sub` with `body`.
    pub async fn post(&self, sub: &str, body: Value) -> (u16, Value) {
        self.call(request("/sessions", Some(sub), &body.to_string()))
            .await
    }

    /// The Score items of the table.
    pub async fn score_items(&self) -> Vec<RawItem> {
        self.table
            .dump()
            .await
            .into_iter()
            .filter(|i| s(i, "sk").is_some_and(|k| k.starts_with("SCORE#")))
            .collect()
    }

    /// The Session items of the table.
    pub async fn session_items(&self) -> Vec<RawItem> {
        self.table
            .dump()
            .await
            .into_iter()
            .filter(|i| s(i, "sk").is_some_and(|k| k.starts_with("SESSION#")))
            .collect()
    }
}

/// A number attribute of a raw item.
pub fn num(item: &RawItem, attr: &str) -> u64 {
    n(item, attr).unwrap().parse().unwrap()
}
