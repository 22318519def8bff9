//! `lbctl expr` against DynamoDB Local: each access pattern's printed Query, run through the
//! SDK exactly as printed, returns that pattern's items (the store's answer and the contract's
//! rank order agree with it), on boards of both orders with ties.

use crate::common;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, Select};
use common::*;
use leaderboard_devkit::testing::ranked;
use leaderboard_keys::rank::Order;
use serde_json::Value;

/// Runs a printed Query input; the items' playerIds and the count.
async fn query(client: &Client, doc: &Value) -> (Vec<String>, i32) {
    let (items, count) = query_keyed(client, doc).await;
    (items.into_iter().map(|(_, p)| p).collect(), count)
}

/// Runs a printed Query input; the items' (sort key, playerId) and the count.
async fn query_keyed(client: &Client, doc: &Value) -> (Vec<(String, String)>, i32) {
    let mut q = client
        .query()
        .table_name(doc["TableName"].as_str().unwrap())
        .key_condition_expression(doc["KeyConditionExpression"].as_str().unwrap())
        .scan_index_forward(doc["ScanIndexForward"].as_bool().unwrap())
        .consistent_read(doc["ConsistentRead"].as_bool().unwrap());
    for (k, v) in doc["ExpressionAttributeNames"].as_object().unwrap() {
        q = q.expression_attribute_names(k, v.as_str().unwrap());
    }
    for (k, v) in doc["ExpressionAttributeValues"].as_object().unwrap() {
        q = q.expression_attribute_values(k, AttributeValue::S(v["S"].as_str().unwrap().into()));
    }
    if let Some(l) = doc.get("Limit") {
        q = q.limit(l.as_i64().unwrap() as i32);
    }
    if let Some(s) = doc.get("Select") {
        q = q.select(Select::from(s.as_str().unwrap()));
    }
    let out = q.send().await.unwrap();
    let players = out
        .items()
        .iter()
        .map(|i| {
            let s = |a: &str| i[a].as_s().unwrap().clone();
            (s("sk"), s("playerId"))
        })
        .collect();
    (players, out.count())
}

/// Runs every shard's Query of a printed document and merges them as it says: by sort key in
/// each Query's direction, the first `Limit` kept; the counts summed.
async fn merged(client: &Client, doc: &Value) -> (Vec<String>, i32) {
    let queries = doc["queries"].as_array().unwrap();
    assert_eq!(doc["writeShards"].as_u64(), Some(queries.len() as u64));
    let (mut items, mut count) = (Vec::new(), 0);
    for q in queries {
        let (got, n) = query_keyed(client, q).await;
        items.extend(got);
        count += n;
    }
    items.sort();
    if queries[0]["ScanIndexForward"] == Value::Bool(false) {
        items.reverse();
    }
    if let Some(limit) = queries[0].get("Limit") {
        items.truncate(limit.as_u64().unwrap() as usize);
    }
    (items.into_iter().map(|(_, p)| p).collect(), count)
}

async fn doc(store: &leaderboard_store::Store, args: &[&str]) -> Value {
    let text = lbctl(store, true, args).await.unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))
}

