//! Listings and ranks: paging a large board, ranks against the top listing, around a player, freshness.

use super::*;

#[tokio::test]
async fn paging_a_5000_entry_board_returns_every_entry_once_in_rank_order() {
    let h = harness("api_paging").await;
    let board = h.board("big", Order::Desc).await;
    let want = ranked(populate(&h, &board, 5000).await, Order::Desc);
    let mut got: Vec<Value> = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &cursor {
            None => "/leaderboards/big/scores?limit=137".to_owned(),
            Some(c) => format!("/leaderboards/big/scores?limit=137&cursor={c}"),
        };
        let (status, page) = h.get(&path).await;
        assert_eq!(status, 200, "{page}");
        pages += 1;
        let entries = page["entries"].as_array().unwrap();
        assert!(entries.len() <= 137);
        got.extend(entries.iter().cloned());
        match page["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => {
                assert!(page["nextCursor"].is_null());
                break;
            }
        }
    }
    assert_eq!(pages, 5000usize.div_ceil(137));
    assert_eq!(got.len(), 5000);
    for (i, (e, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(e["rank"], i as u64 + 1);
        assert_eq!(e["playerId"], w.0.as_str(), "rank {}", i + 1);
        assert_eq!(e["score"], w.1);
        assert_eq!(e["attainedAt"], w.2.to_string());
    }
    // Parameters.
    for bad in [
        "limit=0",
        "limit=1001",
        "limit=abc",
        "limit=-1",
        "cursor=garbage",
        "cursor=",
    ] {
        let (status, resp) = h.get(&format!("/leaderboards/big/scores?{bad}")).await;
        assert_eq!((status, code(&resp)), (400, "invalid_request"), "{bad}");
    }
    // A genuine cursor edited by hand, or used on another board, is refused.
    let (_, page) = h.get("/leaderboards/big/scores?limit=3").await;
    let c = page["nextCursor"].as_str().unwrap().to_owned();
    let mut edited = c.clone().into_bytes();
    edited[5] = if edited[5] == b'A' { b'B' } else { b'A' };
    let (status, _) = h
        .get(&format!(
            "/leaderboards/big/scores?cursor={}",
            String::from_utf8(edited).unwrap()
        ))
        .await;
    assert_eq!(status, 400);
    h.board("other", Order::Desc).await;
    let (status, _) = h
        .get(&format!("/leaderboards/other/scores?cursor={c}"))
        .await;
    assert_eq!(status, 400);
    // Default limit, an empty board, an unknown board.
    let (_, page) = h.get("/leaderboards/big/scores").await;
    assert_eq!(page["entries"].as_array().unwrap().len(), 100);
    let (status, page) = h.get("/leaderboards/other/scores").await;
    assert_eq!(
        (status, page),
        (200, json!({"entries": [], "nextCursor": null}))
    );
    let (status, resp) = h.get("/leaderboards/nope/scores").await;
    assert_eq!((status, code(&resp)), (404, "not_found"));
}

#[tokio::test]
async fn every_players_rank_equals_its_position_in_the_top_listing() {
    let h = harness("api_ranks").await;
    let board = h.board("ties", Order::Desc).await;
    populate(&h, &board, 2000).await;
    let (_, page) = h.get("/leaderboards/ties/scores?limit=1000").await;
    let mut listing: Vec<Value> = page["entries"].as_array().unwrap().clone();
    let c = page["nextCursor"].as_str().unwrap().to_owned();
    let (_, page) = h
        .get(&format!("/leaderboards/ties/scores?limit=1000&cursor={c}"))
        .await;
    listing.extend(page["entries"].as_array().unwrap().iter().cloned());
    assert_eq!(listing.len(), 2000);
    let results: Vec<(Value, (u16, Value))> = futures::stream::iter(listing.into_iter())
        .map(|e| async {
            let path = format!(
                "/leaderboards/ties/players/{}",
                e["playerId"].as_str().unwrap()
            );
            (e, h.get(&path).await)
        })
        .buffer_unordered(8)
        .collect()
        .await;
    for (listed, (status, entry)) in results {
        assert_eq!(status, 200);
        assert_eq!(
            exact_own(&entry, 2000),
            listed,
            "rank lookup disagrees with the listing"
        );
    }
    let (status, resp) = h.get("/leaderboards/ties/players/nobody").await;
    assert_eq!((status, code(&resp)), (404, "not_found"));
    let (status, resp) = h.get("/leaderboards/nope/players/p00001").await;
    assert_eq!((status, code(&resp)), (404, "not_found"));
    let (status, resp) = h.get("/leaderboards/ties/players/p%2F1").await;
    assert_eq!((status, code(&resp)), (400, "invalid_request"));
}

