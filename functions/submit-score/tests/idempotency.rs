//! Safe retries through the handler on DynamoDB Local: a play repeated with its `sessionId` or
//! its `Idempotency-Key` (in sequence and concurrently) has one effect and is answered with the
//! first outcome; the same id or key reused for another play is 409 `idempotency_mismatch` and
//! writes nothing; a malformed key is 400 and writes nothing.

use crate::common;

use std::collections::HashMap;

use lambda_http::Request;
use leaderboard_devkit::testing::s;
use leaderboard_keys::rank::Order;
use leaderboard_store::model::Operator;
use serde_json::{Value, json};

use common::{Harness, harness, num, request};

/// `POST /sessions` by `sub` with `body` and the header `Idempotency-Key: key`.
fn keyed(sub: &str, key: &str, body: &Value) -> Request {
    let mut req = request("/sessions", Some(sub), &body.to_string());
    req.headers_mut()
        .insert("idempotency-key", key.parse().unwrap());
    req
}

/// Racing copies of one play: every answer 200, exactly one not a duplicate, and all alike in
/// `field`.
fn one_wrote_all_alike(answers: &[(u16, Value)], field: &str) {
    assert!(answers.iter().all(|(st, _)| *st == 200), "{answers:?}");
    let wrote = answers.iter().filter(|(_, b)| b["duplicate"] == false);
    assert_eq!(wrote.count(), 1, "{answers:?}");
    assert!(
        answers.iter().all(|(_, b)| b[field] == answers[0].1[field]),
        "{answers:?}"
    );
}

/// The `score` of the player's entry pointer on `board`.
async fn entry_score(h: &Harness, player: &str, board: &str) -> u64 {
    let pointer = h
        .table
        .raw(&format!("PLAYER#{player}"), &format!("ENTRY#{board}"))
        .await
        .unwrap();
    num(&pointer, "score")
}

#[tokio::test]
async fn a_repeated_session_id_has_one_effect_sequential_and_concurrent() {
    let h = harness("duplicates").await;
    h.board("sum", Order::Desc, Operator::Increment, 1_000_000)
        .await;
    h.board("best", Order::Desc, Operator::Best, 1_000_000)
        .await;
    // Sequential: the repeat gets the first outcome (the boards in another order are the same
    // play).
    let id = "01JDAW6K2Z8Q4T1V5X7Y9B3C5D";
    let (s1, first) = h
        .post(
            "p1",
            json!({"score": 10, "gameId": "g", "leaderboardIds": ["sum", "best"], "sessionId": id}),
        )
        .await;
    let (s2, again) = h
        .post(
            "p1",
            json!({"score": 10, "gameId": "g", "leaderboardIds": ["best", "sum"], "sessionId": id}),
        )
        .await;
    assert_eq!((s1, s2), (200, 200));
    assert_eq!(first["duplicate"], false);
    assert_eq!(again["duplicate"], true);
    assert_eq!(again["results"], first["results"]);
    assert_eq!(again["score"], 10);
    // The same id of another player is another session.
    let (_, other) = h
        .post(
            "p2",
            json!({"score": 3, "gameId": "g", "leaderboardIds": ["sum"], "sessionId": id}),
        )
        .await;
    assert_eq!(other["duplicate"], false);

    // Concurrent: 16 copies of one request race; one wins, all answer alike, one effect.
    let id2 = "01JDAW6K2Z8Q4T1V5X7Y9B3C5E";
    let body =
        json!({"score": 7, "gameId": "g", "leaderboardIds": ["sum", "best"], "sessionId": id2});
    let answers: Vec<(u16, Value)> =
        futures::future::join_all((0..16).map(|_| h.post("p1", body.clone()))).await;
    one_wrote_all_alike(&answers, "results");
    let sessions: HashMap<String, u64> = h
        .session_items()
        .await
        .iter()
        .map(|i| {
            (
                format!("{}{}", s(i, "pk").unwrap(), s(i, "sk").unwrap()),
                num(i, "score"),
            )
        })
        .collect();
    assert_eq!(sessions.len(), 3);
    let sum = h.table.raw("PLAYER#p1", "ENTRY#sum").await.unwrap();
    assert_eq!(
        num(&sum, "score"),
        17,
        "the increment board counted each session once"
    );
    let scores = h.score_items().await;
    assert_eq!(scores.len(), 3); // p1 on sum and best, p2 on sum
}

