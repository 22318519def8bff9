//! The recount run over every player, on DynamoDB Local: asked for with one item, worked a
//! Scan page a run (each run taking up the last one's checkpoint), two runs started together,
//! a player who played too recently left for later and recounted once settled, an erased player
//! left erased; at the end every player's totals are exactly their sessions'.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::*;
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{NewBoard, Operator};
use leaderboard_store::{
    ProjectedSession, RECOUNT_PK, RecountPages, RecountRunOptions, SequenceNumber, Store,
};

/// How long the test's plays take to settle: short, so that it need not wait minutes.
const SETTLE: Duration = Duration::from_secs(3);

fn options() -> RecountRunOptions {
    RecountRunOptions {
        scan_pages: 1,
        page_items: Some(5),
        sessions: RecountPages {
            max: 1,
            items: Some(2),
        },
        busy: 10,
        settle: SETTLE,
    }
}

/// Projects `player`'s session of `score` at `attained`, numbered `seq`.
async fn project(store: &Store, player: &str, score: u64, attained: Timestamp, seq: u64) {
    let session = ProjectedSession {
        sequence_number: SequenceNumber::parse(&seq.to_string()).unwrap(),
        score,
        attained_at: attained,
    };
    store
        .projection()
        .project_sessions(&pid(player), &[session], at(0))
        .await
        .unwrap();
}

/// The stored (lifetimeScore, gamesPlayed), if there is a profile.
async fn totals(table: &TestTable, player: &str) -> Option<(u64, u64)> {
    let item = table.raw(&format!("PLAYER#{player}"), "#METADATA").await?;
    let num = |a: &str| item[a].as_n().unwrap().parse::<u64>().unwrap();
    Some((num("lifetimeScore"), num("gamesPlayed")))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_run_recounts_every_player_a_page_a_run_and_leaves_recent_players_until_they_settle() {
    let (table, store) = store("recount_run").await;
    board(&store, "b", Order::Desc, Operator::Best).await;
    // A board open for good, for plays at today's time.
    let open = NewBoard {
        ends_at: None,
        ..new_board("open", Order::Desc, Operator::Best, 1_000_000)
    };
    store.boards().create_board(open, at(0)).await.unwrap();
    // 9 players with 3 old sessions each; the projection saw the first of each only.
    let players: Vec<String> = (0..9).map(|i| format!("p{i}")).collect();
    for (i, p) in players.iter().enumerate() {
        for k in 0..3u64 {
            let ms = i as u64 * 10 + k;
            submit(&store, p, 100 * (i as u64 + 1) + k, &["b"], ms).await;
            if k == 0 {
                project(&store, p, 100 * (i as u64 + 1), at(ms), 1).await;
            }
        }
    }
    // One who keeps playing while the run goes on (each play projected), and one erased.
    submit(&store, "recent", 5, &["b"], 0).await;
    let playing = Arc::new(AtomicBool::new(true));
    let recent = {
        let (store, playing) = (store.clone(), playing.clone());
        tokio::spawn(async move {
            let mut played = 0u64;
            while playing.load(Ordering::SeqCst) {
                played += 1;
                let ms = Timestamp::now().as_millis() - T0;
                submit(&store, "recent", 7, &["open"], ms).await;
                project(&store, "recent", 7, at(ms), played).await;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            played
        })
    };
    submit(&store, "gone", 9, &["b"], 0).await;
    store
        .moderation()
        .erase_player(&pid("gone"), "ops", at(1_000), None)
        .await
        .unwrap();

    // Nothing asked: a run does nothing.
    let idle = store
        .projection()
        .run_recount(&options(), None)
        .await
        .unwrap();
    assert!(idle.idle && idle.pages == 0, "{idle:?}");
    store
        .projection()
        .request_recount("ops", Timestamp::now())
        .await
        .unwrap();
    // A run with no time left starts nothing and loses nothing.
    let late = store
        .projection()
        .run_recount(&options(), Some(Instant::now()))
        .await
        .unwrap();
    assert_eq!((late.pages, late.recounted), (0, 0), "{late:?}");

    // Runs of one page each, two started together every time, until the Scan is over.
    let (mut runs, mut recounted, mut busy, mut erased) = (0, 0, 0, 0);
    loop {
        let opts = options();
        let (a, b) = tokio::join!(
            store.projection().run_recount(&opts, None),
            store.projection().run_recount(&opts, None)
        );
        for run in [a.unwrap(), b.unwrap()] {
            assert!(run.pages <= 1, "{run:?}");
            recounted += run.recounted;
            busy += run.busy;
            erased += run.erased;
            assert!(!run.done, "the recent player is left: {run:?}");
        }
        runs += 1;
        if table
            .raw(RECOUNT_PK, "#RUN")
            .await
            .unwrap()
            .contains_key("scanned")
        {
            break;
        }
        assert!(runs < 500, "the run does not end");
    }
    playing.store(false, Ordering::SeqCst);
    let played = recent.await.unwrap();
    assert!(runs >= 5, "a page a run: {runs}");
    // Every player at least once (a player whose sessions span two pages may be recounted
    // twice, to the same totals); the recent one left; the erased one's sessions are gone, so
    // the Scan never meets it.
    assert!(recounted >= 9, "{recounted}");
    assert_eq!((busy >= 1, erased), (true, 0));
    for (i, p) in players.iter().enumerate() {
        let base = 100 * (i as u64 + 1);
        assert_eq!(totals(&table, p).await, Some((3 * base + 3, 3)), "{p}");
    }
    assert_eq!(totals(&table, "gone").await, None);
    // The projection's count: its old session is still missing.
    assert_eq!(totals(&table, "recent").await, Some((7 * played, played)));
    let waiting = table.raw(RECOUNT_PK, "BUSY#recent").await.expect("left");

    // Once the recent player has settled, the next run recounts it and the recount is over.
    let profile = table.raw("PLAYER#recent", "#METADATA").await.unwrap();
    let last = Timestamp::parse_rfc3339("t", profile["lastPlayedAt"].as_s().unwrap()).unwrap();
    let settled = last.as_millis() + 2 * SETTLE.as_millis() as u64;
    let due: u64 = waiting["at"].as_n().unwrap().parse().unwrap();
    assert!(due <= settled, "{due} {settled}");
    let wait = settled.saturating_sub(Timestamp::now().as_millis()) + 50;
    tokio::time::sleep(Duration::from_millis(wait)).await;
    let last = store
        .projection()
        .run_recount(&options(), None)
        .await
        .unwrap();
    assert!(last.done && last.recounted == 1, "{last:?}");
    assert_eq!(
        totals(&table, "recent").await,
        Some((7 * played + 5, played + 1))
    );
    assert!(table.raw(RECOUNT_PK, "BUSY#recent").await.is_none());
    // A finished run keeps no position: it would name a player for good.
    let run = table.raw(RECOUNT_PK, "#RUN").await.unwrap();
    for attr in ["lastPlayer", "afterPk", "afterSk", "current", "leaseBy"] {
        assert!(!run.contains_key(attr), "{attr}: {run:?}");
    }
    let after = store
        .projection()
        .run_recount(&options(), None)
        .await
        .unwrap();
    assert!(after.idle, "{after:?}");
}
