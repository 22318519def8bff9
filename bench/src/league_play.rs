//! A league play beside a plain play (issue 89): the requests and the read and write units of a
//! play on a league board (a newcomer taking a seat in a cohort with room, a newcomer opening
//! the next cohort, a placed player's later play) and of a play on a plain board of the same
//! size as a cohort (a first play, a later one), in one run on one DynamoDB Local. The store
//! sends through a recording proxy; each request is priced by DynamoDB's rules from the sizes
//! of the items it read and wrote ([`crate::live_rank::units`]).

use std::fmt::Write as _;

use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::ids::{BoardId, GameId, PlayerId, SessionId, TierName};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::league::League;
use leaderboard_store::model::{NewBoard, Operator, RankLayout, Recurrence};
use leaderboard_store::{Config, Play, Store};

use crate::live_rank::units::{self, Units};
use crate::proxy::{Proxy, ProxyStats};

/// The benchmark's settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Newcomers on the league board (they fill cohorts of [`COHORT`]).
    pub newcomers: usize,
}

/// The league's cohort size, and the plain board's players.
const COHORT: usize = 50;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

fn new_board(id: &str, now: Timestamp, league: Option<League>) -> Result<NewBoard, String> {
    Ok(NewBoard {
        order: Order::Desc,
        operator: Operator::Best,
        max_score: leaderboard_keys::rank::DEFAULT_MAX_SCORE,
        starts_at: Some(now),
        ends_at: Some(now.plus_millis(7 * 86_400_000)),
        recurrence: Recurrence::Weekly,
        rank_layout: RankLayout::V2,
        league,
        ..NewBoard::named(BoardId::parse(id).map_err(err)?, id.to_owned())
    })
}

/// A scenario's plays: their requests by operation and their cost, summed.
#[derive(Default)]
struct Measured {
    plays: u64,
    units: Units,
    by_op: std::collections::BTreeMap<String, u64>,
}

impl Measured {
    fn row(&self, label: &str) -> String {
        let n = self.plays.max(1) as f64;
        let ops: Vec<String> = self
            .by_op
            .iter()
            .map(|(op, c)| format!("{op} {:.2}", *c as f64 / n))
            .collect();
        format!(
            "| {label} | {} | {} | {:.2} | {:.2} | {:.2} |",
            self.plays,
            ops.join(", "),
            self.units.requests as f64 / n,
            self.units.read / n,
            self.units.write / n
        )
    }
}

/// Plays `player`'s play of `score` on `board` at `at`, recorded, into `into`.
async fn measure(
    store: &Store,
    stats: &ProxyStats,
    (player, score, board, at): (&str, u64, &str, Timestamp),
    into: &mut Measured,
) -> Result<(), String> {
    let play = Play {
        subscores: Default::default(),
        player_id: PlayerId::parse(player).map_err(err)?,
        session_id: SessionId::from_parts(at.as_millis(), u128::from(score)).map_err(err)?,
        idempotency_key: None,
        game_id: Some(GameId::parse("bench").map_err(err)?),
        score,
        duration_sec: Some(60),
        board_ids: vec![BoardId::parse(board).map_err(err)?],
        metadata: None,
    };
    stats.start_recording();
    store.plays().record_play(&play, at).await.map_err(err)?;
    for x in stats.take_recording() {
        into.units += units::of(&x.op, &x.request, &x.body, 0);
        *into.by_op.entry(x.op.clone()).or_default() += 1;
    }
    into.plays += 1;
    Ok(())
}

