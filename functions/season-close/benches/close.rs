//! Season close throughput against DynamoDB Local, next to the same board's close granting
//! rewards to half its standings, and a plain Query + BatchWriteItem copy of it, in the same run.
//!
//! `cargo bench -p season-close --bench close` (uses `DYNAMODB_ENDPOINT`, or starts DynamoDB Local).
//! With `BENCH_OUT` set (scripts/bench) it also writes its table to `$BENCH_OUT/70-close.md`.

#[path = "../../../bench/src/fragment.rs"]
mod fragment;
use fragment::say;

use std::time::Instant;

use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
use leaderboard_devkit::local::counting_client;
use leaderboard_devkit::testing::{TestTable, endpoint};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{NewBoard, Operator, Recurrence};
use leaderboard_store::{CloseOptions, Config, Store};

const PLAYERS: usize = 5000;

async fn board(
    label: &str,
    ep: &str,
    rewards: serde_json::Value,
) -> (
    TestTable,
    Store,
    std::sync::Arc<leaderboard_devkit::local::RequestCounter>,
) {
    let table = TestTable::without_stream(label).await;
    let (client, counter) = counting_client(ep);
    let store = Store::new(
        client,
        &Config {
            table_name: table.name.clone(),
            cursor_secret: b"b".to_vec(),
        },
    );
    let now = Timestamp::now().as_millis();
    let b = store
        .boards()
        .create_board(
            NewBoard {
                order: Order::Desc,
                operator: Operator::Best,
                max_score: 9_999_999_999,
                starts_at: Some(Timestamp::from_millis(now - 7_200_000).unwrap()),
                ends_at: Some(Timestamp::from_millis(now - 3_600_000).unwrap()),
                recurrence: Recurrence::Season,
                rewards: serde_json::from_value(rewards).unwrap(),
                ..NewBoard::named(BoardId::parse("season_1").unwrap(), "Season 1".into())
            },
            Timestamp::from_millis(now - 7_200_000).unwrap(),
        )
        .await
        .unwrap();
    let entries: Vec<_> = (0..PLAYERS)
        .map(|i| {
            let t = Timestamp::from_millis(now - 5_000_000 + i as u64).unwrap();
            (
                PlayerId::parse(&format!("p{i:05}")).unwrap(),
                (i as u64 * 7919) % 100_000,
                t,
            )
        })
        .collect();
    store.boards().import_entries(&b, &entries).await.unwrap();
    counter.reset();
    (table, store, counter)
}

/// Closes `season_1` of `store` whole: the seconds it took and the requests it sent.
async fn close(store: &Store, counter: &leaderboard_devkit::local::RequestCounter) -> (f64, u64) {
    let started = Instant::now();
    let options = CloseOptions {
        page_size: 500,
        ..CloseOptions::default()
    };
    store
        .close()
        .close_board(
            &BoardId::parse("season_1").unwrap(),
            Timestamp::now(),
            &options,
        )
        .await
        .unwrap();
    (started.elapsed().as_secs_f64(), counter.total())
}

#[tokio::main]
async fn main() {
    let ep = endpoint().await;
    let (_a, store, counter) = board("bench_close", &ep, serde_json::json!([])).await;
    let (close_secs, close_requests) = close(&store, &counter).await;
    // Half the standings rewarded: 2,500 conditional puts in transactions of 100.
    let bands = serde_json::json!([{"ranks": [1, 1], "reward": "gold"},
        {"ranks": [2, 10], "reward": "silver"}, {"topPercent": 50, "reward": "half"}]);
    let (_r, rewarded, counter) = board("bench_rewards", &ep, bands).await;
    let (rewards_secs, rewards_requests) = close(&rewarded, &counter).await;

    // The baseline: Query the board page by page and BatchWriteItem one copy of each entry.
    let (b, copy_store, counter) = board("bench_copy", &ep, serde_json::json!([])).await;
    // The counting client, so the copy's requests are measured like the close's.
    let client = copy_store.client();
    let started = Instant::now();
    let mut start = None;
    let mut copied = 0usize;
    loop {
        let out = client
            .query()
            .table_name(&b.name)
            .key_condition_expression("pk = :pk AND begins_with(sk, :p)")
            .expression_attribute_values(
                ":pk",
                aws_sdk_dynamodb::types::AttributeValue::S("LEADERBOARD#season_1".into()),
            )
            .expression_attribute_values(
                ":p",
                aws_sdk_dynamodb::types::AttributeValue::S("SCORE#".into()),
            )
            .scan_index_forward(false)
            .set_exclusive_start_key(start)
            .send()
            .await
            .unwrap();
        let items = out.items.unwrap_or_default();
        for chunk in items.chunks(25) {
            let mut requests: Vec<WriteRequest> = chunk
                .iter()
                .map(|item| {
                    let mut copy = item.clone();
                    copy.insert(
                        "pk".into(),
                        aws_sdk_dynamodb::types::AttributeValue::S("COPY#season_1".into()),
                    );
                    WriteRequest::builder()
                        .put_request(PutRequest::builder().set_item(Some(copy)).build().unwrap())
                        .build()
                })
                .collect();
            while !requests.is_empty() {
                let out = client
                    .batch_write_item()
                    .request_items(&b.name, requests)
                    .send()
                    .await
                    .unwrap();
                requests = out
                    .unprocessed_items
                    .unwrap_or_default()
                    .remove(&b.name)
                    .unwrap_or_default();
            }
        }
        copied += items.len();
        start = out.last_evaluated_key;
        if start.is_none() {
            break;
        }
    }
    let copy_secs = started.elapsed().as_secs_f64();
    assert_eq!(copied, PLAYERS);
    let mut md = String::from(
        "## Season close (DynamoDB Local)\n\n\
         `cargo bench -p season-close --bench close`: close of one board, of the same board granting rewards, and a plain copy of it, in one run.\n\n",
    );
    say!(
        md,
        "| {PLAYERS}-player board | seconds | entries/s | items written per entry | requests |"
    );
    say!(md, "| --- | --- | --- | --- | --- |");
    say!(
        md,
        "| season close (snapshot + results + archive + checkpoints) | {close_secs:.2} | {:.0} | 4 | {close_requests} |",
        PLAYERS as f64 / close_secs
    );
    say!(
        md,
        "| the same, granting rewards to the top half ({} rewards) | {rewards_secs:.2} | {:.0} | 4, and a reward for half of them | {rewards_requests} |",
        PLAYERS / 2,
        PLAYERS as f64 / rewards_secs
    );
    say!(
        md,
        "| plain Query + BatchWriteItem copy | {copy_secs:.2} | {:.0} | 1 | {} |",
        PLAYERS as f64 / copy_secs,
        counter.total()
    );
    say!(md);
    say!(
        md,
        "Close writes four items per entry (Final standing, Season result, and the live Score item and \
         its pointer re-put with a ttl) and checkpoints every 500 entries; the copy writes one. \
         Ratio close/copy entries per second: {:.2}; the close with rewards took {:.2} times \
         as long as the one without (each reward is a conditional put in a transaction of 100, two write units).",
        (PLAYERS as f64 / close_secs) / (PLAYERS as f64 / copy_secs),
        rewards_secs / close_secs
    );
    fragment::write("70-close.md", &md);
}