#[tokio::test]
async fn each_patterns_query_returns_its_items_on_both_orders() {
    let (table, store) = store("lbctl_expr").await;
    for (id, order) in [("ties_desc", Order::Desc), ("ties_asc", Order::Asc)] {
        let (board, truth) = board_with(&store, id, order, 999, entries(60, 9)).await;
        let names: Vec<String> = truth.iter().map(|e| e.0.to_string()).collect();

        // top: the first 10 in rank order, as the store lists them.
        let (top, _) = query(
            &table.client,
            &doc(&store, &["expr", "top", id, "--limit", "10"]).await,
        )
        .await;
        assert_eq!(top, names[..10]);
        let page = store.listings().top_scores(&board, 10, None).await.unwrap();
        let listed: Vec<String> = page.items.iter().map(|e| e.player_id.to_string()).collect();
        assert_eq!(top, listed);

        for at_rank in [1usize, 2, 17, 30, 59, 60] {
            let player = names[at_rank - 1].clone();
            // rank: the count above, plus one.
            let (_, count) = query(
                &table.client,
                &doc(&store, &["expr", "rank", id, &player]).await,
            )
            .await;
            assert_eq!(count as usize + 1, at_rank, "{id} {player}");

            // around: the 3 above (ascending: reversed), then the player's and 3 below.
            let around = doc(&store, &["expr", "around", id, &player, "--n", "3"]).await;
            let (mut above, _) = query(&table.client, &around["above"]).await;
            above.reverse();
            let (below, _) = query(&table.client, &around["below"]).await;
            let lo = at_rank.saturating_sub(4);
            let hi = (at_rank + 3).min(names.len());
            assert_eq!(above, names[lo..at_rank - 1], "{id} {player} above");
            assert_eq!(below, names[at_rank - 1..hi], "{id} {player} below");
            let window = store
                .listings()
                .around_player(&board, &truth[at_rank - 1].0, 3)
                .await
                .unwrap()
                .unwrap();
            let served: Vec<String> = window.iter().map(|e| e.player_id.to_string()).collect();
            assert_eq!([above, below].concat(), served);
            // One side alone is that side's Query.
            let side = doc(
                &store,
                &["expr", "around", id, &player, "--n", "3", "--side", "above"],
            )
            .await;
            assert_eq!(side, around["above"]);
        }

        // between: exactly the entries of those scores, in rank order, whichever end is given
        // first, read from the board or given.
        let want: Vec<String> = truth
            .iter()
            .filter(|e| (102..=105).contains(&e.1))
            .map(|e| e.0.to_string())
            .collect();
        assert!(want.len() > 10, "ties in the range");
        for args in [
            vec!["expr", "between", id, "102", "105"],
            vec!["expr", "between", id, "105", "102"],
            vec![
                "expr",
                "between",
                id,
                "102",
                "105",
                "--order",
                if order == Order::Asc { "asc" } else { "desc" },
                "--max-score",
                "999",
            ],
        ] {
            let (got, _) = query(&table.client, &doc(&store, &args).await).await;
            assert_eq!(got, want, "{args:?}");
        }
    }
    // prefix: any partition, here a board's metadata and entries alike.
    let (got, count) = query(
        &table.client,
        &doc(
            &store,
            &[
                "expr",
                "prefix",
                "LEADERBOARD#ties_desc",
                "SCORE#",
                "--limit",
                "5",
            ],
        )
        .await,
    )
    .await;
    assert_eq!((got.len(), count), (5, 5));
}

#[tokio::test]
async fn what_does_not_exist_is_exit_code_3_and_a_bad_argument_2() {
    let (_table, store) = store("lbctl_expr_missing").await;
    board_with(&store, "small", Order::Desc, 999, entries(5, 5)).await;
    for (args, code) in [
        (vec!["expr", "rank", "small", "p_nobody"], 3),
        (vec!["expr", "between", "nowhere", "1", "2"], 3),
        (vec!["expr", "rank", "small", "bad#id"], 2),
        (vec!["expr", "between", "small", "1", "1000"], 2),
        (vec!["expr", "top"], 2),
    ] {
        let e = lbctl(&store, true, &args)
            .await
            .expect_err(&format!("{args:?}"));
        assert_eq!(e.exit_code(), code, "{args:?}: {e}");
    }
}

#[tokio::test]
async fn a_sharded_boards_pattern_is_one_query_a_shard_that_merge_to_its_answer() {
    let (table, store) = store("lbctl_expr_shards").await;
    let id = "ties_shards";
    let mut nb = new_board(id, Order::Desc, 999);
    nb.write_shards = 4;
    let board = store.boards().create_board(nb, at(0)).await.unwrap();
    let truth = ranked(entries(60, 9), Order::Desc);
    store.boards().import_entries(&board, &truth).await.unwrap();
    let names: Vec<String> = truth.iter().map(|e| e.0.to_string()).collect();

    let top = doc(&store, &["expr", "top", id, "--limit", "10"]).await;
    assert_eq!(top["queries"].as_array().unwrap().len(), 4, "{top}");
    assert_eq!(merged(&table.client, &top).await.0, names[..10]);
    for at_rank in [1usize, 17, 60] {
        let player = names[at_rank - 1].clone();
        let rank = doc(&store, &["expr", "rank", id, &player]).await;
        assert_eq!(merged(&table.client, &rank).await.1 as usize + 1, at_rank);
        let below = doc(
            &store,
            &["expr", "around", id, &player, "--n", "3", "--side", "below"],
        )
        .await;
        let hi = (at_rank + 3).min(names.len());
        assert_eq!(
            merged(&table.client, &below).await.0,
            names[at_rank - 1..hi]
        );
    }
    let want: Vec<String> = truth
        .iter()
        .filter(|e| (102..=105).contains(&e.1))
        .map(|e| e.0.to_string())
        .collect();
    let between = doc(&store, &["expr", "between", id, "102", "105"]).await;
    assert_eq!(merged(&table.client, &between).await.0, want);
}
