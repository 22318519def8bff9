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
//! 7. **Mix**: then plays as a game's players make them ([`mix`]): on the same boards one play
//!    in five improves its entry, by a skewed step; and on an `increment` board every play
//!    adds a skewed amount. Each is priced per play beside the worst case, with the index's
//!    item writes per entry change.

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
    /// Player `i`'s initial score.
    pub initial: Vec<u64>,
    /// The observers (player numbers), spread over the initial ranking.
    pub observers: Vec<usize>,
    /// Seconds the import and the build took.
    pub load_secs: (f64, f64),
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

/// Creates, fills and indexes a board of `n` entries.
async fn load_board(store: &Store, n: usize) -> Result<BoardRun, String> {
    assert!(
        n as u64 <= PLAYER_DIGITS,
        "a board of at most {PLAYER_DIGITS}"
    );
    let id = BoardId::parse(&format!("live_{n}")).map_err(err)?;
    let now = Timestamp::now();
    let board = store
        .boards()
        .create_board(bench_board(&id, Operator::Best, now)?, now)
        .await
        .map_err(err)?;
    let mut rng = rand::rng();
    let initial: Vec<u64> = (0..n)
        .map(|i| score(rng.random_range(0..INITIAL_VALUES), i))
        .collect();
    let entries: Vec<(PlayerId, u64, Timestamp)> = initial
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let at = ago(now, rng.random_range(60_000..3_000_000))?;
            Ok((PlayerId::parse(&player_id(i)).map_err(err)?, s, at))
        })
        .collect::<Result<_, String>>()?;
    let clock = Instant::now();
    for chunk in entries.chunks(5_000) {
        store
            .boards()
            .import_entries(&board, chunk)
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
    eprintln!("live_rank: board of {n}: import {import:.1} s, index build {build:.1} s");
    Ok(BoardRun {
        id,
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
        board_id: id.clone(),
        name: format!("Live {id}"),
        order: Order::Desc,
        operator,
        max_score: leaderboard_keys::rank::DEFAULT_MAX_SCORE,
        min_score: 0,
        min_duration_sec: None,
        starts_at: Some(ago(now, 3_600_000)?),
        ends_at: Some(now.plus_millis(86_400_000)),
        recurrence: Recurrence::None,
        writers: Default::default(),
        game_id: Some(GameId::parse("bench").map_err(err)?),
        rank_layout: RankLayout::V2,
        series_id: None,
        write_shards: 1,
        league: None,
    })
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
        boards.push(load_board(&store, n).await?);
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
