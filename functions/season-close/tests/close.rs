//! season-close against DynamoDB Local: the snapshot is exact, resumable, written once when two
//! closes start together, and no submission lands during or after the close.

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use common::*;
use leaderboard_devkit::local::counting_client;
use leaderboard_devkit::testing::{RawItem, n, ranked, s};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{BoardStatus, NewBoard, Operator, Recurrence};
use leaderboard_store::{CloseOptions, CloseProgress};
use rand::Rng;
use season_close::App;
use serde_json::{Value, json};

#[tokio::test]
async fn a_5000_player_board_closes_with_exact_ranks_and_results() {
    let (table, store) = store("close5k").await;
    let now = Timestamp::now().as_millis();
    board(
        &store,
        "season_3",
        Order::Desc,
        Recurrence::Season,
        now - 3 * HOUR,
        now - HOUR,
    )
    .await;
    board(
        &store,
        "still_open",
        Order::Desc,
        Recurrence::None,
        now - HOUR,
        now + HOUR,
    )
    .await;
    // Five pages of 1,000, each a Query and a checkpoint: every boundary the close has; a
    // larger board only repeats them (the close's rate is BENCHMARKS.md's).
    let all = entries(5_000, now - 2 * HOUR);
    let b = store
        .boards()
        .get_board(&bid("season_3"))
        .await
        .unwrap()
        .unwrap();
    store.boards().import_entries(&b, &all).await.unwrap();
    let want = ranked(all, Order::Desc);

    // WHEN the scheduled function runs
    let app = App::new(
        store.clone(),
        CloseOptions {
            page_size: 1000,
            ..CloseOptions::default()
        },
    );
    let run_from = Timestamp::now();
    let summary = season_close::run(&app, None).await.unwrap();
    let run_to = Timestamp::now();
    assert_eq!(summary.close().closed.len(), 1, "{summary:?}");
    assert_eq!(summary.close().closed[0].player_count, 5_000);
    assert_eq!(
        summary.close().closed[0].next_board_id,
        Some(bid("season_4"))
    );

    // THEN ranks 1..5000 match the live ranking exactly
    let snap = snapshot(&table).await;
    let finals: Vec<&RawItem> = snap
        .iter()
        .filter(|i| s(i, "sk").unwrap().starts_with("FINAL#"))
        .collect();
    assert_eq!(finals.len(), 5_000);
    for (i, (item, w)) in finals.iter().zip(&want).enumerate() {
        let rank = i as u64 + 1;
        assert_eq!(s(item, "sk"), Some(format!("FINAL#{rank:010}").as_str()));
        assert_eq!(n(item, "rank"), Some(rank.to_string().as_str()));
        assert_eq!(s(item, "playerId"), Some(w.0.as_str()), "rank {rank}");
        assert_eq!(n(item, "score"), Some(w.1.to_string().as_str()));
    }
    // and every player's result is right
    let results: BTreeMap<&str, &RawItem> = snap
        .iter()
        .filter(|i| s(i, "sk") == Some("RESULT#season_3"))
        .map(|i| (s(i, "playerId").unwrap(), i))
        .collect();
    assert_eq!(results.len(), 5_000);
    for (i, w) in want.iter().enumerate() {
        let r = results[w.0.as_str()];
        assert_eq!(s(r, "pk"), Some(format!("PLAYER#{}", w.0).as_str()));
        assert_eq!(n(r, "rank"), Some((i + 1).to_string().as_str()));
        assert_eq!(n(r, "score"), Some(w.1.to_string().as_str()));
        assert_eq!(n(r, "playerCount"), Some("5000"));
    }
    // The board is closed and off the open index; the live items carry a ttl; one successor.
    let closed = table
        .raw("LEADERBOARD#season_3", "#METADATA")
        .await
        .unwrap();
    assert_eq!(s(&closed, "status"), Some("closed"));
    assert_eq!(n(&closed, "playerCount"), Some("5000"));
    assert_eq!(s(&closed, "nextLeaderboardId"), Some("season_4"));
    assert!(!closed.contains_key("gsi2pk") && closed.contains_key("closedAt"));
    let dump = table.dump().await;
    let live: Vec<&RawItem> = dump
        .iter()
        .filter(|i| s(i, "sk").unwrap().starts_with("SCORE#"))
        .collect();
    assert_eq!(live.len(), 5_000);
    assert!(live.iter().all(|i| i.contains_key("ttl")));
    let pointers = dump.iter().filter(|i| s(i, "sk") == Some("ENTRY#season_3"));
    assert!(pointers.clone().count() == 5_000 && pointers.clone().all(|i| i.contains_key("ttl")));
    // The ttl is 30 days after the run's clock, read once when the run started.
    let ttl: u64 = n(live[0], "ttl").unwrap().parse().unwrap();
    let (earliest, latest) = (
        run_from.as_secs() + 30 * 86_400,
        run_to.as_secs() + 30 * 86_400,
    );
    assert!(
        (earliest..=latest).contains(&ttl),
        "ttl {ttl} not in {earliest}..={latest}"
    );
    assert!(live.iter().all(|i| n(i, "ttl") == n(live[0], "ttl")));
    let next = store
        .boards()
        .get_board(&bid("season_4"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(next.status, BoardStatus::Open);
    assert_eq!(next.starts_at, b.ends_at.unwrap());
    assert_eq!(next.ends_at.unwrap().as_millis(), now + HOUR);
    // The open board was left alone.
    assert_eq!(
        store
            .boards()
            .get_board(&bid("still_open"))
            .await
            .unwrap()
            .unwrap()
            .status,
        BoardStatus::Open
    );
    // A second run finds nothing to do and changes nothing.
    let before = table.dump().await;
    let again = season_close::run(&app, None).await.unwrap();
    assert!(again.close().closed.is_empty() && again.close().paused.is_empty());
    assert_eq!(table.dump().await, before);
}

#[tokio::test]
async fn interrupted_resumed_and_concurrent_closes_give_the_same_snapshot() {
    let now = Timestamp::now().as_millis();
    let all = entries(1500, now - 2 * HOUR);
    let options = CloseOptions {
        page_size: 150,
        ..CloseOptions::default()
    };
    let mut tables = Vec::new();
    for label in ["close_ref", "close_resumed", "close_concurrent"] {
        let (table, store) = store(label).await;
        board(
            &store,
            "daily_2026-11-21",
            Order::Asc,
            Recurrence::Daily,
            now - 3 * HOUR,
            now - HOUR,
        )
        .await;
        let b = store
            .boards()
            .get_board(&bid("daily_2026-11-21"))
            .await
            .unwrap()
            .unwrap();
        store.boards().import_entries(&b, &all).await.unwrap();
        tables.push((table, store));
    }
    let id = bid("daily_2026-11-21");
    let at = Timestamp::now();
    // Reference: uninterrupted.
    let (ref_table, ref_store) = &tables[0];
    let done = ref_store
        .close()
        .close_board(&id, at, &options)
        .await
        .unwrap();
    assert!(
        matches!(
            done,
            CloseProgress::Closed {
                player_count: 1500,
                ..
            }
        ),
        "{done:?}"
    );
    let reference = snapshot(ref_table).await;
    assert_eq!(reference.len(), 3000);

    // Interrupted after a random number of pages, again and again, then resumed to the end.
    let (table, store) = &tables[1];
    let mut runs = 0;
    loop {
        runs += 1;
        let pages = rand::rng().random_range(1..5);
        let o = CloseOptions {
            max_pages: Some(pages),
            ..options.clone()
        };
        match store.close().close_board(&id, at, &o).await.unwrap() {
            CloseProgress::Paused { done, total, .. } => {
                assert!(done < total && total == 1500);
                // Mid-close, the board refuses plays (status closing).
                assert_eq!(
                    store.boards().get_board(&id).await.unwrap().unwrap().status,
                    BoardStatus::Closing
                );
            }
            CloseProgress::Closed { .. } => break,
            other => panic!("{other:?}"),
        }
    }
    assert!(runs > 2, "the close was interrupted {runs} times");
    assert_eq!(snapshot(table).await, reference);

    // Two closes at once: one holds the board's close lease and writes the snapshot once; the
    // other finds the board busy (or closed, had it come after).
    let (table, _) = &tables[2];
    let (client, counter) = counting_client(&table.endpoint);
    let store = store_over(table, client);
    let (a, b) = tokio::join!(
        store.close().close_board(&id, at, &options),
        store.close().close_board(&id, at, &options)
    );
    let outcomes = [a.unwrap(), b.unwrap()];
    assert!(
        outcomes.iter().any(|o| matches!(
            o,
            CloseProgress::Closed {
                player_count: 1500,
                ..
            }
        )),
        "{outcomes:?}"
    );
    assert!(
        outcomes
            .iter()
            .all(|o| matches!(o, CloseProgress::Closed { .. } | CloseProgress::Busy { .. })),
        "{outcomes:?}"
    );
    // 10 pages of 150 entries, each 600 items in batches of 25: written once.
    assert_eq!(counter.snapshot().get("BatchWriteItem"), Some(&(10 * 24)));
    assert_eq!(snapshot(table).await, reference);
    for (table, _) in &tables {
        let boards: Vec<RawItem> = table
            .dump()
            .await
            .into_iter()
            .filter(|i| s(i, "sk") == Some("#METADATA"))
            .collect();
        let ids: Vec<&str> = boards
            .iter()
            .map(|b| s(b, "leaderboardId").unwrap())
            .collect();
        assert_eq!(
            ids,
            ["daily_2026-11-21", "daily_2026-11-22"],
            "one successor"
        );
    }
}

async fn submit(app: &submit_score::App, player: &str, board: &str, score: u64) -> (u16, Value) {
    let mut e: Value = serde_json::from_str(include_str!(
        "../../../events/submit-score/post-sessions.json"
    ))
    .unwrap();
    e["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = json!(player);
    e["body"] =
        json!(json!({"score": score, "gameId": "g", "leaderboardIds": [board]}).to_string());
    let resp = submit_score::handle(app, lambda_http::request::from_str(&e.to_string()).unwrap())
        .await
        .unwrap();
    (
        resp.status().as_u16(),
        serde_json::from_slice(resp.body().as_ref()).unwrap(),
    )
}

#[tokio::test]
async fn submissions_during_and_after_close_are_refused_and_leave_nothing() {
    let (table, store) = store("close_refuse").await;
    let now = Timestamp::now().as_millis();
    board(
        &store,
        "b",
        Order::Desc,
        Recurrence::None,
        now - 3 * HOUR,
        now - HOUR,
    )
    .await;
    let b = store.boards().get_board(&bid("b")).await.unwrap().unwrap();
    store
        .boards()
        .import_entries(&b, &entries(400, now - 2 * HOUR))
        .await
        .unwrap();
    let submit_app = submit_score::App::new(store.clone());
    let options = CloseOptions {
        page_size: 100,
        max_pages: Some(1),
        ..CloseOptions::default()
    };
    let paused = store
        .close()
        .close_board(&bid("b"), Timestamp::now(), &options)
        .await
        .unwrap();
    assert!(matches!(paused, CloseProgress::Paused { .. }));
    // During the close:
    let before = table.dump().await;
    let (status, body) = submit(&submit_app, "p00001", "b", 9999).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (409, Some("board_closed"))
    );
    assert_eq!(table.dump().await, before);
    // After it:
    let options = CloseOptions {
        page_size: 100,
        ..CloseOptions::default()
    };
    store
        .close()
        .close_board(&bid("b"), Timestamp::now(), &options)
        .await
        .unwrap();
    let before = table.dump().await;
    let (status, body) = submit(&submit_app, "p_new", "b", 1).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (409, Some("board_closed"))
    );
    assert_eq!(table.dump().await, before);
}

/// The submitters' clock in the race below: the system clock, except that while the test holds
/// it (a non-zero value here), it shows no later than that instant.
static RACE_CLOCK_HELD_AT: AtomicU64 = AtomicU64::new(0);

fn race_clock() -> Timestamp {
    let now = Timestamp::now();
    match RACE_CLOCK_HELD_AT.load(Ordering::SeqCst) {
        0 => now,
        held => now.min(Timestamp::from_millis(held).unwrap()),
    }
}

#[tokio::test]
async fn plays_racing_the_end_of_a_board_are_all_in_the_snapshot_or_refused() {
    // One board at a time: the submitters' clock is held for the whole test binary.
    race_the_end("close_race", 1).await;
    race_the_end("close_race_hot", 8).await;
}

/// A board of `shards` that ends in 1.5 s: submitters hammer it across its end while the close
/// starts as soon as it has ended. Every accepted play must be in the snapshot; every refused
/// one must have left nothing.
async fn race_the_end(label: &str, shards: u8) {
    let (table, store) = store(label).await;
    let now = Timestamp::now().as_millis();
    let end = now + 1500;
    let span = (now - HOUR, end);
    sharded_board(&store, "race", Order::Desc, Recurrence::None, span, shards).await;
    // The submitters' clock stops 1 ms before the end until the test lets it go on: on a slow
    // machine (a cold or busy DynamoDB Local takes longer than 1.5 s for the first plays), the
    // plays that arrive late are then plays sent just before the end and slow to commit, which
    // is what the close races with, instead of no play accepted at all.
    RACE_CLOCK_HELD_AT.store(end - 1, Ordering::SeqCst);
    let submit_app = Arc::new(submit_score::App::with_clock(store.clone(), race_clock));
    let stop = Arc::new(AtomicBool::new(false));
    let accepted_so_far = Arc::new(AtomicUsize::new(0));
    let mut workers = Vec::new();
    for w in 0..6 {
        let (app, stop, accepted_so_far) =
            (submit_app.clone(), stop.clone(), accepted_so_far.clone());
        workers.push(tokio::spawn(async move {
            let mut accepted = Vec::new();
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let player = format!("w{w}_{i}");
                let (status, body) = submit(&app, &player, "race", i).await;
                match status {
                    200 => {
                        accepted.push((player, i));
                        accepted_so_far.fetch_add(1, Ordering::SeqCst);
                    }
                    409 => assert_eq!(body["error"]["code"], "board_closed"),
                    other => panic!("{other}: {body}"),
                }
                i += 1;
            }
            accepted
        }));
    }
    // The close starts once the board has ended (20 ms after its end) and at least 6 plays were
    // accepted; then the submitters' clock goes on, past the end.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while Timestamp::now().as_millis() < end + 20 || accepted_so_far.load(Ordering::SeqCst) < 6 {
        assert!(
            std::time::Instant::now() < deadline,
            "{} plays accepted in 120 s",
            accepted_so_far.load(Ordering::SeqCst)
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    RACE_CLOCK_HELD_AT.store(0, Ordering::SeqCst);
    let options = CloseOptions {
        page_size: 50,
        ..CloseOptions::default()
    };
    let closed = store
        .close()
        .close_board(&bid("race"), Timestamp::now(), &options)
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    let mut accepted: Vec<(String, u64)> = Vec::new();
    for w in workers {
        accepted.extend(w.await.unwrap());
    }
    let CloseProgress::Closed { player_count, .. } = closed else {
        panic!("{closed:?}")
    };
    assert!(!accepted.is_empty());
    assert_eq!(
        player_count,
        accepted.len() as u64,
        "every accepted play is counted"
    );
    let finals: BTreeMap<String, u64> = snapshot(&table)
        .await
        .iter()
        .filter(|i| s(i, "sk").unwrap().starts_with("FINAL#"))
        .map(|i| {
            (
                s(i, "playerId").unwrap().to_owned(),
                n(i, "score").unwrap().parse().unwrap(),
            )
        })
        .collect();
    let want: BTreeMap<String, u64> = accepted.into_iter().collect();
    assert_eq!(finals, want);
    // Nothing of a refused play was left: every live entry and session belongs to an accepted one.
    let dump = table.dump().await;
    let live = dump
        .iter()
        .filter(|i| s(i, "sk").unwrap().starts_with("SCORE#"))
        .count();
    let sessions = dump
        .iter()
        .filter(|i| s(i, "sk").unwrap().starts_with("SESSION#"))
        .count();
    assert_eq!((live, sessions), (want.len(), want.len()));
}

#[tokio::test]
async fn only_ended_boards_are_due() {
    let (_table, store) = store("close_due").await;
    let now = Timestamp::now().as_millis();
    board(
        &store,
        "ended",
        Order::Desc,
        Recurrence::None,
        now - 2 * HOUR,
        now - HOUR,
    )
    .await;
    board(
        &store,
        "open",
        Order::Desc,
        Recurrence::None,
        now - 2 * HOUR,
        now + HOUR,
    )
    .await;
    store
        .boards()
        .create_board(
            NewBoard {
                order: Order::Desc,
                operator: Operator::Best,
                max_score: 100,
                recurrence: Recurrence::None,
                ..NewBoard::named(bid("forever"), "All time".into())
            },
            Timestamp::now(),
        )
        .await
        .unwrap();
    assert_eq!(
        store.close().due_boards(Timestamp::now()).await.unwrap(),
        [bid("ended")]
    );
    let not_due = store
        .close()
        .close_board(&bid("open"), Timestamp::now(), &CloseOptions::default())
        .await
        .unwrap();
    assert_eq!(not_due, CloseProgress::NotDue { board: bid("open") });
}
