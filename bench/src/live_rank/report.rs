//! The live-rank benchmark's report: its section of BENCHMARKS.md and its target lines, from
//! what [`super::phases`] measured. The true-ranking checks run here, after the load.

use std::fmt::Write as _;
use std::time::Duration;

use super::cost;
use super::mix::{self, PerPlay, per};
use super::phases::{LagSample, Lookup, Measured, Sizes, When};
use super::truth::{Answer, Truth};
use super::units::Units;
use super::{BoardRun, Options};
use crate::{fragment, ms, quantile};

/// Lookup latency of the largest board against the smallest's, at most (issue 32).
const LATENCY_RATIO: f64 = 1.5;
/// A lookup's bounds (issue 32): requests, items read by key, keys counted.
const LOOKUP_BOUNDS: (u64, u64, u64) = (3, 20, 1_000);
/// The index lag is bounded when it grows by less than this share of the submission rate.
const LAG_GROWTH: f64 = 0.05;
/// Stack submissions against raw transactions of the same shape, at least (issue 32).
const RAW_RATIO: f64 = 0.8;

fn sorted(mut v: Vec<Duration>) -> Vec<Duration> {
    v.sort();
    v
}

fn p(v: &[Duration], q: f64) -> String {
    quantile(v, q).map(ms).unwrap_or_else(|| "-".into())
}

