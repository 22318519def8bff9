//! The rank index's layout v2 in the table, on DynamoDB Local: what a play on a v2 board
//! records on its lane (the change log the index is applied from).

mod common;

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use common::*;
use leaderboard_keys::entity;
use leaderboard_keys::rank::Order;
use leaderboard_keys::rank_v2::CHANGE_ATTR;
use leaderboard_keys::rankindex::{WRITTEN_SHARDS, shard_of};
use leaderboard_store::Store;
use leaderboard_store::model::{Operator, RankLayout};

async fn v2_board(store: &Store, id: &str) {
    let mut new = new_board(id, Order::Desc, Operator::Best, 9_999_999_999);
    new.rank_layout = RankLayout::V2;
    let board = store.create_board(new, at(0)).await.unwrap();
    assert_eq!(board.rank_layout, RankLayout::V2);
}

/// The player's current sort key on `board`.
async fn key_of(store: &Store, board: &str, player: &str) -> String {
    store
        .entry_pointer(&bid(board), &pid(player))
        .await
        .unwrap()
        .unwrap()
        .score_sk
}

/// A lane's `written` and `chg` as stored.
async fn lane(
    table: &leaderboard_devkit::testing::TestTable,
    board: &str,
    lane: u8,
) -> (u64, Option<HashMap<String, AttributeValue>>) {
    let key = entity::rank_written(&bid(board), lane);
    let item = table.raw(&key.pk, &key.sk).await.unwrap_or_default();
    let written = item
        .get("written")
        .map_or(0, |v| v.as_n().unwrap().parse().unwrap());
    let chg = item.get(CHANGE_ATTR).map(|v| v.as_m().unwrap().clone());
    (written, chg)
}

fn change(old: Option<&str>, new: &str) -> HashMap<String, AttributeValue> {
    let mut m = HashMap::from([("n".to_owned(), AttributeValue::S(new.to_owned()))]);
    if let Some(old) = old {
        m.insert("o".to_owned(), AttributeValue::S(old.to_owned()));
    }
    m
}

#[tokio::test]
async fn a_play_on_a_v2_board_records_its_change_on_its_lane_numbered_by_written() {
    let (table, store) = store("rank_v2_lanes").await;
    v2_board(&store, "v2").await;
    board(&store, "v1", Order::Desc, Operator::Best).await;
    // Two players in different lanes.
    let ada = "ada";
    let bob = (0..)
        .map(|i| format!("bob{i}"))
        .find(|p| shard_of(p, WRITTEN_SHARDS) != shard_of(ada, WRITTEN_SHARDS))
        .unwrap();
    let (la, lb) = (
        shard_of(ada, WRITTEN_SHARDS),
        shard_of(&bob, WRITTEN_SHARDS),
    );

    submit(&store, ada, 10, &["v2", "v1"], 1_000).await;
    let first = key_of(&store, "v2", ada).await;
    assert_eq!(
        lane(&table, "v2", la).await,
        (1, Some(change(None, &first)))
    );

    submit(&store, ada, 30, &["v2", "v1"], 2_000).await;
    let second = key_of(&store, "v2", ada).await;
    assert_eq!(
        lane(&table, "v2", la).await,
        (2, Some(change(Some(&first), &second)))
    );

    // A play that changes no entry records nothing.
    submit(&store, ada, 5, &["v2"], 3_000).await;
    assert_eq!(lane(&table, "v2", la).await.0, 2);

    submit(&store, &bob, 20, &["v2"], 4_000).await;
    let bobs = key_of(&store, "v2", &bob).await;
    assert_eq!(lane(&table, "v2", lb).await, (1, Some(change(None, &bobs))));
    assert_eq!(
        lane(&table, "v2", la).await.0,
        2,
        "another lane is untouched"
    );

    // A v1 board counts its lanes as before, without a change log.
    assert_eq!(lane(&table, "v1", la).await, (2, None));
}
