//! Grouping the lanes of a board made before grouped lanes, on DynamoDB Local: a play that read
//! the board before the grouping and sends its transaction after it is refused on its old lane
//! and writes the grouped one, every lane's count going on from where it stopped; a board whose
//! settings changed keeps their version on every grouped lane; a board whose index is behind,
//! or under repair, is left for later with nothing written.

use crate::common;

use aws_sdk_dynamodb::types::AttributeValue;
use common::*;
use leaderboard_devkit::testing::{RawItem, TestTable};
use leaderboard_keys::entity;
use leaderboard_keys::rank::Order;
use leaderboard_keys::rank_index::{LANES, lane_of};
use leaderboard_store::model::Operator;
use leaderboard_store::{LaneGrouping, Store};

/// A board whose lanes are kept apart, as boards made before grouped lanes keep them, with
/// `players` played on it.
async fn board_apart(table: &TestTable, store: &Store, id: &str, players: &[&str]) {
    board(store, id, Order::Desc, Operator::Best).await;
    table
        .update_raw(
            &format!("LEADERBOARD#{id}"),
            "#METADATA",
            "REMOVE lanesGrouped",
        )
        .await;
    assert!(!stored_board(store, id).await.lanes_grouped);
    for (i, p) in players.iter().enumerate() {
        submit(store, p, 100 + i as u64, &[id], 1_000 + i as u64).await;
    }
}

