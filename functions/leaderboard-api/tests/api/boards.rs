//! The spec and the routers agree; boards created and read.

use super::*;

#[tokio::test]
async fn the_spec_and_the_routers_agree() {
    let spec: serde_yaml::Value =
        serde_yaml::from_str(include_str!("../../../../openapi.yaml")).unwrap();
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
    assert_eq!(
        minimal["writeShards"], 1,
        "one write shard by default: {minimal}"
    );
    // A hot board: its entries spread over 4 partitions, which GET shows.
    let (status, hot) = h
        .call(
            "POST",
            "/leaderboards",
            As::Admin("ops"),
            Some(&json!({"leaderboardId": "hot", "name": "Hot", "writeShards": 4})),
        )
        .await;
    assert_eq!((status, &hot["writeShards"]), (201, &json!(4)), "{hot}");
    let (status, got) = h.get("/leaderboards/hot").await;
    assert_eq!((status, &got["writeShards"]), (200, &json!(4)));
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
        (
            As::Admin("ops"),
            json!({"leaderboardId": "x1", "name": "X", "seriesId": "a#b"}),
            400,
            "invalid_request",
        ),
        (As::Admin("ops"), json!([1, 2]), 400, "invalid_request"),
        // Write shards: 1 to 32.
        (
            As::Admin("ops"),
            json!({"leaderboardId": "x1", "name": "X", "writeShards": 0}),
            400,
            "invalid_request",
        ),
        (
            As::Admin("ops"),
            json!({"leaderboardId": "x1", "name": "X", "writeShards": 33}),
            400,
            "invalid_request",
        ),
        (
            As::Admin("ops"),
            json!({"leaderboardId": "x1", "name": "X", "writeShards": "2"}),
            400,
            "invalid_request",
        ),
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
async fn boards_list_newest_first_by_series_status_and_game() {
    let h = harness("api_list_boards").await;
    // Oldest first: a closed-looking ended daily, today's daily, a weekly of another game.
    let mk = |id: &str, extra: Value| {
        let mut body = json!({"leaderboardId": id, "name": id, "recurrence": "daily",
            "startsAt": "2026-01-01T00:00:00Z", "endsAt": "2099-01-01T00:00:00Z"});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        body
    };
    for body in [
        mk(
            "daily_2026-11-25",
            json!({"endsAt": "2026-11-26T00:00:00Z"}),
        ),
        mk("daily_2026-11-26", json!({})),
        mk(
            "chess_weekly_2026-w48",
            json!({"recurrence": "weekly", "gameId": "chess"}),
        ),
        mk("cup", json!({"seriesId": "cups", "recurrence": "none"})),
    ] {
        let (status, created) = h
            .call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
            .await;
        assert_eq!(status, 201, "{created}");
        // A little time apart, so that newest first is an order.
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let (all, body) = listed(&h, "").await;
    assert_eq!(
        all,
        [
            "cup",
            "chess_weekly_2026-w48",
            "daily_2026-11-26",
            "daily_2026-11-25"
        ]
    );
    assert_eq!(body["nextCursor"], Value::Null);
    // Each as GET /leaderboards/{b} shows it, its series included.
    let (_, one) = h.get("/leaderboards/daily_2026-11-25").await;
    assert_eq!(body["leaderboards"][3], one);
    assert_eq!(one["seriesId"], "daily");
    assert_eq!(one["status"], "ended");
    // Today's daily board in one request.
    let (today, _) = listed(&h, "?status=open&seriesId=daily&limit=1").await;
    assert_eq!(today, ["daily_2026-11-26"]);
    let (days, _) = listed(&h, "?seriesId=daily").await;
    assert_eq!(days, ["daily_2026-11-26", "daily_2026-11-25"]);
    let (ended, _) = listed(&h, "?status=ended").await;
    assert_eq!(ended, ["daily_2026-11-25"]);
    let (chess, _) = listed(&h, "?gameId=chess").await;
    assert_eq!(chess, ["chess_weekly_2026-w48"]);
    let (cups, _) = listed(&h, "?seriesId=cups").await;
    assert_eq!(cups, ["cup"]);
    // Paged: two at a time, the cursor carrying on.
    let (first, page) = listed(&h, "?limit=2").await;
    assert_eq!(first, ["cup", "chess_weekly_2026-w48"]);
    let cursor = page["nextCursor"].as_str().unwrap().to_owned();
    let (status, rest) = h
        .get(&format!("/leaderboards?limit=2&cursor={cursor}"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(rest["leaderboards"][0]["leaderboardId"], "daily_2026-11-26");
    // Refused: a bad status, series, game, limit or cursor.
    for q in [
        "?status=done",
        "?seriesId=a%23b",
        "?gameId=a%23b",
        "?limit=0",
        "?limit=101",
        "?cursor=nope",
    ] {
        let (status, body) = h.get(&format!("/leaderboards{q}")).await;
        assert_eq!((status, code(&body)), (400, "invalid_request"), "{q}");
    }
}

/// `GET /leaderboards{q}`: the ids listed, and the answer.
async fn listed(h: &Harness, q: &str) -> (Vec<String>, Value) {
    let (status, body) = h.get(&format!("/leaderboards{q}")).await;
    assert_eq!(status, 200, "{q}: {body}");
    let ids = body["leaderboards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["leaderboardId"].as_str().unwrap().to_owned())
        .collect();
    (ids, body)
}
