//! submit-score against DynamoDB Local, through the handler, with API Gateway v2 events built
//! from the fixtures in `events/submit-score/`.

use crate::common;

use std::collections::BTreeMap;

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use leaderboard_devkit::testing::s;
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank::Order;
use leaderboard_store::model::Operator;
use rand::Rng;
use serde_json::{Value, json};

use common::{SESSIONS, harness, num};

const WITH_ID: &str =
    include_str!("../../../events/submit-score/post-sessions-with-session-id.json");
const BOARD_SCORES: &str = include_str!("../../../events/submit-score/post-board-scores.json");
const NO_CLAIMS: &str = include_str!("../../../events/submit-score/post-sessions-no-claims.json");

#[tokio::test]
async fn the_sample_events_work() {
    let h = harness("fixtures").await;
    for b in ["season_3", "daily_2026-11-21", "weekly_2026-w47"] {
        h.board(b, Order::Desc, Operator::Best, 9_999_999_999).await;
    }
    let (status, body) = h
        .call(lambda_http::request::from_str(SESSIONS).unwrap())
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["playerId"], "p_alice");
    assert_eq!(body["score"], 9850);
    assert_eq!(body["duplicate"], false);
    let results = body["results"].as_array().unwrap();
    let boards: Vec<_> = results
        .iter()
        .map(|r| r["leaderboardId"].as_str().unwrap())
        .collect();
    assert_eq!(boards, ["season_3", "daily_2026-11-21", "weekly_2026-w47"]);
    assert!(
        results
            .iter()
            .all(|r| r["rank"] == 1 && r["best"] == 9850 && r["improved"] == true)
    );
    // The sample's metadata is on its Session and on its three Score items.
    let with_metadata = h
        .table
        .dump()
        .await
        .iter()
        .filter(|i| {
            s(i, "sk").is_some_and(|k| k.starts_with("SESSION#") || k.starts_with("SCORE#"))
        })
        .filter(|i| {
            i.get("metadata")
                .and_then(|m| m.as_m().ok())
                .is_some_and(|m| m.len() == 3)
        })
        .count();
    assert_eq!(with_metadata, 4);

    let (status, body) = h
        .call(lambda_http::request::from_str(WITH_ID).unwrap())
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["sessionId"], "01JDAW6K2Z8Q4T1V5X7Y9B3C5D");
    assert_eq!(body["results"][0]["best"], 9850);
    assert_eq!(body["results"][0]["improved"], false);

    let (status, body) = h
        .call(lambda_http::request::from_str(BOARD_SCORES).unwrap())
        .await;
    assert_eq!(status, 200, "{body}");
    let keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for k in [
        "leaderboardId",
        "playerId",
        "sessionId",
        "score",
        "best",
        "improved",
        "rank",
        "duplicate",
    ] {
        assert!(keys.contains(&k), "{k} missing from {body}");
    }
    assert_eq!(body["leaderboardId"], "season_3");
    assert_eq!(body["playerId"], "p_bob");
    // Same score as alice, attained later: ranks second.
    assert_eq!(body["rank"], 2);

    let before = h.table.dump().await;
    let (status, body) = h
        .call(lambda_http::request::from_str(NO_CLAIMS).unwrap())
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (401, Some("unauthorized"))
    );
    assert_eq!(h.table.dump().await, before);
}

/// The result an operator gives over all plays, computed in the test.
fn model(operator: Operator, order: Order, plays: &[(u64, String, u64)]) -> u64 {
    // plays: (score, attainedAt text, session id order key) as read back from the sessions.
    match (operator, order) {
        (Operator::Best, Order::Desc) => plays.iter().map(|p| p.0).max().unwrap(),
        (Operator::Best, Order::Asc) => plays.iter().map(|p| p.0).min().unwrap(),
        (Operator::Increment, _) => plays.iter().map(|p| p.0).sum(),
        (Operator::Latest, _) => {
            plays
                .iter()
                .max_by(|a, b| (&a.1, a.2).cmp(&(&b.1, b.2)))
                .unwrap()
                .0
        }
    }
}

