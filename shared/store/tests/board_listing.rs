//! The board listing against DynamoDB Local: every board newest first, paged with cursors,
//! filtered without a filter ever reading more than a page; a series' boards in one Query, a
//! successor in its predecessor's series; concurrent creations of one id leave one board and one
//! listing item.

use crate::common;

use common::*;
use leaderboard_devkit::testing::s;
use leaderboard_keys::ids::SeriesId;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{Board, BoardStatus, NewBoard, Operator, Recurrence};
use leaderboard_store::{CloseProgress, Store, StoreError};

const DAY: u64 = 86_400_000;

fn daily(id: &str, day: u64) -> NewBoard {
    let mut nb = new_board(id, Order::Desc, Operator::Best, 999);
    nb.recurrence = Recurrence::Daily;
    nb.starts_at = Some(at(day * DAY));
    nb.ends_at = Some(at((day + 1) * DAY));
    nb
}

fn ids(boards: &[Board]) -> Vec<String> {
    boards.iter().map(|b| b.board_id.to_string()).collect()
}

async fn all_pages(
    store: &leaderboard_store::Store,
    series: Option<&SeriesId>,
    limit: usize,
    keep: impl Fn(&Board) -> bool + Copy,
) -> (Vec<String>, usize) {
    let (mut out, mut pages, mut cursor) = (Vec::new(), 0, None::<String>);
    loop {
        let page = store
            .boards()
            .list_boards(series, limit, cursor.as_deref(), keep)
            .await
            .unwrap();
        assert!(page.items.len() <= limit);
        pages += 1;
        out.extend(ids(&page.items));
        cursor = page.next_cursor;
        if cursor.is_none() {
            return (out, pages);
        }
    }
}

#[tokio::test]
async fn every_board_lists_newest_first_and_a_series_in_one_query() {
    let (table, store) = store_without_stream("board_listing").await;
    // Created a minute apart, oldest first: three daily boards, a weekly one, a season.
    let mut made = Vec::new();
    for (i, id) in [
        "daily_2026-01-01",
        "weekly_2026-w01",
        "daily_2026-01-02",
        "season_1",
        "daily_2026-01-03",
    ]
    .into_iter()
    .enumerate()
    {
        let mut nb = daily(id, i as u64);
        if id.starts_with("season") {
            nb.game_id = Some(gid("chess"));
        }
        store
            .boards()
            .create_board(nb, at(i as u64 * 60_000))
            .await
            .unwrap();
        made.push(id.to_owned());
    }
    let newest_first: Vec<String> = made.iter().rev().cloned().collect();
    // Every board, one page or many, newest first.
    for limit in [1, 2, 100] {
        let (listed, pages) = all_pages(&store, None, limit, |_| true).await;
        assert_eq!(listed, newest_first, "limit {limit}");
        assert_eq!(pages, 5usize.div_ceil(limit), "limit {limit}");
    }
    // A series: its own boards, newest first, with their default series.
    let daily_series = SeriesId::parse("daily").unwrap();
    let page = store
        .boards()
        .list_boards(Some(&daily_series), 10, None, |_| true)
        .await
        .unwrap();
    assert_eq!(
        ids(&page.items),
        ["daily_2026-01-03", "daily_2026-01-02", "daily_2026-01-01"]
    );
    assert!(page.items.iter().all(|b| b.series() == daily_series));
    assert_eq!(page.next_cursor, None);
    // Filters keep what they accept, page by page.
    let (chess, _) = all_pages(&store, None, 2, |b| {
        b.game_id.as_ref().is_some_and(|g| g.as_str() == "chess")
    })
    .await;
    assert_eq!(chess, ["season_1"]);
    // The raw items: the board under its series' GSI1 key, and its listing item.
    let raw = table
        .raw("LEADERBOARD#daily_2026-01-02", "#METADATA")
        .await
        .unwrap();
    assert_eq!(s(&raw, "seriesId"), Some("daily"));
    assert_eq!(s(&raw, "gsi1pk"), Some("SERIES#daily"));
    assert_eq!(
        s(&raw, "gsi1sk"),
        Some("BOARD#2026-01-01T00:02:00.000Z#daily_2026-01-02")
    );
    let listed = table
        .raw("BOARDS", "BOARD#2026-01-01T00:02:00.000Z#daily_2026-01-02")
        .await
        .unwrap();
    assert_eq!(s(&listed, "leaderboardId"), Some("daily_2026-01-02"));
    // A bad limit or a cursor of another listing is refused.
    for limit in [0, 101] {
        assert!(matches!(
            store
                .boards()
                .list_boards(None, limit, None, |_| true)
                .await,
            Err(StoreError::Invalid(_))
        ));
    }
    let cursor = store
        .boards()
        .list_boards(None, 1, None, |_| true)
        .await
        .unwrap()
        .next_cursor
        .unwrap();
    assert!(
        store
            .boards()
            .list_boards(Some(&daily_series), 1, Some(&cursor), |_| true)
            .await
            .is_err()
    );
}

