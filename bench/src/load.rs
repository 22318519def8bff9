//! Load through the local stack: N concurrent simulated players POST scores to the HTTP API
//! (JWT verification, routing, payload 2.0 events, `submit_score::handle`), with the stream
//! poller and projector running, against DynamoDB Local; in the same run, DynamoDB Local's raw
//! PutItem rate from the same SDK client at the same concurrency.
//!
//! The stack is [`crate::stack`]'s: wired in process, its clients behind counting proxies.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{SecondsFormat, Utc};
use leaderboard_devkit::template::TableDefinition;
use leaderboard_local::client::ApiClient;
use serde_json::json;

use crate::stack::{Conn, Stack};
use crate::{fragment, ms, quantile};

/// The load settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Concurrent players (and concurrent PutItem workers).
    pub players: usize,
    /// Submissions in the timed phase (and PutItems in each raw phase).
    pub submissions: usize,
}

/// The throughput target of issue 9: the stack's submissions/s at least this share of raw PutItem/s.
pub const TARGET_RATIO: f64 = 0.40;

const BOARD: &str = "load_1";

struct Phase {
    count: usize,
    errors: usize,
    secs: f64,
    latencies: Vec<Duration>,
}

impl Phase {
    fn rate(&self) -> f64 {
        self.count as f64 / self.secs
    }
    fn p(&self, q: f64) -> String {
        quantile(&self.latencies, q).map(ms).unwrap_or_default()
    }
}

fn sorted(mut v: Vec<Duration>) -> Vec<Duration> {
    v.sort();
    v
}

/// One worker's timed operations: each one's latency, and how many failed.
struct Tally {
    latencies: Vec<Duration>,
    errors: usize,
}

impl Tally {
    fn with_capacity(n: usize) -> Tally {
        Tally {
            latencies: Vec::with_capacity(n),
            errors: 0,
        }
    }

    /// Times `op` (whether it succeeded) into the tally.
    async fn time(&mut self, op: impl Future<Output = bool>) {
        let t = Instant::now();
        let ok = op.await;
        self.latencies.push(t.elapsed());
        if !ok {
            self.errors += 1;
        }
    }
}

/// Runs `worker(0..workers)` as concurrent tasks and makes one phase of their tallies, timed
/// from before the first task starts until the last one ends.
async fn phase<F, Fut>(workers: usize, worker: F) -> Phase
where
    F: Fn(usize) -> Fut,
    Fut: Future<Output = Tally> + Send + 'static,
{
    let started = Instant::now();
    let tasks: Vec<_> = (0..workers).map(|w| tokio::spawn(worker(w))).collect();
    let mut latencies = Vec::new();
    let mut errors = 0;
    for t in tasks {
        if let Ok(tally) = t.await {
            latencies.extend(tally.latencies);
            errors += tally.errors;
        }
    }
    Phase {
        count: latencies.len(),
        errors,
        secs: started.elapsed().as_secs_f64(),
        latencies: sorted(latencies),
    }
}

/// The raw writes the stack's rate is compared with: not the project's code, DynamoDB Local's
/// own rate for a write of a given shape.
#[derive(Debug, Clone, Copy)]
enum RawWrite {
    /// A PutItem of a Session-sized item, under keys tagged so each phase writes new items.
    Put(&'static str),
    /// A TransactWriteItems shaped like a submission's write on one board: put a Session
    /// (condition: new), put an entry pointer, put a Score item.
    Transaction,
}

/// Where the raw phases write: their table, from how many concurrent tasks.
struct RawPhases<'a> {
    table: &'a str,
    workers: usize,
}

impl RawPhases<'_> {
    /// `total` raw writes from the concurrent tasks, on `client`.
    async fn run(&self, client: &Client, total: usize, write: RawWrite) -> Phase {
        let per = total.div_ceil(self.workers);
        phase(self.workers, |w| {
            let client = client.clone();
            let table = self.table.to_owned();
            async move {
                let mut tally = Tally::with_capacity(per);
                for i in 0..per {
                    match write {
                        RawWrite::Put(tag) => tally.time(raw_put(&client, &table, tag, w, i)).await,
                        RawWrite::Transaction => {
                            tally.time(raw_transaction(&client, &table, w, i)).await
                        }
                    }
                }
                tally
            }
        })
        .await
    }
}

