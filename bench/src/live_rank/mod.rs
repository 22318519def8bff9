//! The live-rank benchmark (issue 32): rank cost that does not grow with the board, under the
//! stack's maximum load, in one run on one DynamoDB Local.
//!
//! 1. **Boards**: one `best` board per size, imported in bulk (`Boards::import_entries`) with
//!    its index built (`Rank::build_rank_index`, the compact layout) before the table's stream
//!    is enabled. Scores are distinct (a score's last five digits are its player's number), so the true
//!    ranking has no ties. A hundred *observers* spread over each ranking never play.
//! 2. **Quiet**: the observers' ranks through the HTTP API, one lookup at a time.
//! 3. **Busy**: the local stack ([`crate::stack`]) takes plays at its maximum rate for the
//!    load's seconds: concurrent game clients, shared evenly among the boards, each playing its own
//!    players (one play in flight per player), every play a new best. Meanwhile a second
//!    client looks the observers up, one at a time, through an API of its own whose DynamoDB
//!    requests are recorded apart ([`units`]: requests, items read by key, keys counted, units),
//!    and the index lag is sampled from the table (lanes' `written` against the root's
//!    watermarks).
//! 4. **Backlog and drain**: the load goes on for a few more seconds with the stream poller's
//!    reads held, then stops; the reads are released and the time the index takes to apply
//!    the backlog is its drain rate.
//! 5. **Raw**: the same table takes TransactWriteItems shaped like a play's write (6 items),
//!    from the same number of clients, before the busy phase and after the drain.
//! 6. **Truth**: every answered rank (lookups and the plays' own) is checked against the true
//!    ranking of its request's window ([`truth`]), and the costs feed the cost model
//!    ([`cost`]).
//! 7. **Columns**: the largest board is loaded twice more, with one tiebreak column and with
//!    two ([`play_body`]), and takes its share of every phase: their keys' depth and their
//!    lookups' cost beside the board without ([`columns`]).
//! 8. **Mix**: then plays as a game's players make them ([`mix`]): on the same boards one play
//!    in five improves its entry, by a skewed step; and on an `increment` board every play
//!    adds a skewed amount. Each is priced per play beside the worst case, with the index's
//!    item writes per entry change.

mod columns;
pub mod cost;
mod lag;
pub mod mix;
mod phases;
mod raw;
mod report;
pub mod truth;
pub mod units;

use std::time::{Duration, Instant};

use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::columns::Column;
use leaderboard_keys::ids::{BoardId, GameId, PlayerId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{NewBoard, Operator, RankLayout, Recurrence};
use leaderboard_store::{Config, Store};
use rand::Rng;

use crate::stack::Stack;

/// The benchmark's settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Entries on each board.
    pub sizes: Vec<usize>,
    /// Seconds of the busy phase.
    pub seconds: u64,
    /// Seconds of load with the stream held, to build the backlog the drain applies.
    pub backlog_seconds: u64,
    /// Concurrent game clients making plays.
    pub clients: usize,
    /// Quiet lookups per board.
    pub quiet_lookups: usize,
    /// Seconds of each raw TransactWriteItems phase.
    pub raw_seconds: u64,
    /// Whether these are the quick mode's settings (said in the report).
    pub quick: bool,
}

/// Observers per board: players looked up, never played.
const OBSERVERS: usize = 100;
/// A score's last digits hold its player's number, so no two scores are equal.
const PLAYER_DIGITS: u64 = 100_000;
/// Initial score values (before the player's number), uniform below this.
const INITIAL_VALUES: u64 = 60_000;

/// One board of the run.
pub struct BoardRun {
    /// Its id.
    pub id: BoardId,
    /// Its tiebreak columns: 0, 1 (a time) or 2 (a time, then kills) ([`play_body`]).
    pub columns: usize,
    /// Player `i`'s initial score.
    pub initial: Vec<u64>,
    /// The observers (player numbers), spread over the initial ranking.
    pub observers: Vec<usize>,
    /// Seconds the import and the build took.
    pub load_secs: (f64, f64),
}