/// The `q`-quantile of integers by nearest rank.
fn pn(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Least-squares slope of `(x, y)`, per unit of x.
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let (mx, my) = (
        points.iter().map(|p| p.0).sum::<f64>() / n,
        points.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if sxx == 0.0 { 0.0 } else { sxy / sxx }
}

/// Checks every answer against its board's true ranking: (checks, violations, mean slack).
fn check_all(boards: &[BoardRun], m: &Measured) -> (usize, usize, f64, Vec<String>) {
    let truths: Vec<Truth> = boards
        .iter()
        .enumerate()
        .map(|(b, board)| {
            let mut t = Truth::new(board.initial.clone());
            t.record(m.busy.per_board[b].iter().cloned());
            t.record(m.backlog.per_board[b].iter().cloned());
            t
        })
        .collect();
    let answers: Vec<(usize, Answer)> = m
        .lookups
        .iter()
        .map(|l| (l.board, l.answer))
        .chain(m.busy.answers.iter().copied())
        .chain(m.backlog.answers.iter().copied())
        .collect();
    let (mut violations, mut slack, mut examples) = (0, 0u64, Vec::new());
    for (b, a) in &answers {
        let v = truths[*b].check(a);
        slack += v.hi - v.lo;
        if v.violation {
            violations += 1;
            if examples.len() < 5 {
                examples.push(format!(
                    "board {} player {}: rank {} lag {} exact {}, true rank in {}..={}",
                    boards[*b].id, a.player, a.rank, a.lag, a.exact, v.lo, v.hi
                ));
            }
        }
    }
    let n = answers.len().max(1);
    (answers.len(), violations, slack as f64 / n as f64, examples)
}

/// A board's lag samples in the second half of the busy phase: after the index's lag has
/// risen from zero to where the load keeps it.
fn second_half(lag: &[LagSample], board: usize, seconds: f64) -> Vec<&LagSample> {
    lag.iter()
        .filter(|s| s.board == board && s.at >= seconds / 2.0 && s.at < seconds)
        .collect()
}

/// How fast a board's lag grew over the second half of the busy phase (changes/s), and how
/// fast its index applied changes meanwhile.
fn trend(lag: &[LagSample], board: usize, seconds: f64) -> (f64, f64) {
    let half = second_half(lag, board, seconds);
    let points: Vec<(f64, f64)> = half.iter().map(|s| (s.at, s.lag as f64)).collect();
    let applied = match (half.first(), half.last()) {
        (Some(a), Some(z)) if z.at > a.at => {
            ((z.written - z.lag) as f64 - (a.written - a.lag) as f64) / (z.at - a.at)
        }
        _ => 0.0,
    };
    (slope(&points), applied)
}

/// The lag table: per board, the largest lag in each of `buckets` slices of the busy phase,
/// and its trend.
fn lag_table(md: &mut String, boards: &[BoardRun], lag: &[LagSample], seconds: f64) {
    let buckets = 6;
    let _ = write!(md, "| board |");
    for k in 0..buckets {
        let _ = write!(
            md,
            " {:.0}-{:.0} s |",
            seconds * k as f64 / buckets as f64,
            seconds * (k + 1) as f64 / buckets as f64
        );
    }
    let _ = writeln!(md, " second half: lag growth /s | applied /s |");
    let _ = writeln!(md, "| --- |{}", " ---: |".repeat(buckets + 2));
    for (b, board) in boards.iter().enumerate() {
        let _ = write!(md, "| {} |", board.label());
        for k in 0..buckets {
            let (lo, hi) = (
                seconds * k as f64 / buckets as f64,
                seconds * (k + 1) as f64 / buckets as f64,
            );
            let max = lag
                .iter()
                .filter(|s| s.board == b && s.at >= lo && s.at < hi)
                .map(|s| s.lag)
                .max();
            let _ = write!(md, " {} |", max.map_or("-".into(), |m| m.to_string()));
        }
        let (growth, applied) = trend(lag, b, seconds);
        let _ = writeln!(md, " {growth:.2} | {applied:.1} |");
    }
}

/// One lookup row: latency and cost of `lookups`.
fn lookup_row(md: &mut String, label: &str, lookups: &[&Lookup]) -> (Vec<Duration>, Units) {
    let lat = sorted(lookups.iter().map(|l| l.latency).collect());
    let max = |f: fn(&Units) -> u64| lookups.iter().map(|l| f(&l.units)).max().unwrap_or(0);
    let mut sum = Units::default();
    for l in lookups {
        sum += l.units;
    }
    let n = lookups.len().max(1) as f64;
    let _ = writeln!(
        md,
        "| {label} | {} | {} | {} | {} | {:.2} / {} | {:.1} / {} | {:.1} / {} | {:.0} / {} | {:.2} |",
        lookups.len(),
        lookups.iter().filter(|l| l.units.queries > 0).count(),
        p(&lat, 0.5),
        p(&lat, 0.99),
        sum.requests as f64 / n,
        max(|u| u.requests),
        sum.items_by_key as f64 / n,
        max(|u| u.items_by_key),
        sum.items_queried as f64 / n,
        max(|u| u.items_queried),
        sum.keys_counted as f64 / n,
        max(|u| u.keys_counted),
        sum.read / n,
    );
    (lat, sum)
}

/// The `rankLag` distribution of `answers`.
fn lag_row(md: &mut String, label: &str, answers: &[Answer]) {
    let mut lags: Vec<u64> = answers.iter().map(|a| a.lag).collect();
    lags.sort_unstable();
    let exact = answers.iter().filter(|a| a.exact).count();
    let n = answers.len().max(1);
    let _ = writeln!(
        md,
        "| {label} | {} | {:.1}% | {} | {} | {} | {} |",
        answers.len(),
        100.0 * exact as f64 / n as f64,
        pn(&lags, 0.5),
        pn(&lags, 0.9),
        pn(&lags, 0.99),
        lags.last().copied().unwrap_or(0),
    );
}

/// The section and, if the run cannot be reported as measured, why.
pub fn write(
    opts: &Options,
    boards: &[BoardRun],
    m: &Measured,
    sizes: &Sizes,
    mix: &[mix::MixPart],
) -> (String, Option<String>) {
    let mut md = String::from("## Live rank under the stack's maximum load (issue 32)\n\n");
    let plays = m.busy.answers.len();
    let rate = plays as f64 / m.busy.secs;
    let _ = writeln!(
        md,
        "`leaderboard-bench live-rank`{}: one run on one DynamoDB Local. Boards of {} entries (`best`, \
         the compact rank index (layout 3), distinct scores) imported in bulk with their index built, then the table's stream \
         enabled and the local stack started in process ({} concurrent game clients over keep-alive HTTP, \
         shared evenly among the boards, each playing its own players, every play a new best; the stream poller and \
         projector running). Quiet: {} lookups per board before any play. Busy: {} s of plays at the \
         stack's maximum rate while one more client looks up 100 observers per board (players spread over \
         the ranking who never play), one at a time, through an API whose DynamoDB requests are recorded \
         apart. Then {} s more of plays with the stream's reads held, and the drain of that backlog. Every \
         rank answered (lookups and the plays' own) is checked against the true ranking of its request's \
         window. Raw: TransactWriteItems of a play's shape (6 items, 5 conditions) from {} clients for {} s, \
         before the busy phase and after the drain, on the same table.\n",
        if opts.quick { " (quick mode)" } else { "" },
        boards
            .iter()
            .map(|b| b.label().replace(" entries", ""))
            .collect::<Vec<_>>()
            .join(", "),
        opts.clients,
        opts.quiet_lookups,
        opts.seconds,
        opts.backlog_seconds,
        opts.clients,
        opts.raw_seconds,
    );
    let _ = writeln!(
        md,
        "| board | import | index build |\n| --- | ---: | ---: |"
    );
    for b in boards {
        let _ = writeln!(
            md,
            "| {} | {:.1} s | {:.1} s |",
            b.label(),
            b.load_secs.0,
            b.load_secs.1
        );
    }

    // Submissions against the raw transactions.
    let raw = (m.raw.0 + m.raw.1) / 2.0;
    let latencies = sorted(m.busy.latencies.clone());
    let _ = writeln!(
        md,
        "\n**Submissions**: {plays} accepted in {:.1} s = **{rate:.0}/s** ({} errors), p50 {} ms, p99 {} ms. \
         Raw transactions of the same shape: {:.0}/s before, {:.0}/s after. Stack ÷ raw: **{:.2}** \
         (target ≥ {RAW_RATIO}).\n",
        m.busy.secs,
        m.busy.errors,
        p(&latencies, 0.5),
        p(&latencies, 0.99),
        m.raw.0,
        m.raw.1,
        rate / raw,
    );

    // The index lag over time, and the drain.
    let _ = writeln!(
        md,
        "**Index lag** (changes committed, not applied; the largest sampled every 250 ms in each slice of the busy phase):\n"
    );
    lag_table(&mut md, boards, &m.lag, opts.seconds as f64);
    let seconds = opts.seconds as f64;
    let (growth, applied) = (0..boards.len())
        .map(|b| trend(&m.lag, b, seconds))
        .fold((0.0, 0.0), |(g, a), (gb, ab)| (g + gb, a + ab));
    let _ = writeln!(
        md,
        "\nOver the second half of the busy phase the boards' lags together grew {growth:.2} changes/s \
         while the index applied {applied:.0} changes/s and the stack accepted {rate:.0} plays/s (one \
         change each): the lag is bounded when it stops growing (target: growth under {:.0}% of \
         the submission rate).",
        LAG_GROWTH * 100.0
    );
    let drain_rate = m.drain.0 as f64 / m.drain.1.max(1e-9);
    let _ = writeln!(
        md,
        "\n**Drain**: {} changes waiting after {} s of plays with the stream held ({} plays); applied in {:.2} s \
         after its release: **{drain_rate:.0} changes/s**, {:.2}x the submission rate (target ≥ 2x).\n",
        m.drain.0,
        opts.backlog_seconds,
        m.backlog.answers.len(),
        m.drain.1,
        drain_rate / rate,
    );

    // Lookups.
    let _ = writeln!(
        md,
        "**Lookups** (`GET /leaderboards/{{b}}/players/{{p}}`, board read included; requests, items read by key, \
         items a Query returned (the lanes) and keys counted are mean / max; read units computed from the \
         measured item sizes):\n\n\
         | board, phase | lookups | with a count | p50 ms | p99 ms | requests | items by key | items by Query | keys counted | read units |\n\
         | --- | ---: | ---: | ---: | ---: | --- | --- | --- | --- | ---: |"
    );
    let mut busy_p50 = Vec::new();
    let mut lookup_units = Units::default();
    let mut max_cost = (0, 0, 0);
    for (b, board) in boards.iter().enumerate() {
        for (when, label) in [(When::Quiet, "quiet"), (When::Busy, "busy")] {
            let ls: Vec<&Lookup> = m
                .lookups
                .iter()
                .filter(|l| l.board == b && l.when == when)
                .collect();
            let (lat, sum) = lookup_row(&mut md, &format!("{}, {label}", board.label()), &ls);
            for l in &ls {
                max_cost.0 = max_cost.0.max(l.units.requests);
                max_cost.1 = max_cost.1.max(l.units.items_by_key);
                max_cost.2 = max_cost.2.max(l.units.keys_counted);
            }
            if when == When::Busy {
                // The latency ratio compares the boards by size: those without columns.
                if board.columns == 0 {
                    busy_p50.push(quantile(&lat, 0.5).unwrap_or_default());
                }
                lookup_units += sum;
            }
        }
    }
    let busy_lookups = m.lookups.iter().filter(|l| l.when == When::Busy).count();
    let latency_ratio = match (busy_p50.first(), busy_p50.last()) {
        (Some(small), Some(large)) if !small.is_zero() => large.as_secs_f64() / small.as_secs_f64(),
        _ => 0.0,
    };

    super::columns::section(&mut md, boards, &m.lookups);

    // Freshness and truth.
    let _ = writeln!(
        md,
        "\n**`rankLag`** answered:\n\n| answers | count | exact | p50 | p90 | p99 | max |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for (b, board) in boards.iter().enumerate() {
        let busy: Vec<Answer> = m
            .lookups
            .iter()
            .filter(|l| l.board == b && l.when == When::Busy)
            .map(|l| l.answer)
            .collect();
        lag_row(&mut md, &format!("{}, busy lookups", board.label()), &busy);
        let own: Vec<Answer> = m
            .busy
            .answers
            .iter()
            .filter(|(pb, _)| *pb == b)
            .map(|(_, a)| *a)
            .collect();
        lag_row(
            &mut md,
            &format!("{}, plays' own ranks", board.label()),
            &own,
        );
    }
    let (checks, violations, slack, examples) = check_all(boards, m);
    let _ = writeln!(
        md,
        "\n**Against the true ranking**: {checks} answers checked (every lookup and every play's own rank), \
         **{violations} violations** (an answer whose `rank ± rankLag` misses every true rank of its request's \
         window; exact answers must hit it). The window's true ranks span {slack:.2} ranks on average (plays \
         in flight at its edges): the check's only slack.\n"
    );
    for e in &examples {
        let _ = writeln!(md, "- violation: {e}");
    }

    // Sizes and cost.
    let _ = writeln!(
        md,
        "**Item sizes** after the run (bytes, as DynamoDB bills them):\n\n| kind | items | mean | largest |\n| --- | ---: | ---: | ---: |"
    );
    for (kind, (n, mean, max)) in &sizes.by_kind {
        let _ = writeln!(md, "| {kind} | {n} | {mean:.0} | {max} |");
    }
    let all_plays = plays + m.backlog.answers.len();
    let play = per(&m.play_units, plays);
    let index = per(&m.projector_units.0, all_plays);
    let profile = per(&m.projector_units.1, all_plays);
    let lookup = per(&lookup_units, busy_lookups);
    let ours_play = play.plus(index).plus(profile);
    let score = sizes.score_mean();
    let _ = writeln!(
        md,
        "\n**Cost model** (on-demand, ${} per million read units and ${} per million write units; units per \
         operation). This design, measured in this run: a play {:.2} read + {:.2} write units through the HTTP \
         function, {:.2} + {:.2} for the projector's rank index apply and {:.2} + {:.2} for its profile totals; a \
         lookup {:.2} read units. The plain design (one read + one transaction per play, every rank a count of \
         the entries above, at rank N/2 on average, of {score:.0}-byte Score items; see `bench/src/live_rank/cost.rs`):\n",
        cost::READ_PRICE,
        cost::WRITE_PRICE,
        play.read,
        play.write,
        index.read,
        index.write,
        profile.read,
        profile.write,
        lookup.read,
    );
    let _ = writeln!(
        md,
        "| entries | play: this design (read / write units, $ per million) | play: plain | lookup: this design | lookup: plain |\n\
         | ---: | --- | --- | --- | --- |"
    );
    for n in [10_000u64, 100_000, 1_000_000] {
        let (pp, pl) = (
            cost::plain_play(n, score, profile),
            cost::plain_lookup(n, score),
        );
        let _ = writeln!(
            md,
            "| {n} | {:.1} / {:.1}, ${:.2} | {:.1} / {:.1}, ${:.2} | {:.1}, ${:.2} | {:.1}, ${:.2} |",
            ours_play.read,
            ours_play.write,
            ours_play.dollars_per_million(),
            pp.read,
            pp.write,
            pp.dollars_per_million(),
            lookup.read,
            lookup.dollars_per_million(),
            pl.read,
            pl.dollars_per_million(),
        );
    }
    let _ = writeln!(
        md,
        "\nThis design's units do not depend on the board's size (the lookup rows above are per board); the plain \
         design's count grows with it. Every item here but the index's journals (only ever put whole, \
         priced by their size) is at most {} bytes (largest: {}), so an update, a delete or a condition \
         check is one 1 KB write unit, as counted.",
        sizes.largest.0, sizes.largest.1
    );
    md.push_str(
        "\nReading the targets. A lookup's 4th request is a capped count: its group's tail when \
         others share its group, or the top 100 when it may rank there and is not exact; \
         without one it is 3. The raw yardstick is one request; a play is 5 or 6 (the write \
         path's read and transaction, its own rank's snapshot and lanes, maybe a count, the \
         Session's ranks), all on DynamoDB Local's one busy core, so 0.8 is beyond this design \
         here. The index applies a board's changes by journals of at most 1,000 nodes: one put, \
         the nodes' single-item updates 32 at a time, one update of the root, so its drain rate \
         is set by a few rounds of writes per batch on DynamoDB Local. A play's write units are \
         its transaction's items at 2 units each (the Session, the player's fence check, the entry \
         pointer, the old Score item's delete and the new one's put, the lane: 6 when the entry \
         improves) and 1 for the Session's ranks.\n",
    );

    // Targets.
    let small_large = || {
        let plain: Vec<&BoardRun> = boards.iter().filter(|b| b.columns == 0).collect();
        format!(
            "{} and {} entries",
            plain.first().map_or(0, |b| b.initial.len()),
            plain.last().map_or(0, |b| b.initial.len())
        )
    };
    fragment::target(
        "Live rank (issue 32): index lag bounded at the stack's maximum load",
        &format!(
            "lag grows {growth:.2} changes/s over the second half of the busy phase at {rate:.0} submissions/s (bounded: < {:.0}%)",
            LAG_GROWTH * 100.0
        ),
        growth < LAG_GROWTH * rate,
    );
    fragment::target(
        "Live rank (issue 32): drain ≥ 2x the submission rate",
        &format!(
            "{drain_rate:.0} changes/s against {rate:.0} submissions/s: {:.2}x",
            drain_rate / rate
        ),
        drain_rate >= 2.0 * rate,
    );
    fragment::target(
        "Live rank (issue 55): the rank index's apply at most 12 write units per entry change (every play here is one)",
        &format!("{:.2} write units a play", index.write),
        index.write <= 12.0,
    );
    // (Issue 55's drain ≥ 3x is retired for item writes per change, issue 90: on DynamoDB Local
    // the drain follows its one core's CPU per item written, not DynamoDB's.)
    mix::report(
        &mut md,
        &PerPlay {
            http: play,
            index,
            profile,
            changes: 1.0,
            index_items: m.projector_units.0.items_written as f64 / all_plays.max(1) as f64,
        },
        mix,
        super::mix_seconds(opts),
    );
    // The most requests a lookup without a capped count made.
    let uncounted_requests = m
        .lookups
        .iter()
        .filter(|l| l.units.queries == 0)
        .map(|l| l.units.requests)
        .max()
        .unwrap_or(0);
    let quiet: Vec<&Lookup> = m.lookups.iter().filter(|l| l.when == When::Quiet).collect();
    let quiet_read = quiet.iter().map(|l| l.units.read).sum::<f64>() / quiet.len().max(1) as f64;
    fragment::target(
        "Live rank (issue 56): a lookup at most 15 read units (busy, mean over the boards) and 3 requests",
        &format!(
            "busy {:.2} read units ({} of {} busy lookups with a capped count), quiet {quiet_read:.2}; \
             at most {} requests without a count",
            lookup.read,
            m.lookups
                .iter()
                .filter(|l| l.when == When::Busy && l.units.queries > 0)
                .count(),
            busy_lookups,
            uncounted_requests,
        ),
        lookup.read <= 15.0,
    );
    fragment::target(
        "Live rank (issue 56): a play's reads at most 15 units, its writes at most 10, in the HTTP function",
        &format!(
            "{:.2} read and {:.2} write units a play",
            play.read, play.write
        ),
        play.read <= 15.0 && play.write <= 10.0,
    );
    fragment::target(
        "Live rank (issue 32): busy lookup p50 of the largest board within 1.5x of the smallest",
        &format!("{:.2}x ({})", latency_ratio, small_large()),
        latency_ratio > 0.0 && latency_ratio <= LATENCY_RATIO,
    );
    fragment::target(
        "Live rank (issue 32): per lookup at most 3 requests, 20 items by key, 1,000 keys counted",
        &format!(
            "max {} requests (board read included; {} without a count, and {} of {} lookups \
             counted their group's tail or the top), {} items ({} lookups over 20: a process's \
             first of a board reads the root with the board), {} keys",
            max_cost.0,
            uncounted_requests,
            m.lookups.iter().filter(|l| l.units.queries > 0).count(),
            m.lookups.len(),
            max_cost.1,
            m.lookups
                .iter()
                .filter(|l| l.units.items_by_key > LOOKUP_BOUNDS.1)
                .count(),
            max_cost.2
        ),
        max_cost.0 <= LOOKUP_BOUNDS.0
            && max_cost.1 <= LOOKUP_BOUNDS.1
            && max_cost.2 <= LOOKUP_BOUNDS.2,
    );
    fragment::target(
        "Live rank (issue 32): 0 answers off the true ranking beyond their rankLag",
        &format!("{violations} of {checks}"),
        violations == 0 && checks > 0,
    );
    fragment::target(
        "Live rank (issue 32): stack submissions ≥ 0.8 of raw TransactWriteItems of the same shape",
        &format!("{rate:.0}/s against {raw:.0}/s: {:.2}", rate / raw),
        rate / raw >= RAW_RATIO,
    );
    let errors = m.busy.errors + m.backlog.errors;
    let failure = if errors > 0 {
        Some(format!("{errors} plays failed"))
    } else if m.lookup_errors > 0 {
        Some(format!("{} lookups failed", m.lookup_errors))
    } else if busy_lookups == 0 {
        Some("no lookup was made during the busy phase".into())
    } else {
        None
    };
    (md, failure)
}
