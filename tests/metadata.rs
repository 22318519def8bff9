//! Empty objects and arrays in a play's `metadata` on the local stack, whose real stream poller
//! (DynamoDB Local's stream) stops for good on a record holding an empty map: they are dropped
//! before anything is stored, `metadata: {}` is none, and the projector goes on counting.

use crate::support;

use std::time::{Duration, Instant};

use leaderboard_local::client::ApiClient;
use leaderboard_local::stack::Stack;
use serde_json::{Value, json};

#[tokio::test]
async fn empty_objects_and_arrays_are_dropped_and_the_stream_goes_on() {
    let settings = support::in_process_settings(&[]);
    let stack = Stack::start(settings).await.unwrap();
    let api = ApiClient::new(stack.api_addr());
    let now = chrono::Utc::now().timestamp();
    let admin = stack.key().token_for("ops", &["admin"], now, 3600);
    let board = json!({"leaderboardId": "meta", "name": "Meta", "order": "desc",
                       "operator": "best", "gameId": "g",
                       "endsAt": "2099-01-01T00:00:00Z"});
    let created = api
        .post("/leaderboards", Some(&admin), &board)
        .await
        .unwrap();
    assert_eq!(created.status, 201, "{:?}", created.body);
    let plays: [(&str, Value, Option<Value>); 3] = [
        ("p1", json!({}), None),
        (
            "p2",
            json!({"a": {}, "b": [], "c": [{}, 1]}),
            Some(json!({"c": [1]})),
        ),
        ("p3", json!({"deck": {"cards": []}}), None),
    ];
    for (player, metadata, _) in &plays {
        let token = stack.key().token_for(player, &[], now, 3600);
        let body = json!({"score": 10, "metadata": metadata});
        let r = api
            .post("/leaderboards/meta/scores", Some(&token), &body)
            .await
            .unwrap();
        assert_eq!(r.status, 200, "{player}: {:?}", r.body);
    }
    let top = api.get("/leaderboards/meta/scores?limit=10").await.unwrap();
    for (player, _, kept) in &plays {
        let entry = top.body["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["playerId"] == *player)
            .unwrap_or_else(|| panic!("{player} in {}", top.body));
        assert_eq!(entry.get("metadata"), kept.as_ref(), "{player}: {entry}");
    }
    // The projector still counts: every player's one play, within the poller's pace.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut counted = 0;
        for (player, _, _) in &plays {
            let p = api.get(&format!("/players/{player}")).await.unwrap();
            counted += p.body["gamesPlayed"].as_u64().unwrap_or(0);
        }
        if counted == 3 {
            break;
        }
        assert!(Instant::now() < deadline, "counted {counted} of 3 plays");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    stack.stop().await;
}
