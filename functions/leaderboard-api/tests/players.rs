//! A player's listings across boards, through the handler on DynamoDB Local: the entries
//! (`GET /players/{p}/scores`) and the season results (`GET /players/{p}/results`) come in pages
//! of `limit` (1 to 100, 50 by default) with an opaque cursor bound to the listing and the
//! player, so neither answer grows with the number of boards a player has played.

use crate::common;

use leaderboard_keys::rank::Order;
use serde_json::{Value, json};

use common::{Harness, harness};

/// Every page of `path` (with `?limit=`), following `nextCursor`: the listed items under
/// `field`, page by page.
async fn pages(h: &Harness, path: &str, field: &str) -> Vec<Vec<Value>> {
    let mut all = Vec::new();
    let mut next = Some(path.to_owned());
    while let Some(url) = next {
        let (status, page) = h.get(&url).await;
        assert_eq!(status, 200, "{url}: {page}");
        all.push(page[field].as_array().unwrap().clone());
        next = page["nextCursor"]
            .as_str()
            .map(|c| format!("{path}&cursor={c}"));
        assert!(all.len() <= 10, "the pages never end");
    }
    all
}

/// `GET path` answers 400 `invalid_request`.
async fn refused(h: &Harness, path: &str) {
    let (status, body) = h.get(path).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (400, &json!("invalid_request")),
        "{path}: {body}"
    );
}

#[tokio::test]
async fn a_players_entries_page_with_a_cursor_bound_to_the_player() {
    let h = harness("player_entries_pages").await;
    let boards = ["e_a", "e_b", "e_c", "e_d", "e_e"];
    for b in boards {
        h.board(b, Order::Desc).await;
    }
    h.play("p1", 10, &boards).await;
    h.play("p2", 20, &boards[..2]).await;

    let got = pages(&h, "/players/p1/scores?limit=2", "entries").await;
    assert_eq!(got.iter().map(Vec::len).collect::<Vec<_>>(), [2, 2, 1]);
    let listed: Vec<&str> = got
        .iter()
        .flatten()
        .map(|e| e["leaderboardId"].as_str().unwrap())
        .collect();
    assert_eq!(listed, boards, "in board id order, each once");
    // The default page holds them all, and says it is the last.
    let (_, all) = h.get("/players/p1/scores").await;
    assert_eq!(all["entries"].as_array().unwrap().len(), 5);
    assert_eq!(all["nextCursor"], Value::Null);

    let (_, first) = h.get("/players/p1/scores?limit=2").await;
    let cursor = first["nextCursor"].as_str().unwrap();
    // Another player's listing, an edited cursor, the results listing: all refused.
    refused(&h, &format!("/players/p2/scores?limit=2&cursor={cursor}")).await;
    refused(&h, &format!("/players/p1/scores?limit=2&cursor={cursor}A")).await;
    refused(&h, &format!("/players/p1/results?limit=2&cursor={cursor}")).await;
    for limit in ["0", "101", "x"] {
        refused(&h, &format!("/players/p1/scores?limit={limit}")).await;
    }
}

#[tokio::test]
async fn a_players_results_page_with_a_cursor_bound_to_the_player() {
    let h = harness("player_results_pages").await;
    let boards = ["cup_a", "cup_b", "cup_c"];
    for b in boards {
        h.closed_board(b, 4).await;
    }
    let got = pages(&h, "/players/p00001/results?limit=2", "entries").await;
    assert_eq!(got.iter().map(Vec::len).collect::<Vec<_>>(), [2, 1]);
    let listed: Vec<&str> = got
        .iter()
        .flatten()
        .map(|r| r["leaderboardId"].as_str().unwrap())
        .collect();
    assert_eq!(listed, boards);
    // `results` carries the same page, as the route always answered.
    let (_, first) = h.get("/players/p00001/results?limit=2").await;
    assert_eq!(first["results"], first["entries"]);
    assert_eq!(first["playerId"], "p00001");

    let cursor = first["nextCursor"].as_str().unwrap();
    refused(
        &h,
        &format!("/players/p00002/results?limit=2&cursor={cursor}"),
    )
    .await;
    refused(
        &h,
        &format!("/players/p00001/scores?limit=2&cursor={cursor}"),
    )
    .await;
    refused(&h, &format!("/players/p00001/results?cursor=x{cursor}")).await;
    refused(&h, "/players/p00001/results?limit=101").await;
}
