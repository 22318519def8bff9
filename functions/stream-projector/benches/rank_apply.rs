//! How fast the rank index keeps up with plays, in one run on one DynamoDB Local:
//! `cargo bench -p stream-projector --bench rank_apply` (`-- --quick`, or `QUICK=1`, for fewer
//! players and plays).
//!
//! A board of N players (imported and indexed before the table's stream is enabled), `latest`,
//! so that a play replaces its player's entry. P plays of random players, 32 at once, through
//! the store's write path (`Plays::record_play`, the calls the submit-score function makes):
//! the stack's submission rate. Then the board's lane records from the table's stream, in
//! batches of 100 as the event source mapping delivers them, one batch after another as on one
//! shard, applied by the projector's own index half (`rank_index::index`) through a client
//! that prices requests: per entry change, requests, item writes and write units (from the
//! request bodies, by DynamoDB's rules); and entry changes applied per second. Every record
//! must apply without a failure, and the index must then equal the one built from the board's
//! entries (the benchmark stops otherwise).

#[path = "../../../bench/src/fragment.rs"]
mod fragment;
#[path = "../../../shared/store/tests/common/index_check.rs"]
mod index_check;
#[path = "../../../bench/src/live_rank/units.rs"]
#[allow(dead_code, unused_imports)]
mod units;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use aws_lambda_events::event::dynamodb::EventRecord;
use aws_sdk_dynamodb::types::AttributeValue;
use futures::StreamExt;
use leaderboard_devkit::local::observing_client;
use leaderboard_devkit::stream::{StartingPosition, StreamReader};
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::entity;
use leaderboard_keys::ids::{BoardId, GameId, PlayerId, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::rank_index::{CountedKey, LANES, LaneChange, Watermarks, build};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{NewBoard, Operator, RankLayout, Recurrence};
use leaderboard_store::{Config, LaneApplyOutcome, Play, Store, StoreError};
use rand::Rng;
use stream_projector::{LaneIndex, rank_index};

const T0: u64 = 1_767_225_600_000;
/// Plays recorded at once: the load benchmark's simulated players.
const CONCURRENT_PLAYS: usize = 32;
/// Records per batch: the template's `BatchSize` when this was first measured (now 1,000:
/// a fuller batch only shares more index writes between its changes).
const BATCH: usize = 100;

fn at(ms: u64) -> Timestamp {
    Timestamp::from_millis(T0 + ms).unwrap()
}

/// What the requests sent cost: how many, and their write units (in thousandths), by
/// DynamoDB's rules from the request bodies (`units`: a put by its item's size, an update 1,
/// a transaction's items 2 each).
#[derive(Default)]
struct Priced {
    requests: AtomicU64,
    write_milli: AtomicU64,
}

impl Priced {
    fn see(&self, op: &str, body: &[u8]) {
        let u = units::of(op, body, b"", 0);
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.write_milli
            .fetch_add((u.write * 1000.0).round() as u64, Ordering::Relaxed);
    }

    fn reset(&self) {
        self.requests.store(0, Ordering::Relaxed);
        self.write_milli.store(0, Ordering::Relaxed);
    }

    fn write_units(&self) -> f64 {
        self.write_milli.load(Ordering::Relaxed) as f64 / 1000.0
    }
}

/// The store, tallying what the index writes report.
struct Tally {
    store: Store,
    applied: AtomicUsize,
    items: AtomicUsize,
}

impl LaneIndex for Tally {
    async fn apply_lanes(
        &self,
        board: &BoardId,
        changes: &[LaneChange],
    ) -> Result<LaneApplyOutcome, StoreError> {
        let out = self.store.rank().apply_lane_changes(board, changes).await?;
        self.applied.fetch_add(out.applied, Ordering::Relaxed);
        self.items.fetch_add(out.items_written, Ordering::Relaxed);
        Ok(out)
    }
}

/// The run's row.
struct Row {
    plays: usize,
    /// Entry changes the plays made (a play may change nothing: `latest` keeps the later of
    /// two plays of one player recorded at once).
    changes: usize,
    plays_per_sec: f64,
    records: usize,
    batches: usize,
    apply_secs: f64,
    requests: u64,
    /// Write units of the apply's requests.
    write_units: f64,
    items: usize,
    /// Index items after the run, the largest's size, how many exceed 1 KB.
    index_items: (usize, usize, usize),
}

impl Row {
    fn applied_per_sec(&self) -> f64 {
        self.changes as f64 / self.apply_secs
    }
    fn per_change(&self, x: f64) -> f64 {
        x / self.changes as f64
    }
}

async fn board(store: &Store, id: &str) -> BoardId {
    let board = BoardId::parse(id).unwrap();
    store
        .boards()
        .create_board(
            NewBoard {
                order: Order::Desc,
                operator: Operator::Latest,
                max_score: 9_999_999_999,
                starts_at: Some(at(0)),
                recurrence: Recurrence::None,
                rank_layout: RankLayout::V2,
                ..NewBoard::named(board.clone(), id.into())
            },
            at(0),
        )
        .await
        .unwrap();
    board
}

/// Records `plays` plays of random players on `board`, [`CONCURRENT_PLAYS`] at once: plays per
/// second.
async fn play(store: &Store, board: &BoardId, players: &[PlayerId], plays: usize) -> f64 {
    let mut rng = rand::rng();
    let plays: Vec<(PlayerId, u64, u64)> = (0..plays)
        .map(|i| {
            let p = players[rng.random_range(0..players.len())].clone();
            (
                p,
                rng.random_range(0..100_000u64) * 7,
                120_000 + i as u64 * 10,
            )
        })
        .collect();
    let clock = Instant::now();
    futures::stream::iter(&plays)
        .map(|(p, score, ms)| async move {
            let now = at(*ms);
            let play = Play {
                subscores: Default::default(),
                idempotency_key: None,
                metadata: None,
                player_id: p.clone(),
                session_id: SessionId::from_parts(now.as_millis(), rand::random()).unwrap(),
                game_id: Some(GameId::parse("bench").unwrap()),
                score: *score,
                duration_sec: None,
                board_ids: vec![board.clone()],
            };
            store.plays().record_play(&play, now).await.unwrap();
        })
        .buffer_unordered(CONCURRENT_PLAYS)
        .collect::<Vec<()>>()
        .await;
    plays.len() as f64 / clock.elapsed().as_secs_f64()
}

/// Applies `records` in batches of [`BATCH`], one after another, with `apply` (the index half,
/// which answers the records to report): seconds, requests and write units.
async fn apply<F, Fut>(records: &[EventRecord], counter: &Priced, apply: F) -> (f64, u64, f64)
where
    F: Fn(Vec<EventRecord>) -> Fut,
    Fut: std::future::Future<Output = usize>,
{
    counter.reset();
    let clock = Instant::now();
    for batch in records.chunks(BATCH) {
        let failed = apply(batch.to_vec()).await;
        assert_eq!(failed, 0, "a batch failed");
    }
    let secs = clock.elapsed().as_secs_f64();
    (
        secs,
        counter.requests.load(Ordering::Relaxed),
        counter.write_units(),
    )
}

/// An item's size as DynamoDB bills it: attribute names and values (a string's UTF-8 bytes, a
/// number's 1 byte per two significant digits plus 1, a set's members).
fn item_size(item: &HashMap<String, AttributeValue>) -> usize {
    fn value(v: &AttributeValue) -> usize {
        let number = |n: &str| n.trim_start_matches(['-', '0']).len().div_ceil(2) + 1;
        match v {
            AttributeValue::S(s) => s.len(),
            AttributeValue::N(n) => number(n),
            AttributeValue::Ss(ss) => ss.iter().map(String::len).sum(),
            AttributeValue::M(m) => {
                3 + m.iter().map(|(k, v)| k.len() + value(v) + 1).sum::<usize>()
            }
            _ => 1,
        }
    }
    item.iter().map(|(k, v)| k.len() + value(v)).sum()
}

/// The index items after the run (its journal apart): how many, the largest, and how many
/// exceed the 1 KB a write unit covers.
fn index_items(dump: &[HashMap<String, AttributeValue>], board: &BoardId) -> (usize, usize, usize) {
    let (root, node) = (format!("RANKV2#{board}"), format!("RANKV2#{board}#"));
    let sizes: Vec<usize> = dump
        .iter()
        .filter(|item| {
            let pk = item["pk"].as_s().unwrap();
            // The journal is only ever put whole, priced by its size: updates touch the rest.
            let journal = item["sk"].as_s().unwrap().starts_with("#JOURNAL#");
            (*pk == root || pk.starts_with(&node)) && !journal
        })
        .map(item_size)
        .collect();
    (
        sizes.len(),
        sizes.iter().copied().max().unwrap_or(0),
        sizes.iter().filter(|&&s| s > 1024).count(),
    )
}

/// A record's key attribute `attr` (`pk` or `sk`).
fn key<'a>(record: &'a EventRecord, attr: &str) -> &'a str {
    match record.change.keys.inner().get(attr) {
        Some(serde_dynamo::AttributeValue::S(value)) => value,
        _ => "",
    }
}