/// Runs the benchmark and returns the report fragment.
pub async fn run(opts: &Options) -> Result<String, String> {
    let table = TestTable::without_stream("league_play").await;
    let proxy = Proxy::in_front_of(&table.endpoint).await.map_err(err)?;
    let client = leaderboard_devkit::local::client(&proxy.endpoint());
    let config = Config {
        table_name: table.name.clone(),
        cursor_secret: b"bench-cursor-secret".to_vec(),
    };
    let store = Store::new(client, &config);
    let stats = proxy.stats();
    let now = Timestamp::now();
    let tiers = ["bronze", "silver", "gold"]
        .iter()
        .map(|t| TierName::parse(t).map_err(err))
        .collect::<Result<Vec<_>, _>>()?;
    let league = League {
        tiers,
        cohort_size: COHORT as u32,
        promote: 5,
        relegate: 5,
    };
    let boards = store.boards();
    let plain = new_board("plain_2026-w01", now, None)?;
    boards.create_board(plain, now).await.map_err(err)?;
    let cup = new_board("cup_2026-w01", now, Some(league))?;
    boards.create_board(cup, now).await.map_err(err)?;
    let (mut plain_first, mut plain_later) = (Measured::default(), Measured::default());
    let (mut seated, mut opened, mut placed_later) = (
        Measured::default(),
        Measured::default(),
        Measured::default(),
    );
    let at = |i: usize, round: u64| now.plus_millis(1_000 + round * 1_000_000 + i as u64);
    for i in 0..COHORT {
        let p = format!("plain{i:05}");
        let play = (p.as_str(), 100 + i as u64, "plain_2026-w01", at(i, 0));
        measure(&store, stats, play, &mut plain_first).await?;
    }
    for i in 0..COHORT {
        let p = format!("plain{i:05}");
        let play = (p.as_str(), 1_000 + i as u64, "plain_2026-w01", at(i, 1));
        measure(&store, stats, play, &mut plain_later).await?;
    }
    for i in 0..opts.newcomers {
        let p = format!("cup{i:05}");
        // Every COHORT-th newcomer finds the cohort full and opens the next.
        let into = if i % COHORT == 0 {
            &mut opened
        } else {
            &mut seated
        };
        let play = (p.as_str(), 100 + i as u64, "cup_2026-w01", at(i, 0));
        measure(&store, stats, play, into).await?;
    }
    for i in 0..opts.newcomers {
        let p = format!("cup{i:05}");
        let play = (p.as_str(), 1_000 + i as u64, "cup_2026-w01", at(i, 1));
        measure(&store, stats, play, &mut placed_later).await?;
    }
    let mut md = String::new();
    writeln!(md, "## A league play beside a plain play (issue 89)\n").map_err(err)?;
    writeln!(
        md,
        "`leaderboard-bench league-play`: one run on one DynamoDB Local, plays sent one at a \
         time by `Plays::record_play` (the write and the rank read after it) through a recording \
         proxy. A plain weekly board of {COHORT} players; a league of cohorts of {COHORT} with \
         {} newcomers ({} cohorts). Units by DynamoDB's rules from the sizes of the items each \
         request read and wrote (a transaction's items twice).\n",
        opts.newcomers,
        opts.newcomers.div_ceil(COHORT)
    )
    .map_err(err)?;
    writeln!(
        md,
        "| play | plays | requests a play (by operation) | requests | read units | write units |"
    )
    .map_err(err)?;
    writeln!(md, "| --- | ---: | --- | ---: | ---: | ---: |").map_err(err)?;
    for (label, m) in [
        ("plain board, a first play", &plain_first),
        ("plain board, a later play (improving)", &plain_later),
        ("league, a newcomer seated in a cohort with room", &seated),
        ("league, a newcomer opening the next cohort", &opened),
        (
            "league, a placed player's later play (improving)",
            &placed_later,
        ),
    ] {
        writeln!(md, "{}", m.row(label)).map_err(err)?;
    }
    writeln!(
        md,
        "\nA newcomer's play reads its placement (absent), its last placement in the series \
         (a Query), the tier's cursor and, seated in an open cohort, the cohort's board, \
         entry pointer and rank index root; its transaction writes the placement and the seat \
         (and, opening a cohort, the cursor, the cohort's board and listing item and a check of \
         the league board). A placed player's play reads the placement and the cohort's three \
         items, and writes what a plain play writes."
    )
    .map_err(err)?;
    Ok(md)
}
