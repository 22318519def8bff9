//! How season close shares its time and meets contention, on DynamoDB Local: due boards take
//! turns (a long snapshot does not hold back a board due after it), the successor of a
//! recurring board exists as soon as its close begins, and the start of a close is retried
//! when a play's transaction in flight conflicts with it.

use crate::common;

use common::*;
use leaderboard_devkit::contention::{Fault, faulty_client};
use leaderboard_devkit::testing::s;
use leaderboard_keys::ids::{GameId, PlayerId, SessionId};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{BoardStatus, Recurrence};
use leaderboard_store::{CloseOptions, CloseProgress, Play};
use season_close::{App, PAGES_PER_TURN, run};

/// Ten entries a page, so a board's pages are few and known.
fn small_pages() -> CloseOptions {
    CloseOptions {
        page_size: 10,
        ..CloseOptions::default()
    }
}

#[tokio::test]
async fn a_long_snapshot_does_not_hold_back_a_board_due_after_it() {
    let (table, store) = store("close_turns").await;
    // The long board ended first, so it is due first; it needs three turns.
    let pages = 3 * PAGES_PER_TURN as usize;
    for (id, ended, n) in [("long", 2 * HOUR, pages * 10), ("short", HOUR, 5)] {
        ended_board(&store, id, Recurrence::None, ended, n).await;
    }
    let (recorded, log) = recorded_store(&table);
    let summary = run(&App::new(recorded, small_pages()), None).await.unwrap();
    assert_within_policy(&log);
    let closed = closed_boards(&summary);
    assert_eq!(closed, [("short", 5), ("long", pages as u64 * 10)]);
    assert!(summary.close().paused.is_empty() && summary.close().failed.is_empty());
    let finals = snapshot(&table).await;
    for (id, n) in [("long", pages * 10), ("short", 5)] {
        let pk = format!("LEADERBOARD#{id}");
        let count = finals
            .iter()
            .filter(|i| s(i, "pk") == Some(pk.as_str()))
            .count();
        assert_eq!(count, n, "{id}");
    }
}

#[tokio::test]
async fn the_successor_takes_plays_as_soon_as_the_close_begins() {
    let (table, plain) = store("close_successor_first").await;
    // The close's requests, the successor's creation included, are recorded.
    let (store, log) = recorded_store(&table);
    let now = Timestamp::now().as_millis();
    ended_board(&plain, "season_3", Recurrence::Season, HOUR, 50).await;
    // One page of ten, then the close stops: the successor is there already.
    let first_page = CloseOptions {
        max_pages: Some(1),
        ..small_pages()
    };
    let progress = store
        .close()
        .close_board(&bid("season_3"), Timestamp::now(), &first_page)
        .await
        .unwrap();
    assert!(
        matches!(
            progress,
            CloseProgress::Paused {
                done: 10,
                total: 50,
                ..
            }
        ),
        "{progress:?}"
    );
    let next = store
        .boards()
        .get_board(&bid("season_4"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(next.status, BoardStatus::Open);
    let at = Timestamp::from_millis(now - HOUR + 60_000)
        .unwrap()
        .max(next.starts_at);
    let play = Play {
        subscores: Default::default(),
        idempotency_key: None,
        player_id: PlayerId::parse("p_early").unwrap(),
        session_id: SessionId::from_parts(at.as_millis(), 1).unwrap(),
        game_id: Some(GameId::parse("tetris").unwrap()),
        score: 7,
        duration_sec: None,
        board_ids: vec![bid("season_4")],
        metadata: None,
    };
    plain.plays().record_play(&play, at).await.unwrap();
    // Finished, the close names the same successor.
    let done = store
        .close()
        .close_board(&bid("season_3"), Timestamp::now(), &small_pages())
        .await
        .unwrap();
    assert!(
        matches!(&done, CloseProgress::Closed { next: Some(n), player_count: 50, .. } if n.as_str() == "season_4"),
        "{done:?}"
    );
    assert_within_policy(&log);
}

#[tokio::test]
async fn closing_is_retried_when_a_transaction_in_flight_conflicts() {
    let (table, store) = store("close_conflict").await;
    ended_board(&store, "busy", Recurrence::None, HOUR, 20).await;
    // The first four UpdateItems, which start the close (its lease), meet a conflict: more
    // than the SDK's own three attempts.
    let (client, updates) = faulty_client(&table.endpoint, &["UpdateItem"], Fault::ItemConflict, 4);
    let conflicted = store_over(&table, client);
    let closed = conflicted
        .close()
        .close_board(&bid("busy"), Timestamp::now(), &CloseOptions::default())
        .await
        .unwrap();
    assert!(
        matches!(
            closed,
            CloseProgress::Closed {
                player_count: 20,
                ..
            }
        ),
        "{closed:?}"
    );
    assert!(updates.load(std::sync::atomic::Ordering::SeqCst) > 4);
    assert_eq!(snapshot(&table).await.len(), 40);
}