/// The index must be the one built from the board's entries, its watermarks the lanes'
/// written counts.
async fn check_index(table: &TestTable, dump: &[HashMap<String, AttributeValue>], board: &BoardId) {
    let mut keys = Vec::new();
    for item in dump {
        let (Some(pk), Some(sk)) = (item["pk"].as_s().ok(), item["sk"].as_s().ok()) else {
            continue;
        };
        if *pk == entity::board_pk(board) && sk.starts_with(entity::SCORE_PREFIX) {
            keys.push(CountedKey::parse(sk).unwrap());
        }
    }
    let mut written = Watermarks::default();
    for lane in 0..LANES {
        let (w, _) = index_check::lane(table, board.as_str(), lane).await;
        if w > 0 {
            written.0.insert(lane, w);
        }
    }
    let stored = index_check::index_in(dump, board.as_str());
    assert!(
        stored == (build(&keys), written),
        "the index is not the built one"
    );
}

#[tokio::main]
async fn main() {
    let quick =
        std::env::args().any(|a| a == "--quick") || std::env::var("QUICK").is_ok_and(|v| v == "1");
    let (n, plays) = if quick {
        (10_000, 1_000)
    } else {
        (50_000, 3_000)
    };
    // The boards are loaded before the table has a stream (DynamoDB Local slows down for every
    // request once a stream has taken many writes); the plays are its first records.
    let table = TestTable::without_stream("rank_apply_bench").await;
    let counter = Arc::new(Priced::default());
    let priced = counter.clone();
    let client = observing_client(&table.endpoint, move |op, body| priced.see(op, body));
    let store = Store::new(
        client,
        &Config {
            table_name: table.name.clone(),
            cursor_secret: b"bench-secret-of-at-least-32-chars".to_vec(),
        },
    );
    let id = board(&store, "apply").await;
    let players: Vec<PlayerId> = (0..n)
        .map(|i| PlayerId::parse(&format!("p{i:07}")).unwrap())
        .collect();
    let mut rng = rand::rng();
    let entries: Vec<(PlayerId, u64, Timestamp)> = players
        .iter()
        .map(|p| {
            (
                p.clone(),
                rng.random_range(0..100_000u64) * 7,
                at(rng.random_range(0..60_000)),
            )
        })
        .collect();
    eprintln!("importing {n} entries and building the index");
    let board = store.boards().get_board(&id).await.unwrap().unwrap();
    for chunk in entries.chunks(5_000) {
        store.boards().import_entries(&board, chunk).await.unwrap();
    }
    store.rank().build_rank_index(&board).await.unwrap();
    table.set_stream(true).await;
    let mut reader =
        StreamReader::for_table(&table.endpoint, &table.name, StartingPosition::TrimHorizon)
            .await
            .unwrap();

    eprintln!("{plays} plays");
    let plays_per_sec = play(&store, &id, &players, plays).await;
    let records = reader.read_to_end().await.unwrap();
    let tally = &Tally {
        store: store.clone(),
        applied: AtomicUsize::new(0),
        items: AtomicUsize::new(0),
    };
    let records: Vec<EventRecord> = records
        .iter()
        .filter(|r| {
            matches!(entity::ItemKey::parse(key(r, "pk"), key(r, "sk")),
                Ok(entity::ItemKey::Lane { board, .. }) if board == id)
        })
        .cloned()
        .collect();
    eprintln!("applying {} records", records.len());
    let (secs, requests, write_units) = apply(&records, &counter, |batch| async move {
        rank_index::index(tally, &rank_index::plan(&batch))
            .await
            .failures
            .len()
    })
    .await;
    // One lane record per entry change.
    assert_eq!(
        tally.applied.load(Ordering::Relaxed),
        records.len(),
        "every record applied"
    );
    let dump = table.dump().await;
    check_index(&table, &dump, &id).await;
    let rows = vec![Row {
        plays,
        changes: records.len(),
        plays_per_sec,
        records: records.len(),
        batches: records.len().div_ceil(BATCH),
        apply_secs: secs,
        requests,
        write_units,
        items: tally.items.load(Ordering::Relaxed),
        index_items: index_items(&dump, &id),
    }];
    report(n, &rows, quick);
}

