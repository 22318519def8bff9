//! Ranks on a board made before the rank index existed (`rankIndex` and `rankLayout` absent),
//! until the migration moves it onto the index: the capped count alone. Within the first 1,000 the rank is exact; beyond them the answer says so (rank 1001,
//! not exact, the "not known" lag), and no lookup reads more than 1,000 keys.

use crate::common;

use common::*;
use leaderboard_devkit::local::counting_client;
use leaderboard_keys::entity;
use leaderboard_keys::rank::Order;
use leaderboard_store::model::Operator;
use leaderboard_store::{Config, Store, UNINDEXED_LAG};

#[tokio::test]
async fn a_board_without_an_index_counts_only_the_first_thousand() {
    let (table, store) = store("unindexed").await;
    let board = board(&store, "old", Order::Desc, Operator::Best).await;
    // GIVEN a board as made before the index: no `rankIndex`, no `rankLayout`, no written counts
    store
        .client()
        .update_item()
        .table_name(store.table_name())
        .set_key(Some(
            [
                ("pk".to_owned(), s(entity::board(&board.board_id).pk)),
                ("sk".to_owned(), s(entity::board(&board.board_id).sk)),
            ]
            .into(),
        ))
        .update_expression("REMOVE rankIndex, rankLayout")
        .send()
        .await
        .unwrap();
    let old = stored_board(&store, "old").await;
    assert!(!old.rank_index);
    // AND 1,200 entries, one per score: player i has score 1,200 - i, so rank i + 1
    let entries: Vec<_> = (0..1_200u64)
        .map(|i| (pid(&format!("p{i:04}")), 1_200 - i, at(i)))
        .collect();
    store.boards().import_entries(&old, &entries).await.unwrap();

    let (client, counter) = counting_client(&table.endpoint);
    let counted = Store::new(
        client,
        &Config {
            table_name: table.name.clone(),
            cursor_secret: b"t".to_vec(),
        },
    );
    for (i, want_exact) in [(0, true), (500, true), (998, true), (1_100, false)] {
        counter.reset();
        // WHEN a player's rank is read
        let (entry, cost) = counted
            .rank()
            .player_rank_counted(&old, &pid(&format!("p{i:04}")))
            .await
            .unwrap()
            .unwrap();
        let f = entry.freshness.unwrap();
        // THEN it is one capped count after the pointer, never the index, never a second page
        let ops = counter.snapshot();
        assert_eq!(ops.get("Query"), Some(&1), "{ops:?}");
        assert_eq!(ops.get("TransactGetItems"), None, "{ops:?}");
        assert_eq!((cost.requests, cost.count_queries), (2, 1), "{cost:?}");
        assert!(cost.keys_counted <= 1_000, "{cost:?}");
        if want_exact {
            // AND within the first thousand it is exact
            assert_eq!(entry.rank, i + 1);
            assert!(f.rank_exact && f.rank_lag == 0, "{f:?}");
        } else {
            // AND beyond them it says so
            assert_eq!(entry.rank, 1_001);
            assert!(!f.rank_exact, "{f:?}");
            assert_eq!(f.rank_lag, UNINDEXED_LAG);
            assert!(f.player_count >= entry.rank);
        }
    }
}

fn s(v: impl Into<String>) -> aws_sdk_dynamodb::types::AttributeValue {
    aws_sdk_dynamodb::types::AttributeValue::S(v.into())
}
