//! Schedules and tournament rules through the API handler on DynamoDB Local (contract section
//! 12): boards that recur monthly or by a cron schedule in a time zone, and the schedules it
//! refuses, with nothing written.

use crate::common;

use serde_json::json;

use common::*;

#[tokio::test]
async fn calendar_recurrences_are_created_with_their_first_end_and_bad_schedules_refused() {
    let h = harness("api_schedules").await;
    let before = h.table.dump().await;
    for (recurrence, says) in [
        (
            json!({"cron": "0 0 30 2 *", "timezone": "UTC"}),
            "never matches",
        ),
        (
            json!({"cron": "* * * * * *", "timezone": "UTC"}),
            "less than a minute apart",
        ),
        (json!({"cron": "0 18 * * FRI", "timezone": "CET+1"}), "IANA"),
        (json!({"cron": "0 18 * * FRI"}), "timezone"),
        (
            json!({"cron": "0 18 * * FRI", "timezone": "UTC", "tz": "UTC"}),
            "tz",
        ),
        (json!("fortnightly"), "monthly"),
    ] {
        let body = json!({"leaderboardId": "cup_1", "name": "Cup", "recurrence": recurrence});
        h.refused_board(&body, says, &before).await;
    }

    // A schedule without endsAt ends at its first match after startsAt, in its zone: 18:00 in
    // Berlin on the Friday after Wednesday 2 December 2026 (CET, UTC+1).
    let schedule = json!({"cron": "0 18 * * FRI", "timezone": "Europe/Berlin"});
    let body = json!({"leaderboardId": "cup_1", "name": "Cup 1", "recurrence": schedule,
        "startsAt": "2026-12-02T09:00:00Z"});
    let (status, board) = h
        .call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
        .await;
    assert_eq!(status, 201, "{board}");
    assert_eq!(board["recurrence"], schedule);
    assert_eq!(board["endsAt"], "2026-12-04T17:00:00.000Z");
    let (_, read) = h.get("/leaderboards/cup_1").await;
    assert_eq!(read["recurrence"], schedule);

    // A monthly board ends a calendar month after it starts; given, its endsAt is kept.
    let body = json!({"leaderboardId": "monthly_2027-01-01", "name": "January",
        "recurrence": "monthly", "startsAt": "2027-01-01T00:00:00Z"});
    let (status, board) = h
        .call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
        .await;
    assert_eq!(
        (status, &board["endsAt"]),
        (201, &json!("2027-02-01T00:00:00.000Z"))
    );
    assert_eq!(board["recurrence"], "monthly");
}

#[tokio::test]
async fn a_tournament_takes_plays_from_its_joined_players_within_their_attempts() {
    let h = harness("api_tournament").await;
    let body = json!({"leaderboardId": "cup", "name": "Cup", "joinRequired": true,
        "maxEntrants": 2, "maxAttempts": 2, "gameId": "tetris"});
    let (status, board) = h
        .call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
        .await;
    assert_eq!(status, 201, "{board}");
    assert_eq!(
        (
            &board["joinRequired"],
            &board["maxEntrants"],
            &board["maxAttempts"]
        ),
        (&json!(true), &json!(2), &json!(2))
    );
    let play = json!({"score": 10, "gameId": "tetris", "leaderboardIds": ["cup"]});
    let before = h.table.dump().await;
    let (status, resp) = h.post("ann", None, &play).await;
    assert_eq!((status, code(&resp)), (403, "not_joined"), "{resp}");
    assert_eq!(
        h.table.dump().await,
        before,
        "a refused play wrote something"
    );

    // A game server joins the player it names; without one it is refused.
    let (status, resp) = h
        .call("POST", "/leaderboards/cup/join", As::Server("srv"), None)
        .await;
    assert_eq!((status, code(&resp)), (400, "invalid_request"), "{resp}");
    let (status, resp) = h
        .call(
            "POST",
            "/leaderboards/cup/join",
            As::Server("srv"),
            Some(&json!({"playerId": "bob"})),
        )
        .await;
    assert_eq!((status, &resp["playerId"]), (200, &json!("bob")), "{resp}");
    for player in ["ann", "bob", "ann"] {
        let (status, resp) = h
            .call("POST", "/leaderboards/cup/join", As::Player(player), None)
            .await;
        assert_eq!(status, 200, "{resp}");
        assert_eq!(
            resp,
            json!({"leaderboardId": "cup", "playerId": player, "joined": true})
        );
    }
    let before = h.table.dump().await;
    let (status, resp) = h
        .call("POST", "/leaderboards/cup/join", As::Player("cid"), None)
        .await;
    assert_eq!((status, code(&resp)), (409, "board_full"), "{resp}");
    let (status, resp) = h
        .call("POST", "/leaderboards/nope/join", As::Player("cid"), None)
        .await;
    assert_eq!((status, code(&resp)), (404, "not_found"), "{resp}");
    let (status, _) = h
        .call("POST", "/leaderboards/cup/join", As::Anonymous, None)
        .await;
    assert_eq!(status, 401);
    assert_eq!(
        h.table.dump().await,
        before,
        "a refused join wrote something"
    );

    for score in [10, 20] {
        let play = json!({"score": score, "gameId": "tetris", "leaderboardIds": ["cup"]});
        let (status, resp) = h.post("ann", None, &play).await;
        assert_eq!(status, 200, "{resp}");
    }
    let before = h.table.dump().await;
    let (status, resp) = h.post("ann", Some("cup"), &json!({"score": 30})).await;
    assert_eq!((status, code(&resp)), (403, "attempts_exhausted"), "{resp}");
    assert_eq!(
        h.table.dump().await,
        before,
        "a refused play wrote something"
    );
}

