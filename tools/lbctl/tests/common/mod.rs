//! What lbctl's table tests share: a store on a fresh table of the run's DynamoDB Local,
//! boards with imported entries (ties included), and a command run to its output.
#![allow(dead_code)]

use leaderboard_devkit::testing::{TestTable, ranked};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{Board, NewBoard, Operator, Recurrence};
use leaderboard_store::{Config, Store};

/// 2026-01-01T00:00:00Z: the clock of the tests.
pub const T0: u64 = 1_767_225_600_000;

pub fn at(ms_after_t0: u64) -> Timestamp {
    Timestamp::from_millis(T0 + ms_after_t0).unwrap()
}

pub async fn store(label: &str) -> (TestTable, Store) {
    let table = TestTable::without_stream(label).await;
    let config = Config {
        table_name: table.name.clone(),
        cursor_secret: b"lbctl-test-cursor-secret-32-characters".to_vec(),
    };
    let store = Store::new(table.client.clone(), &config);
    (table, store)
}

pub fn new_board(id: &str, order: Order, max_score: u64) -> NewBoard {
    NewBoard {
        order,
        operator: Operator::Best,
        max_score,
        starts_at: Some(at(0)),
        ends_at: Some(at(365 * 86_400_000)),
        recurrence: Recurrence::None,
        ..NewBoard::named(BoardId::parse(id).unwrap(), format!("Board {id}"))
    }
}

pub type Entries = Vec<(PlayerId, u64, Timestamp)>;

/// `n` entries whose scores repeat every `distinct` players, 20 players a second: ties of
/// score, and (when `distinct` < 20) of score and time, which the playerId breaks.
pub fn entries(n: usize, distinct: u64) -> Entries {
    (0..n)
        .map(|i| {
            let player = PlayerId::parse(&format!("p{i:06}")).unwrap();
            let score = 100 + (i as u64 * 37) % distinct;
            let time = at(1_000 * (i as u64 / 20));
            (player, score, time)
        })
        .collect()
}

/// A board of `entries`, imported; returns it and its entries in the contract's rank order.
pub async fn board_with(
    store: &Store,
    id: &str,
    order: Order,
    max_score: u64,
    entries: Entries,
) -> (Board, Entries) {
    let board = store
        .boards()
        .create_board(new_board(id, order, max_score), at(0))
        .await
        .unwrap();
    store
        .boards()
        .import_entries(&board, &entries)
        .await
        .unwrap();
    (board, ranked(entries, order))
}

/// Runs `lbctl <args>` against `store`'s table; its output as text.
pub async fn lbctl(store: &Store, json: bool, args: &[&str]) -> Result<String, lbctl::CtlError> {
    let ctl = lbctl::Ctl::with_store(store.clone(), json);
    let mut out = Vec::new();
    lbctl::run_args(&ctl, args.iter().copied(), &mut out).await?;
    Ok(String::from_utf8(out).unwrap())
}

/// Closes `board` as the schedule would once it has ended (a year and a day after T0).
pub async fn close(store: &Store, board: &BoardId) {
    loop {
        let progress = store
            .close()
            .close_board(board, at(366 * 86_400_000), &Default::default())
            .await
            .unwrap();
        if matches!(progress, leaderboard_store::CloseProgress::Closed { .. }) {
            return;
        }
    }
}

const TEMPLATE: &str = include_str!("../../../../events/leaderboard-api/get-top-scores.json");

/// `GET path_and_query` through the leaderboard-api function's handler, anonymous: the status
/// and the body.
pub async fn api_get(store: &Store, path_and_query: &str) -> (u16, serde_json::Value) {
    use serde_json::json;
    let (path, query) = path_and_query
        .split_once('?')
        .unwrap_or((path_and_query, ""));
    let mut e: serde_json::Value = serde_json::from_str(TEMPLATE).unwrap();
    e["routeKey"] = json!(format!("GET {path}"));
    e["rawPath"] = json!(path);
    e["rawQueryString"] = json!(query);
    let params: std::collections::HashMap<&str, &str> = query
        .split('&')
        .filter(|kv| !kv.is_empty())
        .map(|kv| kv.split_once('=').unwrap_or((kv, "")))
        .collect();
    e["queryStringParameters"] = json!(params);
    e["requestContext"]["http"]["method"] = json!("GET");
    e["requestContext"]["http"]["path"] = json!(path);
    let req = lambda_http::request::from_str(&e.to_string()).unwrap();
    let app = leaderboard_api::App::new(store.clone());
    let resp = leaderboard_api::handle_reads(&app, req).await.unwrap();
    let status = resp.status().as_u16();
    (
        status,
        serde_json::from_slice(resp.body().as_ref()).unwrap_or_default(),
    )
}

/// `lbctl verify <args> --settle 0 --json`: its exit code, the violations' (kind, key) and
/// the report.
pub async fn verify_report(
    store: &Store,
    args: &[&str],
) -> (i32, Vec<(String, String)>, serde_json::Value) {
    let ctl = lbctl::Ctl::with_store(store.clone(), true);
    let mut out = Vec::new();
    let argv = ["verify"].iter().chain(args).chain(&["--settle", "0"]);
    let (code, why) = match lbctl::run_args(&ctl, argv.copied(), &mut out).await {
        Ok(()) => (0, String::new()),
        Err(e) => (e.exit_code(), e.to_string()),
    };
    let report: serde_json::Value =
        serde_json::from_slice(&out).unwrap_or_else(|_| panic!("{args:?}: {why}"));
    let found = report["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["kind"].as_str().unwrap().to_owned(),
                v["key"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (code, found, report)
}

/// Records a play of `player` scoring `score` on `board` at `ms` after T0.
pub async fn play(store: &Store, player: &str, score: u64, board: &str, ms: u64) {
    let play = play_of(player, score, board, ms);
    store.plays().record_play(&play, at(ms)).await.unwrap();
}

/// The play of `player` scoring `score` on `board` at `ms` after T0.
pub fn play_of(player: &str, score: u64, board: &str, ms: u64) -> leaderboard_store::Play {
    leaderboard_store::Play {
        subscores: Default::default(),
        idempotency_key: None,
        metadata: None,
        player_id: PlayerId::parse(player).unwrap(),
        session_id: leaderboard_keys::ids::SessionId::from_parts(T0 + ms, u128::from(score))
            .unwrap(),
        game_id: Some(leaderboard_keys::ids::GameId::parse("tetris").unwrap()),
        score,
        duration_sec: Some(60),
        board_ids: vec![BoardId::parse(board).unwrap()],
    }
}
