//! The live-rank benchmark's realistic mix (issue 90), after the worst case (every play a new
//! best of a distinct score) and on the same stack: plays as a game's players make them.
//!
//! - **Best, realistic**: on the run's `best` boards, one play in five improves its player's
//!   entry, by a step drawn from a skewed distribution (most are small: 1 + 300 u³ of a score's
//!   values, u uniform); the other four score below the player's best (by 1 + 1,000 u²) and change
//!   nothing.
//! - **Increment**: on an `increment` board of its own, every play adds 1 + 100 u³ to its
//!   player's total: an entry change each, the totals clustered.
//!
//! Each part plays for its seconds from the run's clients, then waits until the index has
//! applied every change; the HTTP function's requests and the projector's are recorded apart, so
//! each part is priced per play as the worst case is.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use leaderboard_keys::ids::BoardId;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::Store;
use leaderboard_store::model::Operator;
use rand::{Rng, SeedableRng};

use super::cost::PerOp;
use super::lag::board_lag;
use super::phases::{Run, touches_rank_index, units_of};
use super::units::Units;
use super::{bench_board, play_body, player_id, score, value};
use crate::fragment;
use crate::stack::Conn;

/// Score values stay below this (the boards' default width, as the worst case's).
const MAX_VALUE: u64 = 99_999;
/// Players of the increment board.
const INCREMENT_PLAYERS: usize = 2_000;

/// One part of the mix, measured.
#[derive(Debug, Clone, Default)]
pub struct MixPart {
    /// What it is.
    pub label: &'static str,
    /// Plays accepted.
    pub plays: usize,
    /// Of those, plays that changed their entry.
    pub changes: usize,
    /// What the plays cost the HTTP function.
    pub http: Units,
    /// What the projector's rank index apply cost for them.
    pub index: Units,
    /// What the projector's other work (profile totals) cost for them.
    pub profile: Units,
}

/// The increment board, empty: its players' first plays make their entries.
pub async fn increment_board(store: &Store) -> Result<BoardId, String> {
    let id = BoardId::parse("live_increment").map_err(|e| e.to_string())?;
    let now = Timestamp::now();
    store
        .boards()
        .create_board(bench_board(&id, Operator::Increment, now)?, now)
        .await
        .map_err(|e| e.to_string())?;
    Ok(id)
}

/// What a player sends next: the score, and whether it changes the entry.
type Next = fn(&mut rand::rngs::StdRng, u64, usize) -> Option<(u64, u64, bool)>;

/// A realistic play on a `best` board from a player whose best is `best`: (score sent, best
/// after, whether it improves).
fn realistic_best(rng: &mut rand::rngs::StdRng, best: u64, i: usize) -> Option<(u64, u64, bool)> {
    let u: f64 = rng.random();
    if rng.random_range(0..5) == 0 {
        let v = value(best) + 1 + (300.0 * u * u * u) as u64;
        let s = score(v.min(MAX_VALUE), i);
        return (s > best).then_some((s, s, true));
    }
    let below = 1 + (1_000.0 * u * u) as u64;
    let s = score(value(best).saturating_sub(below), i);
    Some((s, best, false))
}

/// A play on the increment board from a player whose total is `total`.
fn increment_play(rng: &mut rand::rngs::StdRng, total: u64, _: usize) -> Option<(u64, u64, bool)> {
    let u: f64 = rng.random();
    let add = 1 + (100.0 * u * u * u) as u64;
    Some((add, total + add, true))
}

