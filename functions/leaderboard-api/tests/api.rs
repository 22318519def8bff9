//! leaderboard-api against DynamoDB Local, through the handler, with API Gateway v2 events.

mod common;

use std::collections::BTreeSet;

use futures::StreamExt;
use leaderboard_api::ROUTER;
use leaderboard_devkit::testing::{ranked, s};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use serde_json::{Value, json};

use common::*;

#[tokio::test]
async fn the_spec_and_the_routers_agree() {
    let spec: serde_yaml::Value =
        serde_yaml::from_str(include_str!("../../../openapi.yaml")).unwrap();
    let mut in_spec = BTreeSet::new();
    for (path, item) in spec["paths"].as_mapping().unwrap() {
        for (method, _) in item.as_mapping().unwrap() {
            let m = method.as_str().unwrap();
            if ["get", "put", "post", "delete", "patch"].contains(&m) {
                in_spec.insert((m.to_uppercase(), path.as_str().unwrap().to_owned()));
            }
        }
    }
    let implemented: BTreeSet<(String, String)> = ROUTER
        .routes()
        .chain(submit_score::ROUTER.routes())
        .map(|(m, t)| (m.to_string(), t.to_owned()))
        .collect();
    assert_eq!(in_spec, implemented);
    // And each spec route reaches its function's handler: a concrete path of each resolves.
    for (method, template) in &in_spec {
        let concrete = template
            .replace("{sessionId}", "01JDAW6K2Z8Q4T1V5X7Y9B3C5D")
            .replace(['{', '}'], "");
        let m: lambda_http::http::Method = method.parse().unwrap();
        assert!(
            ROUTER.find(&m, &concrete).is_ok() || submit_score::ROUTER.find(&m, &concrete).is_ok(),
            "{method} {concrete}"
        );
    }
}