#[tokio::test]
async fn sixty_four_concurrent_plays_leave_one_entry_per_operator() {
    for (order, operator) in [
        (Order::Desc, Operator::Best),
        (Order::Asc, Operator::Best),
        (Order::Desc, Operator::Increment),
        (Order::Desc, Operator::Latest),
    ] {
        let h = harness("concurrent64").await;
        h.board("b", order, operator, 9_999_999_999).await;
        // WHEN 64 plays of one player with random scores (many ties) arrive at once
        let scores: Vec<u64> = (0..64).map(|_| rand::rng().random_range(0..40)).collect();
        let mut calls: FuturesUnordered<_> = scores
            .iter()
            .map(|&score| {
                let h = &h;
                async move {
                    h.post(
                        "p1",
                        json!({"score": score, "gameId": "g", "leaderboardIds": ["b"]}),
                    )
                    .await
                }
            })
            .collect();
        while let Some((status, body)) = calls.next().await {
            assert_eq!(status, 200, "{operator:?} {body}");
            assert_eq!(body["duplicate"], false);
        }
        // THEN there are 64 sessions and exactly one Score item, holding the operator's result
        let sessions = h.session_items().await;
        assert_eq!(sessions.len(), 64, "{operator:?}");
        let plays: Vec<(u64, String, u64)> = sessions
            .iter()
            .enumerate()
            .map(|(i, it)| {
                (
                    num(it, "score"),
                    s(it, "attainedAt").unwrap().to_owned(),
                    i as u64,
                )
            })
            .collect();
        // Sessions are dumped in sk (= ULID) order, so `i` orders session ids.
        let want = model(operator, order, &plays);
        let items = h.score_items().await;
        assert_eq!(items.len(), 1, "{operator:?}: {items:?}");
        assert_eq!(num(&items[0], "score"), want, "{operator:?}");
        let pointer = h.table.raw("PLAYER#p1", "ENTRY#b").await.unwrap();
        assert_eq!(s(&pointer, "scoreSk"), s(&items[0], "sk"));
        if operator == Operator::Latest {
            // The newest play: the greatest (attainedAt, sessionId).
            let newest = plays
                .iter()
                .max_by(|a, b| (&a.1, a.2).cmp(&(&b.1, b.2)))
                .unwrap();
            assert_eq!(s(&items[0], "attainedAt"), Some(newest.1.as_str()));
        }
    }
}

#[tokio::test]
async fn a_thousand_plays_of_fifty_players_on_three_boards_match_the_model() {
    let h = harness("thousand").await;
    let boards = [
        ("b_best", Order::Desc, Operator::Best),
        ("b_asc", Order::Asc, Operator::Best),
        ("b_sum", Order::Desc, Operator::Increment),
    ];
    for (id, order, op) in boards {
        h.board(id, order, op, 999_999_999).await;
    }
    // GIVEN 1,000 plays of 50 players, each on a random 1 to 3 of the 3 boards
    let mut rng = rand::rng();
    let plays: Vec<(String, u64, Vec<&str>)> = (0..1000)
        .map(|_| {
            let player = format!("p{}", rng.random_range(0..50));
            let score = rng.random_range(0..10_000);
            let mut on: Vec<&str> = boards
                .iter()
                .filter(|_| rng.random_bool(0.5))
                .map(|b| b.0)
                .collect();
            if on.is_empty() {
                on.push(boards[rng.random_range(0..3)].0);
            }
            (player, score, on)
        })
        .collect();
    // WHEN they are submitted 8 at a time
    let results: Vec<(u16, Value)> = futures::stream::iter(plays.iter())
        .map(|(p, score, on)| {
            h.post(
                p,
                json!({"score": score, "gameId": "g", "leaderboardIds": on}),
            )
        })
        .buffer_unordered(8)
        .collect()
        .await;
    assert!(
        results.iter().all(|(status, _)| *status == 200),
        "{:?}",
        results.iter().find(|r| r.0 != 200)
    );
    // THEN exactly one Score item per (player, board) played, equal to the model
    let mut want: BTreeMap<(String, String), u64> = BTreeMap::new();
    for (p, score, on) in &plays {
        for b in on {
            let (_, order, op) = boards.iter().find(|x| x.0 == *b).unwrap();
            let e = want.entry((p.clone(), (*b).to_owned()));
            match (op, order) {
                (Operator::Increment, _) => *e.or_insert(0) += score,
                (_, Order::Desc) => {
                    let v = e.or_insert(0);
                    *v = (*v).max(*score);
                }
                (_, Order::Asc) => {
                    let v = e.or_insert(u64::MAX);
                    *v = (*v).min(*score);
                }
            }
        }
    }
    let mut got: BTreeMap<(String, String), u64> = BTreeMap::new();
    for item in h.score_items().await {
        let key = (
            s(&item, "playerId").unwrap().to_owned(),
            s(&item, "leaderboardId").unwrap().to_owned(),
        );
        assert!(
            got.insert(key.clone(), num(&item, "score")).is_none(),
            "two Score items for {key:?}"
        );
    }
    assert_eq!(got, want);
    assert_eq!(h.session_items().await.len(), 1000);
}

