//! The rank index against AP10 counting, side by side in one run, on DynamoDB Local:
//! `cargo bench -p stream-projector --bench rank` (`-- --quick` for N = 10,000 only).
//!
//! For N = 10,000 and 100,000 players (heavy ties: 100,000 distinct scores at most, times within
//! one minute): import the entries, build the index, then for a sample of players ask the rank
//! through the index (`Rank::player_rank_counted`: one BatchGetItem of the pointer and the
//! root, one BatchGetItem of the path's nodes, a group's tail count when it holds others, the
//! lanes) and by counting (the seed's AP10, kept here as the baseline: a paged `Select=COUNT`
//! Query, plus its pointer read). Every index rank
//! must equal the rank computed in memory from the generated entries (the benchmark stops
//! otherwise), and every counted one too. Requests are those the store reports, checked against
//! the SDK interceptor's count. The API's board GetItem (one request, one item) is added to both
//! columns. It also measures the stream side (items written and requests per score change) and
//! a busy board: plays whose changes are held back from the index, their submissions' rank
//! reads, and lookups checked within their `rankLag`.

#[path = "../../../bench/src/fragment.rs"]
mod fragment;

use std::collections::HashMap;
use std::time::Instant;

use leaderboard_devkit::local::counting_client;
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::entity;
use leaderboard_keys::ids::{BoardId, GameId, PlayerId, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::rank_index::{CountedKey, LANES, LaneChange, lane_of};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{Board, NewBoard, Operator, RankLayout, Recurrence};
use leaderboard_store::{Config, Play, Store};
use rand::Rng;

const T0: u64 = 1_767_225_600_000;

struct Row {
    n: usize,
    lookups: usize,
    index_requests: (f64, u32),
    index_items: (f64, u64),
    count_lookups: usize,
    count_requests: (f64, u32),
    count_items: (f64, u64),
    build_secs: f64,
    build_items: usize,
    write_items_per_change: f64,
    write_requests_per_change: f64,
    busy: Busy,
}

/// A busy board: plays recorded through the write path with their changes held back from the
/// index, as when plays arrive faster than the stream projector applies them.
#[derive(Default)]
struct Busy {
    plays: usize,
    /// Per submission, for the rank in its answer.
    rank_requests: (f64, u32),
    count_queries_per_submission: f64,
    /// Submissions whose rank answer was exact.
    exact_submissions: usize,
    lookups: usize,
    lookup_requests: (f64, u32),
    count_queries_per_lookup: f64,
    lag: (f64, u64),
    /// The largest |rank - true rank| over the lookups (each within its own lag).
    max_error: u64,
    exact_lookups: usize,
}

fn mean_max<T: Copy + Into<u64> + Ord + Default>(v: &[T]) -> (f64, T) {
    let sum: u64 = v.iter().map(|&x| x.into()).sum();
    (
        sum as f64 / v.len().max(1) as f64,
        v.iter().copied().max().unwrap_or_default(),
    )
}

async fn run(n: usize, quick: bool) -> Row {
    let table = TestTable::without_stream(&format!("rank_bench_{n}")).await;
    let (client, counter) = counting_client(&table.endpoint);
    let store = Store::new(
        client,
        &Config {
            table_name: table.name.clone(),
            cursor_secret: b"bench".to_vec(),
        },
    );
    let board_id = BoardId::parse("big").unwrap();
    let at = |ms: u64| Timestamp::from_millis(T0 + ms).unwrap();
    let board = store
        .boards()
        .create_board(
            NewBoard {
                order: Order::Desc,
                operator: Operator::Best,
                max_score: 9_999_999_999,
                starts_at: Some(at(0)),
                recurrence: Recurrence::None,
                rank_layout: RankLayout::V2,
                ..NewBoard::named(board_id.clone(), "Big".into())
            },
            at(0),
        )
        .await
        .unwrap();
    let spec = board.spec().unwrap();
    let entries: Vec<(PlayerId, u64, Timestamp)> = {
        let mut rng = rand::rng();
        (0..n)
            .map(|i| {
                (
                    PlayerId::parse(&format!("p{i:07}")).unwrap(),
                    rng.random_range(0..100_000u64) * 7,
                    at(rng.random_range(0..60_000)),
                )
            })
            .collect()
    };
    eprintln!("N = {n}: importing");
    for chunk in entries.chunks(5_000) {
        store.boards().import_entries(&board, chunk).await.unwrap();
    }
    eprintln!("N = {n}: building the index");
    let clock = Instant::now();
    let built = store.rank().build_rank_index(&board).await.unwrap();
    let build_secs = clock.elapsed().as_secs_f64();
    assert_eq!(built.entries, n);
    let board = store.boards().get_board(&board_id).await.unwrap().unwrap();

    // The truth, from the generated entries.
    let mut sks: Vec<(String, &PlayerId)> = entries
        .iter()
        .map(|(p, s, t)| (spec.score_sort_key(*s, t.as_millis(), p).unwrap(), p))
        .collect();
    sks.sort_unstable_by(|a, b| b.0.cmp(&a.0));
    let truth: HashMap<&PlayerId, u64> = sks
        .iter()
        .enumerate()
        .map(|(i, (_, p))| (*p, i as u64 + 1))
        .collect();

    // The sample: the first, the last, and evenly spread ranks.
    let lookups = 200;
    let sample: Vec<&PlayerId> = (0..lookups)
        .map(|i| sks[(i * (n - 1)) / (lookups - 1)].1)
        .collect();
    let (mut index_requests, mut index_items) = (Vec::new(), Vec::new());
    for p in &sample {
        counter.reset();
        let (entry, cost) = store
            .rank()
            .player_rank_counted(&board, p)
            .await
            .unwrap()
            .unwrap();
        let fresh = entry.freshness.unwrap();
        // At most the tail count of the player's group (a score within 100 s).
        assert!(
            fresh.rank_exact && cost.count_queries <= 1,
            "the index was behind"
        );
        assert_eq!(entry.rank, truth[p], "{p}");
        assert_eq!(counter.total(), u64::from(cost.requests));
        // Plus the API's board GetItem.
        index_requests.push(cost.requests + 1);
        index_items.push(cost.items + 1);
    }
    let count_lookups = 50;
    let (mut count_requests, mut count_items) = (Vec::new(), Vec::new());
    for p in sample.iter().step_by(lookups / count_lookups) {
        counter.reset();
        let pointer = store
            .listings()
            .entry_pointer(&board_id, p)
            .await
            .unwrap()
            .unwrap();
        let (above, requests) = count_above(&store, &board_id, &pointer.score_sk).await;
        assert_eq!(above + 1, truth[p], "{p}");
        assert_eq!(counter.total(), u64::from(requests) + 1);
        count_requests.push(requests + 2);
        count_items.push(above + 2);
    }

    let busy = busy(&store, &board, &entries, quick).await;

    // The stream side: 1,000 score changes of existing players, each applied alone (a batch
    // of one: the most a change can cost; to the index alone: after this the index no longer
    // matches the table). The build left each lane's watermark at its written count, one per
    // imported entry of the lane.
    let mut next: HashMap<u8, u64> = HashMap::new();
    for (p, _, _) in &entries {
        *next.entry(lane_of(p.as_str(), LANES)).or_default() += 1;
    }
    counter.reset();
    let mut items_written = 0;
    let changes = 1_000.min(n);
    let mut rng = rand::rng();
    for (p, score, t) in entries.iter().take(changes) {
        let old = spec.score_sort_key(*score, t.as_millis(), p).unwrap();
        let new_score = rng.random_range(0..100_000u64) * 7;
        let new = spec
            .score_sort_key(new_score, t.as_millis() + 1, p)
            .unwrap();
        let lane = lane_of(p.as_str(), LANES);
        let seq = next.entry(lane).or_default();
        *seq += 1;
        let change = LaneChange {
            lane,
            seq: *seq,
            old: Some(CountedKey::parse(&old).unwrap()),
            new: Some(CountedKey::parse(&new).unwrap()),
            score: None,
            ..LaneChange::default()
        };
        let out = store
            .rank()
            .apply_lane_changes(&board_id, &[change])
            .await
            .unwrap();
        assert_eq!(out.applied, 1);
        items_written += out.items_written;
    }
    let write_requests = counter.total();
    Row {
        n,
        lookups,
        index_requests: mean_max(&index_requests),
        index_items: mean_max(&index_items),
        count_lookups,
        count_requests: mean_max(&count_requests),
        count_items: mean_max(&count_items),
        build_secs,
        build_items: built.items,
        write_items_per_change: items_written as f64 / changes as f64,
        write_requests_per_change: write_requests as f64 / changes as f64,
        busy,
    }
}

/// Plays on the board through `Plays::record_play` whose changes are never applied to the index
/// (nothing delivers the stream here), then lookups spread over the board, each checked within
/// its `rankLag` of the true rank from a full listing.
async fn busy(
    store: &Store,
    board: &Board,
    entries: &[(PlayerId, u64, Timestamp)],
    quick: bool,
) -> Busy {
    let plays = if quick { 200 } else { 500 };
    let mut out = Busy {
        plays,
        ..Busy::default()
    };
    let mut rng = rand::rng();
    let (mut rank_requests, mut queries) = (Vec::new(), 0);
    for i in 0..plays {
        let player = entries[rng.random_range(0..entries.len())].0.clone();
        let now = Timestamp::from_millis(T0 + 120_000 + i as u64).unwrap();
        let play = Play {
            subscores: Default::default(),
            idempotency_key: None,
            metadata: None,
            player_id: player,
            session_id: SessionId::from_parts(now.as_millis(), rng.random()).unwrap(),
            game_id: Some(GameId::parse("bench").unwrap()),
            score: rng.random_range(0..100_000u64) * 7,
            duration_sec: None,
            board_ids: vec![board.board_id.clone()],
        };
        let outcome = store.plays().record_play(&play, now).await.unwrap();
        rank_requests.push(outcome.rank_cost.requests);
        queries += outcome.rank_cost.count_queries;
        let fresh = outcome.session.outcomes[0].freshness.unwrap();
        out.exact_submissions += usize::from(fresh.rank_exact);
    }
    out.rank_requests = mean_max(&rank_requests);
    out.count_queries_per_submission = f64::from(queries) / plays as f64;

    let mut truth: HashMap<PlayerId, u64> = HashMap::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = store
            .listings()
            .top_scores(board, 1_000, cursor.as_deref())
            .await
            .unwrap();
        truth.extend(page.items.into_iter().map(|e| (e.player_id, e.rank)));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    let mut ranked: Vec<(&PlayerId, u64)> = truth.iter().map(|(p, r)| (p, *r)).collect();
    ranked.sort_unstable_by_key(|(_, r)| *r);
    out.lookups = 200;
    let (mut requests, mut lags, mut queries) = (Vec::new(), Vec::new(), 0);
    for i in 0..out.lookups {
        let (player, want) = ranked[i * (ranked.len() - 1) / (out.lookups - 1)];
        let (entry, cost) = store
            .rank()
            .player_rank_counted(board, player)
            .await
            .unwrap()
            .unwrap();
        let fresh = entry.freshness.unwrap();
        let error = entry.rank.abs_diff(want);
        assert!(
            error <= fresh.rank_lag,
            "{player}: {entry:?} against {want}"
        );
        out.max_error = out.max_error.max(error);
        out.exact_lookups += usize::from(fresh.rank_exact);
        requests.push(cost.requests + 1);
        lags.push(fresh.rank_lag);
        queries += cost.count_queries;
    }
    out.lookup_requests = mean_max(&requests);
    out.count_queries_per_lookup = f64::from(queries) / out.lookups as f64;
    out.lag = mean_max(&lags);
    out
}

/// The seed's AP10, the baseline the index replaces (the product never counts a board): the
/// entries above a Score sort key, counted with consistent `Select=COUNT` Queries that follow
/// every 1 MB page, and the requests that took.
async fn count_above(store: &Store, board: &BoardId, score_sk: &str) -> (u64, u32) {
    use aws_sdk_dynamodb::types::{AttributeValue, Select};
    let (mut above, mut requests, mut start) = (0u64, 0u32, None);
    loop {
        let out = store
            .client()
            .query()
            .table_name(store.table_name())
            .key_condition_expression("pk = :pk AND sk BETWEEN :lo AND :hi")
            .expression_attribute_values(":pk", AttributeValue::S(entity::board_pk(board)))
            .expression_attribute_values(
                ":lo",
                AttributeValue::S(entity::score_sort_keys_above(score_sk)),
            )
            .expression_attribute_values(":hi", AttributeValue::S(entity::SCORE_UPPER_BOUND.into()))
            .select(Select::Count)
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await
            .unwrap();
        requests += 1;
        above += out.count as u64;
        start = out.last_evaluated_key;
        if start.is_none() {
            return (above, requests);
        }
    }
}

#[tokio::main]
async fn main() {
    let quick =
        std::env::args().any(|a| a == "--quick") || std::env::var("QUICK").is_ok_and(|v| v == "1");
    let sizes: &[usize] = if quick { &[10_000] } else { &[10_000, 100_000] };
    let mut rows = Vec::new();
    for &n in sizes {
        let row = run(n, quick).await;
        eprintln!(
            "N = {}: index {:.2} req / {:.1} items per lookup ({} lookups); counting {:.2} req / \
             {:.0} items ({} lookups)",
            row.n,
            row.index_requests.0,
            row.index_items.0,
            row.lookups,
            row.count_requests.0,
            row.count_items.0,
            row.count_lookups
        );
        rows.push(row);
    }
    let mut md = String::from(
        "## Rank index (issue 10)\n\n\
         `cargo bench -p stream-projector --bench rank`: boards of N players on DynamoDB Local \
         (100,000 distinct scores at most, times within one minute, so many ties), the index \
         built from the board (`Rank::build_rank_index`). For each N, the same run asks the rank \
         of 200 players spread evenly over the ranking through the index, and of 50 of them by \
         AP10 counting; every answer is checked against the ranking computed in memory from \
         the generated entries. Requests and items include the API's board and pointer reads \
         (the API route makes exactly these). Requests are the store's own accounting, checked \
         equal to the SDK interceptor's count.\n\n\
         | N | index: requests per lookup (mean / max) | index: items read (mean / max) | \
         counting: requests (mean / max) | counting: items read (mean / max) | index build |\n\
         | --- | --- | --- | --- | --- | --- |\n",
    );
    for r in &rows {
        md.push_str(&format!(
            "| {} | {:.2} / {} | {:.1} / {} | {:.2} / {} | {:.0} / {} | {:.1} s, {} items |\n",
            r.n,
            r.index_requests.0,
            r.index_requests.1,
            r.index_items.0,
            r.index_items.1,
            r.count_requests.0,
            r.count_requests.1,
            r.count_items.0,
            r.count_items.1,
            r.build_secs,
            r.build_items
        ));
    }
    if let Some(big) = rows.iter().find(|r| r.n == 100_000) {
        let per_page = big.count_items.0 / (big.count_requests.0 - 2.0).max(1.0);
        let items_1m = 500_000.0;
        md.push_str(&format!(
            "| 1,000,000 (model) | 5 | 21 | {:.0} (at rank N/2, {:.0} entries a 1 MB page as measured) | {:.0} | - |\n",
            2.0 + (items_1m / per_page).ceil(),
            per_page,
            items_1m + 2.0
        ));
        fragment::target(
            "Rank index at 100,000 players: at most 5 requests and 21 items read by key per \
             lookup (the board, the pointer with the root, the snapshot, a tail count when the \
             player's group holds others, the lanes)",
            &format!(
                "max {} requests, max {} items",
                big.index_requests.1, big.index_items.1
            ),
            big.index_requests.1 <= 5 && big.index_items.1 <= 21,
        );
    }
    md.push_str(
        "\nStream side, per score change (each change a batch of its own, the most a change \
         costs; 1,000 changes of random scores):\n\n| N | items written per change | requests per change |\n\
         | --- | --- | --- |\n",
    );
    for r in &rows {
        md.push_str(&format!(
            "| {} | {:.1} | {:.2} |\n",
            r.n, r.write_items_per_change, r.write_requests_per_change
        ));
    }
    md.push_str(
        "\nA busy board (issue 26): after the lookups above, plays of random existing players are \
         recorded through the write path (`Plays::record_play`, `best`) and none of their changes \
         is applied to the index, as when plays arrive faster than the stream projector applies \
         them. Each submission reads its rank once, after its write; a capped count (one \
         `Select=COUNT` Query, at most 100 keys) runs only when the player may be within the \
         first 100 while the index lags. Then 200 players spread over the ranking are looked up \
         (requests include the API's board read), each checked within its `rankLag` of its place \
         in a full listing.\n\n\
         | N | plays held back | rank requests per submission (mean / max) | count Queries per \
         submission | exact submissions | lookup requests (mean / max) | count Queries per lookup \
         | rankLag (mean / max) | max abs(rank - true rank) | exact lookups |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for r in &rows {
        let b = &r.busy;
        md.push_str(&format!(
            "| {} | {} | {:.2} / {} | {:.2} | {} of {} | {:.2} / {} | {:.2} | {:.0} / {} | {} | {} of {} |\n",
            r.n,
            b.plays,
            b.rank_requests.0,
            b.rank_requests.1,
            b.count_queries_per_submission,
            b.exact_submissions,
            b.plays,
            b.lookup_requests.0,
            b.lookup_requests.1,
            b.count_queries_per_lookup,
            b.lag.0,
            b.lag.1,
            b.max_error,
            b.exact_lookups,
            b.lookups
        ));
    }
    println!("{md}");
    fragment::write("55-rank-index.md", &md);
}
