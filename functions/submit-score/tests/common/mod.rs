//! What the submit-score tests share: the open boards they play on, and the requests they post.
#![allow(dead_code)]

use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::Store;
use leaderboard_store::model::{NewBoard, Operator, Recurrence};
use serde_json::{Value, json};

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

/// An open board `id` that started an hour ago and ends in a day.
pub async fn open_board(store: &Store, id: &str, order: Order, operator: Operator, max_score: u64) {
    let now = Timestamp::now();
    store
        .create_board(
            NewBoard {
                leaderboard_id: BoardId::parse(id).unwrap(),
                name: id.to_owned(),
                order,
                operator,
                max_score,
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
}
