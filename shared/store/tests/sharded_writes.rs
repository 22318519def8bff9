//! A board of several write shards against DynamoDB Local: each player's Score item is in their
//! shard's partition (`LEADERBOARD#<b>#<shard>`), exactly one per player however often they
//! play, on every write path (plays, a bulk import, an admin's removal); its rank index lanes
//! keep a partition key each, never grouped; `writeShards` outside 1..=32 is refused and writes
//! nothing.

use crate::common;

use common::*;
use leaderboard_devkit::testing::{RawItem, TestTable, s};
use leaderboard_keys::entity;
use leaderboard_keys::rank::Order;
use leaderboard_store::model::Operator;
use leaderboard_store::{LaneGrouping, StoreError, SweepOptions};

/// The board's Score items, as (pk, sk).
async fn score_items(table: &TestTable, board: &str) -> Vec<(String, String)> {
    let prefix = format!("LEADERBOARD#{board}");
    let is_score = |i: &RawItem| {
        s(i, "pk").is_some_and(|pk| pk.starts_with(&prefix))
            && s(i, "sk").is_some_and(|sk| sk.starts_with("SCORE#"))
    };
    table
        .dump()
        .await
        .iter()
        .filter(|i| is_score(i))
        .map(|i| {
            (
                s(i, "pk").unwrap().to_owned(),
                s(i, "sk").unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn every_entry_is_in_its_players_shard_once() {
    let (table, store) = store_without_stream("sharded_writes").await;
    let mut nb = new_board("hot", Order::Desc, Operator::Increment, 9_999_999_999);
    nb.write_shards = 8;
    let board = store.boards().create_board(nb, at(0)).await.unwrap();
    assert_eq!(board.write_shards, 8);
    assert_eq!(stored_board(&store, "hot").await.write_shards, 8);
    // 40 players, 3 plays each on an increment board: every play moves the entry.
    for round in 0..3u64 {
        for i in 0..40u64 {
            let ms = 1_000 * (round * 40 + i + 1);
            submit(&store, &format!("p{i:02}"), 10 + i, &["hot"], ms).await;
        }
    }
    let items = score_items(&table, "hot").await;
    assert_eq!(items.len(), 40);
    let mut shards = std::collections::BTreeSet::new();
    for (pk, sk) in &items {
        let player = pid(sk.rsplit('#').next().unwrap());
        assert_eq!(*pk, entity::score_pk(&bid("hot"), 8, &player), "{sk}");
        let pointer = store
            .listings()
            .entry_pointer(&bid("hot"), &player)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (&pointer.score_sk, pointer.entry.score),
            (sk, 3 * (10 + pointer_index(sk)))
        );
        shards.insert(pk.clone());
    }
    assert_eq!(shards.len(), 8, "40 players use every shard");
    assert_eq!(store.rank().index_state(&board).await.unwrap().entries, 40);

    // An admin's removal deletes the player's item from their shard.
    assert!(
        store
            .moderation()
            .remove_entry(&bid("hot"), &pid("p07"), &pid("ops_alice"), at(200_000))
            .await
            .unwrap()
    );
    let items = score_items(&table, "hot").await;
    assert_eq!(items.len(), 39);
    assert!(items.iter().all(|(_, sk)| !sk.ends_with("#p07")));

    // A bulk import writes into the shards too.
    let mut nb = new_board("hot_import", Order::Asc, Operator::Best, 999);
    nb.write_shards = 3;
    let imported = store.boards().create_board(nb, at(0)).await.unwrap();
    let entries: Vec<_> = (0..30u64)
        .map(|i| (pid(&format!("q{i:02}")), i * 7 % 100, at(i * 1_000)))
        .collect();
    store
        .boards()
        .import_entries(&imported, &entries)
        .await
        .unwrap();
    let items = score_items(&table, "hot_import").await;
    assert_eq!(items.len(), 30);
    for (pk, sk) in &items {
        let player = pid(sk.rsplit('#').next().unwrap());
        assert_eq!(*pk, entity::score_pk(&bid("hot_import"), 3, &player));
    }
}

/// The score a player `pNN` played each round on the increment board: 10 + NN.
fn pointer_index(sk: &str) -> u64 {
    sk.rsplit('#').next().unwrap()[1..].parse().unwrap()
}

#[tokio::test]
async fn write_shards_outside_1_to_32_are_refused_and_write_nothing() {
    let (table, store) = store_without_stream("sharded_refused").await;
    let before = table.dump().await;
    for shards in [0u8, 33, 255] {
        let mut nb = new_board("bad", Order::Desc, Operator::Best, 999);
        nb.write_shards = shards;
        let e = store.boards().create_board(nb, at(0)).await.unwrap_err();
        assert!(
            matches!(&e, StoreError::Invalid(m) if m.contains("writeShards must be 1 to 32")),
            "{shards}: {e}"
        );
        assert_eq!(table.dump().await, before, "{shards}");
    }
    let mut nb = new_board("widest", Order::Desc, Operator::Best, 999);
    nb.write_shards = 32;
    assert_eq!(
        store
            .boards()
            .create_board(nb, at(0))
            .await
            .unwrap()
            .write_shards,
        32
    );
}

#[tokio::test]
async fn thirty_two_players_racing_keep_one_exact_entry_each() {
    let (table, store) = store_without_stream("sharded_race").await;
    let mut nb = new_board("race", Order::Desc, Operator::Increment, 9_999_999_999);
    nb.write_shards = 8;
    let board = store.boards().create_board(nb, at(0)).await.unwrap();
    // 32 players, each from two clients at once, 3 plays a client: every play moves the
    // player's entry, and the two clients' plays race on it.
    let plays = (0..32u64).flat_map(|i| (0..2u64).map(move |c| (i, c)));
    let stores = plays.map(|(i, c)| {
        let store = store.clone();
        async move {
            for k in 0..3u64 {
                let ms = 1_000 * (i * 10 + c * 3 + k + 1);
                submit(&store, &format!("p{i:02}"), i + 1, &["race"], ms).await;
            }
        }
    });
    futures::future::join_all(stores).await;
    let items = score_items(&table, "race").await;
    assert_eq!(items.len(), 32, "one entry a player");
    for (pk, sk) in &items {
        let player = pid(sk.rsplit('#').next().unwrap());
        assert_eq!(*pk, entity::score_pk(&bid("race"), 8, &player));
        let pointer = store
            .listings()
            .entry_pointer(&bid("race"), &player)
            .await
            .unwrap()
            .unwrap();
        let i: u64 = player.as_str()[1..].parse().unwrap();
        // Six plays of i + 1 each, every one counted once.
        assert_eq!((&pointer.score_sk, pointer.entry.score), (sk, 6 * (i + 1)));
    }
    let state = store.rank().index_state(&board).await.unwrap();
    assert_eq!(state.entries, 32);
    assert_eq!(state.written.values().sum::<u64>(), 192, "a change a play");
}

#[tokio::test]
async fn an_erasure_deletes_the_players_entry_from_their_shard() {
    let (table, store) = store_without_stream("sharded_erase").await;
    let mut nb = new_board("hot_erase", Order::Desc, Operator::Best, 9_999);
    nb.write_shards = 8;
    store.boards().create_board(nb, at(0)).await.unwrap();
    for i in 0..12u64 {
        submit(
            &store,
            &format!("p{i:02}"),
            100 + i,
            &["hot_erase"],
            1_000 * (i + 1),
        )
        .await;
    }
    let gone = pid("p05");
    let shard_pk = entity::score_pk(&bid("hot_erase"), 8, &gone);
    assert!(
        score_items(&table, "hot_erase").await.contains(&(
            shard_pk.clone(),
            store
                .listings()
                .entry_pointer(&bid("hot_erase"), &gone)
                .await
                .unwrap()
                .unwrap()
                .score_sk
        ))
    );
    store
        .moderation()
        .erase_player(&gone, "ops", at(100_000), None)
        .await
        .unwrap();
    let items = score_items(&table, "hot_erase").await;
    assert_eq!(items.len(), 11);
    assert!(items.iter().all(|(_, sk)| !sk.ends_with("#p05")));
    assert!(
        store
            .listings()
            .entry_pointer(&bid("hot_erase"), &gone)
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn a_hot_boards_lanes_keep_a_partition_key_each() {
    let (table, store) = store_without_stream("sharded_lanes").await;
    let mut nb = new_board("hot", Order::Desc, Operator::Increment, 9_999_999_999);
    nb.write_shards = 8;
    let board = store.boards().create_board(nb, at(0)).await.unwrap();
    assert!(!board.lanes_grouped);
    let plain = store
        .boards()
        .create_board(new_board("calm", Order::Desc, Operator::Best, 999), at(0))
        .await
        .unwrap();
    assert!(plain.lanes_grouped, "a board of one shard groups its lanes");
    for i in 0..40u64 {
        submit(
            &store,
            &format!("p{i:02}"),
            10 + i,
            &["hot", "calm"],
            1_000 * (i + 1),
        )
        .await;
    }
    // The layout sweep leaves the hot board's lanes apart.
    assert_eq!(
        store.rank().group_lanes(&bid("hot")).await.unwrap(),
        LaneGrouping::Skipped
    );
    let swept = store
        .rank()
        .sweep_rank_layout(&SweepOptions::default(), None)
        .await
        .unwrap();
    assert!(
        swept.grouped.is_empty() && swept.behind.is_empty(),
        "{swept:?}"
    );
    let lanes = |prefix: &str| {
        let prefix = prefix.to_owned();
        move |i: &RawItem| s(i, "pk").is_some_and(|pk| pk.starts_with(&prefix))
    };
    let dump = table.dump().await;
    let hot: Vec<(&str, &str)> = dump
        .iter()
        .filter(|i| lanes("RANKSEQ#hot")(i))
        .map(|i| (s(i, "pk").unwrap(), s(i, "sk").unwrap()))
        .collect();
    assert_eq!(hot.len(), 10, "40 players write every lane: {hot:?}");
    for lane in 0..10u8 {
        let key = entity::lane(&bid("hot"), lane);
        assert!(hot.contains(&(key.pk.as_str(), key.sk.as_str())), "{key:?}");
    }
    let calm = dump.iter().filter(|i| lanes("RANKSEQ#calm")(i));
    assert!(
        calm.map(|i| s(i, "pk").unwrap())
            .all(|pk| pk == "RANKSEQ#calm")
    );
    let state = store.rank().index_state(&board).await.unwrap();
    assert_eq!(state.entries, 40);
}