#[tokio::test]
async fn create_and_get_boards() {
    let h = harness("api_boards").await;
    let body = json!({
        "leaderboardId": "season_3", "name": "Season 3", "order": "desc", "operator": "best",
        "maxScore": 999999, "startsAt": "2026-11-01T00:00:00Z", "endsAt": "2027-02-01T00:00:00Z",
        "recurrence": "season", "gameId": "tetris"
    });
    let (status, created) = h
        .call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
        .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["leaderboardId"], "season_3");
    assert_eq!(created["status"], "open");
    assert_eq!(created["endsAt"], "2027-02-01T00:00:00.000Z");
    assert_eq!(created["maxScore"], 999999);
    let (status, got) = h.get("/leaderboards/season_3").await;
    assert_eq!((status, &got), (200, &created));
    // Defaults.
    let (status, minimal) = h
        .call(
            "POST",
            "/leaderboards",
            As::Admin("ops"),
            Some(&json!({"leaderboardId": "m", "name": "M"})),
        )
        .await;
    assert_eq!(status, 201);
    assert_eq!(
        (
            &minimal["order"],
            &minimal["operator"],
            &minimal["maxScore"],
            &minimal["recurrence"]
        ),
        (
            &json!("desc"),
            &json!("best"),
            &json!(9999999999u64),
            &json!("none")
        )
    );
    assert_eq!(minimal["rankLayout"], 2, "the index's layout: {minimal}");
    let before = h.table.dump().await;
    let refusals: Vec<(As, Value, u16, &str)> = vec![
        (As::Anonymous, body.clone(), 401, "unauthorized"),
        // The rank index has one layout, 2: 1 is refused.
        (
            As::Admin("ops"),
            json!({"leaderboardId": "old1", "name": "Old", "rankLayout": 1}),
            400,
            "invalid_request",
        ),
        (As::Player("p1"), body.clone(), 403, "forbidden"),
        (As::Admin("ops"), body.clone(), 409, "already_exists"),
        (
            As::Admin("ops"),
            json!({"leaderboardId": "x#1", "name": "X"}),
            400,
            "invalid_request",
        ),
        (
            As::Admin("ops"),
            json!({"leaderboardId": "x1"}),
            400,
            "invalid_request",
        ),
        (
            As::Admin("ops"),
            json!({"leaderboardId": "x1", "name": ""}),
            400,
            "invalid_request",
        ),
        (
            As::Admin("ops"),
            json!({"leaderboardId": "x1", "name": "X", "order": "up"}),
            400,
            "invalid_request",
        ),
        (
            As::Admin("ops"),
            json!({"leaderboardId": "x1", "name": "X", "operator": "max"}),
            400,
            "invalid_request",
        ),
        (
            As::Admin("ops"),
            json!({"leaderboardId": "x1", "name": "X", "maxScore": 1_000_000_000_000_000_000u64}),
            400,
            "invalid_request",
        ),
        (
            As::Admin("ops"),
            json!({"leaderboardId": "x1", "name": "X", "maxScore": -1}),
            400,
            "invalid_request",
        ),
        (
            As::Admin("ops"),
            json!({"leaderboardId": "x1", "name": "X", "endsAt": "soon"}),
            400,
            "invalid_request",
        ),
        (
            As::Admin("ops"),
            json!({"leaderboardId": "x1", "name": "X", "startsAt": "2026-02-01T00:00:00Z", "endsAt": "2026-01-01T00:00:00Z"}),
            400,
            "invalid_request",
        ),
        (
            As::Admin("ops"),
            json!({"leaderboardId": "x1", "name": "X", "recurrence": "hourly"}),
            400,
            "invalid_request",
        ),
        (
            As::Admin("ops"),
            json!({"leaderboardId": "x1", "name": "X", "rankLayout": 3}),
            400,
            "invalid_request",
        ),
        (
            As::Admin("ops"),
            json!({"leaderboardId": "x1", "name": "X", "rankLayout": "2"}),
            400,
            "invalid_request",
        ),
        (As::Admin("ops"), json!([1, 2]), 400, "invalid_request"),
    ];
    for (who, body, status, want) in refusals {
        let (got, resp) = h.call("POST", "/leaderboards", who, Some(&body)).await;
        assert_eq!((got, code(&resp)), (status, want), "{body}");
        assert_eq!(h.table.dump().await, before, "{body} wrote something");
    }
    let (status, resp) = h.get("/leaderboards/nope").await;
    assert_eq!((status, code(&resp)), (404, "not_found"));
    let (status, resp) = h.get("/leaderboards/a%23b").await;
    assert_eq!((status, code(&resp)), (400, "invalid_request"));
    let (status, resp) = h
        .call("DELETE", "/leaderboards/season_3", As::Admin("ops"), None)
        .await;
    assert_eq!((status, code(&resp)), (405, "method_not_allowed"));
    let (status, _) = h.get("/no/such/route").await;
    assert_eq!(status, 404);
}

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
    // the keys above makes each answer exact (these are all within the first 1,000).
    for i in [0, 99, 199] {
        let (_, entry) = h
            .get(&format!("/leaderboards/fresh/players/{}", want[i].0))
            .await;
        assert_eq!(exact_own(&entry, 201)["rank"], i as u64 + 2, "{entry}");
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
    let rank = exact_own(&flat, 202)["rank"].as_u64().unwrap();
    // Score 0 at the latest moment: last, below every other score-0 entry.
    assert_eq!(rank, 202, "{flat}");
    assert_eq!(flat["topPercent"], 100.0);
}

