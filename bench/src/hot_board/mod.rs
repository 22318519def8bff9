//! Hot boards (issues 60 and 95): where a play's write and read units land, on a plain
//! `increment` board and on boards of 8 and 32 write shards, through the local stack in the
//! same run. Simulated players POST scores to each board in turn (every play changes the
//! entry); the counting proxies record every request the HTTP functions and the stream
//! projector send, until the projector has caught up; [`partitions`] turns them into write
//! units and [`reads`] into read units by partition key, on the table and on each index. The
//! report: the busiest partition key's share of the write units, each shared item's units per
//! play, and each board's ceiling: the plays a second at which its busiest key reaches a
//! partition's 1,000 write units or 3,000 read units a second; and the rank index's apply
//! ceiling, from the projector's own units ([`apply`]).

mod apply;
mod ceiling;
pub mod partitions;
pub mod reads;

use std::fmt::Write as _;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use chrono::{SecondsFormat, Utc};
use leaderboard_devkit::template::TableDefinition;
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::time::Timestamp;
use leaderboard_local::client::ApiClient;
use leaderboard_store::{Config, Store};
use serde_json::json;

use crate::fragment;
use crate::live_rank::truth::{Answer, Play, Truth};
use crate::proxy::Exchange;
use crate::stack::{Conn, Stack};
use partitions::{Partition, Units, kind, per_player};

/// The load settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Concurrent connections.
    pub connections: usize,
    /// Distinct players (spread over the connections).
    pub players: usize,
    /// Plays on each board.
    pub plays: usize,
    /// Entries imported on each board before the plays, all above the players' (so that a
    /// play ranks past the top a rank counts exactly, as most plays of a big board do).
    pub fillers: usize,
}

/// The HTTP functions' `LANE_CAPS_FROM`: every board of more than one write shard is capped
/// (as one past the default 500 plays a second would be).
const LANE_CAPS_FROM: u64 = 0;

/// DynamoDB's write units a second on one partition key.
const PARTITION_WRITE_UNITS: f64 = 1_000.0;

/// DynamoDB's read units a second on one partition key.
const PARTITION_READ_UNITS: f64 = 3_000.0;

/// The lowest imported score: far above what a player's plays add up to here (at most 50 a
/// play).
const FILLER_SCORES: u64 = 1_000_000_000;

/// The bound on the busiest key's share on a board of 8 shards: 1/8 and 10% of it.
const TARGET_SHARE: f64 = 1.0 / 8.0 * 1.1;

/// What one board's phase measured.
struct Measured {
    board: &'static str,
    shards: u8,
    plays: usize,
    errors: usize,
    secs: f64,
    /// The `rankLag` the plays were answered: p50, p90, max.
    lags: [u64; 3],
    /// The answers off beyond their `rankLag` (`live_rank::truth`: every entry's score only
    /// rises here too), and those that would be off with no lag (the check's reach: an answer
    /// within its lag need not be exact).
    off: (usize, usize),
    /// Write units by partition.
    units: Units,
    /// Read units by partition.
    reads: Units,
    /// The stream projector's own write units by partition (also in `units`).
    apply_units: Units,
    /// The stream projector's own read units by partition (also in `reads`).
    apply_reads: Units,
}

impl Measured {
    fn per_play(&self, units: f64) -> f64 {
        units / self.plays.max(1) as f64
    }