#[tokio::test]
async fn around_at_the_top_the_bottom_and_the_middle() {
    let h = harness("api_around").await;
    let board = h.board("win", Order::Asc).await;
    let want = ranked(populate(&h, &board, 60).await, Order::Asc);
    let rank_of = |p: &PlayerId| want.iter().position(|e| &e.0 == p).unwrap() as u64 + 1;
    for (who, n) in [(0usize, 3u64), (59, 3), (30, 5), (1, 5), (58, 1), (30, 50)] {
        let player = &want[who].0;
        let (status, body) = h
            .get(&format!("/leaderboards/win/players/{player}/around?n={n}"))
            .await;
        assert_eq!(status, 200, "{body}");
        let entries = body["entries"].as_array().unwrap();
        let me = rank_of(player);
        let first = me.saturating_sub(n).max(1);
        let last = (me + n).min(60);
        assert_eq!(entries.len() as u64, last - first + 1, "{player} n={n}");
        for (e, rank) in entries.iter().zip(first..=last) {
            assert_eq!(e["rank"], rank);
            assert_eq!(e["playerId"], want[rank as usize - 1].0.as_str());
            exact_own(e, 60);
        }
    }
    let (_, default) = h
        .get(&format!("/leaderboards/win/players/{}/around", want[30].0))
        .await;
    assert_eq!(default["entries"].as_array().unwrap().len(), 11);
    for bad in ["n=0", "n=51", "n=x"] {
        let (status, resp) = h
            .get(&format!(
                "/leaderboards/win/players/{}/around?{bad}",
                want[0].0
            ))
            .await;
        assert_eq!((status, code(&resp)), (400, "invalid_request"), "{bad}");
    }
    let (status, resp) = h.get("/leaderboards/win/players/nobody/around").await;
    assert_eq!((status, code(&resp)), (404, "not_found"));
}

#[tokio::test]
async fn own_ranks_carry_how_fresh_they_are() {
    let h = harness("api_fresh").await;
    let board = h.board("fresh", Order::Desc).await;
    let want = ranked(populate(&h, &board, 200).await, Order::Desc);
    // The best of 200 is in the top 0.5 %.
    let (status, top) = h
        .get(&format!("/leaderboards/fresh/players/{}", want[0].0))
        .await;
    assert_eq!(status, 200);
    assert_eq!(exact_own(&top, 200)["rank"], 1);
    assert_eq!(top["topPercent"], 0.5);

    // A new player's play: the rank in the answer counts the play itself, although nothing
    // has applied it to the index (no stream here), and is exact.
    let posted = h.play("newbie", 1_000, &["fresh"]).await;
    let result = &posted["results"][0];
    assert_eq!(result["rank"], 1, "{posted}");
    exact_own(result, 201);
    // Repeated: the first answer, freshness included.
    let again = {
        let body = json!({
            "score": 1_000, "gameId": "tetris", "leaderboardIds": ["fresh"],
            "sessionId": posted["sessionId"],
        });
        let req = request("POST", "/sessions", As::Player("newbie"), Some(&body));
        let resp = submit_score::handle(&h.submit, req).await.unwrap();
        serde_json::from_slice::<Value>(resp.body().as_ref()).unwrap()
    };
    assert_eq!(again["duplicate"], true);
    assert_eq!(again["results"], posted["results"]);

    // Everyone else is one lower: the index has not applied the play, so the capped count of
    // the keys above makes each answer within the first 100 exact; below them the answer is
    // the index's, one change behind, and says so.
    for i in [0, 49, 98] {
        let (_, entry) = h
            .get(&format!("/leaderboards/fresh/players/{}", want[i].0))
            .await;
        assert_eq!(exact_own(&entry, 201)["rank"], i as u64 + 2, "{entry}");
    }
    for i in [99, 199] {
        let (_, entry) = h
            .get(&format!("/leaderboards/fresh/players/{}", want[i].0))
            .await;
        assert_eq!(
            (&entry["rank"], &entry["rankExact"], &entry["rankLag"]),
            (&json!(i + 1), &json!(false), &json!(1)),
            "{entry}"
        );
    }
    // The around window: every entry carries them, ranked from the player's rank.
    let (_, around) = h
        .get(&format!(
            "/leaderboards/fresh/players/{}/around?n=2",
            want[50].0
        ))
        .await;
    let ranks: Vec<u64> = around["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| exact_own(e, 201)["rank"].as_u64().unwrap())
        .collect();
    assert_eq!(ranks, [50, 51, 52, 53, 54]);

    // The shorthand's flat answer carries them too.
    let req = request(
        "POST",
        "/leaderboards/fresh/scores",
        As::Player("shorty"),
        Some(&json!({"score": 0, "gameId": "tetris"})),
    );
    let resp = submit_score::handle(&h.submit, req).await.unwrap();
    assert_eq!(resp.status(), 200);
    let flat: Value = serde_json::from_slice(resp.body().as_ref()).unwrap();
    // Score 0 at the latest moment: last, below every other score-0 entry, of whom the index
    // counts all but the newbie's unapplied play: in the lag.
    assert_eq!(
        (&flat["rank"], &flat["rankExact"], &flat["rankLag"]),
        (&json!(201), &json!(false), &json!(1)),
        "{flat}"
    );
    assert_eq!(flat["playerCount"], 202, "{flat}");
}