impl BoardRun {
    /// How the report names it: its size, and its columns when it has any.
    pub fn label(&self) -> String {
        match self.columns {
            0 => format!("{} entries", self.initial.len()),
            1 => format!("{} entries, 1 column", self.initial.len()),
            c => format!("{} entries, {c} columns", self.initial.len()),
        }
    }
}

/// Player `i`'s id (valid on every board).
pub fn player_id(i: usize) -> String {
    format!("lr{i:06}")
}

/// A score of `value` for player `i`.
pub fn score(value: u64, i: usize) -> u64 {
    value * PLAYER_DIGITS + i as u64
}

/// The value of a score (without its player's number).
pub fn value(score: u64) -> u64 {
    score / PLAYER_DIGITS
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// `ms` milliseconds before `now`.
fn ago(now: Timestamp, ms: u64) -> Result<Timestamp, String> {
    Timestamp::from_millis(now.as_millis().saturating_sub(ms)).map_err(err)
}

/// Creates, fills and indexes a board of `n` entries and `columns` tiebreak columns.
async fn load_board(store: &Store, n: usize, columns: usize) -> Result<BoardRun, String> {
    assert!(
        n as u64 <= PLAYER_DIGITS,
        "a board of at most {PLAYER_DIGITS}"
    );
    let id = match columns {
        0 => format!("live_{n}"),
        c => format!("live_{n}_c{c}"),
    };
    let id = BoardId::parse(&id).map_err(err)?;
    let now = Timestamp::now();
    let new = NewBoard {
        columns: tiebreak_columns(columns)?,
        ..bench_board(&id, Operator::Best, now)?
    };
    let board = store.boards().create_board(new, now).await.map_err(err)?;
    let mut rng = rand::rng();
    let initial: Vec<u64> = (0..n)
        .map(|i| score(rng.random_range(0..INITIAL_VALUES), i))
        .collect();
    let entries: Vec<(PlayerId, u64, Vec<u64>, Timestamp)> = initial
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let at = ago(now, rng.random_range(60_000..3_000_000))?;
            let (score, subscores) = ranked(s, columns);
            let player = PlayerId::parse(&player_id(i)).map_err(err)?;
            Ok((player, score, subscores, at))
        })
        .collect::<Result<_, String>>()?;
    let clock = Instant::now();
    for chunk in entries.chunks(5_000) {
        store
            .boards()
            .import_ranked_entries(&board, chunk)
            .await
            .map_err(err)?;
    }
    let import = clock.elapsed().as_secs_f64();
    let clock = Instant::now();
    store.rank().build_rank_index(&board).await.map_err(err)?;
    let build = clock.elapsed().as_secs_f64();
    let mut ranking: Vec<usize> = (0..n).collect();
    ranking.sort_by(|&a, &b| initial[b].cmp(&initial[a]));
    let observers = (0..OBSERVERS.min(n))
        .map(|k| ranking[k * n / OBSERVERS.min(n)])
        .collect();
    eprintln!("live_rank: {id}: import {import:.1} s, index build {build:.1} s");
    Ok(BoardRun {
        id,
        columns,
        initial,
        observers,
        load_secs: (import, build),
    })
}

/// A board of the run: `operator`, the default width, open from an hour before `now` for a day,
/// of the game `bench`.
pub(crate) fn bench_board(
    id: &BoardId,
    operator: Operator,
    now: Timestamp,
) -> Result<NewBoard, String> {
    Ok(NewBoard {
        order: Order::Desc,
        operator,
        max_score: leaderboard_keys::rank::DEFAULT_MAX_SCORE,
        starts_at: Some(ago(now, 3_600_000)?),
        ends_at: Some(now.plus_millis(86_400_000)),
        recurrence: Recurrence::None,
        game_id: Some(GameId::parse("bench").map_err(err)?),
        rank_layout: RankLayout::V2,
        ..NewBoard::named(id.clone(), format!("Live {id}"))
    })
}

/// The tiebreak columns of a board of `n` of them: the time of a run (asc, up to 2.8 hours in
/// ms: 7 digits), then kills (desc, 3 digits), as a racing game ranks points, then the faster
/// run, then more kills.
fn tiebreak_columns(n: usize) -> Result<Vec<Column>, String> {
    let all = [
        Column::new("time", Order::Asc, TIME_MAX).map_err(err)?,
        Column::new("kills", Order::Desc, 999).map_err(err)?,
    ];
    Ok(all[..n].to_vec())
}