#[tokio::test]
async fn profiles_never_leak_the_email_publicly() {
    let h = harness("api_profiles").await;
    let (status, me) = h
        .call(
            "PUT",
            "/players/me",
            As::Player("p_alice"),
            Some(&json!({"name": "alice42", "email": "alice@x.com"})),
        )
        .await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(
        (me["playerId"].as_str(), me["email"].as_str()),
        (Some("p_alice"), Some("alice@x.com"))
    );
    assert_eq!(
        (me["lifetimeScore"].as_u64(), me["gamesPlayed"].as_u64()),
        (Some(0), Some(0))
    );
    let (status, public) = h.get("/players/p_alice").await;
    assert_eq!(status, 200);
    assert_eq!(public["name"], "alice42");
    assert!(!public.to_string().contains("alice@x.com"), "{public}");
    assert!(public.get("email").is_none());
    for key in [
        "playerId",
        "name",
        "lifetimeScore",
        "gamesPlayed",
        "createdAt",
        "updatedAt",
    ] {
        assert!(public.get(key).is_some(), "{key}");
    }
    // The admin lookup by email.
    let (status, found) = h
        .call(
            "GET",
            "/admin/players?email=alice%40x.com",
            As::Admin("ops"),
            None,
        )
        .await;
    assert_eq!((status, found["playerId"].as_str()), (200, Some("p_alice")));
    for (who, q, status, want) in [
        (As::Player("p1"), "email=alice%40x.com", 403, "forbidden"),
        (As::Anonymous, "email=alice%40x.com", 401, "unauthorized"),
        (As::Admin("ops"), "email=nobody%40x.com", 404, "not_found"),
        (
            As::Admin("ops"),
            "email=not-an-email",
            400,
            "invalid_request",
        ),
        (As::Admin("ops"), "", 400, "invalid_request"),
    ] {
        let (got, resp) = h
            .call("GET", &format!("/admin/players?{q}"), who, None)
            .await;
        assert_eq!((got, code(&resp)), (status, want), "{q}");
    }
    // Refusals write nothing.
    let before = h.table.dump().await;
    for (who, body, status, want) in [
        (As::Anonymous, json!({"name": "x"}), 401, "unauthorized"),
        (As::Player("p_alice"), json!({}), 400, "invalid_request"),
        (
            As::Player("p_alice"),
            json!({"name": ""}),
            400,
            "invalid_request",
        ),
        (
            As::Player("p_alice"),
            json!({"name": "a", "email": "nope"}),
            400,
            "invalid_request",
        ),
        (
            As::Player("p_alice"),
            json!({"name": "a", "email": "a#b@x.com"}),
            400,
            "invalid_request",
        ),
    ] {
        let (got, resp) = h.call("PUT", "/players/me", who, Some(&body)).await;
        assert_eq!((got, code(&resp)), (status, want), "{body}");
    }
    assert_eq!(h.table.dump().await, before);
    let (status, resp) = h.get("/players/nobody").await;
    assert_eq!((status, code(&resp)), (404, "not_found"));
    let (status, resp) = h
        .call("POST", "/players/p_alice", As::Player("p_alice"), None)
        .await;
    assert_eq!((status, code(&resp)), (405, "method_not_allowed"));
}

