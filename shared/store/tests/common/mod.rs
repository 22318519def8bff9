//! Helpers shared by the store's integration tests: a fresh table on the run's DynamoDB Local,
//! boards (imported and indexed ones too), plays, fixed times, and rank answers beside the truth.
#![allow(dead_code)]

use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::ids::{BoardId, GameId, PlayerId, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{Board, NewBoard, Operator, Recurrence};
use leaderboard_store::{Config, Play, PlayOutcome, Store};

/// 2026-01-01T00:00:00Z: the clock of the tests.
pub const T0: u64 = 1_767_225_600_000;

pub fn at(ms_after_t0: u64) -> Timestamp {
    Timestamp::from_millis(T0 + ms_after_t0).unwrap()
}

pub fn pid(s: &str) -> PlayerId {
    PlayerId::parse(s).unwrap()
}

pub fn bid(s: &str) -> BoardId {
    BoardId::parse(s).unwrap()
}

pub fn gid(s: &str) -> GameId {
    GameId::parse(s).unwrap()
}

/// A store over a fresh table of its own.
pub async fn store(label: &str) -> (TestTable, Store) {
    store_over(TestTable::new(label).await)
}

/// A store over a fresh table without a stream: for tests that write many items and read no
/// stream (DynamoDB Local slows down for every table once streamed tables have taken many
/// writes).
pub async fn store_without_stream(label: &str) -> (TestTable, Store) {
    store_over(TestTable::without_stream(label).await)
}

fn store_over(table: TestTable) -> (TestTable, Store) {
    let store = store_with_client(&table, table.client.clone());
    (table, store)
}

/// A store over `table` that sends its requests with `client` (one that counts or fails them).
pub fn store_with_client(table: &TestTable, client: aws_sdk_dynamodb::Client) -> Store {
    let config = Config {
        table_name: table.name.clone(),
        cursor_secret: b"test-secret".to_vec(),
    };
    Store::new(client, &config)
}

pub fn new_board(id: &str, order: Order, operator: Operator, max_score: u64) -> NewBoard {
    NewBoard {
        order,
        operator,
        max_score,
        starts_at: Some(at(0)),
        ends_at: Some(Timestamp::from_millis(T0 + 365 * 86_400_000).unwrap()),
        recurrence: Recurrence::None,
        ..NewBoard::named(bid(id), format!("Board {id}"))
    }
}

/// A board of `shards` write shards on the rank index (`best`, `desc`), open from T0 for a year.
pub async fn hot_board(store: &Store, id: &str, shards: u8) -> Board {
    let mut nb = new_board(id, Order::Desc, Operator::Best, 9_999_999_999);
    nb.write_shards = shards;
    let board = store.boards().create_board(nb, at(0)).await.unwrap();
    assert!(board.indexed());
    board
}

pub async fn board(store: &Store, id: &str, order: Order, operator: Operator) -> Board {
    store
        .boards()
        .create_board(new_board(id, order, operator, 9_999_999_999), at(0))
        .await
        .unwrap()
}

/// A board as boards made before the rank index's current layout are stored (no
/// `rankLayout`): counted, not indexed, until the migration moves it.
pub async fn legacy_board(
    table: &TestTable,
    store: &Store,
    id: &str,
    order: Order,
    operator: Operator,
) -> Board {
    board(store, id, order, operator).await;
    let pk = format!("LEADERBOARD#{id}");
    table
        .update_raw(&pk, "#METADATA", "REMOVE rankLayout")
        .await;
    stored_board(store, id).await
}

/// A session id whose time is `ms` after T0 (so sessions sort by `ms`) and unique by `salt`.
pub fn sid(ms: u64, salt: u128) -> SessionId {
    SessionId::from_parts(T0 + ms, salt).unwrap()
}

pub fn play(player: &str, score: u64, boards: &[&str], session: SessionId) -> Play {
    Play {
        subscores: Default::default(),
        idempotency_key: None,
        metadata: None,
        player_id: pid(player),
        session_id: session,
        game_id: Some(gid("tetris")),
        score,
        duration_sec: Some(60),
        board_ids: boards.iter().map(|b| bid(b)).collect(),
    }
}

/// Records a play of `player` at `ms` after T0.
pub async fn submit(
    store: &Store,
    player: &str,
    score: u64,
    boards: &[&str],
    ms: u64,
) -> PlayOutcome {
    store
        .plays()
        .record_play(
            &play(player, score, boards, sid(ms, rand::random())),
            at(ms),
        )
        .await
        .unwrap()
}

/// The stored board `id`, or (for a board that does not exist) the board it would be.
pub async fn stored_board(store: &Store, id: &str) -> Board {
    match store.boards().get_board(&bid(id)).await.unwrap() {
        Some(b) => b,
        None => Board::create(
            new_board(id, Order::Desc, Operator::Best, 9_999_999_999),
            at(0),
        )
        .unwrap(),
    }
}

/// A board of `players`' imported entries (scores drawn from `scores` with `seed`, times within
/// the first 300 s), its rank index built.
pub async fn imported_board(
    store: &Store,
    id: &str,
    operator: Operator,
    players: &[String],
    scores: std::ops::Range<u64>,
    seed: u64,
) {
    use rand::{Rng, SeedableRng};
    let board = store
        .boards()
        .create_board(new_board(id, Order::Desc, operator, 9_999_999_999), at(0))
        .await
        .unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let entries: Vec<_> = players
        .iter()
        .map(|p| {
            (
                pid(p),
                rng.random_range(scores.clone()),
                at(rng.random_range(0..300_000)),
            )
        })
        .collect();
    store
        .boards()
        .import_entries(&board, &entries)
        .await
        .unwrap();
    store.rank().build_rank_index(&board).await.unwrap();
}

/// `player`'s rank on `board` as answered, its true rank among `keys` (the board's Score sort
/// keys), whether the answer says it is exact, and its lag.
pub async fn rank_answer(
    store: &Store,
    board: &str,
    keys: &[String],
    player: &str,
) -> (u64, u64, bool, u64) {
    let b = stored_board(store, board).await;
    let (entry, _) = store
        .rank()
        .player_rank_counted(&b, &pid(player))
        .await
        .unwrap()
        .unwrap();
    let mine = store
        .listings()
        .entry_pointer(&bid(board), &pid(player))
        .await
        .unwrap()
        .unwrap()
        .score_sk;
    let truth = keys.iter().filter(|k| **k > mine).count() as u64 + 1;
    let f = entry.freshness.unwrap();
    (entry.rank, truth, f.rank_exact, f.rank_lag)
}
