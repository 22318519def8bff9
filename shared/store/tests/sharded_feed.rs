//! The game feed of a hot game against DynamoDB Local: the sessions of plays on a board of
//! several write shards spread over the game's feed shards (`GAME#<g>#<shard>`), and
//! `GET /games/{g}/sessions` still lists them as one newest-first listing, page by page, exactly
//! as an unsharded game's.

use crate::common;

use common::*;
use leaderboard_devkit::testing::{RawItem, TestTable, s};
use leaderboard_keys::entity;
use leaderboard_keys::ids::SessionId;
use leaderboard_keys::rank::Order;
use leaderboard_store::Store;
use leaderboard_store::model::Operator;

/// Every session id of `game`'s feed, walked `limit` at a time.
async fn walk(store: &Store, game: &str, limit: usize) -> Vec<SessionId> {
    let mut ids = Vec::new();
    let mut cursor = None;
    loop {
        let page = store
            .listings()
            .game_sessions(&gid(game), limit, cursor.as_deref())
            .await
            .unwrap();
        assert!(page.items.len() <= limit);
        ids.extend(page.items.into_iter().map(|s| s.session_id));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return ids,
        }
    }
}

/// The GSI2 partition keys of the Session items of `game`'s plays.
async fn feed_partitions(table: &TestTable, game: &str) -> Vec<String> {
    let plays_of = |i: &RawItem| {
        s(i, "sk").is_some_and(|sk| sk.starts_with("SESSION#")) && s(i, "gameId") == Some(game)
    };
    let dump = table.dump().await;
    dump.iter()
        .filter(|i| plays_of(i))
        .map(|i| s(i, "gsi2pk").unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn the_feed_of_a_hot_game_lists_as_an_unsharded_one() {
    let (table, store) = store_without_stream("sharded_feed").await;
    let board = |id: &str, game: &str, shards: u8| {
        let mut nb = new_board(id, Order::Desc, Operator::Best, 9_999_999_999);
        nb.game_id = Some(gid(game));
        nb.write_shards = shards;
        nb
    };
    store
        .boards()
        .create_board(board("hot", "tetris", 8), at(0))
        .await
        .unwrap();
    store
        .boards()
        .create_board(board("calm", "tetris", 1), at(0))
        .await
        .unwrap();
    store
        .boards()
        .create_board(board("plain", "chess", 1), at(0))
        .await
        .unwrap();
    // The same 30 session ids on each game, by different players: tetris's on its hot board
    // (every third on its calm one, whose sessions stay in `GAME#tetris`), chess's unsharded.
    let mut expected = Vec::new();
    for i in 0..30u64 {
        let ms = 1_000 * (i + 1);
        let session = sid(ms, u128::from(i) * 7_919);
        expected.push(session.clone());
        let on = if i % 3 == 0 { "calm" } else { "hot" };
        let tetris = play(&format!("q{i:02}"), 10 + i, &[on], session.clone());
        store.plays().record_play(&tetris, at(ms)).await.unwrap();
        let mut chess = play(&format!("p{i:02}"), 10 + i, &["plain"], session);
        chess.game_id = Some(gid("chess"));
        store.plays().record_play(&chess, at(ms)).await.unwrap();
    }
    expected.reverse();

    for limit in [1, 4, 7, 30, 100] {
        let sharded = walk(&store, "tetris", limit).await;
        assert_eq!(sharded, walk(&store, "chess", limit).await, "limit {limit}");
        assert_eq!(sharded, expected, "limit {limit}");
    }

    let tetris = feed_partitions(&table, "tetris").await;
    assert_eq!(tetris.len(), 30);
    let plain = tetris.iter().filter(|pk| *pk == "GAME#tetris").count();
    assert_eq!(plain, 10, "plays on the calm board keep the contract's key");
    let shards: std::collections::BTreeSet<_> =
        tetris.iter().filter(|pk| *pk != "GAME#tetris").collect();
    assert!(
        shards.len() > 4,
        "20 players spread over the shards: {shards:?}"
    );
    for i in (0..30u64).filter(|i| i % 3 != 0) {
        let player = pid(&format!("q{i:02}"));
        let pk = format!("GAME#tetris#{:02}", entity::shard_of(&player, 8));
        assert!(tetris.contains(&pk), "{player}'s shard {pk}");
    }
    let chess = feed_partitions(&table, "chess").await;
    assert!(chess.iter().all(|pk| pk == "GAME#chess"), "{chess:?}");

    // Each game with a board has a feed item, listing its boards' shards.
    let mut feeds: Vec<(String, Vec<String>)> = table
        .dump()
        .await
        .iter()
        .filter(|i| s(i, "sk") == Some(entity::FEED))
        .map(|i| {
            let mut set = i[entity::FEED_SHARDS_ATTR].as_ns().unwrap().clone();
            set.sort();
            (s(i, "pk").unwrap().to_owned(), set)
        })
        .collect();
    feeds.sort();
    let set = |shards: &[&str]| shards.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        feeds,
        vec![
            ("GAME#chess".to_owned(), set(&["1"])),
            ("GAME#tetris".to_owned(), set(&["1", "8"])),
        ]
    );
}
