//! Boards stored before the rank index's current layout (no `rankLayout`; the old index's node
//! items and markers in the table; one of them never indexed at all) moved onto it, on DynamoDB
//! Local with its real stream: while 8 clients play on them (a play a second or so each),
//! the migration starts, rebuilds and switches each board, after which every rank is exact and
//! the index is exactly the entries (a board on the index whose index is layout 2's is rebuilt
//! onto the compact layout meanwhile); a second run does nothing; a run that dies after any step,
//! or inside the rebuild, is resumed to the same index; and the pass over the table goes a page
//! at a time and takes up again a board whose migration failed.

use crate::common;
#[path = "../../../shared/store/tests/common/index_check.rs"]
mod index_check;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use common::{bid, open_board, store_over};
use index_check::{index_in, nodes_by_generation};
use leaderboard_devkit::local::{Failures, failing_client};
use leaderboard_devkit::stream::{StartingPosition, StreamReader};
use leaderboard_devkit::testing::{TestTable, s};
use leaderboard_keys::entity::ItemKey;
use leaderboard_keys::ids::{GameId, PlayerId, SessionId};
use leaderboard_keys::rank_index::{self, CountedKey, Watermarks, build};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{Board, RankLayout};
use leaderboard_store::{CloseOptions, MigrationStep, Play, Store, SweepOptions};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use season_close::App;
use season_close::jobs::rank_sweep::RankSweepOutcome;

const DAY: u64 = 86_400_000;
/// More than the exact top (1,000): ranks below it come from the index.
const ENTRIES: usize = 1_200;
const CLIENTS: usize = 8;
/// A client's pause between plays: the eight send several plays a second in all, before,
/// during and after each of the migration's steps, enough that a scan sees lanes move and the
/// index pass a settled lane. The plays go on until the migration is over, so their count (and
/// the index work they make) grows with the time it takes: a play every 100 ms each made a
/// migration slowed by a busy machine slower still, and one every 400 ms made the module take
/// 123 s instead of 61 s beside another streamed module.
const PACE: Duration = Duration::from_millis(1_000);
/// Plays each client sends at least, the first before the migration starts.
const MIN_PLAYS: usize = 10;
/// The boards of the crash test: their index is compared item by item, rank reads aside.
const SMALL: usize = 300;
/// A guard against a hang, not a bound on time: how often a client sends a busy play again.
const RETRIES: usize = 1_000;
/// How long the migration's rebuilds may hold a lane's plays back (10 s by default). A rebuild
/// whose node writes (about 1,200 items) outlast its pause fails, and the next run starts it
/// again: a busy machine (the test run's other worker loading DynamoDB Local's core) made them
/// outlast 10 s, and under a load that lasted every run failed. The pause ends when the switch
/// commits, so a longer one holds plays back no longer than the writes take.
const LANE_PAUSE: Duration = Duration::from_secs(60);
/// A guard against a hang, not a bound on time: the close runs the migration may take. One
/// run, its rebuilds' pauses outlasting their node writes; a board whose migration still
/// failed is the next run's to take up again.
const MAX_RUNS: usize = 5;

fn pid(s: &str) -> PlayerId {
    PlayerId::parse(s).unwrap()
}

fn player(i: usize) -> String {
    format!("m{i:04}")
}

/// An open board holding `entries` imported entries, then stored the way boards made before
/// the current layout were: no `rankLayout` (and, unless `indexed`, no `rankIndex`), no root,
/// its lanes kept apart (no `lanesGrouped`), and the old index's items (a node per shard, a
/// marker per tenth player) in the table.
async fn legacy_board(table: &TestTable, store: &Store, id: &str, entries: usize, indexed: bool) {
    open_board(store, id).await;
    let pk = format!("LEADERBOARD#{id}");
    table
        .update_raw(&pk, "#METADATA", "REMOVE lanesGrouped")
        .await;
    let board = stored(store, id).await;
    assert!(!board.lanes_grouped);
    import(store, &board, entries).await;
    let remove = if indexed {
        "REMOVE rankLayout"
    } else {
        "REMOVE rankLayout, rankIndex"
    };
    table.update_raw(&pk, "#METADATA", remove).await;
    let mut old_items = Vec::new();
    for shard in 0..10 {
        old_items.push((format!("RANKNODE#{id}#{shard:02}#"), "#NODE".to_owned()));
    }
    for i in (0..entries).step_by(10) {
        old_items.push((format!("PLAYER#{}", player(i)), format!("RANKED#{id}")));
    }
    for (pk, sk) in old_items {
        table
            .client
            .put_item()
            .table_name(&table.name)
            .item("pk", AttributeValue::S(pk))
            .item("sk", AttributeValue::S(sk))
            .item("c1", AttributeValue::N("1".into()))
            .send()
            .await
            .unwrap();
    }
    let stored = stored(store, id).await;
    assert_eq!(stored.rank_layout, RankLayout::Legacy);
    assert_eq!(stored.rank_index, indexed);
}

