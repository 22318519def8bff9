//! Boards that recur by the calendar, against DynamoDB Local: each run of the worker closes the
//! due board and opens its successor, whose window is computed in the schedule's zone, so a
//! chain across the spring and autumn daylight-saving changes keeps its local time (18:00 on
//! Fridays in Berlin, midnight in New York) and its ids follow the local dates. A board an
//! admin ends now is closed by the worker's next run, which publishes its successor's
//! `BoardOpened`.

use crate::common;

use common::*;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::CloseOptions;
use leaderboard_store::model::Recurrence;
use leaderboard_store::recurrence::CronSchedule;
use season_close::{App, run};

fn ms(rfc3339: &str) -> u64 {
    Timestamp::parse_rfc3339("t", rfc3339).unwrap().as_millis()
}

fn cron(expr: &str, zone: &str) -> Recurrence {
    Recurrence::Cron(CronSchedule {
        cron: expr.into(),
        timezone: zone.into(),
    })
}

/// Runs the worker `links` times from a first board `first` of `recurrence` over
/// `start..end`, and gives every board of the chain as (id, startsAt, endsAt).
async fn chain(
    label: &str,
    first: &str,
    recurrence: Recurrence,
    (start, end): (&str, &str),
    links: usize,
) -> Vec<(String, String, String)> {
    let (_table, store) = store(label).await;
    board(
        &store,
        first,
        Order::Desc,
        recurrence.clone(),
        ms(start),
        ms(end),
    )
    .await;
    let app = App::new(store.clone(), CloseOptions::default());
    let mut boards = Vec::new();
    let mut id = bid(first);
    for _ in 0..links {
        let summary = run(&app, None).await.unwrap();
        let closed = &summary.close().closed;
        assert_eq!(closed.len(), 1, "one board due a run: {summary:?}");
        assert_eq!(closed[0].board_id, id);
        let b = store.boards().get_board(&id).await.unwrap().unwrap();
        assert_eq!(b.recurrence, recurrence, "the successor keeps the schedule");
        let ends = b.ends_at.unwrap().to_string();
        boards.push((id.to_string(), b.starts_at.to_string(), ends));
        id = closed[0].next_board_id.clone().expect("a successor");
    }
    let last = store.boards().get_board(&id).await.unwrap().unwrap();
    let ends = last.ends_at.unwrap().to_string();
    boards.push((id.to_string(), last.starts_at.to_string(), ends));
    boards
}

fn rows(want: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    want.iter()
        .map(|(id, s, e)| (id.to_string(), format!("{s}.000Z"), format!("{e}.000Z")))
        .collect()
}

#[tokio::test]
async fn a_friday_evening_cup_in_berlin_keeps_18_local_across_the_spring_change() {
    // CET (UTC+1) until 29 March 2026, CEST (UTC+2) after.
    let boards = chain(
        "cron_berlin",
        "cup_2026-03-13",
        cron("0 18 * * FRI", "Europe/Berlin"),
        ("2026-03-13T17:00:00Z", "2026-03-20T17:00:00Z"),
        3,
    )
    .await;
    assert_eq!(
        boards,
        rows(&[
            (
                "cup_2026-03-13",
                "2026-03-13T17:00:00",
                "2026-03-20T17:00:00"
            ),
            (
                "cup_2026-03-20",
                "2026-03-20T17:00:00",
                "2026-03-27T17:00:00"
            ),
            (
                "cup_2026-03-27",
                "2026-03-27T17:00:00",
                "2026-04-03T16:00:00"
            ),
            (
                "cup_2026-04-03",
                "2026-04-03T16:00:00",
                "2026-04-10T16:00:00"
            ),
        ])
    );
}

