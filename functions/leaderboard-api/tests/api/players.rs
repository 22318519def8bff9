//! Profiles, a player's scores and sessions, a game's sessions.

use super::*;

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
