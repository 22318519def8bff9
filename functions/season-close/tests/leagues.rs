//! A league's period closed by the scheduled run, on DynamoDB Local: the league board waits
//! for its cohorts, each cohort closes and publishes its `BoardClosed`, and in the same run the
//! league closes and rolls over, within season close's policy; players' placements carry where
//! the period's end moved them.

use crate::common;

use std::sync::Arc;

use common::*;
use leaderboard_events::{EventLog, Publisher};
use leaderboard_keys::ids::{GameId, PlayerId, SessionId, TierName};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::league::League;
use leaderboard_store::model::{NewBoard, Recurrence};
use leaderboard_store::{CloseOptions, Play};
use season_close::{App, run};

#[tokio::test]
async fn a_run_closes_the_cohorts_then_the_league_and_publishes_each_close() {
    let (table, store) = store("close_league").await;
    let now = Timestamp::now().as_millis();
    let tiers = ["low", "high"]
        .map(|t| TierName::parse(t).unwrap())
        .to_vec();
    let new = NewBoard {
        recurrence: Recurrence::Weekly,
        league: Some(League {
            tiers,
            cohort_size: 3,
            promote: 1,
            relegate: 1,
        }),
        ..board_body("lg_2026-w01", Order::Desc, now - 8 * 24 * HOUR, now - HOUR)
    };
    let started = Timestamp::from_millis(now - 8 * 24 * HOUR).unwrap();
    store.boards().create_board(new, started).await.unwrap();
    // Seven players: cohorts of 3, 3 and 1.
    for i in 0..7u64 {
        let at = now - 2 * HOUR + i;
        let play = Play {
            subscores: Default::default(),
            player_id: PlayerId::parse(&format!("p{i}")).unwrap(),
            session_id: SessionId::from_parts(at, u128::from(i)).unwrap(),
            idempotency_key: None,
            game_id: Some(GameId::parse("tetris").unwrap()),
            score: 10 * i,
            duration_sec: Some(60),
            board_ids: vec![bid("lg_2026-w01")],
            metadata: None,
        };
        let at = Timestamp::from_millis(at).unwrap();
        store.plays().commit_play(&play, at).await.unwrap();
    }
    let (recorded, requests) = recorded_store(&table);
    let log = Arc::new(EventLog::new(100));
    let app =
        App::new(recorded, CloseOptions::default()).with_publisher(Publisher::Log(log.clone()));
    let summary = run(&app, None).await.unwrap();
    assert_within_policy(&requests);
    let closed = closed_boards(&summary);
    assert_eq!(
        closed,
        [
            ("lg_2026-w01.low.1", 3),
            ("lg_2026-w01.low.2", 3),
            ("lg_2026-w01.low.3", 1),
            ("lg_2026-w01", 0)
        ],
        "{summary:?}"
    );
    assert!(summary.close().paused.is_empty() && summary.close().failed.is_empty());
    let next = store
        .boards()
        .get_board(&bid("lg_2026-w02"))
        .await
        .unwrap()
        .unwrap();
    assert!(next.is_league(), "the successor is a league too");
    let mut published: Vec<String> = log
        .newest_first()
        .iter()
        .map(|e| {
            let (kind, board) = (&e["detail-type"], &e["detail"]["leaderboardId"]);
            format!("{} {}", kind.as_str().unwrap(), board.as_str().unwrap())
        })
        .collect();
    published.sort();
    // Each close, and the opening of the league's next period (cohorts do not recur).
    assert_eq!(
        published,
        [
            "BoardClosed lg_2026-w01",
            "BoardClosed lg_2026-w01.low.1",
            "BoardClosed lg_2026-w01.low.2",
            "BoardClosed lg_2026-w01.low.3",
            "BoardOpened lg_2026-w02"
        ]
    );
    // The best of each cohort moves up; the lowest tier relegates no one.
    let series = next.series();
    let end = Timestamp::from_millis(now - HOUR).unwrap();
    for (player, after) in [
        ("p2", "high"),
        ("p0", "low"),
        ("p5", "high"),
        ("p6", "high"),
    ] {
        let key =
            leaderboard_keys::entity::placement(&PlayerId::parse(player).unwrap(), &series, end)
                .unwrap();
        let item = table.raw(&key.pk, &key.sk).await.unwrap();
        assert_eq!(item["tierAfter"].as_s().unwrap(), after, "{player}");
    }
}
