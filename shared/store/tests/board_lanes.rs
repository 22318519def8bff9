//! A board's lane count on DynamoDB Local: a board of more than ten write shards is made with a
//! lane a shard (one of ten or fewer, as every board stored before the count, with ten); its
//! plays write every lane and no other, each player always the same one; racing plays count
//! once each on their lanes; and the index applied from the 32 lanes' changes, in any order of
//! the lanes, is the index a rebuild makes; an erasure leaves no id on a closed board's lane
//! past the tenth.

use crate::common;
use crate::index_check;

use common::*;
use index_check::{ChangeLog, expected_index, stored_index};
use leaderboard_devkit::testing::{n, s};
use leaderboard_keys::entity;
use leaderboard_keys::rank::Order;
use leaderboard_keys::rank_index::{LaneChange, lane_of};
use leaderboard_store::model::{Board, Operator};
use leaderboard_store::{CloseOptions, Store};

/// A board of `shards` write shards whose plays add to the entry (every play a change).
async fn board_of(store: &Store, id: &str, shards: u8) -> Board {
    let mut nb = new_board(id, Order::Desc, Operator::Increment, 9_999_999_999);
    nb.write_shards = shards;
    store.boards().create_board(nb, at(0)).await.unwrap()
}

#[tokio::test]
async fn a_board_has_a_lane_a_write_shard_past_ten() {
    let (t, store) = store_without_stream("lanes_count").await;
    for (shards, lanes) in [(1u8, 10u8), (10, 10), (11, 11), (32, 32)] {
        let id = format!("lc{shards}");
        let made = board_of(&store, &id, shards).await;
        assert_eq!(made.lanes, lanes, "{shards} shards");
        // Kept on the board's item only where it is not ten (a board stored before has none).
        let key = entity::board(&bid(&id));
        let raw = t.raw(&key.pk, &key.sk).await.unwrap();
        let stored = n(&raw, "lanes").map(|v| v.parse::<u8>().unwrap());
        assert_eq!(stored, (lanes > 10).then_some(lanes), "{shards} shards");
        let read = store.boards().get_board(&bid(&id)).await.unwrap().unwrap();
        assert_eq!(read.lanes, lanes);
    }
}

#[tokio::test]
async fn racing_plays_on_thirty_two_lanes_count_once_each_on_their_players_lanes() {
    let (t, store) = store_without_stream("lanes_race").await;
    let board = board_of(&store, "lr", 32).await;
    // 96 players, each from two clients at once, 2 plays a client.
    let plays = (0..96u64).flat_map(|i| (0..2u64).map(move |c| (i, c)));
    let clients = plays.map(|(i, c)| {
        let store = store.clone();
        async move {
            for k in 0..2u64 {
                let ms = 1_000 * (i * 10 + c * 3 + k + 1);
                submit(&store, &format!("p{i:02}"), i + 1, &["lr"], ms).await;
            }
        }
    });
    futures::future::join_all(clients).await;
    // Every lane of the 32 holds 4 changes of each of its players, and 1 entry made each.
    let mut want = [(0u64, 0i64); 32];
    for i in 0..96u64 {
        let lane = lane_of(&format!("p{i:02}"), 32);
        want[usize::from(lane)].0 += 4;
        want[usize::from(lane)].1 += 1;
    }
    let dump = t.dump().await;
    let lanes: Vec<_> = dump
        .iter()
        .filter(|i| s(i, "pk").is_some_and(|pk| pk.starts_with("RANKSEQ#lr")))
        .collect();
    assert_eq!(lanes.len(), want.iter().filter(|w| w.0 > 0).count());
    for item in lanes {
        let key = (s(item, "pk").unwrap(), s(item, "sk").unwrap());
        let lane = (0..32u8)
            .find(|&l| {
                let k = entity::lane(&bid("lr"), l);
                (k.pk.as_str(), k.sk.as_str()) == key
            })
            .unwrap_or_else(|| panic!("{key:?} is no lane of 32"));
        let count = |attr| n(item, attr).unwrap().parse::<i64>().unwrap();
        let (written, created) = want[usize::from(lane)];
        assert_eq!(
            (count("written") as u64, count("created")),
            (written, created)
        );
    }
    let state = store.rank().index_state(&board).await.unwrap();
    assert_eq!((state.entries, state.written.len()), (96, 32));
    assert_eq!(state.written.values().sum::<u64>(), 384, "a change a play");
    // AND a rebuild counts every entry: each player's rank is exact
    store.rank().build_rank_index(&board).await.unwrap();
    let players: Vec<String> = (0..96).map(|i| format!("p{i:02}")).collect();
    assert_eq!(
        stored_index(&t, "lr").await,
        expected_index(&t, &store, "lr", &players).await
    );
}