#[tokio::test]
async fn an_admin_ends_a_board_now_once_with_an_audit_item() {
    let h = harness("api_close_now").await;
    let body = json!({"leaderboardId": "cup_1", "name": "Cup 1", "recurrence": "weekly",
        "startsAt": "2026-01-01T00:00:00Z", "endsAt": "2099-01-01T00:00:00Z"});
    let (status, _) = h
        .call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
        .await;
    assert_eq!(status, 201);
    let before = h.table.dump().await;
    for (who, want) in [(As::Player("ann"), 403), (As::Anonymous, 401)] {
        let (status, _) = h.call("POST", "/leaderboards/cup_1/close", who, None).await;
        assert_eq!(status, want);
    }
    let (status, _) = h
        .call("POST", "/leaderboards/nope/close", As::Admin("ops"), None)
        .await;
    assert_eq!(status, 404);
    assert_eq!(
        h.table.dump().await,
        before,
        "a refused close wrote something"
    );
    // A league's period ends with its cohorts, at its end.
    let league = json!({"leaderboardId": "lg", "name": "League", "recurrence": "weekly",
        "endsAt": "2099-01-01T00:00:00Z",
        "league": {"tiers": ["low", "high"], "cohortSize": 10, "promote": 1, "relegate": 1}});
    let (status, _) = h
        .call("POST", "/leaderboards", As::Admin("ops"), Some(&league))
        .await;
    assert_eq!(status, 201);
    let before = h.table.dump().await;
    let (status, resp) = h
        .call("POST", "/leaderboards/lg/close", As::Admin("ops"), None)
        .await;
    assert_eq!((status, code(&resp)), (400, "invalid_request"), "{resp}");
    assert_eq!(
        h.table.dump().await,
        before,
        "a refused close wrote something"
    );

    let (status, board) = h
        .call("POST", "/leaderboards/cup_1/close", As::Admin("ops"), None)
        .await;
    assert_eq!(
        (status, &board["status"]),
        (200, &json!("ended")),
        "{board}"
    );
    let ended = board["endsAt"].clone();
    let audits = |items: &[leaderboard_devkit::testing::RawItem]| {
        items
            .iter()
            .filter(|i| i["pk"].as_s().unwrap() == "LEADERBOARD#cup_1")
            .filter(|i| i["sk"].as_s().unwrap().starts_with("ACTION#"))
            .map(|i| {
                let s = |k: &str| i[k].as_s().unwrap().clone();
                (s("action"), s("actor"))
            })
            .collect::<Vec<_>>()
    };
    let after = h.table.dump().await;
    assert_eq!(audits(&after), [("board_closed".into(), "ops".into())]);
    let (status, trail) = h
        .call(
            "GET",
            "/admin/audit?leaderboardId=cup_1",
            As::Admin("ops"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{trail}");
    let item = &trail["items"][0];
    assert_eq!(
        (
            &item["action"],
            &item["actor"],
            &item["leaderboardId"],
            &item["at"]
        ),
        (
            &json!("board_closed"),
            &json!("ops"),
            &json!("cup_1"),
            &ended
        )
    );
    assert_eq!(trail["items"].as_array().unwrap().len(), 1);
    let (status, _) = h
        .call(
            "GET",
            "/admin/audit?leaderboardId=cup_1&playerId=ann",
            As::Admin("ops"),
            None,
        )
        .await;
    assert_eq!(status, 400);
    // Again: answered as it is, nothing written.
    let (status, again) = h
        .call("POST", "/leaderboards/cup_1/close", As::Admin("ops"), None)
        .await;
    assert_eq!((status, &again["endsAt"]), (200, &ended));
    assert_eq!(h.table.dump().await, after);
    let (status, resp) = h.post("ann", Some("cup_1"), &json!({"score": 5})).await;
    assert_eq!((status, code(&resp)), (409, "board_closed"), "{resp}");
}
