//! Publishing to a real EventBridge protocol server on loopback (moto's server mode): the
//! events reach a rule's SQS target as EventBridge delivers them (`source`, `detail-type`,
//! `detail` with the event's id), the rule of the README's example takes `BoardClosed` and
//! leaves `NewLeader`, a re-publication carries the same id, and a bus that does not exist
//! fails the publication (the caller's to repeat).

use leaderboard_devkit::sqs;
use leaderboard_events::eventbridge::Bus;
use leaderboard_events::{BoardClosed, BoardOpened, Event, NewLeader, Publisher, Standing};
use serde_json::{Value, json};

fn closed(board: &str) -> Event {
    let top = vec![Standing {
        rank: 1,
        player_id: "p_alice".into(),
        name: Some("Alice".into()),
        score: 900,
    }];
    Event::BoardClosed(BoardClosed::new(board, 1, top, Some("daily_2".into())))
}

fn leader(board: &str) -> Event {
    Event::NewLeader(NewLeader::new(
        board,
        (4, 9),
        "p_bob",
        950,
        Some("p_alice".into()),
    ))
}

/// A bus whose rule sends `BoardClosed` to a fresh queue (the README's rule): the publisher,
/// and the queue's URL.
async fn bus_to_queue(name: &str) -> (Publisher, String) {
    let endpoint = sqs::endpoint().await;
    let events = sqs::eventbridge_client(&endpoint);
    events.create_event_bus().name(name).send().await.unwrap();
    let url =
        sqs::queue_for_events(&endpoint, name, "BoardClosed", &format!("{name}-closed")).await;
    (Publisher::EventBridge(Bus::with_client(events, name)), url)
}

async fn drain(url: &str) -> Vec<Value> {
    sqs::drain(url).await
}

#[tokio::test]
async fn board_closed_reaches_the_rules_queue_and_new_leader_does_not() {
    let (publisher, url) = bus_to_queue("lb-events-rule").await;
    publisher
        .publish(&[leader("daily_1"), closed("daily_1")])
        .await
        .unwrap();
    let got = drain(&url).await;
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["source"], "leaderboard");
    assert_eq!(got[0]["detail-type"], "BoardClosed");
    assert_eq!(got[0]["detail"], closed("daily_1").detail());
    assert_eq!(got[0]["detail"]["eventId"], "closed:daily_1");
}

#[tokio::test]
async fn a_republished_event_carries_the_same_id() {
    let (publisher, url) = bus_to_queue("lb-events-again").await;
    publisher.publish(&[closed("weekly_3")]).await.unwrap();
    publisher.publish(&[closed("weekly_3")]).await.unwrap();
    let ids: Vec<Value> = drain(&url)
        .await
        .iter()
        .map(|e| e["detail"]["eventId"].clone())
        .collect();
    assert_eq!(ids, [json!("closed:weekly_3"), json!("closed:weekly_3")]);
}

#[tokio::test]
async fn a_successors_opening_republished_carries_the_same_id() {
    let endpoint = sqs::endpoint().await;
    let name = "lb-events-opened";
    let events = sqs::eventbridge_client(&endpoint);
    events.create_event_bus().name(name).send().await.unwrap();
    let url = sqs::queue_for_events(&endpoint, name, "BoardOpened", "lb-opened").await;
    let publisher = Publisher::EventBridge(Bus::with_client(events, name));
    let opened = Event::BoardOpened(BoardOpened::new(
        "cup_2026-12-04",
        "cup",
        "2026-12-04T17:00:00.000Z".into(),
        Some("2026-12-11T17:00:00.000Z".into()),
    ));
    publisher
        .publish(&[opened.clone(), closed("cup_2026-11-27")])
        .await
        .unwrap();
    publisher
        .publish(std::slice::from_ref(&opened))
        .await
        .unwrap();
    let got = drain(&url).await;
    assert_eq!(got.len(), 2, "{got:?}");
    for e in &got {
        assert_eq!(e["detail-type"], "BoardOpened");
        assert_eq!(e["detail"], opened.detail());
        assert_eq!(e["detail"]["eventId"], "opened:cup_2026-12-04");
    }
}

#[tokio::test]
async fn more_than_one_requests_worth_is_published_whole() {
    let (publisher, url) = bus_to_queue("lb-events-many").await;
    let events: Vec<Event> = (0..23).map(|i| closed(&format!("b{i:02}"))).collect();
    publisher.publish(&events).await.unwrap();
    let mut ids: Vec<String> = drain(&url)
        .await
        .iter()
        .map(|e| e["detail"]["leaderboardId"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    let want: Vec<String> = (0..23).map(|i| format!("b{i:02}")).collect();
    assert_eq!(ids, want);
}

#[tokio::test]
async fn a_bus_that_does_not_exist_fails_the_publication() {
    let endpoint = sqs::endpoint().await;
    let publisher = Publisher::EventBridge(Bus::with_client(
        sqs::eventbridge_client(&endpoint),
        "lb-events-no-such-bus",
    ));
    let err = publisher.publish(&[closed("x")]).await.unwrap_err();
    assert!(err.contains("lb-events-no-such-bus"), "{err}");
}