    /// The busiest partition of those `keep` accepts by write units, and its share of their units.
    fn busiest(&self, keep: impl Fn(&Partition) -> bool + Copy) -> Option<(Partition, f64, f64)> {
        let all = self.units.busiest(keep);
        let total: f64 = all.iter().map(|(_, u)| u).sum();
        let (p, u) = all.first()?;
        Some(((*p).clone(), *u, u / total))
    }
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Runs the benchmark and returns the report fragment.
pub async fn run(opts: &Options) -> Result<String, String> {
    let endpoint = leaderboard_devkit::testing::endpoint().await;
    let definition = TableDefinition::from_repo().map_err(err)?;
    let table = crate::unique_table("hot");
    let direct = leaderboard_devkit::local::client(&endpoint);
    definition.create(&direct, &table).await.map_err(err)?;
    // Every hot board's lanes capped: DynamoDB Local plays far below the default threshold.
    let local = Stack::start_with(&endpoint, &table, Some(LANE_CAPS_FROM)).await?;
    let api = ApiClient::new(local.addr);
    let admin = local.token("bench_admin", &["admin"]);
    let now = Utc::now();
    let rfc = |t: chrono::DateTime<Utc>| t.to_rfc3339_opts(SecondsFormat::Millis, true);
    let boards: [(&'static str, u8); 3] =
        [("plain_board", 1), ("hot_board", 8), ("hot_board_32", 32)];
    for (board, shards) in boards {
        let r = api
            .post(
                "/leaderboards",
                Some(&admin),
                &json!({
                    "leaderboardId": board, "name": board, "order": "desc",
                    "operator": "increment", "gameId": format!("{board}_game"),
                    "writeShards": shards,
                    "startsAt": rfc(now - chrono::Duration::hours(1)),
                    "endsAt": rfc(now + chrono::Duration::days(30)),
                }),
            )
            .await
            .map_err(err)?;
        if r.status != 201 {
            return Err(format!("create {board}: {} {}", r.status, r.body));
        }
    }
    let store = Store::new(
        local.direct.clone(),
        &Config {
            table_name: table.clone(),
            cursor_secret: b"hot-board-bench".to_vec(),
        },
    );
    for (board, _) in boards {
        seed(&store, board, opts.fillers).await?;
    }
    let tokens: Vec<String> = (0..opts.players)
        .map(|p| local.token(&format!("hp_{p:05}"), &[]))
        .collect();
    // Every player's first entry on each board first, not measured: the measured plays all
    // replace an entry (a delete and a put), as on a board in its stride.
    let mut firsts = Vec::new();
    for (board, _) in boards {
        let (errors, _, answers) =
            play_all(&local, opts.connections, &tokens, board, tokens.len()).await?;
        if errors > 0 {
            return Err(format!("{errors} first plays on {board} failed"));
        }
        firsts.push(answers);
    }
    settle(&local).await;
    let mut measured = Vec::new();
    for ((board, shards), first) in boards.into_iter().zip(firsts) {
        measured.push(phase(&local, opts, &tokens, (board, shards), first).await?);
    }
    local.stop().await;
    let md = report(opts, &measured);
    if let Some(errors) = measured.iter().map(|m| m.errors).find(|e| *e > 0) {
        return Err(format!("{errors} plays failed\n{md}"));
    }
    Ok(md)
}

/// Imports `fillers` entries on `board`, every one above any score the players reach, and
/// builds its rank index (before any play: the projector has nothing to apply meanwhile).
async fn seed(store: &Store, board: &str, fillers: usize) -> Result<(), String> {
    let id = BoardId::parse(board).map_err(err)?;
    let b = store
        .boards()
        .get_board(&id)
        .await
        .map_err(err)?
        .ok_or_else(|| format!("{board} not found"))?;
    let now = Timestamp::now();
    let entries: Vec<(PlayerId, u64, Timestamp)> = (0..fillers as u64)
        .map(|i| {
            let player = PlayerId::parse(&format!("filler{i:06}")).map_err(err)?;
            Ok((player, FILLER_SCORES + i, now))
        })
        .collect::<Result<_, String>>()?;
    let clock = Instant::now();
    for chunk in entries.chunks(5_000) {
        store
            .boards()
            .import_entries(&b, chunk)
            .await
            .map_err(err)?;
    }
    store.rank().build_rank_index(&b).await.map_err(err)?;
    eprintln!(
        "hot_board: {board}: {fillers} entries imported and indexed in {:.1} s",
        clock.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `opts.plays` plays on `board` of `shards`, recorded until the projector has applied them,
/// each answer checked against the plays before (`first`, the players' first on the board).
async fn phase(
    local: &Stack,
    opts: &Options,
    tokens: &[String],
    (board, shards): (&'static str, u8),
    first: Vec<Answer>,
) -> Result<Measured, String> {
    for proxy in [&local.store_proxy, &local.poller_proxy] {
        proxy.stats().reset();
        proxy.stats().start_recording();
    }
    let (errors, secs, answers) =
        play_all(local, opts.connections, tokens, board, opts.plays).await?;
    // The players (no entry before their first play), then the entries imported above them.
    let initial = std::iter::repeat_n(0, opts.players)
        .chain((0..opts.fillers as u64).map(|i| FILLER_SCORES + i));
    let mut truth = Truth::new(initial.collect());
    truth.record(first.iter().chain(&answers).map(|a| Play {
        player: a.player,
        score: a.score,
        sent: a.sent,
        answered: a.answered,
    }));
    let off = |exact: bool| {
        let answered = answers.iter().map(|a| Answer {
            exact: exact || a.exact,
            ..*a
        });
        answered.filter(|a| truth.check(a).violation).count()
    };
    let off = (off(false), off(true));
    let mut lags: Vec<u64> = answers.iter().map(|a| a.lag).collect();
    lags.sort_unstable();
    let at = |q: f64| {
        let i = ((lags.len() as f64 * q) as usize).min(lags.len().saturating_sub(1));
        lags.get(i).copied().unwrap_or(0)
    };
    let lags = [at(0.5), at(0.9), lags.last().copied().unwrap_or(0)];
    settle(local).await;
    let (mut units, mut reads) = (Units::default(), Units::default());
    let (mut apply_units, mut apply_reads) = (Units::default(), Units::default());
    let served: Vec<Exchange> = local.store_proxy.stats().take_recording();
    let applied: Vec<Exchange> = local.poller_proxy.stats().take_recording();
    for x in served.iter().chain(&applied) {
        units.add_writes(&x.op, x.status, &x.request);
        reads.add_reads(&x.op, x.status, &x.request, &x.body);
    }
    for x in &applied {
        apply_units.add_writes(&x.op, x.status, &x.request);
        apply_reads.add_reads(&x.op, x.status, &x.request, &x.body);
    }
    let plays = opts.plays.div_ceil(opts.connections) * opts.connections;
    eprintln!(
        "hot_board: {board}: {plays} plays in {secs:.1} s, {:.0} write units, {:.0} read units",
        units.total(),
        reads.total()
    );
    Ok(Measured {
        board,
        shards,
        plays: plays - errors,
        errors,
        secs,
        lags,
        off,
        units,
        reads,
        apply_units,
        apply_reads,
    })
}

/// About `plays` plays on `board` over `connections`, each connection playing for its own
/// players in turn: the plays that failed, the seconds they took, and the answers.
async fn play_all(
    local: &Stack,
    connections: usize,
    tokens: &[String],
    board: &'static str,
    plays: usize,
) -> Result<(usize, f64, Vec<Answer>), String> {
    let started = Instant::now();
    let per = plays.div_ceil(connections);
    let mut workers = Vec::new();
    for c in 0..connections {
        let (addr, tokens) = (local.addr, tokens.to_vec());
        workers.push(tokio::spawn(async move {
            let mut conn = Conn::new(addr);
            let mut errors = 0usize;
            let mut answers = Vec::new();
            for i in 0..per {
                let player = (c + i * connections) % tokens.len();
                let token = &tokens[player];
                let body = json!({"score": 1 + (i % 50), "durationSec": 120});
                let path = format!("/leaderboards/{board}/scores");
                let sent = Instant::now();
                match conn
                    .send(http::Method::POST, &path, token, Some(body.to_string()))
                    .await
                {
                    Ok((200, body)) => {
                        let answered = Instant::now();
                        let v: serde_json::Value =
                            serde_json::from_slice(&body).unwrap_or_default();
                        let number = |k: &str| v[k].as_u64().unwrap_or(0);
                        answers.push(Answer {
                            player,
                            score: number("best"),
                            rank: number("rank"),
                            lag: number("rankLag"),
                            exact: v["rankExact"].as_bool().unwrap_or(false),
                            sent,
                            answered,
                        });
                    }
                    _ => errors += 1,
                }
            }
            (errors, answers)
        }));
    }
    let mut errors = 0;
    let mut answers = Vec::new();
    for w in workers {
        let (e, a) = w.await.map_err(err)?;
        errors += e;
        answers.extend(a);
    }
    Ok((errors, started.elapsed().as_secs_f64(), answers))
}

/// Waits until the stream poller has delivered nothing new for a second (at most a minute).
async fn settle(local: &Stack) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut last = local.poller.delivered.load(Ordering::Relaxed);
    while Instant::now() < deadline {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let now = local.poller.delivered.load(Ordering::Relaxed);
        if now == last && local.poller_proxy.stats().total() > 0 {
            return;
        }
        last = now;
    }
}

fn shared(p: &Partition) -> bool {
    !per_player(p)
}

fn report(opts: &Options, measured: &[Measured]) -> String {
    let mut md = String::from(
        "## Hot boards: where a play's units land, and the plays a second they allow\n\n",
    );
    let _ = writeln!(
        md,
        "`leaderboard-bench hot-board` (issues 60 and 95): {} players over {} keep-alive connections POST \
         `/leaderboards/{{b}}/scores` through the local stack, {} plays on each of three `increment` \
         boards (1, 8 and 32 write shards) in turn (every play replaces the player's entry: each player played once on each board \
         before), each board holding {} more entries imported above every player's (a big board, where most plays rank past the \
         first 100, which a rank counts exactly), with the stream projector running; the \
         counting proxies record every request of the HTTP functions and of the projector until it \
         has applied them all. Write units are computed with DynamoDB's rules from each request's \
         keys and item sizes (a put 1 unit per KB, an update, delete or condition check 1, twice \
         that in a transaction; each index 1 unit per KB of every put item carrying its keys), by \
         partition key, on the table and on GSI1 and GSI2. A *shared* key is one that more than one \
         player's plays write (everything but a player's own `PLAYER#<p>` items and index entries and the check of their `ERASED#` marker).\n",
        opts.players, opts.connections, opts.plays, opts.fillers
    );
    let _ = writeln!(
        md,
        "| board | write shards | plays | plays/s (DynamoDB Local) | write units a play | busiest key | its units a play | its share of all units | busiest shared key's share of shared units | write-bound rate (1,000 ÷ busiest key's units a play) | `rankLag` answered (p50 / p90 / max) | answers off beyond their `rankLag` (off taken as exact) |"
    );
    let _ = writeln!(
        md,
        "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for m in measured {
        let Some((busiest, units, share)) = m.busiest(|_| true) else {
            continue;
        };
        let shared_share = m.busiest(shared).map_or(0.0, |(_, _, s)| s);
        let per_play = m.per_play(units);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:.0} | {:.2} | {} `{}` ({}) | {:.3} | **{:.1}%** | **{:.1}%** | {:.0} plays/s | {} / {} / {} | {} ({}) |",
            m.board,
            m.shards,
            m.plays,
            m.plays as f64 / m.secs,
            m.per_play(m.units.total()),
            busiest.on,
            busiest.key,
            kind(&busiest),
            per_play,
            share * 100.0,
            shared_share * 100.0,
            PARTITION_WRITE_UNITS / per_play,
            m.lags[0],
            m.lags[1],
            m.lags[2],
            m.off.0,
            m.off.1,
        );
    }
    let _ = writeln!(
        md,
        "\nEach shared item's write units a play, by what it holds (the keys of each kind summed; \
         the busiest one of the kind in brackets):\n"
    );
    kinds_table(&mut md, measured, |m| &m.units);
    let _ = writeln!(
        md,
        "\nThe rank index's root and nodes are written once per projector batch, not per play: a \
         board taking fewer plays a second makes smaller batches and more of them per play, so \
         their units a play follow the rate each board reached here, not its layout."
    );
    ceiling::ceilings(&mut md, measured, (opts.players, opts.fillers));
    apply::apply_ceilings(&mut md, measured);
    if let Some(hot) = measured.iter().find(|m| m.shards == 8)
        && let Some((key, _, share)) = hot.busiest(|_| true)
    {
        let shared_share = hot.busiest(shared).map_or(1.0, |(_, _, s)| s);
        let met = share <= TARGET_SHARE && shared_share <= TARGET_SHARE;
        fragment::target(
            "busiest partition key's share of write units on a board of 8 write shards <= 1/8 + 10% (13.75%)",
            &format!(
                "{:.1}% of all units ({} `{}`), {:.1}% of the shared keys' units",
                share * 100.0,
                key.on,
                key.key,
                shared_share * 100.0
            ),
            met,
        );
        let _ = writeln!(
            md,
            "\nTarget (issue 60): the busiest key's share on the board of 8 shards at most 1/8 + 10% \
             ({:.2}%): {:.1}% of all write units, {:.1}% of the shared keys' units: {}.",
            TARGET_SHARE * 100.0,
            share * 100.0,
            shared_share * 100.0,
            if met { "met" } else { "**missed**" }
        );
    }
    md
}

/// Each shared item's units a play of `tally`, by kind, one column a board.
fn kinds_table(md: &mut String, measured: &[Measured], tally: fn(&Measured) -> &Units) {
    let kinds: std::collections::BTreeSet<&'static str> = measured
        .iter()
        .flat_map(|m| tally(m).0.keys().filter(|p| shared(p)).map(kind))
        .collect();
    let _ = write!(md, "| shared item |");
    for m in measured {
        let _ = write!(md, " {} ({} shards) |", m.board, m.shards);
    }
    let _ = write!(md, "\n| --- |");
    for _ in measured {
        let _ = write!(md, " ---: |");
    }
    md.push('\n');
    for k in kinds {
        let _ = write!(md, "| {k} |");
        for m in measured {
            let of_kind = tally(m).busiest(|p| shared(p) && kind(p) == k);
            let sum: f64 = of_kind.iter().map(|(_, u)| u).sum();
            match of_kind.first() {
                None => {
                    let _ = write!(md, " - |");
                }
                Some((_, top)) => {
                    let _ = write!(
                        md,
                        " {:.3} in {} keys (busiest {:.3}) |",
                        m.per_play(sum),
                        of_kind.len(),
                        m.per_play(*top)
                    );
                }
            }
        }
        md.push('\n');
    }
}
