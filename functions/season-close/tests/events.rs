//! `BoardClosed` against DynamoDB Local: a close publishes one event with the board's first 10
//! final standings, its count and its successor; a close whose finish fails after the
//! publication (a crash there) publishes the same `eventId` again on its next run and finishes,
//! and a run after that publishes nothing.

use crate::common;

use std::sync::Arc;

use common::*;
use leaderboard_devkit::contention::{Fault, faulty_client};
use leaderboard_devkit::testing::s;
use leaderboard_events::{EventLog, Publisher};
use leaderboard_store::CloseOptions;
use leaderboard_store::model::Recurrence;
use season_close::{App, run};
use serde_json::{Value, json};

fn publishing(store: leaderboard_store::Store, log: &Arc<EventLog>) -> App {
    App::new(store, CloseOptions::default()).with_publisher(Publisher::Log(log.clone()))
}

#[tokio::test]
async fn a_close_publishes_one_board_closed_with_its_top_ten_and_next_board() {
    let (_table, store) = store("events_closed").await;
    ended_board(&store, "daily_7", Recurrence::Daily, HOUR, 12).await;
    let log = Arc::new(EventLog::new(100));
    let app = publishing(store.clone(), &log);
    let summary = run(&app, None).await.unwrap();
    assert_eq!(summary.close().closed.len(), 1, "{summary:?}");
    let next = summary.close().closed[0]
        .next_board_id
        .clone()
        .expect("a successor");

    let events = log.newest_first();
    assert_eq!(events.len(), 2, "the close, and its successor's opening");
    let opened = &events[1];
    assert_eq!(opened["detail-type"], "BoardOpened");
    let successor = store.boards().get_board(&next).await.unwrap().unwrap();
    assert_eq!(
        opened["detail"],
        json!({"eventId": format!("opened:{next}"), "leaderboardId": next.as_str(),
               "seriesId": "daily", "startsAt": successor.starts_at.to_string(),
               "endsAt": successor.ends_at.unwrap().to_string()})
    );
    assert_eq!(events[0]["source"], "leaderboard");
    assert_eq!(events[0]["detail-type"], "BoardClosed");
    let detail = &events[0]["detail"];
    assert_eq!(detail["eventId"], "closed:daily_7");
    assert_eq!(detail["leaderboardId"], "daily_7");
    assert_eq!(detail["playerCount"], 12);
    assert_eq!(detail["nextLeaderboardId"], next.as_str());
    let finals = store
        .listings()
        .final_standings(&bid("daily_7"), 10, None)
        .await
        .unwrap()
        .items;
    let want: Vec<Value> = finals
        .iter()
        .map(|f| {
            json!({"rank": f.rank, "playerId": f.player_id.as_str(), "name": f.name,
                   "score": f.score})
        })
        .collect();
    assert_eq!(want.len(), 10);
    assert_eq!(want[0]["rank"], 1);
    assert_eq!(detail["top"], Value::Array(want));

    // Closed: not due any more, nothing published again.
    let again = run(&app, None).await.unwrap();
    assert!(
        again.close().closed.is_empty() && again.close().failed.is_empty(),
        "{again:?}"
    );
    assert_eq!(log.newest_first().len(), 2);
}

#[tokio::test]
async fn a_close_stopped_after_publishing_publishes_the_same_id_again_and_finishes() {
    let (table, store) = store("events_republished").await;
    ended_board(&store, "cup", Recurrence::None, HOUR, 3).await;
    let log = Arc::new(EventLog::new(100));
    // The close's finish (the update that writes `closedAt`) never reaches the table.
    let (client, _) = faulty_client(
        &table.endpoint,
        &["UpdateItem:closedAt"],
        Fault::Throttled,
        u64::MAX,
    );
    let stopped = run(&publishing(store_over(&table, client), &log), None)
        .await
        .unwrap();
    assert_eq!(
        stopped.close().failed,
        vec!["cup".to_owned()],
        "{stopped:?}"
    );
    let board = table.raw("LEADERBOARD#cup", "#METADATA").await.unwrap();
    assert_eq!(s(&board, "status"), Some("closing"));
    assert_eq!(log.newest_first().len(), 1);

    let app = publishing(store, &log);
    let finished = run(&app, None).await.unwrap();
    assert_eq!(finished.close().closed.len(), 1, "{finished:?}");
    let events = log.newest_first();
    assert_eq!(events.len(), 2, "published again");
    assert_eq!(events[0], events[1], "the same event, the same id");
    assert_eq!(events[0]["detail"]["eventId"], "closed:cup");
    assert_eq!(events[0]["detail"]["playerCount"], 3);
    assert_eq!(events[0]["detail"]["nextLeaderboardId"], Value::Null);
    let board = table.raw("LEADERBOARD#cup", "#METADATA").await.unwrap();
    assert_eq!(s(&board, "status"), Some("closed"));

    run(&app, None).await.unwrap();
    assert_eq!(log.newest_first().len(), 2, "nothing new once closed");
}

#[tokio::test]
async fn a_top_player_erased_during_the_close_is_published_by_pseudonym_only() {
    let (table, store) = store("events_erased_top").await;
    ended_board(&store, "cup_erased", Recurrence::None, HOUR, 5).await;
    // The close has begun (closing, lanes closed) and snapshotted nothing yet when the top
    // player asks to be erased: the erasure waits for the close to archive their entry.
    let (top, waiting) = erase_top_while_closing(&store, "cup_erased").await;
    // The close's next run snapshots the board with the player's id, publishes, finishes, and
    // the erasure is finished after it.
    let log = Arc::new(EventLog::new(100));
    let summary = run(&publishing(store.clone(), &log), None).await.unwrap();
    assert_eq!(summary.close().closed.len(), 1, "{summary:?}");
    let events = log.newest_first();
    assert_eq!(events.len(), 1);
    let first = &events[0]["detail"]["top"][0];
    assert_eq!(
        first,
        &json!({"rank": 1, "playerId": waiting.pseudonym.as_str(), "score": first["score"]})
    );
    let published = serde_json::to_string(&events).unwrap();
    assert!(!published.contains(top.as_str()), "{published}");
    assert!(
        store
            .moderation()
            .erasure_of(&top)
            .await
            .unwrap()
            .unwrap()
            .finished(),
        "the run finished the erasure"
    );
    let left = items_naming(&table, &top).await;
    assert!(left.is_empty(), "{left:?}");
}