/// `entries` players' entries on `board`, scores below 400, imported.
async fn import(store: &Store, board: &Board, entries: usize) {
    let now = Timestamp::now().as_millis();
    let mut rng = rand::rng();
    let imported: Vec<_> = (0..entries)
        .map(|i| {
            let at = Timestamp::from_millis(now - DAY / 2 + rng.random_range(0..100_000)).unwrap();
            (pid(&player(i)), rng.random_range(0..400u64), at)
        })
        .collect();
    store
        .boards()
        .import_entries(board, &imported)
        .await
        .unwrap();
}

/// A board on the index whose index is layout 2's, as every board's was before the compact
/// layout: its entries imported, its root and nodes written as layout 2 wrote them, at the
/// lanes' counts.
async fn layout_2_board(table: &TestTable, store: &Store, id: &str, entries: usize) {
    let board = open_board(store, id).await;
    import(store, &board, entries).await;
    let dump = table.dump().await;
    let keys: Vec<CountedKey> = index_check::score_keys_in(&dump, id)
        .iter()
        .map(|k| CountedKey::parse(k).unwrap())
        .collect();
    let mut nodes = build(&keys);
    let root_key = rank_index::root_key(&bid(id));
    let mut root = vec![
        ("pk".to_owned(), AttributeValue::S(root_key.pk)),
        ("sk".to_owned(), AttributeValue::S(root_key.sk)),
        ("g".to_owned(), AttributeValue::N("1".into())),
        ("gn".to_owned(), AttributeValue::N("1".into())),
    ];
    for lane in 0..rank_index::LANES {
        let (written, _) = index_check::lane(table, id, lane).await;
        root.push((
            rank_index::watermark_attr(lane),
            AttributeValue::N(written.to_string()),
        ));
    }
    let counters = |c: &leaderboard_keys::rank_index::Counters| -> Vec<(String, AttributeValue)> {
        c.iter()
            .map(|(l, n)| (rank_index::count_attr(l), AttributeValue::N(n.to_string())))
            .collect::<Vec<_>>()
    };
    root.extend(counters(&nodes.remove("").unwrap_or_default()));
    let mut items = vec![root];
    for (prefix, c) in &nodes {
        let key = rank_index::node_key(&bid(id), 1, prefix);
        let mut item = vec![
            ("pk".to_owned(), AttributeValue::S(key.pk)),
            ("sk".to_owned(), AttributeValue::S(key.sk)),
        ];
        item.extend(counters(c));
        items.push(item);
    }
    for item in items {
        table
            .client
            .put_item()
            .table_name(&table.name)
            .set_item(Some(item.into_iter().collect()))
            .send()
            .await
            .unwrap();
    }
}

/// How many items of the replaced layout (nodes, markers) the table holds.
async fn old_index_items(table: &TestTable) -> usize {
    let old = |i: &leaderboard_devkit::testing::RawItem| {
        s(i, "pk").unwrap().starts_with("RANKNODE#") || s(i, "sk").unwrap().starts_with("RANKED#")
    };
    table.dump().await.iter().filter(|i| old(i)).count()
}

/// A store over `table` whose every transaction fails before it is sent: a run that dies at
/// its first transaction.
fn store_failing_transactions(table: &TestTable) -> Store {
    let failures = Failures {
        operation: "TransactWriteItems",
        first: 1,
        count: u64::MAX,
    };
    store_over(table, failing_client(&table.endpoint, failures))
}

async fn stored(store: &Store, id: &str) -> Board {
    store.boards().get_board(&bid(id)).await.unwrap().unwrap()
}

async fn play(store: &Store, who: &str, score: u64, boards: &[&str]) {
    let now = Timestamp::now();
    let play = Play {
        subscores: Default::default(),
        idempotency_key: None,
        metadata: None,
        player_id: pid(who),
        session_id: SessionId::from_parts(now.as_millis(), rand::random()).unwrap(),
        game_id: Some(GameId::parse("tetris").unwrap()),
        score,
        duration_sec: None,
        board_ids: boards.iter().map(|b| bid(b)).collect(),
    };
    // A play the store answers busy (its lanes paused past the play's own retries, which a
    // busy machine can make happen) is sent again with its session id, as a game client does
    // on a 503; anything else is a failure.
    for _ in 0..RETRIES {
        match store.plays().record_play(&play, now).await {
            Ok(_) => return,
            Err(e) if e.is_retryable() => tokio::time::sleep(Duration::from_millis(200)).await,
            Err(e) => panic!("{who}'s play refused: {e}"),
        }
    }
    panic!("{who}'s play busy {RETRIES} times");
}