/// Worker `w`'s `i`-th raw PutItem: whether it succeeded.
async fn raw_put(client: &Client, table: &str, tag: &str, w: usize, i: usize) -> bool {
    let player = format!("lp_{w:04}");
    let session = format!("01K{tag}{w:04}{i:08}");
    client
        .put_item()
        .table_name(table)
        .item("pk", AttributeValue::S(format!("RAW#{player}")))
        .item("sk", AttributeValue::S(format!("RAWSESSION#{session}")))
        .item("playerId", AttributeValue::S(player.clone()))
        .item("sessionId", AttributeValue::S(session.clone()))
        .item("gameId", AttributeValue::S("bench".into()))
        .item(
            "score",
            AttributeValue::N(((w * 7919 + i) % 100_000).to_string()),
        )
        .item("durationSec", AttributeValue::N("120".into()))
        .item("attainedAt", AttributeValue::S(Utc::now().to_rfc3339()))
        .item(
            "leaderboardIds",
            AttributeValue::L(vec![AttributeValue::S(BOARD.into())]),
        )
        .item("gsi2pk", AttributeValue::S("RAWGAME#bench".into()))
        .item("gsi2sk", AttributeValue::S(format!("RAWSESSION#{session}")))
        .send()
        .await
        .is_ok()
}

/// Worker `w`'s `i`-th raw transaction: whether it succeeded.
async fn raw_transaction(client: &Client, table: &str, w: usize, i: usize) -> bool {
    use aws_sdk_dynamodb::types::{Put, TransactWriteItem};
    let s = AttributeValue::S;
    let player = format!("tx_{w:04}");
    let session = format!("01KTX{w:04}{i:08}");
    let put = |pk: String, sk: String, cond: Option<&str>| {
        let mut p = Put::builder()
            .table_name(table)
            .item("pk", s(pk))
            .item("sk", s(sk))
            .item("playerId", s(player.clone()))
            .item("score", AttributeValue::N(i.to_string()));
        if let Some(c) = cond {
            p = p.condition_expression(c);
        }
        TransactWriteItem::builder()
            .put(p.build().expect("a put"))
            .build()
    };
    client
        .transact_write_items()
        .transact_items(put(
            format!("RAWTX#{player}"),
            format!("RAWSESSION#{session}"),
            Some("attribute_not_exists(pk)"),
        ))
        .transact_items(put(format!("RAWTX#{player}"), "RAWENTRY#b".into(), None))
        .transact_items(put(
            "RAWTXBOARD#b".into(),
            format!("RAWSCORE#{i:010}#{player}"),
            None,
        ))
        .send()
        .await
        .is_ok()
}

/// `total` submissions by `players` concurrent players, each on its own keep-alive connection.
async fn submissions(
    addr: std::net::SocketAddr,
    tokens: &[String],
    total: usize,
    round: u64,
) -> Phase {
    let per = total.div_ceil(tokens.len());
    phase(tokens.len(), |p| {
        let token = tokens[p].clone();
        async move {
            let mut conn = Conn::new(addr);
            let mut tally = Tally::with_capacity(per);
            for i in 0..per {
                // Scores that sometimes improve the player's best and sometimes do not.
                let score = (p as u64 * 7919 + i as u64 * 104_729 + round * 31) % 1_000_000;
                let body = json!({"score": score, "gameId": "bench", "durationSec": 120});
                tally
                    .time(async {
                        conn.post(
                            &format!("/leaderboards/{BOARD}/scores"),
                            &token,
                            body.to_string(),
                        )
                        .await
                            == Ok(200)
                    })
                    .await;
            }
            tally
        }
    })
    .await
}