fn written(item: &Option<RawItem>) -> u64 {
    item.as_ref()
        .and_then(|i| i.get("written"))
        .map_or(0, |w| w.as_n().unwrap().parse().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_play_that_read_the_board_before_its_lanes_were_grouped_writes_the_grouped_lane() {
    let (table, store) = store_without_stream("lanes_grouped_gate").await;
    let players = ["g1", "g2", "g3", "g4", "g5", "g6"];
    board_apart(&table, &store, "ga", &players).await;
    // No stream here: the build applies the plays, so the index has nothing left to apply.
    store
        .rank()
        .build_rank_index(&stored_board(&store, "ga").await)
        .await
        .unwrap();
    let mut before = Vec::new();
    for lane in 0..LANES {
        let old = entity::lane(&bid("ga"), lane);
        before.push(written(&table.raw(&old.pk, &old.sk).await));
    }
    assert_eq!(before.iter().sum::<u64>(), players.len() as u64);

    // A play has read the board (lanes apart) and waits before its transaction.
    let (client, gate) =
        leaderboard_devkit::local::gated_client(&table.endpoint, "TransactWriteItems");
    let gated = store_with_client(&table, client);
    let playing = tokio::spawn(async move {
        gated
            .plays()
            .record_play(&play("late", 500, &["ga"], sid(9_000, 1)), at(9_000))
            .await
    });
    assert!(gate.reached().await);
    assert_eq!(
        store.rank().group_lanes(&bid("ga")).await.unwrap(),
        LaneGrouping::Grouped { paused: false }
    );
    gate.release();
    let outcome = playing.await.unwrap().unwrap();
    assert_eq!(outcome.session.outcomes[0].rank, 1);

    assert!(stored_board(&store, "ga").await.lanes_grouped);
    // The build's switch wrote its generation on every lane, and the grouped lanes carry it
    // (rank reads compare it with their root's).
    let generation = table.raw("RANKV2#ga", "#ROOT").await.unwrap()["g"].clone();
    let late = lane_of("late", LANES);
    for lane in 0..LANES {
        let old_key = entity::lane(&bid("ga"), lane);
        let new_key = entity::grouped_lane(&bid("ga"), lane);
        let old = table.raw(&old_key.pk, &old_key.sk).await.unwrap();
        let new = table.raw(&new_key.pk, &new_key.sk).await;
        // The old lane is closed for good at the count it had, its change dropped.
        assert_eq!(
            written(&Some(old.clone())),
            before[lane as usize],
            "lane {lane}"
        );
        assert!(
            old.contains_key("grouped") && old.contains_key("pause"),
            "lane {lane}"
        );
        assert!(!old.contains_key("chg"), "lane {lane}");
        assert_eq!(old.get("lg"), Some(&generation), "lane {lane}");
        let carried = new.as_ref().and_then(|n| n.get("lg"));
        assert_eq!(carried, Some(&generation), "lane {lane}");
        // The grouped one goes on from it: the late play's lane by one.
        let more = u64::from(lane == late);
        assert_eq!(written(&new), before[lane as usize] + more, "lane {lane}");
        if lane == late {
            let chg = new.unwrap()["chg"].as_m().unwrap().clone();
            assert!(chg["n"].as_s().unwrap().ends_with("#late"), "{chg:?}");
        }
    }
    // Nothing left to do.
    assert_eq!(
        store.rank().group_lanes(&bid("ga")).await.unwrap(),
        LaneGrouping::Skipped
    );
}

/// Groups board `id`'s lanes, which must be left for later: the table after, but for lanes
/// never written, which a pause makes items holding their keys alone.
async fn left_behind(table: &TestTable, store: &Store, id: &str) -> Vec<RawItem> {
    assert_eq!(
        store.rank().group_lanes(&bid(id)).await.unwrap(),
        LaneGrouping::Behind
    );
    let mut after = table.dump().await;
    after.retain(|item| item.len() > 2);
    after
}

#[tokio::test]
async fn a_board_behind_or_under_repair_is_left_for_later_and_nothing_is_written() {
    let (table, store) = store_without_stream("lanes_grouped_behind").await;
    let repair = leaderboard_keys::rank_index::repair_key(&bid("gb"));
    let key = |k: &str| AttributeValue::S(k.to_owned());

    // Caught up, but a repair request is open: its rebuild may write the old lanes.
    board_apart(&table, &store, "gb", &["b1", "b2", "b3"]).await;
    store
        .rank()
        .build_rank_index(&stored_board(&store, "gb").await)
        .await
        .unwrap();
    let request = table.client.put_item().table_name(&table.name);
    let request = request
        .item("pk", key(&repair.pk))
        .item("sk", key(&repair.sk))
        .item("at", AttributeValue::N("1".into()));
    request.send().await.unwrap();
    let before = table.dump().await;
    assert_eq!(
        left_behind(&table, &store, "gb").await,
        before,
        "nothing written"
    );

    // Behind (plays the index has not applied, no stream here) and under repair: no pause.
    submit(&store, "b4", 900, &["gb"], 5_000).await;
    let before = table.dump().await;
    assert_eq!(
        left_behind(&table, &store, "gb").await,
        before,
        "nothing written"
    );

    // Behind only: the plays are held back while the index may catch up; it does not here,
    // and the pauses are lifted after.
    let request = table.client.delete_item().table_name(&table.name);
    let request = request
        .key("pk", key(&repair.pk))
        .key("sk", key(&repair.sk));
    request.send().await.unwrap();
    let before = table.dump().await;
    assert_eq!(
        left_behind(&table, &store, "gb").await,
        before,
        "nothing left written"
    );
    assert!(!stored_board(&store, "gb").await.lanes_grouped);
}

#[tokio::test]
async fn a_board_whose_settings_changed_keeps_its_version_on_the_grouped_lanes() {
    let (table, store) = store_without_stream("lanes_grouped_version").await;
    board_apart(&table, &store, "gv", &["v1", "v2"]).await;
    store
        .rank()
        .build_rank_index(&stored_board(&store, "gv").await)
        .await
        .unwrap();
    // GIVEN a board ended early (its settings at version 1, on all ten lanes kept apart)
    let ended = store
        .tournaments()
        .close_now(&bid("gv"), "admin", at(50_000))
        .await
        .unwrap();
    assert_eq!(ended.settings_version, 1);
    // WHEN its lanes are grouped
    assert_eq!(
        store.rank().group_lanes(&bid("gv")).await.unwrap(),
        LaneGrouping::Grouped { paused: false }
    );
    // THEN every grouped lane holds the version, written or not
    for lane in 0..LANES {
        let key = entity::grouped_lane(&bid("gv"), lane);
        let item = table.raw(&key.pk, &key.sk).await;
        let version = item.as_ref().and_then(|i| i.get("settingsVersion"));
        assert_eq!(version, Some(&AttributeValue::N("1".into())), "lane {lane}");
    }
    // AND a play before the end goes on writing the grouped lanes at that version
    let lane = entity::grouped_lane(&bid("gv"), lane_of("v3", LANES));
    let before = written(&table.raw(&lane.pk, &lane.sk).await);
    submit(&store, "v3", 300, &["gv"], 40_000).await;
    assert_eq!(written(&table.raw(&lane.pk, &lane.sk).await), before + 1);
}