#[tokio::test]
async fn a_successor_joins_its_predecessors_series_and_a_chosen_series_is_kept() {
    let (_table, store) = store_without_stream("board_listing_rollover").await;
    let mut nb = daily("tetris_daily_2026-01-01", 0);
    nb.series_id = Some(SeriesId::parse("tetris-days").unwrap());
    let board = store.boards().create_board(nb, at(0)).await.unwrap();
    assert_eq!(board.series().as_str(), "tetris-days");
    let progress = store
        .close()
        .close_board(&board.board_id, at(DAY + 1), &Default::default())
        .await
        .unwrap();
    let CloseProgress::Closed {
        next: Some(next), ..
    } = progress
    else {
        panic!("{progress:?}");
    };
    let successor = store.boards().get_board(&next).await.unwrap().unwrap();
    assert_eq!(successor.series_id, board.series_id);
    let series = SeriesId::parse("tetris-days").unwrap();
    let open = store
        .boards()
        .list_boards(Some(&series), 10, None, |b| b.status == BoardStatus::Open)
        .await
        .unwrap();
    assert_eq!(ids(&open.items), ["tetris_daily_2026-01-02"]);
    let (everything, _) = all_pages(&store, None, 10, |_| true).await;
    assert_eq!(
        everything,
        ["tetris_daily_2026-01-02", "tetris_daily_2026-01-01"]
    );
}

#[tokio::test]
async fn concurrent_creations_of_one_id_leave_one_board_and_one_listing_item() {
    let (table, store) = store_without_stream("board_listing_race").await;
    let tries = (0..8u64).map(|i| {
        let store = store.clone();
        async move {
            store
                .boards()
                .create_board(daily("raced", 0), Timestamp::from_millis(T0 + i).unwrap())
                .await
        }
    });
    let results = futures::future::join_all(tries).await;
    let won = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(won, 1, "{results:?}");
    assert!(
        results
            .iter()
            .all(|r| r.is_ok() || matches!(r, Err(StoreError::AlreadyExists { .. })))
    );
    let listing_items = listing_items(&table).await;
    assert_eq!(listing_items, 1);
    let (listed, _) = all_pages(&store, None, 10, |_| true).await;
    assert_eq!(listed, ["raced"]);
}