fn per_unit(counts: &BTreeMap<String, u64>, n: usize) -> (String, f64) {
    let total: u64 = counts.values().sum();
    let ops: Vec<String> = counts
        .iter()
        .map(|(op, c)| format!("{op} {:.2}", *c as f64 / n as f64))
        .collect();
    (
        if ops.is_empty() {
            "none".into()
        } else {
            ops.join(", ")
        },
        total as f64 / n as f64,
    )
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Runs the load test and returns the report fragment.
pub async fn run(opts: &Options) -> Result<String, String> {
    let endpoint = leaderboard_devkit::testing::endpoint().await;
    let definition = TableDefinition::from_repo().map_err(err)?;
    let table = crate::unique_table("load");
    let direct = leaderboard_devkit::local::client(&endpoint);
    definition.create(&direct, &table).await.map_err(err)?;
    let local = Stack::start(&endpoint, &table).await?;
    // The raw PutItems go to the same table (same stream, same indexes), under keys nothing else
    // reads and the stream filter drops. (A second streamed table on the same DynamoDB Local
    // makes the stream reader of the first fail with TrimmedDataAccessException.) Their client
    // is configured as the stack's and goes through the same proxy.
    let raw_table = table.clone();
    let client = leaderboard_devkit::local::client(&local.store_proxy.endpoint());
    let (store_proxy, poller_proxy, poller_stats) =
        (&local.store_proxy, &local.poller_proxy, &local.poller);
    let api_addr = local.addr;

    // A board (admin API) and the players' profiles.
    let api = ApiClient::new(api_addr);
    let now = Utc::now();
    let admin = local.token("bench_admin", &["admin"]);
    let rfc = |t: chrono::DateTime<Utc>| t.to_rfc3339_opts(SecondsFormat::Millis, true);
    let r = api
        .post(
            "/leaderboards",
            Some(&admin),
            &json!({
                "leaderboardId": BOARD, "name": "Load", "order": "desc", "operator": "best",
                "gameId": "bench",
                "startsAt": rfc(now - chrono::Duration::hours(1)),
                "endsAt": rfc(now + chrono::Duration::days(30)),
            }),
        )
        .await
        .map_err(err)?;
    if r.status != 201 {
        return Err(format!("create board: {} {}", r.status, r.body));
    }
    let tokens: Vec<String> = (0..opts.players)
        .map(|p| local.token(&format!("lp_{p:04}"), &[]))
        .collect();
    for (p, t) in tokens.iter().enumerate() {
        let r = api
            .put(
                "/players/me",
                Some(t),
                &json!({"name": format!("player_{p}")}),
            )
            .await
            .map_err(err)?;
        if r.status != 200 {
            return Err(format!("profile: {} {}", r.status, r.body));
        }
    }
    // Warm-up: every player submits a few times (connections, JIT of DynamoDB Local).
    let warm = submissions(api_addr, &tokens, opts.players * 4, 0).await;
    if warm.errors > 0 {
        return Err(format!("{} warm-up submissions failed", warm.errors));
    }
    let raw = RawPhases {
        table: &raw_table,
        workers: opts.players,
    };
    let _ = raw
        .run(&client, opts.submissions / 2, RawWrite::Put("W"))
        .await;

    // Raw PutItem, the stack, raw PutItem again: the ratio uses the mean of the two.
    let raw_a = raw.run(&client, opts.submissions, RawWrite::Put("A")).await;
    eprintln!("load: raw PutItem {:.0}/s", raw_a.rate());
    store_proxy.stats().reset();
    poller_proxy.stats().reset();
    let delivered_before = poller_stats.delivered.load(Ordering::Relaxed);
    let stack = submissions(api_addr, &tokens, opts.submissions, 1).await;
    let stack_counts = store_proxy.stats().snapshot();
    let poller_counts = poller_proxy.stats().snapshot();
    let delivered_during = poller_stats.delivered.load(Ordering::Relaxed) - delivered_before;
    eprintln!("load: stack {:.0} submissions/s", stack.rate());
    let raw_b = raw.run(&client, opts.submissions, RawWrite::Put("B")).await;
    eprintln!("load: raw PutItem {:.0}/s", raw_b.rate());
    let raw_direct = raw.run(&direct, opts.submissions, RawWrite::Put("D")).await;
    let raw_tx = raw
        .run(&client, opts.submissions, RawWrite::Transaction)
        .await;
    // Let the poller catch up, to count what projecting the whole phase cost.
    let caught_up = Instant::now();
    while poller_stats.delivered.load(Ordering::Relaxed) - delivered_before < stack.count as u64
        && caught_up.elapsed() < Duration::from_secs(60)
    {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let poller_total = poller_proxy.stats().snapshot();
    let delivered_total = poller_stats.delivered.load(Ordering::Relaxed) - delivered_before;
    let poller_line = format!(
        "stream poller in all: {} records read, {} delivered, {} discarded, {} projector invocations",
        poller_stats.read.load(Ordering::Relaxed),
        poller_stats.delivered.load(Ordering::Relaxed),
        poller_stats.discarded.load(Ordering::Relaxed),
        poller_stats.invocations.load(Ordering::Relaxed),
    );
    eprintln!("load: {poller_line}");
    local.stop().await;

    let raw_rate = (raw_a.rate() + raw_b.rate()) / 2.0;
    let ratio = stack.rate() / raw_rate;
    let (stack_ops, stack_total) = per_unit(&stack_counts, stack.count);
    let (poll_ops, poll_total) = per_unit(&poller_counts, stack.count);
    let (poll_all_ops, poll_all_total) = per_unit(&poller_total, stack.count);

    let mut md = String::from("## Load through the local stack\n\n");
    let _ = writeln!(
        md,
        "`leaderboard-bench load`: {} concurrent simulated players (each on its own keep-alive HTTP/1.1 \
         connection, a JWT signed the way local/README.md says) POST `/leaderboards/{BOARD}/scores` to the \
         local stack's HTTP API (JWT check, routing, payload 2.0, `submit_score::handle`) with the stream \
         poller and projector running, all in one process, against DynamoDB Local with the template's table \
         (stream on). Counting proxies sit between the stack and DynamoDB Local, one for the HTTP functions' \
         client and one for the stream poller's. Raw PutItem: the same SDK client (same config, same proxy) \
         at the same concurrency, a Session-sized item (with GSI2 keys) into the same table under keys the stream filter drops, measured \
         just before and just after the stack in the same run; \"direct\" is without the proxy, to show the \
         proxy's own cost. After a warm-up of {} submissions and {} PutItems.\n",
        opts.players,
        opts.players * 4,
        opts.submissions / 2
    );
    let _ = writeln!(
        md,
        "| phase | operations | errors | seconds | per second | p50 ms | p99 ms |"
    );
    let _ = writeln!(md, "| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (label, p) in [
        ("raw PutItem (before)", &raw_a),
        ("**submissions through the stack**", &stack),
        ("raw PutItem (after)", &raw_b),
        ("raw PutItem, direct (no proxy)", &raw_direct),
        (
            "raw TransactWriteItems of 3 puts (a submission's write on one board)",
            &raw_tx,
        ),
    ] {
        let _ = writeln!(
            md,
            "| {label} | {} | {} | {:.2} | {:.0} | {} | {} |",
            p.count,
            p.errors,
            p.secs,
            p.rate(),
            p.p(0.5),
            p.p(0.99)
        );
    }
    let _ = writeln!(
        md,
        "\nRatio: {:.0} submissions/s ÷ {:.0} raw PutItem/s (mean of before and after) = **{:.0}%** \
         (target ≥ {:.0}%: {}).\n",
        stack.rate(),
        raw_rate,
        ratio * 100.0,
        TARGET_RATIO * 100.0,
        if ratio >= TARGET_RATIO {
            "met"
        } else {
            "**missed**"
        }
    );
    let _ = writeln!(
        md,
        "For scale: DynamoDB Local's own rate for the transaction a submission writes (3 puts, one \
         conditional; same client, same concurrency; last row) is {:.0}/s, so the stack reaches {:.0}% \
         of what DynamoDB Local allows for that write alone, before the submission's reads.\n",
        raw_tx.rate(),
        stack.rate() / raw_tx.rate() * 100.0
    );
    let _ = writeln!(
        md,
        "DynamoDB requests per submission, counted by the proxies:\n"
    );
    let _ = writeln!(md, "| client | by operation | total |");
    let _ = writeln!(md, "| --- | --- | ---: |");
    let _ = writeln!(
        md,
        "| HTTP functions (submit-score) | {stack_ops} | {stack_total:.2} |"
    );
    let _ = writeln!(
        md,
        "| stream poller + projector, during the phase ({delivered_during} records delivered) | {poll_ops} | {poll_total:.2} |"
    );
    let _ = writeln!(
        md,
        "| stream poller + projector, until caught up ({delivered_total} records delivered) | {poll_all_ops} | {poll_all_total:.2} |"
    );
    let _ = writeln!(
        md,
        "\nA submission is one BatchGetItem and one TransactWriteItems (the write path), then, once, the rank \
         in its answer and one UpdateItem keeping it in the Session. The board here has only the {} players: \
         on a board of at most 1,000 entries (the written counts, one BatchGetItem, say so) the rank is one \
         capped count Query (at most 1,000 keys), exact, instead of the index's snapshot of its path; \
         the rank bench shows a large busy board, where only players near the top get a count. \
         `Streams.*` are the poller's stream reads; its UpdateItem/GetItem are the projector's. The \
         {poller_line}.",
        opts.players
    );
    fragment::target(
        "submission throughput through the local stack >= 40% of raw PutItem (same run)",
        &format!(
            "{:.0}/s vs {:.0}/s = {:.0}%",
            stack.rate(),
            raw_rate,
            ratio * 100.0
        ),
        ratio >= TARGET_RATIO,
    );
    if stack.errors > 0 {
        return Err(format!(
            "{} of {} submissions failed\n{md}",
            stack.errors, stack.count
        ));
    }
    Ok(md)
}
