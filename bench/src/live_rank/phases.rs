//! The live-rank benchmark's phases against the running stack: quiet lookups, the busy phase
//! (plays at the stack's maximum rate, lookups beside them, the index lag sampled), the backlog
//! and its drain, the raw transactions, and the table's item sizes. See [`super`].

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use leaderboard_keys::entity;
use rand::{Rng, SeedableRng};
use serde_json::Value;

use super::lag::board_lag;
use super::truth::{Answer, Play};
use super::units::{self, Units};
use super::{BoardRun, Options, play_body, player_id, score, secs, sleep_until, value};
use crate::proxy::{Exchange, Proxy};
use crate::stack::{Conn, Stack};

/// Score values stay below this, so every score fits the board's default width.
const MAX_VALUE: u64 = 99_999;

/// When a lookup was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Before any play.
    Quiet,
    /// During the busy phase.
    Busy,
}

/// One lookup through the lookup client's API.
pub struct Lookup {
    /// The board (index into the run's boards).
    pub board: usize,
    /// When.
    pub when: When,
    /// The answer.
    pub answer: Answer,
    /// Request to response.
    pub latency: Duration,
    /// What it cost.
    pub units: Units,
}

/// The index lag of one board at one moment.
#[derive(Debug, Clone, Copy)]
pub struct LagSample {
    /// Seconds since the busy phase began.
    pub at: f64,
    /// The board.
    pub board: usize,
    /// Entry changes committed (Σ lanes' `written`).
    pub written: u64,
    /// Changes committed and not applied.
    pub lag: u64,
}

/// Plays made in one phase.
#[derive(Default)]
pub struct Plays {
    /// Accepted plays per board.
    pub per_board: Vec<Vec<Play>>,
    /// Each accepted play's own rank, with its board.
    pub answers: Vec<(usize, Answer)>,
    /// Request to response of each accepted play.
    pub latencies: Vec<Duration>,
    /// Plays refused or failed.
    pub errors: usize,
    /// Seconds the phase took.
    pub secs: f64,
}

/// Everything measured.
pub struct Measured {
    /// Every lookup answered.
    pub lookups: Vec<Lookup>,
    /// Lookups that failed or answered no rank.
    pub lookup_errors: usize,
    /// The busy phase's plays.
    pub busy: Plays,
    /// The backlog phase's plays.
    pub backlog: Plays,
    /// Index lag samples over the busy and backlog phases.
    pub lag: Vec<LagSample>,
    /// Changes waiting when the stream was released, and seconds until all were applied.
    pub drain: (u64, f64),
    /// Raw TransactWriteItems per second, before and after.
    pub raw: (f64, f64),
    /// What the busy phase's plays cost the HTTP functions (all of it, summed).
    pub play_units: Units,
    /// What the stream projector cost over the busy, backlog and drain phases: the rank
    /// index's applies, and the rest (the profiles' totals).
    pub projector_units: (Units, Units),
    /// Each board's players' bests once the worst case is over (where the mix starts).
    pub bests: Vec<HashMap<usize, u64>>,
}

/// The table's item sizes.
pub struct Sizes {
    /// The largest item's size and kind.
    pub largest: (usize, String),
    /// Items by kind: how many, mean size, largest.
    pub by_kind: BTreeMap<String, (usize, f64, usize)>,
}

impl Sizes {
    /// The mean size of a Score item (what a count reads per key).
    pub fn score_mean(&self) -> f64 {
        self.by_kind.get("Score").map_or(100.0, |k| k.1)
    }
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// The run's parts.
pub struct Run<'a> {
    /// The stack.
    pub stack: &'a Stack,
    /// The lookup client's API.
    pub lookup_addr: SocketAddr,
    /// In front of the lookup client's API's store.
    pub lookup_proxy: &'a Proxy,
    /// The boards.
    pub boards: &'a [BoardRun],
    /// The settings.
    pub opts: &'a Options,
    /// The mean size of a Score item: what a count reads per key.
    pub score_size: usize,
}

/// A rank answer's fields from a response body.
fn rank_of(body: &[u8]) -> Option<(u64, u64, bool)> {
    let v: Value = serde_json::from_slice(body).ok()?;
    Some((
        v["rank"].as_u64()?,
        v["rankLag"].as_u64()?,
        v["rankExact"].as_bool()?,
    ))
}

/// The units of a lookup's exchanges (a count's keys at `counted_size` bytes each).
pub fn units_of(exchanges: &[Exchange], counted_size: usize) -> Units {
    let mut u = Units::default();
    for x in exchanges {
        u += units::of(&x.op, &x.request, &x.body, counted_size);
    }
    u
}