/// Reads the table's stream and applies its lane changes, as the stream consumer's rank index
/// half does, until `stop` is set and the stream is read to its end.
async fn pump(table: &TestTable, store: &Store, stop: &AtomicBool) {
    let mut reader =
        StreamReader::for_table(&table.endpoint, &table.name, StartingPosition::TrimHorizon)
            .await
            .unwrap();
    loop {
        let stopping = stop.load(Ordering::SeqCst);
        let records = reader.read(1_000).await.unwrap();
        if records.is_empty() {
            if stopping {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        }
        let plan = stream_projector::rank_index::plan(&records);
        let failures = stream_projector::rank_index::index(store, &plan)
            .await
            .failures;
        assert!(failures.is_empty(), "no lane stops: {failures:?}");
    }
}

/// Every tenth player's rank is the true one, exact and without lag, and the board's index is
/// exactly its entries with every lane applied.
async fn assert_exact(table: &TestTable, store: &Store, id: &str) {
    let board = stored(store, id).await;
    // The board's entries, its lanes and its index, from one read of the table.
    let dump = table.dump().await;
    let board_pk = format!("LEADERBOARD#{id}");
    let mut keys: Vec<(String, String)> = Vec::new();
    // Each lane's count: its grouped item's once the board's lanes are grouped (the old one
    // stays, closed at the count it had then).
    let mut written = Watermarks::default();
    let mut apart = Watermarks::default();
    for item in &dump {
        let (pk, sk) = (s(item, "pk").unwrap(), s(item, "sk").unwrap());
        if pk == board_pk && sk.starts_with("SCORE#") {
            keys.push((s(item, "playerId").unwrap().to_owned(), sk.to_owned()));
        } else if let Ok(ItemKey::Lane { board, lane }) = ItemKey::parse(pk, sk)
            && board.as_str() == id
        {
            let count: u64 = item["written"].as_n().unwrap().parse().unwrap();
            let kept = if pk.ends_with(id) {
                &mut written
            } else {
                &mut apart
            };
            kept.0.insert(lane, count);
        }
    }
    if !board.lanes_grouped {
        written = apart;
    }
    for (p, mine) in keys.iter().step_by(10) {
        let (entry, _) = store
            .rank()
            .player_rank_counted(&board, &pid(p))
            .await
            .unwrap()
            .unwrap();
        let truth = keys.iter().filter(|(_, k)| k > mine).count() as u64 + 1;
        let f = entry.freshness.unwrap();
        assert_eq!(
            (entry.rank, f.rank_exact, f.rank_lag, f.player_count),
            (truth, true, 0, keys.len() as u64),
            "{id}: {p}"
        );
    }
    let counted: Vec<CountedKey> = keys
        .iter()
        .map(|(_, k)| CountedKey::parse(k).unwrap())
        .collect();
    assert_eq!(index_in(&dump, id), (build(&counted), written), "{id}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boards_move_onto_the_index_while_eight_clients_play_and_every_rank_is_exact_after() {
    // Its process's DynamoDB Local: the test reads the stream all along, which on the run's
    // shared one would slow every other test down.
    let table = TestTable::on_process_local("rank_migration").await;
    let store = store_over(&table, table.client.clone());
    legacy_board(&table, &store, "legacy", ENTRIES, true).await;
    legacy_board(&table, &store, "never_indexed", 300, false).await;
    layout_2_board(&table, &store, "layout_2", 300).await;
    let stop = AtomicBool::new(false);

    // 8 clients play on both boards, new players and imported ones, before, during and after
    // the migration.
    let migrated = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (store, migrated) = (store.clone(), migrated.clone());
            tokio::spawn(async move {
                let mut rng = StdRng::seed_from_u64(c as u64);
                let mut plays = 0;
                while plays < MIN_PLAYS || !migrated.load(Ordering::SeqCst) {
                    let who = player(rng.random_range(0..ENTRIES + 40));
                    let boards: &[&str] = match rng.random_range(0..3) {
                        0 => &["legacy", "layout_2"],
                        1 => &["never_indexed"],
                        _ => &["legacy", "never_indexed", "layout_2"],
                    };
                    play(&store, &who, rng.random_range(0..500), boards).await;
                    plays += 1;
                    // At a fast player's pace: eight sessions' interleavings, not DynamoDB
                    // Local's limit. Plays sent as fast as it answers kept its one core busy
                    // and the migration's catch-up of the index racing them: minutes a run,
                    // and failed runs, on a busy machine.
                    tokio::time::sleep(PACE).await;
                }
                (c, plays)
            })
        })
        .collect();
    let work = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (recording, log) = common::recorded_store(&table);
        let app = App::new(
            recording.with_lane_pause(LANE_PAUSE),
            CloseOptions::default(),
        );
        // Runs until both boards are moved and grouped (one run, unless a board's migration
        // failed); what each run did is added up.
        let mut summary = RankSweepOutcome::default();
        for runs in 1.. {
            let run = season_close::run(&app, None).await.unwrap();
            eprintln!("migration run {runs}: {run:?}");
            let run = run.outcome::<RankSweepOutcome>().unwrap();
            summary.migrated.extend(run.migrated.iter().cloned());
            summary
                .lanes_grouped
                .extend(run.lanes_grouped.iter().cloned());
            summary.old_items_deleted += run.old_items_deleted;
            summary.compacted.extend(run.compacted.iter().cloned());
            if summary.migrated.len() == 2
                && summary.lanes_grouped.len() == 2
                && !summary.compacted.is_empty()
            {
                break;
            }
            assert!(runs < MAX_RUNS, "not migrated in {runs} runs: {summary:?}");
        }
        common::assert_within_policy(&log);
        migrated.store(true, Ordering::SeqCst);
        for client in clients {
            let (c, plays) = client.await.unwrap();
            assert!(plays >= MIN_PLAYS, "client {c}");
        }
        stop.store(true, Ordering::SeqCst);
        (app, summary)
    };
    let ((app, summary), ()) = tokio::join!(work, pump(&table, &store, &stop));

    let mut migrated = summary.migrated.clone();
    migrated.sort();
    assert_eq!(
        migrated,
        vec![bid("legacy"), bid("never_indexed")],
        "{summary:?}"
    );
    assert_eq!(summary.old_items_deleted, 2 * 10 + (ENTRIES + 300) / 10);
    assert_eq!(
        old_index_items(&table).await,
        0,
        "no item of the replaced layout is left"
    );
    // Then their lanes are grouped under one partition key, plays held back at most while
    // the index catches up.
    let mut grouped = summary.lanes_grouped.clone();
    grouped.sort();
    assert_eq!(
        grouped,
        vec![bid("legacy"), bid("never_indexed")],
        "{summary:?}"
    );
    // And the board whose index was layout 2's is rebuilt onto the compact layout (the
    // migrated ones' rebuilds wrote it already).
    assert_eq!(summary.compacted, vec![bid("layout_2")], "{summary:?}");
    for id in ["legacy", "never_indexed", "layout_2"] {
        let board = stored(&store, id).await;
        assert_eq!(
            (
                board.rank_layout,
                board.rank_migrating,
                board.rank_index,
                board.lanes_grouped
            ),
            (RankLayout::V2, false, true, true),
            "{id}"
        );
        let root = rank_index::root_key(&bid(id));
        let root = table.raw(&root.pk, &root.sk).await.unwrap();
        assert_eq!(root["ly"].as_n().unwrap(), "3", "{id}: compact");
        assert_exact(&table, &store, id).await;
        assert_eq!(
            store.rank().migrate_board(&bid(id)).await.unwrap(),
            vec![],
            "{id}"
        );
    }
    // A second run has nothing to do, and says so with one read.
    let before = table.dump().await;
    let again = season_close::run(&app, None).await.unwrap();
    let empty = serde_json::json!({"closed": [], "paused": [], "failed": []});
    assert_eq!(
        serde_json::to_value(&again).unwrap(),
        serde_json::json!({
            "closed": [], "paused": [], "failed": [],
            "keyCheck": {"matches": true},
            "close": empty,
            "rankRepair": {"repaired": [], "failed": [], "busy": [], "continuing": []},
            "rankSweep": {"migrated": [], "oldItemsDeleted": 0, "lanesGrouped": [],
                "lanesBehind": [], "compacted": [], "done": true},
            "boardListing": {"listed": [], "done": true},
            "erasures": {"finished": 0},
            "recount": {"recounted": 0, "busy": 0, "done": false, "idle": true},
        })
    );
    assert_eq!(table.dump().await, before);
}

