//! The close lease on DynamoDB Local: two season-close runs started together snapshot each due
//! board exactly once, a board another run holds is left to it and nothing is written, an
//! expired lease is taken over, and a run whose lease was taken over stops at its next
//! checkpoint.

use crate::common;

use std::time::Duration;

use common::*;
use leaderboard_devkit::local::{counting_client, gated_client};
use leaderboard_devkit::testing::{TestTable, n, s};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::Recurrence;
use leaderboard_store::{BATCH_WRITE_SIZE, CloseOptions, CloseProgress};
use season_close::{App, run};

/// Ten entries a page, so a board's pages are few and known.
fn small_pages() -> CloseOptions {
    CloseOptions {
        page_size: 10,
        ..CloseOptions::default()
    }
}

/// The BatchWriteItems one snapshot of `entries` entries takes at ten a page: each entry is
/// four items (Final standing, Season result, two archived items), batched per page.
fn batches_for_one_snapshot(entries: usize) -> u64 {
    (0..entries.div_ceil(10))
        .map(|page| {
            let on_page = (entries - page * 10).min(10);
            (on_page * 4).div_ceil(BATCH_WRITE_SIZE) as u64
        })
        .sum()
}

/// Sets the board's close lease as another run would hold it, until `until`.
async fn lease_held_by_another(table: &TestTable, board: &str, until: Timestamp) {
    table
        .update_raw_with(
            &format!("LEADERBOARD#{board}"),
            "#METADATA",
            "SET closeLeaseBy = :by, closeLeaseUntil = :until",
            &[
                (":by", s_attr("another-run")),
                (":until", s_attr(&until.to_string())),
            ],
        )
        .await;
}

fn s_attr(v: &str) -> aws_sdk_dynamodb::types::AttributeValue {
    aws_sdk_dynamodb::types::AttributeValue::S(v.to_owned())
}

#[tokio::test]
async fn two_runs_started_together_snapshot_each_board_exactly_once() {
    let (table, store) = store("close_lease_two_runs").await;
    let boards = [
        ("first", 2 * HOUR, 120),
        ("second", HOUR + 1000, 45),
        ("third", HOUR, 7),
    ];
    for (id, ended, entries) in boards {
        ended_board(&store, id, Recurrence::None, ended, entries).await;
    }
    let (client, counter) = counting_client(&table.endpoint);
    let counted = store_over(&table, client);
    let (one, other) = (
        App::new(counted.clone(), small_pages()),
        App::new(counted, small_pages()),
    );
    let (a, b) = tokio::join!(run(&one, None), run(&other, None));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert!(
        a.close().failed.is_empty() && b.close().failed.is_empty(),
        "{a:?} {b:?}"
    );
    assert!(
        a.close().paused.is_empty() && b.close().paused.is_empty(),
        "{a:?} {b:?}"
    );
    // The runs take turns with one another too: a board may be begun by one and finished by the
    // other, but every board closed, and no page was written twice.
    for (id, _, _) in boards {
        let closed_by = |summary: &season_close::RunSummary| {
            summary
                .close()
                .closed
                .iter()
                .any(|c| c.board_id.as_str() == id)
        };
        assert!(closed_by(&a) || closed_by(&b), "{id}: {a:?} {b:?}");
    }
    let expected: u64 = boards
        .iter()
        .map(|(_, _, entries)| batches_for_one_snapshot(*entries))
        .sum();
    assert_eq!(counter.snapshot().get("BatchWriteItem"), Some(&expected));
    let finals = snapshot(&table).await;
    for (id, _, entries) in boards {
        let pk = format!("LEADERBOARD#{id}");
        let mut ranks: Vec<u64> = finals
            .iter()
            .filter(|i| s(i, "pk") == Some(pk.as_str()))
            .filter_map(|i| s(i, "sk")?.strip_prefix("FINAL#")?.parse().ok())
            .collect();
        ranks.sort();
        assert_eq!(ranks, (1..=entries as u64).collect::<Vec<_>>(), "{id}");
        let board = table.raw(&pk, "#METADATA").await.unwrap();
        assert_eq!(s(&board, "status"), Some("closed"));
        assert_eq!(s(&board, "closeLeaseBy"), None, "{id}: the lease is gone");
    }
}

