//! What the season-close tests share: a table on DynamoDB Local with a store over it, ended
//! boards, imported entries with ties, the contract's rank order, and the snapshot's items.
#![allow(dead_code)]

use leaderboard_devkit::testing::{RawItem, TestTable, s};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{NewBoard, Operator, Recurrence};
use leaderboard_store::{Config, Store};
use rand::Rng;

pub const HOUR: u64 = 3_600_000;

pub async fn store(label: &str) -> (TestTable, Store) {
    let table = TestTable::without_stream(label).await;
    let store = store_over(&table, table.client.clone());
    (table, store)
}

/// A store over `table` whose requests are recorded, for [`assert_within_policy`].
pub fn recorded_store(
    table: &TestTable,
) -> (Store, std::sync::Arc<leaderboard_devkit::policy::KeyLog>) {
    let (client, log) = leaderboard_devkit::policy::recording_client(&table.endpoint);
    (store_over(table, client), log)
}

/// Every item the recorded requests touched is allowed by season close's policy in
/// `template.yaml` (DynamoDB Local enforces no IAM).
pub fn assert_within_policy(log: &leaderboard_devkit::policy::KeyLog) {
    let policy = leaderboard_devkit::policy::Policy::of("SeasonCloseFunction").unwrap();
    assert!(!log.touched().is_empty());
    assert_eq!(policy.refusals(log), Vec::<String>::new());
}

/// A store over `table` that sends its requests with `client` (one that counts, gates or
/// faults them).
pub fn store_over(table: &TestTable, client: aws_sdk_dynamodb::Client) -> Store {
    Store::new(
        client,
        &Config {
            table_name: table.name.clone(),
            cursor_secret: b"t".to_vec(),
        },
    )
}

pub fn bid(s: &str) -> BoardId {
    BoardId::parse(s).unwrap()
}

/// What creates a one-off `best` board `id` of `order` from `start` to `end` (epoch ms).
pub fn board_body(id: &str, order: Order, start: u64, end: u64) -> NewBoard {
    NewBoard {
        order,
        operator: Operator::Best,
        max_score: 9_999_999_999,
        starts_at: Some(Timestamp::from_millis(start).unwrap()),
        ends_at: Some(Timestamp::from_millis(end).unwrap()),
        recurrence: Recurrence::None,
        ..NewBoard::named(bid(id), format!("Board {id}"))
    }
}

/// A board that ran from `start` to `end` (epoch ms).
pub async fn board(
    store: &Store,
    id: &str,
    order: Order,
    recurrence: Recurrence,
    start: u64,
    end: u64,
) {
    sharded_board(store, id, order, recurrence, (start, end), 1).await;
}

/// A board of `write_shards` that ran from `start` to `end` (epoch ms).
pub async fn sharded_board(
    store: &Store,
    id: &str,
    order: Order,
    recurrence: Recurrence,
    (start, end): (u64, u64),
    write_shards: u8,
) {
    store
        .boards()
        .create_board(
            NewBoard {
                recurrence,
                write_shards,
                ..board_body(id, order, start, end)
            },
            Timestamp::from_millis(start).unwrap(),
        )
        .await
        .unwrap();
}

/// An open board (the default layout) running from yesterday to tomorrow.
pub async fn open_board(store: &Store, id: &str) -> leaderboard_store::model::Board {
    const DAY: u64 = 24 * HOUR;
    let now = Timestamp::now().as_millis();
    store
        .boards()
        .create_board(
            board_body(id, Order::Desc, now - DAY, now + DAY),
            Timestamp::from_millis(now - DAY).unwrap(),
        )
        .await
        .unwrap()
}

/// `n` entries with many ties, the same for every table that gets them.
pub fn entries(n: usize, seed_base: u64) -> Vec<(PlayerId, u64, Timestamp)> {
    let mut rng = rand::rng();
    (0..n)
        .map(|i| {
            (
                PlayerId::parse(&format!("p{i:05}")).unwrap(),
                rng.random_range(0..500),
                Timestamp::from_millis(seed_base + rng.random_range(0..1000)).unwrap(),
            )
        })
        .collect()
}

/// The snapshot: every Final standing and Season result, and the board's summary.
pub async fn snapshot(table: &TestTable) -> Vec<RawItem> {
    table
        .dump()
        .await
        .into_iter()
        .filter(|i| {
            let sk = s(i, "sk").unwrap();
            sk.starts_with("FINAL#") || sk.starts_with("RESULT#")
        })
        .collect()
}

/// A board `id` that ran from three hours ago until `ended_ms_ago` milliseconds ago, holding
/// `n` imported entries (from [`entries`]).
pub async fn ended_board(
    store: &Store,
    id: &str,
    recurrence: Recurrence,
    ended_ms_ago: u64,
    n: usize,
) {
    let now = Timestamp::now().as_millis();
    board(
        store,
        id,
        Order::Desc,
        recurrence,
        now - 3 * HOUR,
        now - ended_ms_ago,
    )
    .await;
    let b = store.boards().get_board(&bid(id)).await.unwrap().unwrap();
    store
        .boards()
        .import_entries(&b, &entries(n, now - 3 * HOUR))
        .await
        .unwrap();
}

/// The boards a run closed, in the order it closed them, with their player counts.
pub fn closed_boards(summary: &season_close::RunSummary) -> Vec<(&str, u64)> {
    summary
        .close()
        .closed
        .iter()
        .map(|c| (c.board_id.as_str(), c.player_count))
        .collect()
}

/// The player ranked first on board `id` (open or closing: its live entries).
pub async fn top_player(store: &Store, id: &str) -> PlayerId {
    let board = store.boards().get_board(&bid(id)).await.unwrap().unwrap();
    let top = store.listings().top_scores(&board, 1, None).await.unwrap();
    top.items[0].player_id.clone()
}

/// Begins board `id`'s close (closing, lanes closed, nothing snapshotted) and has its top
/// player ask to be erased then: the player and the erasure's receipt, which waits for the
/// close.
pub async fn erase_top_while_closing(
    store: &Store,
    id: &str,
) -> (PlayerId, leaderboard_store::ErasureReceipt) {
    let top = top_player(store, id).await;
    let begun = leaderboard_store::CloseOptions {
        max_pages: Some(0),
        ..leaderboard_store::CloseOptions::default()
    };
    store
        .close()
        .close_board(&bid(id), Timestamp::now(), &begun)
        .await
        .unwrap();
    let waiting = waiting_erasure(store, &top).await;
    (top, waiting)
}

/// `player` asks to be erased, and the erasure waits (for a close to finish): its receipt.
pub async fn waiting_erasure(
    store: &Store,
    player: &PlayerId,
) -> leaderboard_store::ErasureReceipt {
    let waiting = store
        .moderation()
        .erase_player(player, "player", Timestamp::now(), None)
        .await
        .unwrap();
    assert!(!waiting.finished(), "{waiting:?}");
    waiting
}

/// Every item of the table that holds `player`'s id anywhere, printed.
pub async fn items_naming(table: &TestTable, player: &PlayerId) -> Vec<String> {
    table
        .dump()
        .await
        .into_iter()
        .map(|i| format!("{i:?}"))
        .filter(|i| i.contains(player.as_str()))
        .collect()
}