#[tokio::test]
async fn a_migration_that_dies_after_any_step_or_inside_its_rebuild_resumes_to_the_same_index() {
    let table = TestTable::without_stream("rank_migration_crash").await;
    let store = store_over(&table, table.client.clone());
    for steps_before_crash in 1..=3 {
        let id = format!("crash_{steps_before_crash}");
        legacy_board(&table, &store, &id, SMALL, true).await;
        for _ in 0..steps_before_crash {
            assert!(
                store
                    .rank()
                    .migration_step(&bid(&id))
                    .await
                    .unwrap()
                    .is_some()
            );
        }
        let rest = store.rank().migrate_board(&bid(&id)).await.unwrap();
        assert_eq!(rest.len(), 3 - steps_before_crash, "{id}: {rest:?}");
        assert_eq!(stored(&store, &id).await.rank_layout, RankLayout::V2);
        assert_exact(&table, &store, &id).await;
    }

    // Dies inside the rebuild, its nodes written and its switch never sent: the next run
    // rebuilds again and deletes the nodes the dead one left.
    legacy_board(&table, &store, "crash_inside", SMALL, true).await;
    let started = store
        .rank()
        .migration_step(&bid("crash_inside"))
        .await
        .unwrap();
    assert_eq!(started, Some(MigrationStep::Started));
    let dying = store_failing_transactions(&table);
    assert!(
        dying
            .rank()
            .migration_step(&bid("crash_inside"))
            .await
            .is_err()
    );
    let left = nodes_by_generation(&table, "crash_inside").await;
    assert_eq!(
        left.keys().copied().collect::<Vec<_>>(),
        vec![1],
        "{left:?}"
    );
    let rest = store
        .rank()
        .migrate_board(&bid("crash_inside"))
        .await
        .unwrap();
    assert!(
        matches!(
            rest.as_slice(),
            [
                MigrationStep::Rebuilt(_),
                MigrationStep::Switched {
                    generations_cleared: 1
                }
            ]
        ),
        "{rest:?}"
    );
    let live = nodes_by_generation(&table, "crash_inside").await;
    assert_eq!(
        live.keys().copied().collect::<Vec<_>>(),
        vec![2],
        "{live:?}"
    );
    assert_exact(&table, &store, "crash_inside").await;
    assert!(
        s(
            &table.raw("RANKV2#crash_inside", "#ROOT").await.unwrap(),
            "mig"
        )
        .is_none()
    );
}