#[tokio::test]
async fn a_midnight_board_in_new_york_has_a_25_hour_day_at_the_autumn_change() {
    // EDT (UTC-4) until 1 November 2026 at 02:00, EST (UTC-5) after.
    let boards = chain(
        "cron_new_york",
        "ny_2026-10-31",
        cron("0 0 * * *", "America/New_York"),
        ("2026-10-31T04:00:00Z", "2026-11-01T04:00:00Z"),
        2,
    )
    .await;
    assert_eq!(
        boards,
        rows(&[
            (
                "ny_2026-10-31",
                "2026-10-31T04:00:00",
                "2026-11-01T04:00:00"
            ),
            (
                "ny_2026-11-01",
                "2026-11-01T04:00:00",
                "2026-11-02T05:00:00"
            ),
            (
                "ny_2026-11-02",
                "2026-11-02T05:00:00",
                "2026-11-03T05:00:00"
            ),
        ])
    );
}

#[tokio::test]
async fn a_monthly_board_is_followed_by_next_months() {
    let boards = chain(
        "monthly",
        "monthly_2026-01-01",
        Recurrence::Monthly,
        ("2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"),
        2,
    )
    .await;
    assert_eq!(
        boards,
        rows(&[
            (
                "monthly_2026-01-01",
                "2026-01-01T00:00:00",
                "2026-02-01T00:00:00"
            ),
            (
                "monthly_2026-02-01",
                "2026-02-01T00:00:00",
                "2026-03-01T00:00:00"
            ),
            (
                "monthly_2026-03-01",
                "2026-03-01T00:00:00",
                "2026-04-01T00:00:00"
            ),
        ])
    );
}

#[tokio::test]
async fn a_board_ended_now_closes_in_the_next_run_and_its_successor_opens() {
    use std::sync::Arc;

    use leaderboard_events::{EventLog, Publisher};

    let (_table, store) = store("close_now").await;
    let now = Timestamp::now().as_millis();
    let friday = cron("0 18 * * FRI", "Europe/Berlin");
    board(
        &store,
        "cup_1",
        Order::Desc,
        friday,
        now - HOUR,
        now + 30 * 24 * HOUR,
    )
    .await;
    let log = Arc::new(EventLog::new(10));
    let app = App::new(store.clone(), CloseOptions::default())
        .with_publisher(Publisher::Log(log.clone()));
    let summary = run(&app, None).await.unwrap();
    assert!(summary.close().closed.is_empty(), "not due: {summary:?}");

    let ended = store
        .tournaments()
        .close_now(&bid("cup_1"), "ops", Timestamp::now())
        .await
        .unwrap();
    let summary = run(&app, None).await.unwrap();
    assert_eq!(closed_boards(&summary), [("cup_1", 0)], "{summary:?}");
    let next = store
        .boards()
        .get_board(&bid("cup_2"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(next.starts_at, ended.ends_at.unwrap());
    let events = log.newest_first();
    let kinds: Vec<_> = events.iter().map(|e| e["detail-type"].clone()).collect();
    assert_eq!(kinds, ["BoardClosed", "BoardOpened"]);
    assert_eq!(events[1]["detail"]["eventId"], "opened:cup_2");
    assert_eq!(events[1]["detail"]["seriesId"], "cup");
}

#[tokio::test]
async fn a_season_ended_early_is_followed_by_one_as_long_as_it_was_scheduled() {
    let (_table, store) = store("close_now_season").await;
    let now = Timestamp::now().as_millis();
    let (start, end) = (now - HOUR, now + 10 * 24 * HOUR);
    board(
        &store,
        "season_1",
        Order::Desc,
        Recurrence::Season,
        start,
        end,
    )
    .await;
    let ended = store
        .tournaments()
        .close_now(&bid("season_1"), "ops", Timestamp::now())
        .await
        .unwrap();
    assert_eq!(ended.scheduled_ends_at.map(Timestamp::as_millis), Some(end));
    let app = App::new(store.clone(), CloseOptions::default());
    let summary = run(&app, None).await.unwrap();
    assert_eq!(closed_boards(&summary), [("season_1", 0)], "{summary:?}");
    let next = store
        .boards()
        .get_board(&bid("season_2"))
        .await
        .unwrap()
        .unwrap();
    let stopped = ended.ends_at.unwrap();
    assert_eq!(next.starts_at, stopped);
    assert_eq!(next.ends_at, Some(stopped.plus_millis(end - start)));
    assert_eq!(next.scheduled_ends_at, None);
}
