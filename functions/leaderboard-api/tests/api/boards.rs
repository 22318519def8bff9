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
