//! Top-N pages of sharded boards (issue 83): what a 1,000-entry page of
//! `GET /leaderboards/{b}/scores` reads on a board of 1, 8 and 32 write shards, in one run on one
//! DynamoDB Local. The store reads through a recording proxy; every Query a page sent is priced
//! by DynamoDB's rules ([`crate::live_rank::units`]): items read, and read units (the sizes of a
//! Query's items summed, rounded up to 4 KB, half a unit each when eventually consistent).
//! Beside each, in the same run, the read a page made before chunked merges: `limit` + 1 items
//! from every shard, strongly consistent, sent as those Queries were.

use std::fmt::Write as _;

use aws_sdk_dynamodb::types::AttributeValue;
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::entity;
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{Board, NewBoard, Operator, RankLayout, Recurrence};
use leaderboard_store::{Config, Store, merged_read_bound};

use crate::fragment;
use crate::live_rank::units::{self, Units};
use crate::proxy::{Exchange, Proxy};

/// The benchmark's settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Entries on each board.
    pub entries: usize,
}

/// The page measured.
const LIMIT: usize = 1_000;

/// The board sizes in write shards.
const SHARDS: [u8; 3] = [1, 8, 32];

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// One page's reads: the Queries' cost, and the largest number of them one shard answered.
struct Read {
    units: Units,
    most_from_one_shard: u64,
}

fn priced(exchanges: &[Exchange]) -> Read {
    let mut units = Units::default();
    let mut by_shard = std::collections::BTreeMap::<String, u64>::new();
    for e in exchanges.iter().filter(|e| e.op == "Query") {
        units += units::of(&e.op, &e.request, &e.body, 0);
        let req: serde_json::Value = serde_json::from_slice(&e.request).unwrap_or_default();
        let pk = req["ExpressionAttributeValues"][":pk"]["S"]
            .as_str()
            .unwrap_or_default();
        *by_shard.entry(pk.to_owned()).or_default() += 1;
    }
    Read {
        units,
        most_from_one_shard: by_shard.values().copied().max().unwrap_or(0),
    }
}

async fn board(store: &Store, shards: u8, entries: usize) -> Result<Board, String> {
    let now = Timestamp::from_millis(1_800_000_000_000).map_err(err)?;
    let board = store
        .boards()
        .create_board(
            NewBoard {
                order: Order::Desc,
                operator: Operator::Best,
                max_score: leaderboard_keys::rank::DEFAULT_MAX_SCORE,
                starts_at: Some(now),
                ends_at: Some(now.plus_millis(86_400_000)),
                recurrence: Recurrence::None,
                rank_layout: RankLayout::V2,
                write_shards: shards,
                ..NewBoard::named(
                    BoardId::parse(&format!("top_{shards}")).map_err(err)?,
                    format!("Top {shards}"),
                )
            },
            now,
        )
        .await
        .map_err(err)?;
    // The same players and scores on every board: a spread of scores by a fixed hash.
    let list: Vec<(PlayerId, u64, Timestamp)> = (0..entries as u64)
        .map(|i| {
            let player = PlayerId::parse(&format!("player{i:06}")).map_err(err)?;
            let score = (i.wrapping_mul(2_654_435_761) >> 7) % 1_000_000;
            Ok((player, score, now.plus_millis(i)))
        })
        .collect::<Result<_, String>>()?;
    for chunk in list.chunks(5_000) {
        store
            .boards()
            .import_entries(&board, chunk)
            .await
            .map_err(err)?;
    }
    Ok(board)
}

/// The read a top page made before chunked merges: `LIMIT` + 1 items from every shard, strongly
/// consistent on a sharded board (a plain board's one Query was eventually consistent already).
async fn every_shard_in_full(client: &aws_sdk_dynamodb::Client, table: &str, board: &Board) {
    for pk in entity::score_pks(&board.board_id, board.write_shards) {
        let _ = client
            .query()
            .table_name(table)
            .key_condition_expression("pk = :pk AND sk BETWEEN :lo AND :hi")
            .expression_attribute_values(":pk", AttributeValue::S(pk))
            .expression_attribute_values(":lo", AttributeValue::S(entity::SCORE_PREFIX.into()))
            .expression_attribute_values(":hi", AttributeValue::S(entity::SCORE_UPPER_BOUND.into()))
            .scan_index_forward(false)
            .consistent_read(board.write_shards > 1)
            .limit(LIMIT as i32 + 1)
            .send()
            .await;
    }
}

