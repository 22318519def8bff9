//! What the API's handler tests share: a table on DynamoDB Local with the API and submit-score
//! functions over it, API Gateway v2 requests as a player, an admin or nobody, boards, imported
//! populations, and the contract's rank order.
#![allow(dead_code)]

use std::collections::HashMap;

use lambda_http::Request;
use leaderboard_api::{App, handle};
use leaderboard_devkit::testing::{RawItem, TestTable};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{Board, NewBoard, Operator, RankLayout, Recurrence};
use leaderboard_store::{Config, Store};
use rand::Rng;
use serde_json::{Value, json};

pub const TEMPLATE: &str = include_str!("../../../../events/leaderboard-api/get-top-scores.json");

pub struct Harness {
    pub table: TestTable,
    pub store: Store,
    pub api: App,
    pub submit: submit_score::App,
}

pub async fn harness(label: &str) -> Harness {
    // No test here reads the stream; see TestTable::without_stream.
    let table = TestTable::without_stream(label).await;
    let store = Store::new(
        table.client.clone(),
        &Config {
            table_name: table.name.clone(),
            cursor_secret: b"t".to_vec(),
        },
    );
    Harness {
        api: App::new(store.clone()),
        submit: submit_score::App::new(store.clone()),
        table,
        store,
    }
}

/// Who calls: nobody, a player, an admin, or a game server.
#[derive(Clone, Copy)]
pub enum As<'a> {
    Anonymous,
    Player(&'a str),
    Admin(&'a str),
    Server(&'a str),
}

pub fn request(method: &str, path_and_query: &str, who: As, body: Option<&Value>) -> Request {
    let (path, query) = path_and_query
        .split_once('?')
        .unwrap_or((path_and_query, ""));
    let mut e: Value = serde_json::from_str(TEMPLATE).unwrap();
    e["routeKey"] = json!(format!("{method} {path}"));
    e["rawPath"] = json!(path);
    e["rawQueryString"] = json!(query);
    let params: HashMap<String, String> = query
        .split('&')
        .filter(|kv| !kv.is_empty())
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (k.to_owned(), v.replace("%40", "@").replace("%2B", "+"))
        })
        .collect();
    e["queryStringParameters"] = json!(params);
    e["requestContext"]["http"]["method"] = json!(method);
    e["requestContext"]["http"]["path"] = json!(path);
    match who {
        As::Anonymous => {}
        As::Player(sub) | As::Admin(sub) | As::Server(sub) => {
            let groups = match who {
                As::Admin(_) => "[admin players]",
                As::Server(_) => "[server]",
                _ => "[players]",
            };
            e["requestContext"]["authorizer"] =
                json!({"jwt": {"claims": {"sub": sub, "cognito:groups": groups}, "scopes": null}});
            // The token proves the address the body names, as an ID token of a provider that
            // verified it does (the API sets no other: see `emails`).
            if let Some(email) = body.and_then(|b| b["email"].as_str()) {
                let claims = &mut e["requestContext"]["authorizer"]["jwt"]["claims"];
                claims["email"] = json!(email);
                claims["email_verified"] = json!("true");
            }
        }
    }
    if let Some(b) = body {
        e["body"] = json!(b.to_string());
    }
    lambda_http::request::from_str(&e.to_string()).unwrap()
}

