//! Creating and reading boards through the API handler on DynamoDB Local: a body field the
//! board does not know is refused, naming it, with nothing written.

mod common;

use serde_json::json;

use common::*;

#[tokio::test]
async fn a_board_with_a_field_it_does_not_know_is_refused_naming_it() {
    let h = harness("api_board_fields").await;
    let before = h.table.dump().await;
    for (field, value) in [
        ("maxscore", json!(100)),
        ("minScore", json!(10)),
        ("writeShard", json!(4)),
        ("status", json!("closed")),
        ("playerCount", json!(7)),
    ] {
        let mut body = json!({"leaderboardId": "typo", "name": "Typo", "maxScore": 1_000});
        body[field] = value;
        let (status, resp) = h
            .call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
            .await;
        assert_eq!((status, code(&resp)), (400, "invalid_request"), "{body}");
        let message = resp["error"]["message"].as_str().unwrap();
        assert!(message.contains(&format!("`{field}`")), "{message}");
        assert_eq!(h.table.dump().await, before, "{body} wrote something");
    }
    // Spelled right, the same board is made.
    let body = json!({"leaderboardId": "typo", "name": "Typo", "maxScore": 1_000});
    let (status, board) = h
        .call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
        .await;
    assert_eq!(
        (status, &board["maxScore"]),
        (201, &json!(1_000)),
        "{board}"
    );
}
