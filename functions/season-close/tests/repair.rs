//! The scheduled run's second job, on DynamoDB Local: after its closes it rebuilds the layout v2
//! rank indexes whose lanes stopped at a change that never comes (here, an import whose stream
//! records were never applied), and leaves boards without a repair request alone.

use std::time::Duration;

use crate::common;

use common::{bid, open_board};
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::entity;
use leaderboard_keys::ids::{PlayerId, SessionId};
use leaderboard_keys::rank_index::{CountedKey, LaneChange, REPAIR_PK};
use leaderboard_keys::rank_index::{LANES, lane_of};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::{CloseOptions, Config, Play, RepairOptions, Store};
use season_close::App;
use season_close::jobs::rank_repair::RankRepairOutcome;

const DAY: u64 = 86_400_000;

fn pid(s: &str) -> PlayerId {
    PlayerId::parse(s).unwrap()
}

/// Plays `score` for `player` on `board` and applies the change its lane record carries.
async fn play_and_apply(table: &TestTable, store: &Store, board: &str, player: &str, score: u64) {
    let now = Timestamp::now();
    let play = Play {
        subscores: Default::default(),
        idempotency_key: None,
        metadata: None,
        player_id: pid(player),
        session_id: SessionId::from_parts(now.as_millis(), rand::random()).unwrap(),
        game_id: Some(leaderboard_keys::ids::GameId::parse("tetris").unwrap()),
        score,
        duration_sec: None,
        board_ids: vec![bid(board)],
    };
    store.plays().record_play(&play, now).await.unwrap();
    let lane = lane_of(player, LANES);
    let key = entity::grouped_lane(&bid(board), lane);
    let item = table.raw(&key.pk, &key.sk).await.unwrap();
    let chg = item["chg"].as_m().unwrap();
    let change = LaneChange {
        lane,
        seq: item["written"].as_n().unwrap().parse().unwrap(),
        old: chg
            .get("o")
            .map(|k| CountedKey::parse(k.as_s().unwrap()).unwrap()),
        new: chg
            .get("n")
            .map(|k| CountedKey::parse(k.as_s().unwrap()).unwrap()),
        score: None,
        ..LaneChange::default()
    };
    store
        .rank()
        .apply_lane_changes(&bid(board), &[change])
        .await
        .unwrap();
}

#[tokio::test]
async fn the_scheduled_run_rebuilds_a_board_whose_lane_stopped_and_only_that_one() {
    let table = TestTable::without_stream("close_repair").await;
    let store = Store::new(
        table.client.clone(),
        &Config {
            table_name: table.name.clone(),
            cursor_secret: b"t".to_vec(),
        },
    );
    open_board(&store, "stuck").await;
    open_board(&store, "fine").await;
    // "stuck": 1,200 entries imported whose lane records were never applied, then a play:
    // its change is far past its lane's watermark, a gap.
    let board = store
        .boards()
        .get_board(&bid("stuck"))
        .await
        .unwrap()
        .unwrap();
    let start = Timestamp::now().as_millis() - DAY / 2;
    let entries: Vec<_> = (0..1_200u64)
        .map(|i| {
            let at = Timestamp::from_millis(start + i).unwrap();
            (pid(&format!("s{i:04}")), i * 5, at)
        })
        .collect();
    store
        .boards()
        .import_entries(&board, &entries)
        .await
        .unwrap();
    play_and_apply(&table, &store, "stuck", "s0007", 100_000).await;
    assert!(table.raw(REPAIR_PK, "stuck").await.is_some());
    // "fine": plays applied as they come, no gap.
    play_and_apply(&table, &store, "fine", "f1", 10).await;
    play_and_apply(&table, &store, "fine", "f2", 20).await;
    let fine_root = table.raw("RANKV2#fine", "#ROOT").await;

    let (before, _) = store
        .rank()
        .player_rank_counted(&board, &pid("s0100"))
        .await
        .unwrap()
        .unwrap();
    let f = before.freshness.unwrap();
    assert!(!f.rank_exact && f.rank_lag > 0, "{f:?}");

    let (client, log) = leaderboard_devkit::policy::recording_client(&table.endpoint);
    let recorded = Store::new(
        client,
        &Config {
            table_name: table.name.clone(),
            cursor_secret: b"t".to_vec(),
        },
    );
    let mut app = App::new(recorded, CloseOptions::default());
    app.repair = RepairOptions {
        min_age: Duration::ZERO,
        ..RepairOptions::default()
    };
    let summary = season_close::run(&app, None).await.unwrap();
    let repair = summary.outcome::<RankRepairOutcome>().unwrap();
    assert_eq!(repair.repaired, vec![bid("stuck")], "{summary:?}");
    assert!(summary.close().closed.is_empty() && repair.failed.is_empty());
    assert!(table.raw(REPAIR_PK, "stuck").await.is_none());
    assert_eq!(table.raw("RANKV2#fine", "#ROOT").await, fine_root);
    // Its requests stay within season close's policy, the one delete (the served repair
    // request) included.
    let policy = leaderboard_devkit::policy::Policy::of("SeasonCloseFunction").unwrap();
    assert_eq!(policy.refusals(&log), Vec::<String>::new());
    assert!(
        log.touched()
            .contains(&("dynamodb:DeleteItem".to_owned(), REPAIR_PK.to_owned()))
    );

    // Every rank exact now: above s0100, 1,099 imported entries and s0007's play.
    let (after, _) = store
        .rank()
        .player_rank_counted(&board, &pid("s0100"))
        .await
        .unwrap()
        .unwrap();
    let f = after.freshness.unwrap();
    assert_eq!((after.rank, f.rank_exact, f.rank_lag), (1_101, true, 0));
    // and a second run has nothing to do.
    let again = season_close::run(&app, None).await.unwrap();
    let repair = again.outcome::<RankRepairOutcome>().unwrap();
    assert!(repair.repaired.is_empty(), "{again:?}");
}