impl Harness {
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        who: As<'_>,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let resp = handle(&self.api, request(method, path, who, body))
            .await
            .unwrap();
        let status = resp.status().as_u16();
        (
            status,
            serde_json::from_slice(resp.body().as_ref()).unwrap_or(Value::Null),
        )
    }

    /// `POST /leaderboards` with `body` as an admin, which must be refused: 400
    /// `invalid_request`, its message naming `says`, and the table still `before` (its dump).
    pub async fn refused_board(&self, body: &Value, says: &str, before: &[RawItem]) {
        let (status, resp) = self
            .call("POST", "/leaderboards", As::Admin("ops"), Some(body))
            .await;
        assert_eq!(
            (status, code(&resp)),
            (400, "invalid_request"),
            "{body} -> {resp}"
        );
        let message = resp["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{body}: {message}");
        assert_eq!(self.table.dump().await, before, "{body} wrote something");
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.call("GET", path, As::Anonymous, None).await
    }

    /// `POST /sessions` (or the shorthand of `board`) with `body` as `player`.
    pub async fn post(&self, player: &str, board: Option<&str>, body: &Value) -> (u16, Value) {
        let path = board.map_or("/sessions".to_owned(), |b| {
            format!("/leaderboards/{b}/scores")
        });
        let req = request("POST", &path, As::Player(player), Some(body));
        let resp = submit_score::handle(&self.submit, req).await.unwrap();
        let status = resp.status().as_u16();
        (
            status,
            serde_json::from_slice(resp.body().as_ref()).unwrap_or(Value::Null),
        )
    }

    /// A play of `player` on `boards`, which must be accepted: its answer.
    pub async fn play(&self, player: &str, score: u64, boards: &[&str]) -> Value {
        let body = json!({"score": score, "gameId": "tetris", "leaderboardIds": boards});
        let (status, answer) = self.post(player, None, &body).await;
        assert_eq!(status, 200, "{answer}");
        answer
    }

    pub async fn board(&self, id: &str, order: Order) -> Board {
        self.board_with(id, order, RankLayout::default()).await
    }

    /// An open board (a day ago to a day ahead) with `layout`.
    pub async fn board_with(&self, id: &str, order: Order, layout: RankLayout) -> Board {
        let now = Timestamp::now();
        let day = 86_400_000;
        self.create(
            id,
            order,
            layout,
            now.as_millis() - day,
            now.as_millis() + day,
        )
        .await
    }

    /// A board that ran for an hour and ended an hour ago: ready to close.
    pub async fn ended_board(&self, id: &str) -> Board {
        let now = Timestamp::now().as_millis();
        self.create(
            id,
            Order::Desc,
            RankLayout::default(),
            now - 7_200_000,
            now - 3_600_000,
        )
        .await
    }

    /// An ended board of `n` imported players, closed: its entries.
    pub async fn closed_board(&self, id: &str, n: usize) -> Vec<(PlayerId, u64, Timestamp)> {
        let board = self.ended_board(id).await;
        let entries = populate(self, &board, n).await;
        self.store
            .close()
            .close_board(&board.board_id, Timestamp::now(), &Default::default())
            .await
            .unwrap();
        entries
    }

    /// A board from `from` to `to`; a `Legacy` one is stored as boards made before the rank
    /// index's current layout are (no `rankLayout`), ranked by counting.
    async fn create(
        &self,
        id: &str,
        order: Order,
        layout: RankLayout,
        from: u64,
        to: u64,
    ) -> Board {
        let starts_at = Timestamp::from_millis(from).unwrap();
        let board = self
            .store
            .boards()
            .create_board(
                NewBoard {
                    order,
                    operator: Operator::Best,
                    max_score: 9_999_999_999,
                    starts_at: Some(starts_at),
                    ends_at: Some(Timestamp::from_millis(to).unwrap()),
                    recurrence: Recurrence::Season,
                    rank_layout: RankLayout::V2,
                    ..NewBoard::named(BoardId::parse(id).unwrap(), id.into())
                },
                starts_at,
            )
            .await
            .unwrap();
        if layout == RankLayout::V2 {
            return board;
        }
        let pk = format!("LEADERBOARD#{id}");
        self.table
            .update_raw(&pk, "#METADATA", "REMOVE rankLayout")
            .await;
        let stored = self
            .store
            .boards()
            .get_board(&board.board_id)
            .await
            .unwrap();
        stored.unwrap()
    }
}

pub fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("<none>")
}

/// `n` players with scores from a small range (many ties) and a few equal times, imported.
pub async fn populate(h: &Harness, board: &Board, n: usize) -> Vec<(PlayerId, u64, Timestamp)> {
    let mut rng = rand::rng();
    let base = Timestamp::now().as_millis() - 3_600_000;
    let entries: Vec<(PlayerId, u64, Timestamp)> = (0..n)
        .map(|i| {
            (
                PlayerId::parse(&format!("p{i:05}")).unwrap(),
                rng.random_range(0..50),
                Timestamp::from_millis(base + rng.random_range(0..20)).unwrap(),
            )
        })
        .collect();
    h.store
        .boards()
        .import_entries(board, &entries)
        .await
        .unwrap();
    // No stream here: the rank index is built from the board (one made before the index has
    // none: it is counted).
    if board.indexed() {
        h.store.rank().build_rank_index(board).await.unwrap();
    }
    entries
}

/// An own-rank answer's freshness fields, checked exact on a board of `player_count` entries
/// (`topPercent` = 100 × rank / playerCount, two decimals rounded up), and the entry without
/// them.
pub fn exact_own(entry: &Value, player_count: u64) -> Value {
    let rank = entry["rank"].as_u64().unwrap();
    assert_eq!(entry["rankExact"], true, "{entry}");
    assert_eq!(entry["rankLag"], 0, "{entry}");
    assert_eq!(entry["playerCount"], player_count, "{entry}");
    let hundredths = (rank * 10_000).div_ceil(player_count);
    assert_eq!(
        entry["topPercent"].as_f64(),
        Some(hundredths as f64 / 100.0),
        "{entry}"
    );
    let mut plain = entry.clone();
    for field in ["rankExact", "rankLag", "playerCount", "topPercent"] {
        plain.as_object_mut().unwrap().remove(field);
    }
    plain
}
