//! Layout v2 through the stream projector, on DynamoDB Local's real stream: plays on a v2
//! board (8 at once, so that lanes interleave), their lane records delivered by the handler in
//! batches of 100 with the v2 write of one batch failing once, then the whole stream replayed.
//! After each delivery the index equals the one built from the board's entries, and every
//! watermark is its lane's written count.

mod common;
#[path = "../../../shared/store/tests/common/rank_v2.rs"]
mod rank_v2_index;

use common::*;
use futures::StreamExt;
use leaderboard_devkit::stream::{StartingPosition, StreamReader};
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::ids::{BoardId, GameId, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_store::Play;
use leaderboard_store::model::{NewBoard, Operator, RankLayout, Recurrence};
use rand::Rng;
use rank_v2_index::{expected_index, stored_index};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn lane_records_delivered_with_a_failure_and_replayed_leave_exactly_the_built_index() {
    // A DynamoDB Local of its own: its streamed writes would slow every other test's.
    let table = TestTable::on_own_local("rank_v2_stream").await;
    let store = store_for(&table, table.client.clone());
    let board = BoardId::parse("v2s").unwrap();
    store
        .create_board(
            NewBoard {
                leaderboard_id: board.clone(),
                name: "V2".into(),
                order: Order::Desc,
                operator: Operator::Best,
                max_score: 9_999_999_999,
                starts_at: Some(at(0)),
                ends_at: Some(at(365 * 86_400_000)),
                recurrence: Recurrence::None,
                game_id: None,
                rank_layout: RankLayout::V2,
            },
            at(0),
        )
        .await
        .unwrap();
    let players: Vec<String> = (0..300).map(|i| format!("v{i:03}")).collect();
    let plays: Vec<(String, u64, u64)> = {
        let mut rng = rand::rng();
        (0..700)
            .map(|_| {
                let p = players[rng.random_range(0..players.len())].clone();
                (
                    p,
                    rng.random_range(0..2_000) * 10,
                    rng.random_range(0..600_000),
                )
            })
            .collect()
    };
    futures::stream::iter(&plays)
        .map(|(p, score, ms)| {
            let store = store.clone();
            let board = board.clone();
            async move {
                let now = at(*ms);
                let play = Play {
                    player_id: pid(p),
                    session_id: SessionId::from_parts(now.as_millis(), rand::random()).unwrap(),
                    game_id: Some(GameId::parse("tetris").unwrap()),
                    score: *score,
                    duration_sec: None,
                    leaderboard_ids: vec![board],
                };
                store.record_play(&play, now).await.unwrap();
            }
        })
        .buffer_unordered(8)
        .collect::<Vec<()>>()
        .await;
    let records =
        StreamReader::for_table(&table.endpoint, &table.name, StartingPosition::TrimHorizon)
            .await
            .unwrap()
            .read_to_end()
            .await
            .unwrap();

    // First delivery: the v2 write of the third batch fails once; the event source mapping
    // delivers again from the reported record.
    let target = FailOnce {
        lane_fail_at: 3,
        ..FailOnce::none(&store)
    };
    let retries = deliver(&target, &records).await;
    assert!(retries >= 1, "the failure was reported");
    let want = expected_index(&table, &store, "v2s", &players).await;
    assert!(!want.0.is_empty());
    assert_eq!(stored_index(&table, "v2s").await, want);

    // The whole stream again: nothing changes.
    assert_eq!(deliver(&FailOnce::none(&store), &records).await, 0);
    assert_eq!(stored_index(&table, "v2s").await, want);
}