#[tokio::test]
async fn the_pass_goes_a_page_at_a_time_and_a_board_whose_migration_failed_is_taken_up_again() {
    let table = TestTable::without_stream("rank_migration_pass").await;
    let store = store_over(&table, table.client.clone());
    legacy_board(&table, &store, "first", SMALL, true).await;
    legacy_board(&table, &store, "second", SMALL, false).await;
    let pages = |max_pages| SweepOptions {
        max_pages,
        page_items: Some(50),
    };

    // A run whose transactions all fail: the first board it meets is not passed.
    let failing = store_failing_transactions(&table);
    let out = failing
        .rank()
        .sweep_rank_layout(&pages(100), None)
        .await
        .unwrap();
    let stuck = out.failed.clone().expect("a board's migration failed");
    assert!(out.migrated.is_empty() && !out.done, "{out:?}");
    assert_eq!(
        stored(&store, stuck.as_str()).await.rank_layout,
        RankLayout::Legacy
    );

    // Runs of one 50-item page each take it up again and finish the pass.
    let mut migrated = Vec::new();
    let mut runs = 0;
    loop {
        let out = store
            .rank()
            .sweep_rank_layout(&pages(1), None)
            .await
            .unwrap();
        assert!(out.failed.is_none() && out.pages <= 1, "{out:?}");
        migrated.extend(out.migrated);
        runs += 1;
        if out.done {
            break;
        }
        assert!(runs < 200, "the pass never ends");
    }
    assert!(runs > 2, "{runs} runs");
    migrated.sort();
    assert_eq!(migrated, vec![bid("first"), bid("second")]);
    assert!(migrated.contains(&stuck));
    for id in ["first", "second"] {
        assert_eq!(stored(&store, id).await.rank_layout, RankLayout::V2, "{id}");
        assert_exact(&table, &store, id).await;
    }
    assert_eq!(old_index_items(&table).await, 0);
    // Over: a run reads the cursor and stops.
    let after = store
        .rank()
        .sweep_rank_layout(&pages(1), None)
        .await
        .unwrap();
    assert!(after.done && after.pages == 0, "{after:?}");
}