#[tokio::test]
async fn a_session_id_reused_for_another_play_is_409_and_writes_nothing() {
    let h = harness("session_mismatch").await;
    h.board("sum", Order::Desc, Operator::Increment, 1_000_000)
        .await;
    h.board("best", Order::Desc, Operator::Best, 1_000_000)
        .await;
    let id = "01JDAW6K2Z8Q4T1V5X7Y9B3C6A";
    let first = json!({"score": 10, "gameId": "g", "leaderboardIds": ["sum", "best"], "sessionId": id, "metadata": {"car": "red"}});
    assert_eq!(h.post("p1", first.clone()).await.0, 200);
    let before = h.table.dump().await;
    let change = |field: &str, value: Value| {
        let mut body = first.clone();
        body[field] = value;
        body
    };
    for body in [
        change("score", json!(99)),
        change("leaderboardIds", json!(["sum"])),
        change("metadata", json!({"car": "blue"})),
        change("metadata", Value::Null),
        change("gameId", json!("other")),
    ] {
        let (status, answer) = h.post("p1", body.clone()).await;
        assert_eq!(status, 409, "{body} -> {answer}");
        assert_eq!(answer["error"]["code"], "idempotency_mismatch", "{answer}");
        assert_eq!(answer["error"]["sessionId"], id, "{answer}");
        assert_eq!(h.table.dump().await, before, "{body} wrote");
    }
    // The shorthand on one of the boards is another play too.
    let shorthand =
        json!({"score": 10, "gameId": "g", "sessionId": id, "metadata": {"car": "red"}});
    let (status, answer) = h
        .call(request(
            "/leaderboards/sum/scores",
            Some("p1"),
            &shorthand.to_string(),
        ))
        .await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (409, &json!("idempotency_mismatch"))
    );
    assert_eq!(h.table.dump().await, before);
    assert_eq!(entry_score(&h, "p1", "sum").await, 10);
}

