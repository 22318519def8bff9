//! The friends listing, `GET /leaderboards/{b}/scores?playerIds=...`, through the API handler on
//! DynamoDB Local: chosen players' entries in rank order with board-wide ranks, against the
//! contract's ranking computed here, on open boards of every size and layout and on a closed
//! board; and the refusals.

use crate::common;

use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::RankLayout;
use serde_json::Value;

use common::*;
use leaderboard_devkit::testing::ranked;

/// The listing of `ids` on `board`, each entry checked exact on a board of `player_count`
/// (rankExact, no lag, topPercent), as `(playerId, rank, score)`.
async fn listing(
    h: &Harness,
    board: &str,
    ids: &[String],
    player_count: u64,
) -> Vec<(String, u64, u64)> {
    let path = format!("/leaderboards/{board}/scores?playerIds={}", ids.join(","));
    let (status, body) = h.get(&path).await;
    assert_eq!(status, 200, "{body}");
    assert!(body["nextCursor"].is_null(), "{body}");
    body["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let plain = exact_own(e, player_count);
            assert_eq!(plain["name"], plain["playerId"], "{e}");
            (
                plain["playerId"].as_str().unwrap().to_owned(),
                plain["rank"].as_u64().unwrap(),
                plain["score"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// What the listing of `ids` must be: the players of `ids` that have an entry, in the
/// contract's rank order, ranked by their position in the whole board.
fn model(
    entries: &[(PlayerId, u64, Timestamp)],
    order: Order,
    ids: &[String],
) -> Vec<(String, u64, u64)> {
    ranked(entries.to_vec(), order)
        .into_iter()
        .zip(1u64..)
        .filter(|((p, _, _), _)| ids.iter().any(|id| id == p.as_str()))
        .map(|((p, score, _), rank)| (p.to_string(), rank, score))
        .collect()
}

/// 100 ids: `with` players' ids spread over the board, then players who never played.
fn chosen(entries: &[(PlayerId, u64, Timestamp)], with: usize) -> Vec<String> {
    let step = entries.len() / with;
    let mut ids: Vec<String> = (0..with).map(|i| entries[i * step].0.to_string()).collect();
    ids.extend((with..100).map(|i| format!("nobody_{i}")));
    // Any order: the listing is in rank order whatever the request's.
    ids.reverse();
    ids
}

#[tokio::test]
async fn a_hundred_friends_on_a_2000_player_board_with_ties_rank_as_the_whole_board() {
    let h = harness("api_friends_2000").await;
    let board = h.board("friends_big", Order::Desc).await;
    // Scores from a small range at nearly one time: groups of about 40 full ties.
    let entries = populate(&h, &board, 2_000).await;
    // 90 players: their tail counts share one budget of keys, so some are answered from the
    // index, each within its lag of the true rank, in rank order.
    let ids = chosen(&entries, 90);
    let want = model(&entries, Order::Desc, &ids);
    let path = format!(
        "/leaderboards/friends_big/scores?playerIds={}",
        ids.join(",")
    );
    let (status, body) = h.get(&path).await;
    assert_eq!(status, 200, "{body}");
    let got = body["entries"].as_array().unwrap();
    assert_eq!(got.len(), 90);
    let mut shown = 0;
    for (e, (player, rank, score)) in got.iter().zip(&want) {
        assert_eq!(
            (e["playerId"].as_str(), e["score"].as_u64()),
            (Some(player.as_str()), Some(*score))
        );
        let (answered, lag) = (e["rank"].as_u64().unwrap(), e["rankLag"].as_u64().unwrap());
        assert!(answered.abs_diff(*rank) <= lag, "{e}: truly {rank}");
        assert_eq!(e["rankExact"], lag == 0, "{e}");
        assert_eq!(e["playerCount"], 2_000, "{e}");
        assert!(answered > shown, "ranks out of order: {body}");
        shown = answered;
    }
    // A dozen of them fit the budget: every rank counted exactly, as the whole board says.
    let ids = chosen(&entries, 12);
    let got = listing(&h, "friends_big", &ids, 2_000).await;
    assert_eq!(got, model(&entries, Order::Desc, &ids));
    // The best of them, and one at a time, agree with the rank route.
    let (_, own) = h
        .get(&format!("/leaderboards/friends_big/players/{}", got[0].0))
        .await;
    assert_eq!(own["rank"].as_u64(), Some(got[0].1));
}

#[tokio::test]
async fn small_boards_unmigrated_boards_and_ascending_boards_rank_the_same_way() {
    let h = harness("api_friends_small").await;
    // (On the 1,500-entry board the groups of ties hold about 30 players: 10 players' tail
    // counts fit the listing's budget of keys whatever the draw, so every rank is counted.)
    for (id, order, layout, n, with) in [
        ("friends_small", Order::Desc, RankLayout::V2, 300, 60),
        ("friends_asc", Order::Asc, RankLayout::V2, 1_500, 10),
        ("friends_old", Order::Desc, RankLayout::Legacy, 400, 60),
    ] {
        let board = h.board_with(id, order, layout).await;
        let entries = populate(&h, &board, n).await;
        let ids = chosen(&entries, with);
        let got = listing(&h, id, &ids, n as u64).await;
        assert_eq!(got, model(&entries, order, &ids), "{id}");
        // A single player, and players none of whom has an entry.
        let one = vec![entries[7].0.to_string()];
        assert_eq!(
            listing(&h, id, &one, n as u64).await,
            model(&entries, order, &one)
        );
        let (status, none) = h
            .get(&format!(
                "/leaderboards/{id}/scores?playerIds=ghost_1,ghost_2"
            ))
            .await;
        assert_eq!((status, &none["entries"]), (200, &Value::Array(vec![])));
    }
}

#[tokio::test]
async fn after_close_the_listing_is_the_final_standings() {
    let h = harness("api_friends_closed").await;
    let entries = h.closed_board("friends_closed", 150).await;
    let ids = chosen(&entries, 40);
    let got = listing(&h, "friends_closed", &ids, 150).await;
    assert_eq!(got, model(&entries, Order::Desc, &ids));
    // The same ranks as the final standings' own pages.
    let (_, top) = h.get("/leaderboards/friends_closed/scores?limit=150").await;
    for (player, rank, _) in &got {
        assert_eq!(top["entries"][*rank as usize - 1]["playerId"], *player);
    }
}

#[tokio::test]
async fn bad_lists_are_refused() {
    let h = harness("api_friends_refused").await;
    let board = h.board("friends_x", Order::Desc).await;
    populate(&h, &board, 20).await;
    let many: Vec<String> = (0..101).map(|i| format!("p{i:05}")).collect();
    let (_, page) = h.get("/leaderboards/friends_x/scores?limit=1").await;
    let cursor = page["nextCursor"].as_str().unwrap().to_owned();
    for (query, says) in [
        (format!("playerIds={}", many.join(",")), "1 to 100"),
        ("playerIds=".to_owned(), "1 to 100"),
        ("playerIds=p00001,p00002,p00001".to_owned(), "p00001 twice"),
        ("playerIds=p00001,bad%23id".to_owned(), "'#'"),
        ("playerIds=p00001,,p00002".to_owned(), "playerId"),
        (format!("playerIds=p00001&cursor={cursor}"), "together"),
    ] {
        let (status, body) = h
            .get(&format!("/leaderboards/friends_x/scores?{query}"))
            .await;
        assert_eq!(
            (status, code(&body)),
            (400, "invalid_request"),
            "{query}: {body}"
        );
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{query}: {message}");
    }
    // 100 is fine; on an unknown board it is 404.
    let hundred = many[..100].join(",");
    let (status, _) = h
        .get(&format!(
            "/leaderboards/friends_x/scores?playerIds={hundred}"
        ))
        .await;
    assert_eq!(status, 200);
    let (status, body) = h.get("/leaderboards/nope/scores?playerIds=p00001").await;
    assert_eq!((status, code(&body)), (404, "not_found"));
}

#[tokio::test]
async fn the_sample_event_works() {
    let h = harness("api_friends_sample").await;
    h.board("season_3", Order::Desc).await;
    h.play("p_bob", 50, &["season_3"]).await;
    h.play("p_alice", 100, &["season_3"]).await;
    let sample = include_str!("../../../events/leaderboard-api/get-friends.json");
    let req = lambda_http::request::from_str(sample).unwrap();
    let resp = leaderboard_api::handle(&h.api, req).await.unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = serde_json::from_slice(resp.body().as_ref()).unwrap();
    let got: Vec<(&str, u64)> = body["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["playerId"].as_str().unwrap(), e["rank"].as_u64().unwrap()))
        .collect();
    assert_eq!(got, [("p_alice", 1), ("p_bob", 2)]);
}
