//! Erasing a player with 10,000 sessions through the API handler against DynamoDB Local, in
//! invocations of the template's 10 s timeout (`DELETE /admin/players/{p}` repeated until it
//! answers 204, as a client or the schedule would), next to a plain Query + BatchWriteItem
//! delete of the same sessions in the same run.
//!
//! `cargo bench -p leaderboard-api --bench erase` (`QUICK=1`: 2,000 sessions). With `BENCH_OUT`
//! set (scripts/bench) it also writes its table to `$BENCH_OUT/75-erase.md`.

#[path = "../../../bench/src/fragment.rs"]
mod fragment;
use fragment::say;

use std::time::Instant;

use aws_sdk_dynamodb::types::{AttributeValue, DeleteRequest, PutRequest, WriteRequest};
use lambda_http::{Context, RequestExt};
use leaderboard_api::{App, handle};
use leaderboard_devkit::local::{RequestCounter, counting_client};
use leaderboard_devkit::testing::{RawItem, TestTable, endpoint};
use leaderboard_keys::ids::{BoardId, GameId, PlayerId, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{NewBoard, Operator, Recurrence};
use leaderboard_store::{Config, Play, Store};
use serde_json::json;

const PLAYER: &str = "p_leaving";
const TIMEOUT_MS: u64 = 10_000;

/// A table with one open board and the player's two plays on it, and `sessions` more sessions
/// of the player (copies of a played one, put directly).
async fn with_the_player(
    label: &str,
    ep: &str,
    sessions: usize,
) -> (TestTable, Store, std::sync::Arc<RequestCounter>) {
    let table = TestTable::without_stream(label).await;
    let (client, counter) = counting_client(ep);
    let store = Store::new(
        client,
        &Config {
            table_name: table.name.clone(),
            cursor_secret: b"bench-cursor-secret".to_vec(),
        },
    );
    let now = Timestamp::now();
    let board = BoardId::parse("season").unwrap();
    store
        .boards()
        .create_board(
            NewBoard {
                order: Order::Desc,
                operator: Operator::Best,
                max_score: 9_999_999_999,
                starts_at: Some(Timestamp::from_millis(now.as_millis() - 60_000).unwrap()),
                ends_at: Some(Timestamp::from_millis(now.as_millis() + 86_400_000).unwrap()),
                recurrence: Recurrence::None,
                ..NewBoard::named(board.clone(), "Season".into())
            },
            now,
        )
        .await
        .unwrap();
    for score in [10, 20] {
        let play = Play {
            subscores: Default::default(),
            idempotency_key: None,
            metadata: None,
            player_id: PlayerId::parse(PLAYER).unwrap(),
            session_id: SessionId::from_parts(now.as_millis(), score.into()).unwrap(),
            game_id: Some(GameId::parse("tetris").unwrap()),
            score,
            duration_sec: None,
            board_ids: vec![board.clone()],
        };
        store.plays().record_play(&play, now).await.unwrap();
    }
    let template = table
        .dump()
        .await
        .into_iter()
        .find(|i| {
            i.get("sk")
                .and_then(|v| v.as_s().ok())
                .is_some_and(|s| s.starts_with("SESSION#"))
        })
        .unwrap();
    let puts: Vec<WriteRequest> = (0..sessions)
        .map(|i| {
            let id = SessionId::from_parts(now.as_millis() - 1_000_000 + i as u64, i as u128)
                .unwrap()
                .to_string();
            let mut item: RawItem = template.clone();
            for (attr, value) in [
                ("sk", format!("SESSION#{id}")),
                ("gsi2sk", format!("SESSION#{id}")),
                ("sessionId", id),
            ] {
                item.insert(attr.into(), AttributeValue::S(value));
            }
            let put = PutRequest::builder().set_item(Some(item)).build().unwrap();
            WriteRequest::builder().put_request(put).build()
        })
        .collect();
    write_all(&table.client, &table.name, puts).await;
    counter.reset();
    (table, store, counter)
}

async fn write_all(client: &aws_sdk_dynamodb::Client, table: &str, requests: Vec<WriteRequest>) {
    for chunk in requests.chunks(25) {
        let mut pending = chunk.to_vec();
        while !pending.is_empty() {
            let out = client
                .batch_write_item()
                .request_items(table, pending)
                .send()
                .await
                .unwrap();
            pending = out
                .unprocessed_items
                .unwrap_or_default()
                .remove(table)
                .unwrap_or_default();
        }
    }
}

#[tokio::main]
async fn main() {
    let quick = std::env::var("QUICK").is_ok_and(|v| v == "1");
    let sessions = if quick { 2_000 } else { 10_000 };
    let ep = endpoint().await;

    // The erasure, through the handler, an invocation of 10 s at a time.
    let (table, store, counter) = with_the_player("bench_erase", &ep, sessions).await;
    let app = App::new(store);
    let template: serde_json::Value = serde_json::from_str(include_str!(
        "../../../events/leaderboard-api/delete-admin-player.json"
    ))
    .unwrap();
    let mut event = template.clone();
    event["rawPath"] = json!(format!("/admin/players/{PLAYER}"));
    event["pathParameters"]["playerId"] = json!(PLAYER);
    let started = Instant::now();
    let mut invocations = 0;
    loop {
        invocations += 1;
        assert!(invocations < 100, "the erasure does not finish");
        let mut context = Context::default();
        context.deadline = Timestamp::now().as_millis() + TIMEOUT_MS;
        let req = lambda_http::request::from_str(&event.to_string())
            .unwrap()
            .with_lambda_context(context);
        let status = handle(&app, req).await.unwrap().status().as_u16();
        match status {
            204 => break,
            202 => continue,
            other => panic!("the erasure answered {other}"),
        }
    }
    let erase_secs = started.elapsed().as_secs_f64();
    let erase_requests = counter.snapshot();
    let left = table
        .dump()
        .await
        .iter()
        .filter(|i| format!("{i:?}").contains(PLAYER))
        .count();
    assert_eq!(left, 0, "items still hold the id");

    // The floor: the same sessions deleted by a plain Query + BatchWriteItem.
    let (plain, _store, _) = with_the_player("bench_erase_plain", &ep, sessions).await;
    let (client, plain_counter) = counting_client(&ep);
    let started = Instant::now();
    let mut deleted = 0usize;
    loop {
        let out = client
            .query()
            .table_name(&plain.name)
            .key_condition_expression("pk = :pk AND begins_with(sk, :s)")
            .expression_attribute_values(":pk", AttributeValue::S(format!("PLAYER#{PLAYER}")))
            .expression_attribute_values(":s", AttributeValue::S("SESSION#".into()))
            .projection_expression("pk, sk")
            .consistent_read(true)
            .send()
            .await
            .unwrap();
        let keys = out.items.unwrap_or_default();
        if keys.is_empty() {
            break;
        }
        deleted += keys.len();
        let deletes = keys
            .into_iter()
            .map(|key| {
                let delete = DeleteRequest::builder().set_key(Some(key)).build().unwrap();
                WriteRequest::builder().delete_request(delete).build()
            })
            .collect();
        write_all(&client, &plain.name, deletes).await;
    }
    let plain_secs = started.elapsed().as_secs_f64();
    assert_eq!(deleted, sessions + 2);

    let total: u64 = erase_requests.values().sum();
    let by_op = erase_requests
        .iter()
        .map(|(op, n)| format!("{op} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let items = sessions + 2;
    let mut md = String::from(
        "## Erasure (DynamoDB Local)\n\n\
         `cargo bench -p leaderboard-api --bench erase`: `DELETE /admin/players/{p}` through the \
         handler, each invocation given the template's 10 s timeout and repeated until it answers \
         204 (as a client or the schedule would), next to a plain delete of the same sessions, in \
         one run.\n\n",
    );
    say!(
        md,
        "| player with {items} sessions, 2 plays' entries | invocations | seconds | items/s | requests |"
    );
    say!(md, "| --- | --- | --- | --- | --- |");
    say!(
        md,
        "| erasure (marker, audited, counted transactions of 99, entries removed from the index) | {invocations} | {erase_secs:.2} | {:.0} | {total} ({by_op}) |",
        items as f64 / erase_secs
    );
    say!(
        md,
        "| plain Query + BatchWriteItem delete of the sessions | - | {plain_secs:.2} | {:.0} | {} |",
        items as f64 / plain_secs,
        plain_counter.total()
    );
    say!(md);
    say!(
        md,
        "Erasure/plain items per second: {:.2}. The erasure deletes in transactions (2 write units \
         an item, against 1 for a batch) so that its counts on the receipt are exact however it \
         is interrupted.",
        (items as f64 / erase_secs) / (items as f64 / plain_secs)
    );
    fragment::write("75-erase.md", &md);
}
