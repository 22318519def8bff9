//! `GET /admin/leaderboards/{boardId}/stats` through the API handler on DynamoDB Local: a
//! board's entries, percentiles and distribution equal to its true scores' once the index has
//! applied every change; a play the index has not applied yet shows as one change of lag on
//! its lane; the read takes the same few requests whatever the board's size; an anonymous or a
//! player's call, and an unknown board, are refused.

use crate::common;

use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use serde_json::Value;

use common::*;

/// The lanes' lag as (lane, written - applied), only the lanes behind.
fn behind(stats: &Value) -> Vec<(u64, u64)> {
    stats["lanes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| {
            let (w, a) = (
                l["written"].as_u64().unwrap(),
                l["applied"].as_u64().unwrap(),
            );
            (w != a).then(|| (l["lane"].as_u64().unwrap(), w - a))
        })
        .collect()
}

#[tokio::test]
async fn a_boards_stats_count_its_entries_and_its_index_lag() {
    let h = harness("api_board_stats").await;
    let mut requests = Vec::new();
    for (id, n) in [("stats_small", 100), ("stats_large", 1_500)] {
        let board = h.board(id, Order::Desc).await;
        let entries = populate(&h, &board, n).await;
        let (status, stats) = h
            .call(
                "GET",
                &format!("/admin/leaderboards/{id}/stats"),
                As::Admin("ops"),
                None,
            )
            .await;
        assert_eq!(status, 200, "{stats}");
        assert_eq!(stats["leaderboardId"], id);
        assert_eq!(stats["writeShards"], 1);
        assert_eq!(stats["entries"], n);
        assert_eq!(stats["counted"], n);
        assert_eq!(stats["lag"], 0);
        assert_eq!(stats["lanes"].as_array().unwrap().len(), 10);
        assert!(behind(&stats).is_empty(), "{stats}");
        // Each range holds exactly the entries whose scores fall in it.
        for b in stats["buckets"].as_array().unwrap() {
            let (low, high) = (b["low"].as_u64().unwrap(), b["high"].as_u64().unwrap());
            let truly = entries
                .iter()
                .filter(|(_, s, _)| (low..=high).contains(s))
                .count();
            assert_eq!(b["count"], truly, "{b}");
        }
        let mut scores: Vec<u64> = entries.iter().map(|(_, s, _)| *s).collect();
        scores.sort_unstable();
        let median = scores[n.div_ceil(2) - 1];
        let p50 = &stats["percentiles"].as_array().unwrap()[3];
        assert_eq!(p50["p"], 50);
        assert!(p50["low"].as_u64().unwrap() <= median && median <= p50["high"].as_u64().unwrap());
        requests.push(stats["requests"].as_u64().unwrap());
    }
    // The same read at 100 and 1,500 entries: never the entries.
    assert_eq!(requests[0], requests[1], "{requests:?}");
    assert!(requests[0] <= 6, "{requests:?}");

    // A new player's play is logged on its lane; with no stream here, the index never applies
    // it: one change behind, on one lane, and the entries count it while the index does not.
    h.play("newcomer", 49, &["stats_small"]).await;
    let (_, stats) = h
        .call(
            "GET",
            "/admin/leaderboards/stats_small/stats",
            As::Admin("ops"),
            None,
        )
        .await;
    assert_eq!(stats["entries"], 101);
    assert_eq!(stats["counted"], 100);
    assert_eq!(stats["lag"], 1);
    assert_eq!(behind(&stats).len(), 1, "{stats}");
    assert_eq!(behind(&stats)[0].1, 1);
}

#[tokio::test]
async fn a_board_of_a_few_spread_entries_has_stats_too() {
    // Two entries whose scores share no first digit: on the compact layout every bucket of the
    // root names its one key, and no node is read below it.
    let h = harness("api_board_stats_few").await;
    let board = h.board("stats_few", Order::Desc).await;
    let at = Timestamp::now();
    let entries = [("low", 5), ("high", 987_654_321)]
        .map(|(p, score)| (PlayerId::parse(p).unwrap(), score, at));
    h.store
        .boards()
        .import_entries(&board, &entries)
        .await
        .unwrap();
    h.store.rank().build_rank_index(&board).await.unwrap();
    let (status, stats) = h
        .call(
            "GET",
            "/admin/leaderboards/stats_few/stats",
            As::Admin("ops"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{stats}");
    assert_eq!(stats["entries"], 2);
    assert_eq!(stats["counted"], 2);
    assert_eq!(stats["lag"], 0);
    let empty = h.board("stats_empty", Order::Asc).await;
    let (status, stats) = h
        .call(
            "GET",
            &format!("/admin/leaderboards/{}/stats", empty.board_id),
            As::Admin("ops"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{stats}");
    assert_eq!(stats["entries"], 0);
    assert_eq!(stats["buckets"], serde_json::json!([]));
    assert_eq!(stats["percentiles"], serde_json::json!([]));
}

#[tokio::test]
async fn stats_are_an_admins_only_and_of_a_board_that_exists() {
    let h = harness("api_board_stats_refused").await;
    h.board("stats_refused", Order::Desc).await;
    let path = "/admin/leaderboards/stats_refused/stats";
    let (status, body) = h.call("GET", path, As::Anonymous, None).await;
    assert_eq!((status, code(&body)), (401, "unauthorized"));
    let (status, body) = h.call("GET", path, As::Player("p1"), None).await;
    assert_eq!((status, code(&body)), (403, "forbidden"));
    let (status, body) = h
        .call(
            "GET",
            "/admin/leaderboards/no_such_board/stats",
            As::Admin("ops"),
            None,
        )
        .await;
    assert_eq!((status, code(&body)), (404, "not_found"), "{body}");
}
