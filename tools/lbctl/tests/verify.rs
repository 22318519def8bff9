//! `lbctl verify` against DynamoDB Local: a healthy board passes; each kind of injected
//! corruption is reported with its key, and exits 4.

mod common;

use aws_sdk_dynamodb::types::AttributeValue;
use common::*;
use leaderboard_devkit::testing::{RawItem, TestTable, s};
use leaderboard_keys::rank::Order;
use serde_json::Value;

async fn put(table: &TestTable, item: RawItem) {
    table
        .client
        .put_item()
        .table_name(&table.name)
        .set_item(Some(item))
        .send()
        .await
        .unwrap();
}

/// The board's Score items, in rank order.
async fn scores(table: &TestTable, board: &str) -> Vec<RawItem> {
    let pk = format!("LEADERBOARD#{board}");
    let mut items: Vec<RawItem> = table
        .dump()
        .await
        .into_iter()
        .filter(|i| {
            s(i, "pk") == Some(pk.as_str()) && s(i, "sk").is_some_and(|k| k.starts_with("SCORE#"))
        })
        .collect();
    items.sort_by(|a, b| s(b, "sk").cmp(&s(a, "sk")));
    items
}

/// `lbctl verify <board> --json`: its exit code and the violations' (kind, key).
async fn verify(store: &leaderboard_store::Store, board: &str) -> (i32, Vec<(String, String)>) {
    let ctl = lbctl::Ctl::with_store(store.clone(), true);
    let mut out = Vec::new();
    let (code, why) = match lbctl::run_args(&ctl, ["verify", board], &mut out).await {
        Ok(()) => (0, String::new()),
        Err(e) => (e.exit_code(), e.to_string()),
    };
    let report: Value = serde_json::from_slice(&out).unwrap_or_else(|_| panic!("{board}: {why}"));
    let found = report["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["kind"].as_str().unwrap().to_owned(),
                v["key"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (code, found)
}

#[tokio::test]
async fn each_kind_of_corruption_is_reported_with_its_key() {
    let (table, store) = store("lbctl_verify").await;
    for id in ["healthy", "orphan", "stale", "twice", "edited"] {
        let (board, _) = board_with(&store, id, Order::Desc, 999, entries(30, 30)).await;
        store.build_rank_index(&board).await.unwrap();
    }
    assert_eq!(verify(&store, "healthy").await, (0, vec![]));

    // An orphan: a Score item no player's pointer names (and one more than the lanes count).
    let mut orphan = scores(&table, "orphan").await[4].clone();
    let sk = "SCORE#500#8232774399999#p_orphan".to_owned();
    orphan.insert("sk".into(), AttributeValue::S(sk.clone()));
    orphan.insert("playerId".into(), AttributeValue::S("p_orphan".into()));
    orphan.insert("score".into(), AttributeValue::N("500".into()));
    orphan.insert("attainedAt".into(), AttributeValue::S(at(0).to_string()));
    put(&table, orphan).await;
    let (code, found) = verify(&store, "orphan").await;
    assert_eq!(code, 4);
    assert_eq!(
        found,
        [
            ("no_pointer".to_owned(), sk),
            ("entry_count".to_owned(), String::new())
        ]
    );

    // A stale pointer: the player's pointer names another key than their Score item's.
    let item = scores(&table, "stale").await[7].clone();
    let (player, key) = (
        s(&item, "playerId").unwrap().to_owned(),
        s(&item, "sk").unwrap().to_owned(),
    );
    let ptr = format!("PLAYER#{player}");
    let mut pointer = table.raw(&ptr, "ENTRY#stale").await.unwrap();
    pointer.insert(
        "scoreSk".into(),
        AttributeValue::S("SCORE#001#8232774399999#".to_owned() + &player),
    );
    put(&table, pointer).await;
    assert_eq!(
        verify(&store, "stale").await,
        (4, vec![("not_the_players_entry".to_owned(), key)])
    );

    // Two entries for one player: a second Score item of theirs, at another score.
    let mut second = scores(&table, "twice").await[2].clone();
    let player = s(&second, "playerId").unwrap().to_owned();
    let sk = format!("SCORE#001#8232774399999#{player}");
    second.insert("sk".into(), AttributeValue::S(sk.clone()));
    second.insert("score".into(), AttributeValue::N("1".into()));
    second.insert("attainedAt".into(), AttributeValue::S(at(0).to_string()));
    put(&table, second).await;
    let (code, found) = verify(&store, "twice").await;
    assert_eq!(code, 4);
    assert_eq!(
        found,
        [
            ("not_the_players_entry".to_owned(), sk),
            ("entry_count".to_owned(), String::new())
        ]
    );

    // A hand edit: the item's score no longer what its key says.
    let item = scores(&table, "edited").await[0].clone();
    let key = s(&item, "sk").unwrap().to_owned();
    table
        .update_raw("LEADERBOARD#edited", &key, "SET score = score + score")
        .await;
    assert_eq!(
        verify(&store, "edited").await,
        (4, vec![("key_mismatch".to_owned(), key)])
    );

    // Text: a line a problem.
    let e = lbctl(&store, false, &["verify", "edited"])
        .await
        .unwrap_err();
    assert_eq!(e.exit_code(), 4);
    let text = lbctl(&store, false, &["verify", "healthy"]).await.unwrap();
    assert!(text.contains("30 entries checked, 0 problems"), "{text}");
}