fn report(n: usize, rows: &[Row], quick: bool) {
    let mut md = format!(
        "## Rank index apply rate (issues 30 and 55)\n\n\
         One run on one DynamoDB Local{}: a `latest` board of {n} players (imported and \
         indexed before the table's stream was enabled); {} plays of random players, \
         {CONCURRENT_PLAYS} at once through `Plays::record_play` (the submit-score function's \
         calls; `latest`: a play replaces its player's entry): the submission rate. Then the \
         board's lane records from the table's stream, in batches of {BATCH} one after another \
         (one shard), applied by the projector's `rank_index::index` (one lane record per \
         entry change). Per change = divided by the entry changes the plays made. Requests are \
         what the client sent, item writes what the apply reports. Write units by DynamoDB's \
         rules from the requests sent (a put by its item's size, 1 KB a unit; an update 1; a \
         transaction's items 2 each): exact while no index item but the journal (put whole) \
         exceeds 1 KB, which the last column checks (DynamoDB Local's own `ConsumedCapacity` \
         for a transaction is not the sum over its items, so it is not used).\n\n\
         | plays accepted /s | entry changes | records | batches | entry changes applied /s | \
         applied / accepted | requests per change | item writes per change | write units per \
         change | index items (largest, over 1 KB) |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        if quick { " (quick mode)" } else { "" },
        rows.first().map_or(0, |r| r.plays),
    );
    for r in rows {
        let (count, largest, over) = r.index_items;
        md.push_str(&format!(
            "| {:.0} | {} | {} | {} | {:.0} | {:.2}x | {:.2} | {:.2} | {}{:.1} | {} ({} B, {}) |\n",
            r.plays_per_sec,
            r.changes,
            r.records,
            r.batches,
            r.applied_per_sec(),
            r.applied_per_sec() / r.plays_per_sec,
            r.per_change(r.requests as f64),
            r.per_change(r.items as f64),
            if over > 0 { ">= " } else { "" },
            r.per_change(r.write_units),
            count,
            largest,
            over,
        ));
    }
    if let [r] = rows {
        fragment::target(
            "The rank index applies at least 2x as fast as the stack accepts plays (issue 30)",
            &format!(
                "applies {:.0} changes/s, plays accepted {:.0}/s: {:.2}x",
                r.applied_per_sec(),
                r.plays_per_sec,
                r.applied_per_sec() / r.plays_per_sec,
            ),
            r.applied_per_sec() >= 2.0 * r.plays_per_sec,
        );
    }
    println!("{md}");
}