impl Run<'_> {
    /// Both parts of the mix, `seconds` each: the realistic plays on the `best` boards (whose
    /// players' bests are `bests`), then the increment board's.
    pub async fn mix(
        &self,
        table: &str,
        bests: &[HashMap<usize, u64>],
        increment: &BoardId,
        seconds: u64,
    ) -> Result<Vec<MixPart>, String> {
        let best_boards: Vec<(BoardId, usize, HashMap<usize, u64>)> = self
            .boards
            .iter()
            .zip(bests)
            .map(|(b, mine)| (b.id.clone(), b.columns, mine.clone()))
            .collect();
        let totals: HashMap<usize, u64> = (0..INCREMENT_PLAYERS).map(|i| (i, 0)).collect();
        let realistic = self
            .part(
                "best, 1 play in 5 improves",
                table,
                best_boards,
                realistic_best,
                seconds,
            )
            .await?;
        let increment = self
            .part(
                "increment, every play adds",
                table,
                vec![(increment.clone(), 0, totals)],
                increment_play,
                seconds,
            )
            .await?;
        Ok(vec![realistic, increment])
    }

    /// One part: the run's clients play `boards` (each with its players' standing) for
    /// `seconds`, then the index applies every change; what it all cost.
    async fn part(
        &self,
        label: &'static str,
        table: &str,
        boards: Vec<(BoardId, usize, HashMap<usize, u64>)>,
        next: Next,
        seconds: u64,
    ) -> Result<MixPart, String> {
        let (store, poller) = (
            self.stack.store_proxy.stats(),
            self.stack.poller_proxy.stats(),
        );
        store.start_recording();
        poller.start_recording();
        let until = Instant::now() + Duration::from_secs(seconds);
        let clients = self.opts.clients.max(boards.len());
        let mut tasks = Vec::new();
        for c in 0..clients {
            let (b, k) = (c % boards.len(), c / boards.len());
            let on_board = (clients - b).div_ceil(boards.len());
            let (id, columns, standing) = &boards[b];
            let columns = *columns;
            let mine: HashMap<usize, u64> = standing
                .iter()
                .filter(|(i, _)| **i % on_board == k)
                .map(|(i, s)| (*i, *s))
                .collect();
            let path = format!("/leaderboards/{id}/scores");
            let (addr, key) = (self.stack.addr, self.stack.key.clone());
            tasks.push(tokio::spawn(async move {
                let players: Vec<usize> = mine.keys().copied().collect();
                let mut mine = mine;
                let (mut plays, mut changes) = (0, 0);
                let mut conn = Conn::new(addr);
                let mut rng = rand::rngs::StdRng::from_os_rng();
                while Instant::now() < until && !players.is_empty() {
                    let i = players[rng.random_range(0..players.len())];
                    let Some((sent, after, changed)) = next(&mut rng, mine[&i], i) else {
                        continue;
                    };
                    let now = chrono::Utc::now().timestamp();
                    let token = key.token_for(&player_id(i), &[], now, 3600);
                    let body = play_body(sent, columns);
                    let response = conn
                        .send(http::Method::POST, &path, &token, Some(body))
                        .await;
                    if matches!(response, Ok((200, _))) {
                        plays += 1;
                        changes += usize::from(changed);
                        mine.insert(i, after);
                    }
                }
                (plays, changes)
            }));
        }
        let mut part = MixPart {
            label,
            ..MixPart::default()
        };
        for t in tasks {
            let (plays, changes) = t.await.map_err(|e| e.to_string())?;
            part.plays += plays;
            part.changes += changes;
        }
        part.http = units_of(&store.take_recording(), self.score_size);
        // Every change applied before the projector's requests are taken.
        let waited = Instant::now();
        for (id, _, _) in &boards {
            while board_lag(&self.stack.direct, table, id).await?.1 > 0 {
                if waited.elapsed() > Duration::from_secs(300) {
                    return Err(format!("{label}: the index did not catch up within 300 s"));
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        let (index, other): (Vec<_>, Vec<_>) = poller
            .take_recording()
            .into_iter()
            .partition(|x| touches_rank_index(&x.request));
        part.index = units_of(&index, self.score_size);
        part.profile = units_of(&other, self.score_size);
        eprintln!(
            "live_rank: mix {label}: {} plays, {} changes",
            part.plays, part.changes
        );
        Ok(part)
    }
}

/// What one play of a part costs on average.
#[derive(Debug, Clone, Copy, Default)]
pub struct PerPlay {
    /// Through the HTTP function.
    pub http: PerOp,
    /// In the projector's rank index apply.
    pub index: PerOp,
    /// In the projector's other work (profile totals).
    pub profile: PerOp,
    /// Entry changes a play.
    pub changes: f64,
    /// Index items written per entry change.
    pub index_items: f64,
}

impl PerPlay {
    /// Everything a play costs.
    pub fn total(&self) -> PerOp {
        self.http.plus(self.index).plus(self.profile)
    }
}

/// `u` per one of `n`.
pub fn per(u: &Units, n: usize) -> PerOp {
    PerOp {
        read: u.read / n.max(1) as f64,
        write: u.write / n.max(1) as f64,
    }
}

impl MixPart {
    /// Its costs a play.
    pub fn per_play(&self) -> PerPlay {
        PerPlay {
            http: per(&self.http, self.plays),
            index: per(&self.index, self.plays),
            profile: per(&self.profile, self.plays),
            changes: self.changes as f64 / self.plays.max(1) as f64,
            index_items: self.index.items_written as f64 / self.changes.max(1) as f64,
        }
    }
}

/// The worst case and the mix's parts side by side, and issue 90's targets.
pub fn report(md: &mut String, worst: &PerPlay, parts: &[MixPart], seconds: u64) {
    let _ = writeln!(
        md,
        "\n**The worst case and a realistic mix** (this run; units a play, on-demand prices as above; \
         the mix's parts {seconds} s each after the worst case's drain, every change applied \
         before their projector's requests are counted):\n\n\
         | part | plays | entry changes a play | HTTP function (read / write) | index apply | profile totals | $ per million plays | index item writes per entry change |\n\
         | --- | ---: | ---: | --- | --- | --- | ---: | ---: |"
    );
    let row = |md: &mut String, label: &str, plays: String, p: &PerPlay| {
        let _ = writeln!(
            md,
            "| {label} | {plays} | {:.2} | {:.2} / {:.2} | {:.2} / {:.2} | {:.2} / {:.2} | ${:.2} | {:.2} |",
            p.changes,
            p.http.read,
            p.http.write,
            p.index.read,
            p.index.write,
            p.profile.read,
            p.profile.write,
            p.total().dollars_per_million(),
            p.index_items,
        );
    };
    row(
        md,
        "worst case: every play a new best",
        "above".into(),
        worst,
    );
    for part in parts {
        row(md, part.label, part.plays.to_string(), &part.per_play());
    }
    let realistic = parts.first().map(MixPart::per_play).unwrap_or_default();
    fragment::target(
        "Live rank (issue 90): a play at most $15 per million in the worst case",
        &format!("${:.2}", worst.total().dollars_per_million()),
        worst.total().dollars_per_million() <= 15.0,
    );
    fragment::target(
        "Live rank (issue 90): a play at most $8 per million in a realistic mix (1 in 5 improves)",
        &format!("${:.2}", realistic.total().dollars_per_million()),
        parts.first().is_some_and(|p| p.plays > 0)
            && realistic.total().dollars_per_million() <= 8.0,
    );
    fragment::target(
        "Live rank (issue 90): at most 6 index item writes per entry change",
        &format!(
            "{:.2} in the worst case, {:.2} in the realistic mix",
            worst.index_items, realistic.index_items
        ),
        worst.index_items <= 6.0,
    );
}