#[tokio::test]
async fn a_board_another_run_holds_is_left_alone_until_its_lease_expires() {
    let (table, store) = store("close_lease_held").await;
    ended_board(&store, "held", Recurrence::Daily, HOUR, 30).await;
    let now = Timestamp::now().as_millis();
    lease_held_by_another(&table, "held", Timestamp::from_millis(now + HOUR).unwrap()).await;
    // The one pass onto the rank index's current layout is over (a run's job after closing,
    // tested in migration.rs): what is left for the run is the held board.
    let pass = store
        .rank()
        .sweep_rank_layout(&Default::default(), None)
        .await
        .unwrap();
    assert!(pass.done && pass.migrated.is_empty(), "{pass:?}");
    // So is the one that lists boards stored before the board listing (the board is listed).
    let listing = store
        .board_listing()
        .list_old_boards(&Default::default(), None)
        .await
        .unwrap();
    assert!(listing.done && listing.listed.is_empty(), "{listing:?}");
    // And the erasure secret's key check is kept (the first run writes it).
    store.moderation().keep_erasure_key_check().await.unwrap();
    let before = table.dump().await;
    let app = App::new(store.clone(), small_pages());
    let summary = run(&app, None).await.unwrap();
    assert_eq!(summary.close().busy.len(), 1, "{summary:?}");
    assert!(
        summary.close().closed.is_empty() && summary.close().paused.is_empty(),
        "{summary:?}"
    );
    assert_eq!(table.dump().await, before, "a busy board is not touched");

    // The holder died: its lease ran out a second ago, and the next run takes it over.
    lease_held_by_another(&table, "held", Timestamp::from_millis(now - 1000).unwrap()).await;
    let summary = run(&app, None).await.unwrap();
    let closed = closed_boards(&summary);
    assert_eq!(closed, [("held", 30)], "{summary:?}");
    assert!(summary.close().busy.is_empty());
    assert_eq!(snapshot(&table).await.len(), 60);
    let board = table.raw("LEADERBOARD#held", "#METADATA").await.unwrap();
    assert_eq!(s(&board, "closeLeaseBy"), None);
    assert_eq!(s(&board, "closeLeaseUntil"), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_lease_was_taken_over_stops_at_its_next_checkpoint() {
    let (table, store) = store("close_lease_lost").await;
    ended_board(&store, "slow", Recurrence::None, HOUR, 30).await;
    // The run is held as it writes its first page, long enough for its lease to be taken over.
    let (client, gate) = gated_client(&table.endpoint, "BatchWriteItem");
    let slow = store_over(&table, client);
    let close = tokio::spawn(async move {
        slow.close()
            .close_board(&bid("slow"), Timestamp::now(), &small_pages())
            .await
    });
    assert!(gate.reached().await);
    let later = Timestamp::now().as_millis() + HOUR;
    lease_held_by_another(&table, "slow", Timestamp::from_millis(later).unwrap()).await;
    gate.release();
    let stopped = tokio::time::timeout(Duration::from_secs(60), close)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(matches!(stopped, CloseProgress::Busy { .. }), "{stopped:?}");
    // Its page was written (the same items the new holder writes), but not recorded as done,
    // and the new holder's lease stands.
    let board = table.raw("LEADERBOARD#slow", "#METADATA").await.unwrap();
    assert_eq!(n(&board, "closeRank"), None);
    assert_eq!(s(&board, "closeLeaseBy"), Some("another-run"));
    assert_eq!(s(&board, "status"), Some("closing"));
    assert_eq!(snapshot(&table).await.len(), 20);
}