/// Runs the benchmark and returns the report fragment.
pub async fn run(opts: &Options) -> Result<String, String> {
    let table = TestTable::without_stream("top_page").await;
    let proxy = Proxy::in_front_of(&table.endpoint).await.map_err(err)?;
    let client = leaderboard_devkit::local::client(&proxy.endpoint());
    let store = Store::new(
        client.clone(),
        &Config {
            table_name: table.name.clone(),
            cursor_secret: b"bench-cursor-secret".to_vec(),
        },
    );
    let mut md = String::new();
    writeln!(md, "## Top-N pages of sharded boards (issue 83)\n").map_err(err)?;
    writeln!(
        md,
        "One run on one DynamoDB Local: boards of 1, 8 and 32 write shards with the same {} \
         entries (players spread over the shards by their hash, as every board's are); a \
         {LIMIT}-entry page of `GET /leaderboards/{{b}}/scores` read by `Listings::top_scores` \
         through a recording proxy, the first page and the second (from its cursor). Items \
         read are what the Queries returned, read units by DynamoDB's rules from their sizes \
         (a Query's items summed and rounded up to 4 KB; half a unit when eventually \
         consistent). *Before* is the read a page made until this issue, in the same run: \
         {} items from every shard, strongly consistent on a sharded board. The bound is the merge's: at most \
         n + K·c items, n = {} and c = ⌈n/K⌉ + 2⌈√(n/K)⌉.\n",
        opts.entries,
        LIMIT + 1,
        LIMIT + 1,
    )
    .map_err(err)?;
    writeln!(
        md,
        "| write shards | page | Queries | most Queries of one shard | items read | read units | \
         bound on items | before: items read | before: read units | items vs before |"
    )
    .map_err(err)?;
    writeln!(
        md,
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    )
    .map_err(err)?;
    let mut first_pages = Vec::new();
    for shards in SHARDS {
        let board = board(&store, shards, opts.entries).await?;
        let stats = proxy.stats();
        stats.start_recording();
        every_shard_in_full(&client, &table.name, &board).await;
        let before = priced(&stats.take_recording()).units;
        let mut cursor = None;
        for page in 1..=2 {
            stats.start_recording();
            let got = store
                .listings()
                .top_scores(&board, LIMIT, cursor.as_deref())
                .await
                .map_err(err)?;
            let read = priced(&stats.take_recording());
            let bound = merged_read_bound(LIMIT + 1, usize::from(shards));
            let u = read.units;
            writeln!(
                md,
                "| {shards} | {page} (ranks {}-{}) | {} | {} | {} | {:.1} | {bound} | {} | {:.1} | {:.2} |",
                got.items.first().map_or(0, |e| e.rank),
                got.items.last().map_or(0, |e| e.rank),
                u.requests,
                read.most_from_one_shard,
                u.items_queried,
                u.read,
                before.items_queried,
                before.read,
                u.items_queried as f64 / before.items_queried.max(1) as f64,
            )
            .map_err(err)?;
            if page == 1 {
                first_pages.push((shards, u.items_queried, bound));
            }
            cursor = got.next_cursor;
        }
    }
    writeln!(md).map_err(err)?;
    let sharded: Vec<_> = first_pages.iter().filter(|(k, _, _)| *k > 1).collect();
    let met = sharded
        .iter()
        .all(|(_, items, bound)| *items <= *bound as u64);
    let measured: Vec<String> = sharded
        .iter()
        .map(|(k, items, bound)| format!("{items} of at most {bound} on {k} shards"))
        .collect();
    writeln!(
        md,
        "Target (issue 83): a first page reads at most n + K·c items whatever K: {} ({}).\n",
        if met { "met" } else { "**missed**" },
        measured.join(", ")
    )
    .map_err(err)?;
    for (shards, items, bound) in sharded {
        fragment::target(
            &format!(
                "a {LIMIT}-entry page of a board of {shards} write shards reads at most \
                 n + K·c items ({bound}), issue 83"
            ),
            &format!("{items} items"),
            *items <= *bound as u64,
        );
    }
    Ok(md)
}
