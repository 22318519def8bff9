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
        let (status, resp) = h
            .call("POST", "/leaderboards", As::Admin("ops"), Some(&body))
            .await;
        assert_eq!((status, code(&resp)), (400, "invalid_request"), "{body}");
        let message = resp["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{body}: {message}");
        assert_eq!(h.table.dump().await, before, "{body} wrote something");
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