impl Run<'_> {
    /// Looks observers up one at a time, round robin over the boards, `count` times or until
    /// `until`: the answers, and how many lookups failed.
    async fn lookups(
        &self,
        when: When,
        count: usize,
        until: Option<Instant>,
    ) -> (Vec<Lookup>, usize) {
        let mut conn = Conn::new(self.lookup_addr);
        let token = self.stack.token("lr_observer", &[]);
        let stats = self.lookup_proxy.stats();
        let (mut out, mut errors) = (Vec::new(), 0);
        for k in 0..count {
            if until.is_some_and(|u| Instant::now() >= u) {
                break;
            }
            let b = k % self.boards.len();
            let board = &self.boards[b];
            let player = board.observers[(k / self.boards.len()) % board.observers.len()];
            let path = format!("/leaderboards/{}/players/{}", board.id, player_id(player));
            stats.start_recording();
            let sent = Instant::now();
            let response = conn.send(http::Method::GET, &path, &token, None).await;
            let answered = Instant::now();
            let exchanges = stats.take_recording();
            let Ok((200, body)) = response else {
                eprintln!("live_rank: lookup {path} failed: {response:?}");
                errors += 1;
                continue;
            };
            let Some((rank, lag, exact)) = rank_of(&body) else {
                eprintln!("live_rank: lookup {path}: no rank in {body:?}");
                errors += 1;
                continue;
            };
            out.push(Lookup {
                board: b,
                when,
                answer: Answer {
                    player,
                    score: board.initial[player],
                    rank,
                    lag,
                    exact,
                    sent,
                    answered,
                },
                latency: answered - sent,
                units: units_of(&exchanges, self.score_size),
            });
        }
        (out, errors)
    }

    /// Plays until `until` from the run's game clients, each on its own board and players.
    async fn plays(&self, until: Instant, bests: &mut [HashMap<usize, u64>]) -> Plays {
        let nb = self.boards.len();
        let clients = self.opts.clients.max(nb);
        let started = Instant::now();
        let mut tasks = Vec::new();
        for c in 0..clients {
            let (b, k) = (c % nb, c / nb);
            let board = &self.boards[b];
            // This client's players: every `on_board`-th non-observer, with their bests.
            let on_board = (clients - b).div_ceil(nb);
            let mine: HashMap<usize, u64> = bests[b]
                .iter()
                .filter(|(i, _)| **i % on_board == k)
                .map(|(i, s)| (*i, *s))
                .collect();
            let path = format!("/leaderboards/{}/scores", board.id);
            let addr = self.stack.addr;
            let key = self.stack.key.clone();
            let to = (path, b, board.columns);
            tasks.push(tokio::spawn(client(addr, key, to, mine, until)));
        }
        let mut out = Plays {
            per_board: vec![Vec::new(); nb],
            ..Plays::default()
        };
        for t in tasks {
            let Ok((b, plays, answers, latencies, errors, mine)) = t.await else {
                out.errors += 1;
                continue;
            };
            bests[b].extend(mine);
            out.per_board[b].extend(plays);
            out.answers.extend(answers.into_iter().map(|a| (b, a)));
            out.latencies.extend(latencies);
            out.errors += errors;
        }
        out.secs = started.elapsed().as_secs_f64();
        out
    }

    /// Each board's index lag now.
    async fn lag(
        &self,
        client: &Client,
        table: &str,
        t0: Instant,
    ) -> Result<Vec<LagSample>, String> {
        let mut out = Vec::new();
        for (b, board) in self.boards.iter().enumerate() {
            let (written, lag) = board_lag(client, table, &board.id).await?;
            out.push(LagSample {
                at: secs(t0, Instant::now()),
                board: b,
                written,
                lag,
            });
        }
        Ok(out)
    }

    /// Samples the lag every `every` until `until`.
    async fn sample_lag(
        &self,
        table: &str,
        t0: Instant,
        until: Instant,
        every: Duration,
    ) -> Vec<LagSample> {
        let mut out = Vec::new();
        while Instant::now() < until {
            let next = Instant::now() + every;
            match self.lag(&self.stack.direct, table, t0).await {
                Ok(s) => out.extend(s),
                Err(e) => eprintln!("live_rank: lag sample failed: {e}"),
            }
            sleep_until(next, every).await;
        }
        out
    }

    /// Every phase, in order.
    pub async fn measure(&self, table: &str) -> Result<Measured, String> {
        let (quiet, quiet_errors) = self
            .lookups(
                When::Quiet,
                self.opts.quiet_lookups * self.boards.len(),
                None,
            )
            .await;
        let raw_client = leaderboard_devkit::local::client(&self.stack.store_proxy.endpoint());
        // A first raw phase warms DynamoDB Local's JIT for transactions; it is not reported.
        super::raw::rate(
            &raw_client,
            table,
            self.opts.clients,
            self.opts.raw_seconds,
            "W",
        )
        .await?;
        let raw_before = super::raw::rate(
            &raw_client,
            table,
            self.opts.clients,
            self.opts.raw_seconds,
            "A",
        )
        .await?;
        eprintln!("live_rank: raw TransactWriteItems {raw_before:.0}/s");

        let mut bests: Vec<HashMap<usize, u64>> = self
            .boards
            .iter()
            .map(|b| {
                (0..b.initial.len())
                    .filter(|i| !b.observers.contains(i))
                    .map(|i| (i, b.initial[i]))
                    .collect()
            })
            .collect();
        let (store, poller) = (
            self.stack.store_proxy.stats(),
            self.stack.poller_proxy.stats(),
        );
        store.start_recording();
        poller.start_recording();
        let t0 = Instant::now();
        let busy_end = t0 + Duration::from_secs(self.opts.seconds);
        let (busy, (busy_lookups, busy_errors), mut lag) = tokio::join!(
            self.plays(busy_end, &mut bests),
            self.lookups(When::Busy, usize::MAX, Some(busy_end)),
            self.sample_lag(table, t0, busy_end, Duration::from_millis(250)),
        );
        let play_units = units_of(&store.take_recording(), self.score_size);
        eprintln!(
            "live_rank: busy {:.0} plays/s, {} lookups",
            busy.answers.len() as f64 / busy.secs,
            busy_lookups.len()
        );

        // The backlog: plays go on with the stream's reads held.
        poller.hold("Streams.GetRecords");
        let backlog_end = Instant::now() + Duration::from_secs(self.opts.backlog_seconds);
        let (backlog, held) = tokio::join!(
            self.plays(backlog_end, &mut bests),
            self.sample_lag(table, t0, backlog_end, Duration::from_millis(250)),
        );
        lag.extend(held);
        let waiting: u64 = self
            .lag(&self.stack.direct, table, t0)
            .await?
            .iter()
            .map(|s| s.lag)
            .sum();
        let released = Instant::now();
        poller.release();
        loop {
            let now = self.lag(&self.stack.direct, table, t0).await?;
            if now.iter().all(|s| s.lag == 0) {
                break;
            }
            if released.elapsed() > Duration::from_secs(300) {
                return Err(format!("the index did not catch up within 300 s: {now:?}"));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let drain = (waiting, released.elapsed().as_secs_f64());
        let (index, other): (Vec<Exchange>, Vec<Exchange>) = poller
            .take_recording()
            .into_iter()
            .partition(|x| touches_rank_index(&x.request));
        let projector_units = (
            units_of(&index, self.score_size),
            units_of(&other, self.score_size),
        );
        let raw_after = super::raw::rate(
            &raw_client,
            table,
            self.opts.clients,
            self.opts.raw_seconds,
            "B",
        )
        .await?;
        eprintln!(
            "live_rank: drained {waiting} in {:.2} s; raw {raw_after:.0}/s",
            drain.1
        );

        let mut lookups = quiet;
        lookups.extend(busy_lookups);
        Ok(Measured {
            lookups,
            lookup_errors: quiet_errors + busy_errors,
            busy,
            backlog,
            lag,
            drain,
            raw: (raw_before, raw_after),
            bests,
            play_units,
            projector_units,
        })
    }
}

/// The sizes of the items of `table`, by kind, from a Scan through `proxy`.
pub async fn item_sizes(proxy: &Proxy, table: &str) -> Result<Sizes, String> {
    let client = leaderboard_devkit::local::client(&proxy.endpoint());
    let stats = proxy.stats();
    let mut sizes = Sizes {
        largest: (0, String::new()),
        by_kind: BTreeMap::new(),
    };
    let mut start = None;
    loop {
        stats.start_recording();
        let page = client
            .scan()
            .table_name(table)
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(err)?;
        for x in stats.take_recording() {
            let body: Value = serde_json::from_slice(&x.body).unwrap_or(Value::Null);
            for item in body["Items"].as_array().into_iter().flatten() {
                let size = units::item_size(item);
                let kind = kind(item);
                let k = sizes.by_kind.entry(kind.clone()).or_insert((0, 0.0, 0));
                k.1 = (k.1 * k.0 as f64 + size as f64) / (k.0 + 1) as f64;
                k.0 += 1;
                k.2 = k.2.max(size);
                if size > sizes.largest.0 && kind != JOURNAL_KIND {
                    sizes.largest = (size, kind);
                }
            }
        }
        start = page.last_evaluated_key;
        if start.is_none() {
            break;
        }
    }
    Ok(sizes)
}

/// Whether a request reads or writes the rank index (its root, nodes or repair requests).
pub(super) fn touches_rank_index(request: &[u8]) -> bool {
    let has = |needle: &[u8]| request.windows(needle.len()).any(|w| w == needle);
    has(b"RANKV2#") || has(b"RANKREPAIR")
}

/// The rank index's journals: only ever put whole, priced by size, so kept out of `largest`.
const JOURNAL_KIND: &str = "rank v2 journal";

/// An item's kind, from its keys.
fn kind(item: &Value) -> String {
    let (pk, sk) = (
        item["pk"]["S"].as_str().unwrap_or(""),
        item["sk"]["S"].as_str().unwrap_or(""),
    );
    let kind = if pk.starts_with("RAW") {
        "raw (benchmark's own)"
    } else if pk.starts_with(entity::LANE_PREFIX) {
        "rank lane"
    } else if pk.starts_with("RANKV2#") && sk == "#ROOT" {
        "rank v2 root"
    } else if pk.starts_with("RANKV2#") && sk.starts_with("#JOURNAL#") {
        JOURNAL_KIND
    } else if pk.starts_with("RANKV2#") {
        "rank v2 node"
    } else if sk.starts_with(entity::SCORE_PREFIX) && pk.starts_with("LEADERBOARD#") {
        "Score"
    } else if sk.starts_with(entity::SESSION_PREFIX) {
        "Session"
    } else if sk.starts_with(entity::ENTRY_PREFIX) {
        "entry pointer"
    } else if sk.starts_with(entity::SCORE_PREFIX) {
        "player's score link"
    } else {
        "other (boards, profiles, ...)"
    };
    kind.to_owned()
}

/// One game client: plays its players until `until`, one play in flight, each a new best.
async fn client(
    addr: SocketAddr,
    key: leaderboard_local::jwt::JwtKey,
    (path, board, columns): (String, usize, usize),
    mut mine: HashMap<usize, u64>,
    until: Instant,
) -> (
    usize,
    Vec<Play>,
    Vec<Answer>,
    Vec<Duration>,
    usize,
    HashMap<usize, u64>,
) {
    let players: Vec<usize> = mine.keys().copied().collect();
    let (mut plays, mut answers, mut latencies, mut errors) =
        (Vec::new(), Vec::new(), Vec::new(), 0);
    let mut conn = Conn::new(addr);
    let mut rng = rand::rngs::StdRng::from_os_rng();
    while Instant::now() < until && !players.is_empty() {
        let i = players[rng.random_range(0..players.len())];
        let v = value(mine[&i]) + rng.random_range(1..=300);
        if v > MAX_VALUE {
            continue;
        }
        let s = score(v, i);
        let token = key.token_for(&player_id(i), &[], chrono::Utc::now().timestamp(), 3600);
        let body = play_body(s, columns);
        let sent = Instant::now();
        let response = conn
            .send(http::Method::POST, &path, &token, Some(body))
            .await;
        let answered = Instant::now();
        mine.insert(i, s);
        let ok = match &response {
            Ok((200, body)) => rank_of(body).map(|(rank, lag, exact)| Answer {
                player: i,
                score: s,
                rank,
                lag,
                exact,
                sent,
                answered,
            }),
            _ => None,
        };
        match ok {
            Some(answer) => {
                plays.push(Play {
                    player: i,
                    score: s,
                    sent,
                    answered,
                });
                answers.push(answer);
                latencies.push(answered - sent);
            }
            None => {
                errors += 1;
                eprintln!("live_rank: play {path} failed: {response:?}");
                // It may have committed at any time after it was sent: the truth counts it
                // from then on as possible, never as certain.
                plays.push(Play {
                    player: i,
                    score: s,
                    sent,
                    answered: Instant::now() + Duration::from_secs(86_400),
                });
            }
        }
    }
    (board, plays, answers, latencies, errors, mine)
}