#[tokio::test]
async fn the_body_never_chooses_whose_score_is_written() {
    let h = harness("identity").await;
    h.board("b", Order::Desc, Operator::Best, 1000).await;
    let (status, body) = h
        .post(
            "p_alice",
            json!({"score": 7, "gameId": "g", "leaderboardIds": ["b"], "playerId": "p_mallory"}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["playerId"], "p_alice");
    let items = h.score_items().await;
    assert_eq!(items.len(), 1);
    assert_eq!(s(&items[0], "playerId"), Some("p_alice"));
    assert!(
        h.table
            .dump()
            .await
            .iter()
            .all(|i| !s(i, "pk").unwrap().contains("p_mallory"))
    );
}

#[tokio::test]
async fn ties_rank_the_earlier_first_and_asc_boards_rank_lower_first() {
    let h = harness("ties").await;
    h.board("desc", Order::Desc, Operator::Best, 1000).await;
    h.board("asc", Order::Asc, Operator::Best, 100_000).await;
    let (_, first) = h
        .post(
            "p_first",
            json!({"score": 500, "gameId": "g", "leaderboardIds": ["desc"]}),
        )
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let (_, second) = h
        .post(
            "p_second",
            json!({"score": 500, "gameId": "g", "leaderboardIds": ["desc"]}),
        )
        .await;
    assert_eq!(first["results"][0]["rank"], 1);
    assert_eq!(second["results"][0]["rank"], 2);
    let top = h
        .store
        .listings()
        .top_scores(
            &h.store
                .boards()
                .get_board(&BoardId::parse("desc").unwrap())
                .await
                .unwrap()
                .unwrap(),
            10,
            None,
        )
        .await
        .unwrap();
    let order: Vec<_> = top.items.iter().map(|e| e.player_id.as_str()).collect();
    assert_eq!(order, ["p_first", "p_second"]);

    for (p, t) in [("slow", 61_250), ("fast", 58_100), ("mid", 60_000)] {
        let (status, _) = h
            .post(
                p,
                json!({"score": t, "gameId": "g", "leaderboardIds": ["asc"]}),
            )
            .await;
        assert_eq!(status, 200);
    }
    let top = h
        .store
        .listings()
        .top_scores(
            &h.store
                .boards()
                .get_board(&BoardId::parse("asc").unwrap())
                .await
                .unwrap()
                .unwrap(),
            10,
            None,
        )
        .await
        .unwrap();
    let order: Vec<_> = top
        .items
        .iter()
        .map(|e| (e.player_id.as_str(), e.rank))
        .collect();
    assert_eq!(order, [("fast", 1), ("mid", 2), ("slow", 3)]);
    let (_, faster) = h
        .post(
            "slow",
            json!({"score": 50_000, "gameId": "g", "leaderboardIds": ["asc"]}),
        )
        .await;
    assert_eq!(faster["results"][0]["rank"], 1);
    assert_eq!(faster["results"][0]["improved"], true);
}

#[tokio::test]
async fn an_increment_entry_saturates_at_max_score_and_the_other_boards_go_on() {
    let h = harness("saturation").await;
    h.board("sum", Order::Desc, Operator::Increment, 100).await;
    h.board("best", Order::Desc, Operator::Best, 1_000).await;
    let play =
        |score: u64| json!({"score": score, "gameId": "g", "leaderboardIds": ["sum", "best"]});
    let (status, first) = h.post("p1", play(60)).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["results"][0].get("saturated"), None, "{first}");

    // 60 + 50 passes 100: the entry stops at 100 and says so; the best board takes the play.
    let (status, capped) = h.post("p1", play(50)).await;
    assert_eq!(status, 200, "{capped}");
    let (sum, best) = (&capped["results"][0], &capped["results"][1]);
    assert_eq!(
        (&sum["best"], &sum["improved"], &sum["saturated"]),
        (&json!(100), &json!(true), &json!(true)),
        "{capped}"
    );
    assert_eq!((&best["best"], best.get("saturated")), (&json!(60), None));
    let entry = h.table.raw("PLAYER#p1", "ENTRY#sum").await.unwrap();
    assert_eq!(num(&entry, "score"), 100);
    assert_eq!(entry["saturated"].as_bool(), Ok(&true));
    let scores = h.score_items().await;
    let saturated: Vec<_> = scores
        .iter()
        .filter(|i| i.get("saturated").is_some())
        .map(|i| (s(i, "pk").unwrap(), num(i, "score")))
        .collect();
    assert_eq!(saturated, [("LEADERBOARD#sum", 100)]);

    // At 100 the entry takes no more (nothing written on it), and the best board still moves.
    let (status, more) = h.post("p1", play(70)).await;
    assert_eq!(status, 200, "{more}");
    let (sum, best) = (&more["results"][0], &more["results"][1]);
    assert_eq!(
        (&sum["best"], &sum["improved"], &sum["saturated"]),
        (&json!(100), &json!(false), &json!(true)),
        "{more}"
    );
    assert_eq!(
        (&best["best"], &best["improved"]),
        (&json!(70), &json!(true))
    );
    assert_eq!(h.table.raw("PLAYER#p1", "ENTRY#sum").await.unwrap(), entry);
    // A single play above maxScore is still out of range, on every board.
    let before = h.table.dump().await;
    let (status, refused) = h.post("p1", play(101)).await;
    assert_eq!(
        (status, &refused["error"]["code"]),
        (400, &json!("score_out_of_range"))
    );
    assert_eq!(h.table.dump().await, before);
}
