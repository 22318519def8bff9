//! Plays on a board with tiebreak columns, through the handler on DynamoDB Local: `subscores`
//! taken and kept on the entry and the session, a better tuple replaces a `best` entry and a
//! worse one does not, and every malformed, missing, unknown or out-of-range value is refused
//! with its code and writes nothing on any board.

use crate::common;

use leaderboard_devkit::testing::{RawItem, s};
use leaderboard_keys::columns::Column;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{NewBoard, Operator};
use serde_json::{Value, json};

use common::{Harness, harness, new_board, request};

/// A harness with `race` (points, then the shorter time of at most 99,999 ms) and `plain`.
async fn race() -> Harness {
    let h = harness("columns").await;
    let new = NewBoard {
        columns: vec![Column::new("time", Order::Asc, 99_999).unwrap()],
        ..new_board("race", Order::Desc, Operator::Best, 1000)
    };
    h.store
        .boards()
        .create_board(new, Timestamp::now())
        .await
        .unwrap();
    h.board("plain", Order::Desc, Operator::Best, 1000).await;
    h
}

/// The number under `name` in the map attribute `subscores` of a raw item.
fn subscore(item: &RawItem, name: &str) -> Option<String> {
    let map = item.get("subscores")?.as_m().ok()?;
    map.get(name)?.as_n().ok().cloned()
}

fn race_play(subscores: Value) -> Value {
    json!({"score": 5, "gameId": "g", "leaderboardIds": ["race"], "subscores": subscores})
}

#[tokio::test]
async fn bad_subscores_are_refused_with_their_code_and_write_nothing() {
    let h = race().await;
    let before = h.table.dump().await;
    let both = json!({"score": 5, "gameId": "g", "leaderboardIds": ["race", "plain"],
                      "subscores": {"time": 5, "laps": 3}});
    let cases = [
        (race_play(json!("fast")), "invalid_request"),
        (race_play(json!([5])), "invalid_request"),
        (race_play(json!({"time": "5"})), "invalid_request"),
        (race_play(json!({"time": 5.5})), "invalid_request"),
        (race_play(json!({})), "invalid_request"),
        (race_play(json!({"time": 5, "laps": 3})), "invalid_request"),
        (race_play(json!({"time": -1})), "score_out_of_range"),
        (race_play(json!({"time": 100_000})), "score_out_of_range"),
        (race_play(json!({"time": 1e20})), "score_out_of_range"),
        (
            json!({"score": 5, "gameId": "g", "leaderboardIds": ["race"]}),
            "invalid_request",
        ),
        // all or nothing: a value neither board ranks by
        (both, "invalid_request"),
    ];
    for (body, code) in cases {
        let (status, resp) = h.post("p1", body.clone()).await;
        assert_eq!(
            (status, resp["error"]["code"].as_str()),
            (400, Some(code)),
            "{body} -> {resp}"
        );
        assert_eq!(h.table.dump().await, before, "{body} wrote something");
    }
}

#[tokio::test]
async fn a_best_entry_takes_the_better_tuple_and_shows_its_subscores() {
    let h = race().await;
    let (status, first) = h.post("p1", race_play(json!({"time": 50_000}))).await;
    assert_eq!(
        (status, first["results"][0]["improved"].as_bool()),
        (200, Some(true))
    );
    // the same score in a longer time does not replace it; in a shorter time it does
    let (_, slower) = h.post("p1", race_play(json!({"time": 60_000}))).await;
    assert_eq!(slower["results"][0]["improved"], json!(false), "{slower}");
    let path = "/leaderboards/race/scores";
    let body = json!({"score": 5, "gameId": "g", "subscores": {"time": 40_000}}).to_string();
    let (status, faster) = h.call(request(path, Some("p1"), &body)).await;
    assert_eq!(
        (status, faster["improved"].as_bool()),
        (200, Some(true)),
        "{faster}"
    );
    // the Score item keeps the tuple in its key and its values by name
    let items = h.score_items().await;
    assert_eq!(items.len(), 1);
    let sk = s(&items[0], "sk").unwrap();
    assert!(sk.starts_with("SCORE#0005#59999#"), "{sk}");
    assert_eq!(subscore(&items[0], "time").as_deref(), Some("40000"));
    // and each session its play's values
    let mut times: Vec<_> = h
        .session_items()
        .await
        .iter()
        .filter_map(|i| subscore(i, "time"))
        .collect();
    times.sort();
    assert_eq!(times, ["40000", "50000", "60000"]);
}