/// The largest time of the `time` column.
const TIME_MAX: u64 = 9_999_999;

/// A board entry of the benchmark's score `v` (one number ordering every entry, [`score`]) as a
/// board of `columns` tiebreak columns keeps it: the score itself without columns; else its
/// value as the score, the player's number as the time (a higher number a shorter time, so the
/// tuple ranks as `v` does), and kills that the time has already ordered.
pub(crate) fn ranked(v: u64, columns: usize) -> (u64, Vec<u64>) {
    if columns == 0 {
        return (v, Vec::new());
    }
    let player = v % PLAYER_DIGITS;
    let all = [TIME_MAX - player * 10, (player * 7) % 1000];
    (value(v), all[..columns].to_vec())
}

/// A play's body for the benchmark's score `v` on a board of `columns` tiebreak columns.
pub(crate) fn play_body(v: u64, columns: usize) -> String {
    let (score, subscores) = ranked(v, columns);
    let mut body = serde_json::json!({"score": score, "gameId": "bench", "durationSec": 60});
    if columns > 0 {
        let names = ["time", "kills"];
        let named: serde_json::Map<String, serde_json::Value> = names
            .iter()
            .zip(subscores)
            .map(|(n, v)| (n.to_string(), v.into()))
            .collect();
        body["subscores"] = named.into();
    }
    body.to_string()
}

/// Seconds of each part of the realistic mix: half the busy phase's, at least 5.
pub(crate) fn mix_seconds(opts: &Options) -> u64 {
    (opts.seconds / 2).max(5)
}

/// Runs the benchmark and returns the report fragment.
pub async fn run(opts: &Options) -> Result<String, String> {
    // Loaded before the table has a stream: DynamoDB Local slows down for every request once
    // a stream has taken many writes, and the stack's poller starts at the stream's horizon.
    let table = TestTable::without_stream("live_rank").await;
    let store = Store::new(
        table.client.clone(),
        &Config {
            table_name: table.name.clone(),
            cursor_secret: b"bench-cursor-secret".to_vec(),
        },
    );
    let mut boards = Vec::new();
    for &n in &opts.sizes {
        boards.push(load_board(&store, n, 0).await?);
    }
    // The largest board again with one tiebreak column and with two: their keys' depth and
    // their lookups' cost side by side with none, under the same load.
    if let Some(&largest) = opts.sizes.iter().max() {
        for columns in [1, 2] {
            boards.push(load_board(&store, largest, columns).await?);
        }
    }
    let increment = mix::increment_board(&store).await?;
    table.set_stream(true).await;
    let mut stack = Stack::start(&table.endpoint, &table.name).await?;
    let (lookup_addr, lookup_proxy) = stack.second_api().await?;
    let loaded = phases::item_sizes(&lookup_proxy, &table.name).await?;
    let run = phases::Run {
        stack: &stack,
        lookup_addr,
        lookup_proxy: &lookup_proxy,
        boards: &boards,
        opts,
        score_size: loaded.score_mean().round() as usize,
    };
    let measured = run.measure(&table.name).await?;
    let mix = run
        .mix(&table.name, &measured.bests, &increment, mix_seconds(opts))
        .await?;
    let sizes = phases::item_sizes(&lookup_proxy, &table.name).await?;
    stack.stop().await;
    let (md, failure) = report::write(opts, &boards, &measured, &sizes, &mix);
    match failure {
        Some(why) => Err(format!("{why}\n{md}")),
        None => Ok(md),
    }
}

/// Seconds since `t0`.
pub(crate) fn secs(t0: Instant, t: Instant) -> f64 {
    t.saturating_duration_since(t0).as_secs_f64()
}

/// Sleeps until `deadline` or for `max`, whichever comes first.
pub(crate) async fn sleep_until(deadline: Instant, max: Duration) {
    let wait = deadline.saturating_duration_since(Instant::now()).min(max);
    tokio::time::sleep(wait).await;
}