#[tokio::test]
async fn an_idempotency_key_retried_records_one_play_in_sequence_and_concurrently() {
    let h = harness("idempotency_key").await;
    h.board("sum", Order::Desc, Operator::Increment, 1_000_000)
        .await;
    // In sequence: a UUID key, no sessionId. The retry is the first play, under its id.
    let key = "550e8400-e29b-41d4-a716-446655440000";
    let body = json!({"score": 7, "gameId": "g", "leaderboardIds": ["sum"]});
    let (s1, first) = h.call(keyed("p1", key, &body)).await;
    assert_eq!((s1, &first["duplicate"]), (200, &json!(false)), "{first}");
    let recorded = h.table.dump().await;
    let (s2, again) = h.call(keyed("p1", key, &body)).await;
    assert_eq!((s2, &again["duplicate"]), (200, &json!(true)), "{again}");
    assert_eq!(again["sessionId"], first["sessionId"]);
    assert_eq!(again["results"], first["results"]);
    assert_eq!(h.table.dump().await, recorded, "the retry wrote");
    // The key item names the session, and expires.
    let item = h
        .table
        .raw("PLAYER#p1", &format!("IDEMPOTENCY#{key}"))
        .await
        .unwrap();
    assert_eq!(s(&item, "sessionId"), first["sessionId"].as_str());
    assert!(num(&item, "ttl") > 0);
    // The same key of another player is another play.
    let (_, other) = h.call(keyed("p2", key, &body)).await;
    assert_eq!(other["duplicate"], false);

    // Concurrently: 16 copies of one keyed request race; one writes, all answer its session.
    let key = "retry #2 of play 9";
    let answers: Vec<(u16, Value)> =
        futures::future::join_all((0..16).map(|_| h.call(keyed("p1", key, &body)))).await;
    one_wrote_all_alike(&answers, "sessionId");
    assert_eq!(
        h.session_items()
            .await
            .iter()
            .filter(|i| s(i, "pk") == Some("PLAYER#p1"))
            .count(),
        2
    );
    assert_eq!(
        entry_score(&h, "p1", "sum").await,
        14,
        "the increment counted each play once"
    );

    // Reused with another score: 409, nothing written, the first play's id named.
    let before = h.table.dump().await;
    let (status, answer) = h
        .call(keyed(
            "p1",
            key,
            &json!({"score": 8, "gameId": "g", "leaderboardIds": ["sum"]}),
        ))
        .await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (409, &json!("idempotency_mismatch")),
        "{answer}"
    );
    let first_of_key = answers[0].1["sessionId"].clone();
    assert_eq!(answer["error"]["sessionId"], first_of_key, "{answer}");
    assert_eq!(h.table.dump().await, before);

    // Reused with another sessionId of the client's: two plays confused, 409, nothing written.
    let key = "play 10";
    let chosen = |n: u128| {
        leaderboard_keys::ids::SessionId::from_parts(
            leaderboard_keys::time::Timestamp::now().as_millis(),
            n,
        )
        .unwrap()
        .to_string()
    };
    let (first_id, second_id) = (chosen(1), chosen(2));
    let with_id =
        |id: &str| json!({"score": 7, "gameId": "g", "leaderboardIds": ["sum"], "sessionId": id});
    let (status, first) = h.call(keyed("p1", key, &with_id(&first_id))).await;
    assert_eq!(
        (status, &first["sessionId"]),
        (200, &json!(first_id)),
        "{first}"
    );
    let before = h.table.dump().await;
    let (status, answer) = h.call(keyed("p1", key, &with_id(&second_id))).await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (409, &json!("idempotency_mismatch")),
        "{answer}"
    );
    assert_eq!(answer["error"]["sessionId"], json!(first_id), "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("sessionId"),
        "{answer}"
    );
    assert_eq!(h.table.dump().await, before, "the mismatch wrote");
    // while the same key with the first id, or with none (the server's), is the first play
    for body in [
        with_id(&first_id),
        json!({"score": 7, "gameId": "g", "leaderboardIds": ["sum"]}),
    ] {
        let (status, again) = h.call(keyed("p1", key, &body)).await;
        assert_eq!(
            (status, &again["duplicate"]),
            (200, &json!(true)),
            "{again}"
        );
        assert_eq!(again["sessionId"], json!(first_id));
    }
    assert_eq!(h.table.dump().await, before);
}

#[tokio::test]
async fn a_malformed_idempotency_key_is_400_and_writes_nothing() {
    let h = harness("idempotency_bad").await;
    h.board("sum", Order::Desc, Operator::Increment, 1_000_000)
        .await;
    let body = json!({"score": 7, "gameId": "g", "leaderboardIds": ["sum"]});
    let before = h.table.dump().await;
    for key in ["k".repeat(65), String::new(), "  ".into()] {
        let (status, answer) = h.call(keyed("p1", &key, &body)).await;
        assert_eq!(
            (status, &answer["error"]["code"]),
            (400, &json!("invalid_request")),
            "{key:?}: {answer}"
        );
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("Idempotency-Key"),
            "{answer}"
        );
        assert!(answer["error"]["sessionId"].is_string(), "{answer}");
    }
    // Bytes outside ASCII cannot be read as a key.
    let mut req = request("/sessions", Some("p1"), &body.to_string());
    req.headers_mut().insert(
        "idempotency-key",
        lambda_http::http::HeaderValue::from_bytes(b"cl\xc3\xa9").unwrap(),
    );
    let (status, answer) = h.call(req).await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (400, &json!("invalid_request")),
        "{answer}"
    );
    assert_eq!(h.table.dump().await, before);
}
