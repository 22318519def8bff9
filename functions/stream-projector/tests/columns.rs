//! A board with tiebreak columns through the stream projector, on DynamoDB Local's real stream:
//! 600 imported entries (4 scores, 3 times, 5 kill counts: deep ties into the columns), its
//! index built, then plays that move players and bring new ones, 8 at once; their lane records
//! delivered by the handler, then again. The index equals the one built from the entries, and
//! every player's rank from it is their place in the full listing, exact.

use crate::common;
use crate::index_check;

use common::*;
use futures::StreamExt;
use index_check::{expected_index, stored_index};
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::columns::{Column, named};
use leaderboard_keys::entity::ItemKey;
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank::Order;
use leaderboard_store::model::{NewBoard, Operator, RankLayout};
use rand::Rng;

const PLAYERS: usize = 600;
const PLAYS: usize = 150;

/// A run's time (asc, 7 digits), then kills (desc, 3 digits).
fn columns() -> Vec<Column> {
    vec![
        Column::new("time", Order::Asc, 9_999_999).unwrap(),
        Column::new("kills", Order::Desc, 999).unwrap(),
    ]
}

/// Values that tie often: one of 3 times and 5 kill counts.
fn values(rng: &mut impl Rng) -> Vec<u64> {
    vec![
        [1_000_000, 1_000_001, 2_500_000][rng.random_range(0..3)],
        rng.random_range(0..5),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_board_with_columns_keeps_an_exact_index_through_the_stream() {
    let table = TestTable::on_process_local("columns_stream").await;
    let store = store_for(&table, table.client.clone());
    let id = BoardId::parse("cols").unwrap();
    let new = NewBoard {
        columns: columns(),
        ..new_board("cols", Order::Desc, Operator::Best, RankLayout::V2)
    };
    let players: Vec<String> = (0..PLAYERS + 40).map(|i| format!("c{i:04}")).collect();
    let mut rng = rand::rng();
    let entries: Vec<_> = players[..PLAYERS]
        .iter()
        .map(|p| {
            let at = at(rng.random_range(0..60_000));
            (pid(p), rng.random_range(0..4), values(&mut rng), at)
        })
        .collect();
    let (board, mut reader) = built_board(&table, &store, new, &entries).await;
    // Plays: the 40 newcomers and moves of random players, some better, some not.
    let plays: Vec<(String, u64, Vec<u64>, u64)> = (0..PLAYS)
        .map(|k| {
            let p = match k < 40 {
                true => players[PLAYERS + k].clone(),
                false => players[rng.random_range(0..PLAYERS)].clone(),
            };
            (
                p,
                rng.random_range(0..5),
                values(&mut rng),
                60_000 + k as u64,
            )
        })
        .collect();
    futures::stream::iter(&plays)
        .map(|(p, score, values, ms)| {
            let (store, id) = (store.clone(), id.clone());
            async move {
                let (mut play, now) = play_at(p, *score, *ms, vec![id]);
                play.subscores = named(&columns(), values);
                store.plays().record_play(&play, now).await.unwrap();
            }
        })
        .buffer_unordered(8)
        .collect::<Vec<()>>()
        .await;
    let records = reader.read_to_end().await.unwrap();
    let lanes: Vec<_> = records
        .into_iter()
        .filter(|r| {
            matches!(ItemKey::parse(&record_key(r, "pk"), &record_key(r, "sk")),
                Ok(ItemKey::Lane { board, .. }) if board.as_str() == "cols")
        })
        .collect();
    assert!(lanes.len() >= PLAYS / 2, "{} lane records", lanes.len());
    for _ in 0..2 {
        deliver(&FailOnce::none(&store), &lanes).await;
        let want = expected_index(&table, &store, "cols", &players).await;
        assert_eq!(want.0[""].values().sum::<i64>(), players.len() as i64);
        assert_eq!(stored_index(&table, "cols").await, want);
    }
    // Every rank from the index is the player's place in the listing, and exact.
    let mut place = 0;
    let mut cursor: Option<String> = None;
    loop {
        let page = store
            .listings()
            .top_scores(&board, 200, cursor.as_deref())
            .await
            .unwrap();
        for e in &page.items {
            place += 1;
            let own = store.listings().player_rank(&board, &e.player_id).await;
            let own = own.unwrap().unwrap();
            let exact = own.freshness.unwrap().rank_exact;
            assert_eq!((own.rank, exact), (place, true), "{}", e.player_id);
            assert_eq!(own.subscores, e.subscores);
        }
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(place, players.len() as u64);
}