#[tokio::test]
async fn the_index_applied_from_thirty_two_lanes_in_any_lane_order_is_the_rebuilt_one() {
    let (t, store) = store_without_stream("lanes_apply").await;
    let board = board_of(&store, "la", 32).await;
    // GIVEN 120 plays of 40 players, each change logged as its lane's stream record carries it
    let mut log = ChangeLog::default();
    let players: Vec<String> = (0..40).map(|i| format!("p{i:02}")).collect();
    for round in 0..3u64 {
        for (i, p) in players.iter().enumerate() {
            let ms = 1_000 * (round * 100 + i as u64 + 1);
            submit(&store, p, 1 + (i as u64 * 7 + round) % 13, &["la"], ms).await;
            log.after_play(&t, "la", lane_of(p, board.lanes)).await;
        }
    }
    assert!(log.changes.iter().any(|c| c.lane >= 10), "lanes past ten");
    // WHEN the upper lanes' changes are applied before the lower ones', each lane in order
    let (upper, lower): (Vec<LaneChange>, Vec<LaneChange>) =
        log.changes.iter().cloned().partition(|c| c.lane >= 16);
    for batch in [upper, lower] {
        store
            .rank()
            .apply_lane_changes(&bid("la"), &batch)
            .await
            .unwrap();
    }
    // THEN the index counts every entry, each lane applied to its written count
    let applied = stored_index(&t, "la").await;
    assert_eq!(applied, expected_index(&t, &store, "la", &players).await);
    // AND a rebuild makes the same counts
    store.rank().build_rank_index(&board).await.unwrap();
    assert_eq!(stored_index(&t, "la").await, applied);
}

#[tokio::test]
async fn an_erasure_leaves_no_id_on_a_closed_boards_lane_past_the_tenth() {
    let (t, store) = store_without_stream("lanes_erase").await;
    let day = 86_400_000;
    let mut nb = new_board("le", Order::Desc, Operator::Best, 9_999);
    nb.write_shards = 32;
    nb.ends_at = Some(at(day));
    let board = store.boards().create_board(nb, at(0)).await.unwrap();
    // GIVEN a player whose lane is past the tenth (where a board of ten would put them
    // elsewhere), the last to change it, and the board closed
    let gone = (0..100)
        .map(|i| format!("gone{i:02}"))
        .find(|p| lane_of(p, board.lanes) >= 10 && lane_of(p, 10) != lane_of(p, board.lanes))
        .unwrap();
    for (i, other) in ["ann", "bo", "cy"].iter().enumerate() {
        submit(&store, other, 100 + i as u64, &["le"], 1_000 + i as u64).await;
    }
    submit(&store, &gone, 50, &["le"], 2_000).await;
    let lane = entity::lane(&bid("le"), lane_of(&gone, board.lanes));
    let written = t.raw(&lane.pk, &lane.sk).await.unwrap();
    assert!(
        format!("{written:?}").contains(&gone),
        "the lane's change names them"
    );
    store
        .close()
        .close_board(&bid("le"), at(day + 1_000), &CloseOptions::default())
        .await
        .unwrap();
    // WHEN they are erased
    let receipt = store
        .moderation()
        .erase_player(&pid(&gone), "ops", at(day + 2_000), None)
        .await
        .unwrap();
    assert!(receipt.finished(), "{receipt:?}");
    // THEN no item of the table holds their id: their lane records the pseudonym
    let holding: Vec<_> = t
        .dump()
        .await
        .into_iter()
        .filter(|item| format!("{item:?}").contains(&gone))
        .collect();
    assert!(holding.is_empty(), "{holding:?}");
    let pseudonymised = t.raw(&lane.pk, &lane.sk).await.unwrap();
    assert!(format!("{pseudonymised:?}").contains(receipt.pseudonym.as_str()));
}