#[tokio::test]
async fn a_players_scores_sessions_and_a_games_sessions() {
    let h = harness("api_sessions").await;
    for b in ["daily", "weekly", "season"] {
        h.board(b, Order::Desc).await;
    }
    let first = h.play("p1", 10, &["daily", "weekly", "season"]).await;
    for i in 0..24 {
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
        h.play(if i % 2 == 0 { "p1" } else { "p2" }, 20 + i, &["daily"])
            .await;
    }
    let (status, scores) = h.get("/players/p1/scores").await;
    assert_eq!(status, 200);
    let boards: Vec<&str> = scores["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["leaderboardId"].as_str().unwrap())
        .collect();
    assert_eq!(boards, ["daily", "season", "weekly"]);
    let (_, none) = h.get("/players/nobody/scores").await;
    assert_eq!(none["entries"], json!([]));

    // p1 has 13 sessions: pages of 5, newest first.
    let mut seen = Vec::new();
    let mut cursor = String::new();
    loop {
        let (status, page) = h
            .get(&format!("/players/p1/sessions?limit=5{cursor}"))
            .await;
        assert_eq!(status, 200);
        seen.extend(
            page["sessions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["sessionId"].as_str().unwrap().to_owned()),
        );
        match page["nextCursor"].as_str() {
            Some(c) => cursor = format!("&cursor={c}"),
            None => break,
        }
    }
    assert_eq!(seen.len(), 13);
    let mut sorted = seen.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(seen, sorted, "newest first");
    assert_eq!(seen.last().unwrap(), first["sessionId"].as_str().unwrap());

    let (status, one) = h
        .get(&format!(
            "/players/p1/sessions/{}",
            first["sessionId"].as_str().unwrap()
        ))
        .await;
    assert_eq!(status, 200);
    assert_eq!(one["leaderboardIds"], json!(["daily", "weekly", "season"]));
    assert_eq!(one["outcomes"].as_array().unwrap().len(), 3);
    let (status, resp) = h
        .get("/players/p1/sessions/01JDAW6K2Z8Q4T1V5X7Y9B3C5D")
        .await;
    assert_eq!((status, code(&resp)), (404, "not_found"));
    let (status, resp) = h.get("/players/p1/sessions/not-a-ulid").await;
    assert_eq!((status, code(&resp)), (400, "invalid_request"));

    let (status, game) = h.get("/games/tetris/sessions?limit=100").await;
    assert_eq!(status, 200);
    assert_eq!(game["sessions"].as_array().unwrap().len(), 25);
    assert!(game["nextCursor"].is_null());
    let (_, page) = h.get("/games/tetris/sessions?limit=10").await;
    assert!(page["nextCursor"].is_string());
    for bad in ["limit=0", "limit=101", "cursor=x.y"] {
        let (status, _) = h.get(&format!("/games/tetris/sessions?{bad}")).await;
        assert_eq!(status, 400, "{bad}");
        let (status, _) = h.get(&format!("/players/p1/sessions?{bad}")).await;
        assert_eq!(status, 400, "{bad}");
    }
    let (status, _) = h.get("/games/te%23tris/sessions").await;
    assert_eq!(status, 400);
    let (status, results) = h.get("/players/p1/results").await;
    assert_eq!((status, results["results"].clone()), (200, json!([])));
    assert!(s(&h.table.dump().await[0], "pk").is_some());
}

#[tokio::test]
async fn after_close_the_reads_come_from_the_snapshot() {
    let h = harness("api_closed").await;
    let id = BoardId::parse("season_9").unwrap();
    let board = h.ended_board("season_9").await;
    let want = ranked(populate(&h, &board, 40).await, Order::Desc);
    let (_, live_top) = h.get("/leaderboards/season_9/scores?limit=40").await;
    let options = leaderboard_store::CloseOptions {
        page_size: 7,
        ..Default::default()
    };
    h.store
        .close_board(&id, Timestamp::now(), &options)
        .await
        .unwrap();

    let (status, meta) = h.get("/leaderboards/season_9").await;
    assert_eq!(status, 200);
    assert_eq!(
        (meta["status"].as_str(), meta["playerCount"].as_u64()),
        (Some("closed"), Some(40))
    );
    assert_eq!(meta["nextLeaderboardId"], "season_10");
    // Top-N is the final standings, identical to the live ranking before the close, in pages.
    let (_, first) = h.get("/leaderboards/season_9/scores?limit=25").await;
    let c = first["nextCursor"].as_str().unwrap().to_owned();
    let (_, second) = h
        .get(&format!(
            "/leaderboards/season_9/scores?limit=25&cursor={c}"
        ))
        .await;
    assert!(second["nextCursor"].is_null());
    let mut finals = first["entries"].as_array().unwrap().clone();
    finals.extend(second["entries"].as_array().unwrap().iter().cloned());
    assert_eq!(json!(finals), live_top["entries"]);
    // A player's rank, the around window, and the results come from the snapshot.
    let p = &want[20].0;
    let (status, entry) = h.get(&format!("/leaderboards/season_9/players/{p}")).await;
    assert_eq!((status, exact_own(&entry, 40)), (200, finals[20].clone()));
    assert_eq!(entry["topPercent"], 52.5);
    let (_, around) = h
        .get(&format!("/leaderboards/season_9/players/{p}/around?n=2"))
        .await;
    let around: Vec<Value> = around["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| exact_own(e, 40))
        .collect();
    assert_eq!(json!(around), json!(finals[18..23]));
    let (status, results) = h.get(&format!("/players/{p}/results")).await;
    assert_eq!(status, 200);
    assert_eq!(
        results["results"],
        json!([{
            "leaderboardId": "season_9", "playerId": p.as_str(), "rank": 21,
            "score": want[20].1, "playerCount": 40, "attainedAt": want[20].2.to_string()
        }])
    );
    let (status, resp) = h.get("/leaderboards/season_9/players/nobody").await;
    assert_eq!((status, code(&resp)), (404, "not_found"));
    let (status, resp) = h.get("/leaderboards/season_9/players/nobody/around").await;
    assert_eq!((status, code(&resp)), (404, "not_found"));
    // The successor is open and empty.
    let (status, next) = h.get("/leaderboards/season_10/scores").await;
    assert_eq!((status, next["entries"].clone()), (200, json!([])));
}