/// Makes `id` look stored before the listing: no series, no GSI1 key, no listing item.
async fn unlist(table: &leaderboard_devkit::testing::TestTable, id: &str, created: &str) {
    let pk = format!("LEADERBOARD#{id}");
    table
        .update_raw(&pk, "#METADATA", "REMOVE seriesId, gsi1pk, gsi1sk")
        .await;
    table
        .client
        .delete_item()
        .table_name(&table.name)
        .key(
            "pk",
            aws_sdk_dynamodb::types::AttributeValue::S("BOARDS".into()),
        )
        .key(
            "sk",
            aws_sdk_dynamodb::types::AttributeValue::S(format!("BOARD#{created}#{id}")),
        )
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn the_pass_lists_boards_stored_before_the_listing_once_however_often_it_runs() {
    use leaderboard_store::ListingPassOptions;
    let (table, store) = store_without_stream("board_listing_pass").await;
    let made = [
        "old_daily_2026-01-01",
        "old_cup",
        "old_season_2",
        "new_board",
    ];
    for (i, id) in made.iter().enumerate() {
        store
            .boards()
            .create_board(daily(id, 0), at(i as u64 * 1_000))
            .await
            .unwrap();
    }
    for (i, id) in made[..3].iter().enumerate() {
        let created = at(i as u64 * 1_000).to_string();
        unlist(&table, id, &created).await;
    }
    let (listed, _) = all_pages(&store, None, 10, |_| true).await;
    assert_eq!(listed, ["new_board"]);
    // Two runs at once (one holds the pass, or they follow each other), then more, a page of 2
    // items at a time, 2 pages a run: each old board listed exactly once, the pass done at the end.
    let options = ListingPassOptions {
        max_pages: 2,
        page_items: Some(2),
    };
    let (a, b) = futures::join!(
        store.board_listing().list_old_boards(&options, None),
        store.board_listing().list_old_boards(&options, None)
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    let mut listed_by_runs: Vec<String> = [a, b]
        .into_iter()
        .flat_map(|o| o.listed)
        .map(|b| b.to_string())
        .collect();
    let mut runs = 0;
    loop {
        let run = store
            .board_listing()
            .list_old_boards(&options, None)
            .await
            .unwrap();
        listed_by_runs.extend(run.listed.iter().map(ToString::to_string));
        runs += 1;
        if run.done {
            break;
        }
        assert!(runs < 20, "the pass ends");
    }
    listed_by_runs.sort();
    assert_eq!(
        listed_by_runs,
        ["old_cup", "old_daily_2026-01-01", "old_season_2"]
    );
    let (listed, _) = all_pages(&store, None, 10, |_| true).await;
    assert_eq!(
        listed,
        [
            "new_board",
            "old_season_2",
            "old_cup",
            "old_daily_2026-01-01"
        ]
    );
    let series = SeriesId::parse("old_daily").unwrap();
    let page = store
        .boards()
        .list_boards(Some(&series), 10, None, |_| true)
        .await
        .unwrap();
    assert_eq!(ids(&page.items), ["old_daily_2026-01-01"]);
    assert_eq!(page.items[0].series_id, Some(series));
    // Done: a run reads the cursor and nothing else.
    let before = table.dump().await;
    let again = store
        .board_listing()
        .list_old_boards(&options, None)
        .await
        .unwrap();
    assert!(again.done && again.listed.is_empty() && again.pages == 0);
    assert_eq!(table.dump().await, before);
}

#[tokio::test]
async fn a_listing_cut_off_by_a_conflict_fails_the_run_and_the_next_one_lists_the_board() {
    use leaderboard_devkit::contention::{Fault, faulty_client};
    use leaderboard_store::ListingPassOptions;
    let (table, store) = store_without_stream("board_listing_conflict").await;
    for (i, id) in ["old_a", "old_b"].iter().enumerate() {
        store
            .boards()
            .create_board(daily(id, 0), at(i as u64 * 1_000))
            .await
            .unwrap();
        unlist(&table, id, &at(i as u64 * 1_000).to_string()).await;
    }
    let options = ListingPassOptions::default();
    // Every listing transaction meets a conflict (never applied): the run fails, and no board
    // is passed over as if it had been listed meanwhile.
    for fault in [Fault::Conflict, Fault::Throttled] {
        let (client, seen) =
            faulty_client(&table.endpoint, &["TransactWriteItems"], fault, u64::MAX);
        let contended = store_with_client(&table, client);
        let err = contended
            .board_listing()
            .list_old_boards(&options, None)
            .await
            .unwrap_err();
        assert!(err.is_retryable(), "{fault:?}: {err}");
        assert!(seen.load(std::sync::atomic::Ordering::SeqCst) > 0);
        let (listed, _) = all_pages(&store, None, 10, |_| true).await;
        assert_eq!(listed, Vec::<String>::new(), "{fault:?}");
    }
    // The failed runs released the pass: the next run scans the page again and lists both.
    assert_eq!(pass_to_end(&store, &options).await, ["old_a", "old_b"]);
    let (all, _) = all_pages(&store, None, 10, |_| true).await;
    assert_eq!(all, ["old_b", "old_a"]);
}

/// Six boards, five of them stored before the listing; a page of two items at a time.
async fn old_boards(label: &str) -> (leaderboard_devkit::testing::TestTable, Store, Vec<String>) {
    let (table, store) = store_without_stream(label).await;
    let mut old = Vec::new();
    for i in 0..6u64 {
        let id = format!("old_{i}");
        store
            .boards()
            .create_board(daily(&id, 0), at(i * 1_000))
            .await
            .unwrap();
        if i > 0 {
            unlist(&table, &id, &at(i * 1_000).to_string()).await;
            old.push(id);
        }
    }
    (table, store, old)
}

const PAGES: leaderboard_store::ListingPassOptions = leaderboard_store::ListingPassOptions {
    max_pages: 1,
    page_items: Some(2),
};

/// The pass's item: whether its lease is held, and whether it is over.
async fn pass_item(table: &leaderboard_devkit::testing::TestTable) -> (bool, bool) {
    let item = table.raw("LISTPASS", "#CURSOR").await.unwrap_or_default();
    (item.contains_key("leaseBy"), item.contains_key("done"))
}

#[tokio::test]
async fn a_pass_killed_after_every_page_resumes_to_the_same_end() {
    use leaderboard_devkit::contention::{Fault, faulty_client};
    let (table, store, old) = old_boards("pass_killed").await;
    // A run that dies after its page's work: its checkpoint never lands, nor does its lease's
    // release, so the next run waits for the lease to expire and works the page again.
    let (client, _) = faulty_client(
        &table.endpoint,
        &["UpdateItem:afterPk", "UpdateItem:REMOVE leaseBy"],
        Fault::ItemConflict,
        u64::MAX,
    );
    let killed = store_with_client(&table, client);
    let mut pages = 0;
    loop {
        killed
            .board_listing()
            .list_old_boards(&PAGES, None)
            .await
            .unwrap_err();
        assert_eq!(
            pass_item(&table).await,
            (true, false),
            "the dead run's lease"
        );
        let held = store.board_listing().list_old_boards(&PAGES, None).await;
        assert!(held.unwrap().busy, "a live lease holds the next run off");
        // The dead run's lease expires.
        table
            .update_raw("LISTPASS", "#CURSOR", "REMOVE leaseUntil")
            .await;
        let run = store
            .board_listing()
            .list_old_boards(&PAGES, None)
            .await
            .unwrap();
        assert_eq!(run.pages, 1);
        // The dead run listed its page's boards; working the page again lists none twice.
        assert_eq!(run.listed, Vec::new(), "page {pages}");
        pages += 1;
        if run.done {
            break;
        }
        assert!(pages < 100, "the pass ends");
    }
    assert_eq!(pass_item(&table).await, (false, true));
    let (listed, _) = all_pages(&store, None, 10, |_| true).await;
    let mut expected: Vec<String> = old.iter().rev().cloned().collect();
    expected.push("old_0".to_owned());
    assert_eq!(listed, expected, "every board listed once, newest first");
    let listing_items = listing_items(&table).await;
    assert_eq!(listing_items, 6);
    // Six board items, two a page: a run died in each of at least three pages.
    assert!(pages >= 3, "{pages}");
}

#[tokio::test]
async fn of_two_workers_at_once_one_wins_the_lease_and_the_other_does_nothing() {
    use leaderboard_devkit::contention::slow_client;
    use std::time::Duration;
    let (table, store, old) = old_boards("pass_two_workers").await;
    // Worker A takes the lease, then waits on its first page (answered ten minutes late).
    let slow = store_with_client(
        &table,
        slow_client(&table.endpoint, &["Scan"], Duration::from_secs(600)),
    );
    let mut a = Box::pin(slow.board_listing().list_old_boards(&PAGES, None));
    while !pass_item(&table).await.0 {
        tokio::select! {
            done = &mut a => panic!("worker A cannot finish before its page comes: {done:?}"),
            _ = tokio::time::sleep(Duration::from_millis(10)) => {}
        }
    }
    let before = table.dump().await;
    let b = store
        .board_listing()
        .list_old_boards(&PAGES, None)
        .await
        .unwrap();
    assert!(
        b.busy && b.pages == 0 && b.listed.is_empty() && !b.done,
        "{b:?}"
    );
    assert_eq!(table.dump().await, before, "the loser wrote nothing");
    // A dies holding the lease; once it expires, the next worker does the whole pass.
    drop(a);
    table
        .update_raw("LISTPASS", "#CURSOR", "REMOVE leaseUntil")
        .await;
    assert_eq!(pass_to_end(&store, &PAGES).await, old);
}

/// Runs the listing pass until it is over: the boards its runs listed, sorted.
async fn pass_to_end(
    store: &Store,
    options: &leaderboard_store::ListingPassOptions,
) -> Vec<String> {
    let mut listed = Vec::new();
    for _ in 0..100 {
        let run = store
            .board_listing()
            .list_old_boards(options, None)
            .await
            .unwrap();
        listed.extend(run.listed.iter().map(ToString::to_string));
        if run.done {
            listed.sort();
            return listed;
        }
    }
    panic!("the pass ends");
}

/// The board listing's items.
async fn listing_items(table: &leaderboard_devkit::testing::TestTable) -> usize {
    table
        .dump()
        .await
        .into_iter()
        .filter(|i| s(i, "pk") == Some("BOARDS"))
        .count()
}
