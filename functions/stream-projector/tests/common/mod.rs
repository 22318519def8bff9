//! What the projector's integration tests (and its benchmark) share: a table with boards on the
//! run's DynamoDB Local, plays recorded through the store with the test's own expected totals,
//! the table's real stream read through the devkit reader, a request counter, and the store
//! with injected write failures, delivered to by the event source mapping.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use aws_lambda_events::event::dynamodb::EventRecord;
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use lambda_runtime::{Context, LambdaEvent};
use leaderboard_devkit::local::{RequestCounter, counting_client};
use leaderboard_devkit::stream::{EventSourceMapping, StartingPosition, StreamReader};
use leaderboard_devkit::testing::{RawItem, TestTable, s};
use leaderboard_keys::ids::{BoardId, GameId, PlayerId, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::rank_index::LaneChange;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{NewBoard, Operator, Player, RankLayout, Recurrence};
use leaderboard_store::{
    Config, LaneApplyOutcome, Play, ProjectedSession, ProjectionOutcome, Store, StoreError,
};
use rand::Rng;
use rand::seq::SliceRandom;
use stream_projector::{LaneIndex, Projection, handle};

/// 2026-01-01T00:00:00Z: the clock of the tests.
pub const T0: u64 = 1_767_225_600_000;

/// The boards every scenario has: plays count on 1 to 3 of them.
pub const BOARDS: [&str; 3] = ["season_1", "daily_1", "speedrun_1"];

pub fn at(ms_after_t0: u64) -> Timestamp {
    Timestamp::from_millis(T0 + ms_after_t0).unwrap()
}

pub fn pid(s: &str) -> PlayerId {
    PlayerId::parse(s).unwrap()
}

/// A player id of the scenarios: `p_00`, `p_01`, ...
pub fn player_name(i: usize) -> String {
    format!("p_{i:02}")
}

/// What the test itself computed for one player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Expected {
    pub lifetime_score: u64,
    pub games_played: u64,
    pub last_played_at: Option<Timestamp>,
}

/// One recorded play, as the test remembers it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub player: String,
    pub session: SessionId,
    pub score: u64,
    pub attained_at: Timestamp,
    pub boards: usize,
}

/// A table with the three boards, a store over it, and the plays recorded so far.
pub struct Scenario {
    pub table: TestTable,
    pub store: Store,
    pub plays: Vec<Recorded>,
}

pub fn store_for(table: &TestTable, client: aws_sdk_dynamodb::Client) -> Store {
    Store::new(
        client,
        &Config {
            table_name: table.name.clone(),
            cursor_secret: b"test".to_vec(),
        },
    )
}

/// A board of the game `tetris`, open all of 2026, scores of the widest default range.
pub fn new_board(id: &str, order: Order, operator: Operator, layout: RankLayout) -> NewBoard {
    NewBoard {
        order,
        operator,
        max_score: 9_999_999_999,
        starts_at: Some(at(0)),
        ends_at: Some(at(365 * 86_400_000)),
        recurrence: Recurrence::None,
        game_id: Some(GameId::parse("tetris").unwrap()),
        rank_layout: layout,
        ..NewBoard::named(BoardId::parse(id).unwrap(), format!("Board {id}"))
    }
}

impl Scenario {
    /// A fresh, empty table without a stream: where a shared [`Dataset`]'s records are
    /// projected (its own writes need not feed a stream).
    pub async fn empty(label: &str) -> Scenario {
        let table = TestTable::without_stream(label).await;
        let store = store_for(&table, table.client.clone());
        Scenario {
            table,
            store,
            plays: Vec::new(),
        }
    }

    /// A fresh table with the boards (open all of 2026), on its process's DynamoDB Local: its
    /// test reads the stream, which on the run's shared one slows down with every other test's
    /// records.
    pub async fn new(label: &str) -> Scenario {
        let table = TestTable::on_process_local(label).await;
        let store = store_for(&table, table.client.clone());
        let orders = [
            (Order::Desc, Operator::Best),
            (Order::Desc, Operator::Latest),
            (Order::Asc, Operator::Best),
        ];
        for (id, (order, operator)) in BOARDS.iter().zip(orders) {
            store
                .boards()
                .create_board(new_board(id, order, operator, RankLayout::V2), at(0))
                .await
                .unwrap();
        }
        Scenario {
            table,
            store,
            plays: Vec::new(),
        }
    }

    /// Records one play of `player` at `ms` after T0 on `boards` boards (1 to 3).
    pub async fn play(&mut self, player: &str, score: u64, boards: usize, ms: u64) {
        let recorded = record(&self.store, player, score, boards, ms).await;
        self.plays.push(recorded);
    }

    /// Records `n` random plays over `players` players on `lanes` concurrent lanes (a player
    /// always on the same lane, so plays of one player do not contend): random scores, 1 to 3
    /// boards each, times that mostly rise but not always from one play to the next.
    pub async fn random_plays(&mut self, n: usize, players: usize, lanes: usize) {
        let base = self.plays.len() as u64;
        let lanes = lanes.max(1);
        let mut plans: Vec<Vec<(String, u64, usize, u64)>> = vec![Vec::new(); lanes];
        {
            let mut rng = rand::rng();
            for i in 0..n as u64 {
                let p = rng.random_range(0..players);
                plans[p % lanes].push((
                    player_name(p),
                    rng.random_range(0..100_000),
                    rng.random_range(1..=3),
                    (base + i) * 1_000 + rng.random_range(0..5_000),
                ));
            }
        }
        let store = &self.store;
        let recorded: Vec<Vec<Recorded>> =
            futures::future::join_all(plans.into_iter().map(|lane| async move {
                let mut out = Vec::with_capacity(lane.len());
                for (player, score, boards, ms) in lane {
                    out.push(record(store, &player, score, boards, ms).await);
                }
                out
            }))
            .await;
        self.plays.extend(recorded.into_iter().flatten());
    }

    /// The totals the projection must reach, from the plays the test recorded (less `except`,
    /// sessions whose stream records were poisoned).
    pub fn expected(&self, except: &[SessionId]) -> BTreeMap<String, Expected> {
        expected_totals(&self.plays, except)
    }

    /// Every record of the table's stream so far, read from DynamoDB Local's real stream.
    pub async fn stream(&self) -> Vec<EventRecord> {
        let mut reader = StreamReader::for_table(
            &self.table.endpoint,
            &self.table.name,
            StartingPosition::TrimHorizon,
        )
        .await
        .unwrap();
        reader.read_to_end().await.unwrap()
    }

    /// Every Player item, as the store reads it.
    pub async fn players(&self) -> BTreeMap<String, Player> {
        let mut out = BTreeMap::new();
        for item in self.player_items().await {
            let id = s(&item, "playerId").unwrap().to_owned();
            let player = self
                .store
                .players()
                .get_player(&pid(&id))
                .await
                .unwrap()
                .unwrap();
            out.insert(id, player);
        }
        out
    }

    /// The raw Player items (`PLAYER#...` / `#METADATA`).
    pub async fn player_items(&self) -> Vec<RawItem> {
        self.table
            .dump()
            .await
            .into_iter()
            .filter(|i| {
                s(i, "sk") == Some("#METADATA")
                    && s(i, "pk").is_some_and(|pk| pk.starts_with("PLAYER#"))
            })
            .collect()
    }

    /// Asserts that every player's totals are exactly `expected`, and that no other player has
    /// an item.
    pub async fn assert_totals(&self, expected: &BTreeMap<String, Expected>) {
        let players = self.players().await;
        let got: BTreeMap<String, Expected> = players
            .iter()
            .map(|(id, p)| {
                (
                    id.clone(),
                    Expected {
                        lifetime_score: p.lifetime_score,
                        games_played: p.games_played,
                        last_played_at: p.last_played_at,
                    },
                )
            })
            .collect();
        assert_eq!(got.len(), expected.len(), "players with an item");
        for (id, want) in expected {
            assert_eq!(got.get(id), Some(want), "totals of {id}");
        }
    }
}

/// The totals of `plays`, less the sessions `except`.
pub fn expected_totals(plays: &[Recorded], except: &[SessionId]) -> BTreeMap<String, Expected> {
    let mut out: BTreeMap<String, Expected> = BTreeMap::new();
    for p in plays.iter().filter(|p| !except.contains(&p.session)) {
        let e = out.entry(p.player.clone()).or_default();
        e.lifetime_score += p.score;
        e.games_played += 1;
        e.last_played_at = e.last_played_at.max(Some(p.attained_at));
    }
    out
}

/// Plays recorded once and their table's whole stream, shared by the tests of one test binary
/// (each projects them into a table of its own).
pub struct Dataset {
    /// The plays, as the test recorded them.
    pub plays: Vec<Recorded>,
    /// Every record of the table's stream, in order.
    pub records: Vec<EventRecord>,
}

impl Dataset {
    /// The totals the projection must reach, less the sessions `except`.
    pub fn expected(&self, except: &[SessionId]) -> BTreeMap<String, Expected> {
        expected_totals(&self.plays, except)
    }
}

/// The plays of [`sessions`]: 8 for each of the 50 players on average, a stream of more than
/// ten batches of 100 records (a larger set only repeats what its batches exercise).
pub const SESSIONS: usize = 400;

static SESSIONS_DATA: tokio::sync::OnceCell<Dataset> = tokio::sync::OnceCell::const_new();

/// [`SESSIONS`] random plays of 50 players on 1 to 3 boards each, and their stream: made once
/// per test binary.
pub async fn sessions() -> &'static Dataset {
    SESSIONS_DATA
        .get_or_init(|| async {
            let mut sc = Scenario::new("sessions").await;
            sc.random_plays(SESSIONS, 50, 8).await;
            let records = sc.stream().await;
            Dataset {
                plays: sc.plays,
                records,
            }
        })
        .await
}

async fn record(store: &Store, player: &str, score: u64, boards: usize, ms: u64) -> Recorded {
    let mut ids: Vec<&str> = BOARDS.to_vec();
    ids.shuffle(&mut rand::rng());
    ids.truncate(boards.clamp(1, 3));
    let session = SessionId::from_parts(T0 + ms, rand::random()).unwrap();
    let play = Play {
        subscores: Default::default(),
        idempotency_key: None,
        metadata: None,
        player_id: pid(player),
        session_id: session.clone(),
        game_id: None,
        score,
        duration_sec: Some(60),
        board_ids: ids.iter().map(|b| BoardId::parse(b).unwrap()).collect(),
    };
    let out = store.plays().record_play(&play, at(ms)).await.unwrap();
    assert!(!out.duplicate);
    Recorded {
        player: player.to_owned(),
        session,
        score,
        attained_at: at(ms),
        boards: ids.len(),
    }
}

/// A string key attribute of a record (empty when absent).
pub fn record_key(r: &EventRecord, attr: &str) -> String {
    match r.change.keys.inner().get(attr) {
        Some(serde_dynamo::AttributeValue::S(s)) => s.clone(),
        _ => String::new(),
    }
}

/// Whether a record is a Session INSERT (by its key and event name).
pub fn is_session_insert(r: &EventRecord) -> bool {
    r.event_name == "INSERT"
        && record_key(r, "pk").starts_with("PLAYER#")
        && record_key(r, "sk").starts_with("SESSION#")
}

/// The sequence number of a record.
pub fn seq(r: &EventRecord) -> &str {
    r.change.sequence_number.as_deref().unwrap()
}

/// The reported `itemIdentifier`s of a response.
pub fn failures(r: &DynamoDbEventResponse) -> Vec<String> {
    r.batch_item_failures
        .iter()
        .map(|f| f.item_identifier.clone().unwrap_or_default())
        .collect()
}

/// A store over `table` whose DynamoDB requests are counted (every attempt, SDK retries
/// included).
pub fn counted_store(table: &TestTable) -> (Store, Arc<RequestCounter>) {
    let (client, counter) = counting_client(&table.endpoint);
    (store_for(table, client), counter)
}

/// Requests since the counter's last reset: (UpdateItem, GetItem, all).
pub fn cost(counter: &RequestCounter) -> (u64, u64, u64) {
    let counts = counter.snapshot();
    let of = |op: &str| counts.get(op).copied().unwrap_or(0);
    (of("UpdateItem"), of("GetItem"), counter.total())
}

/// The store, but a chosen write fails the first time, as DynamoDB would after the SDK's own
/// retries: the `lane_fail_at`-th rank index write (counting from 1; 0 for none). It fails
/// before writing anything, or, given `lanes_failing_half_way` (a store whose transactions
/// fail after its first), half way.
pub struct FailOnce {
    pub store: Store,
    pub lane_calls: AtomicUsize,
    pub lane_fail_at: usize,
    pub lanes_failing_half_way: Option<Store>,
}

impl FailOnce {
    /// No failures at all.
    pub fn none(store: &Store) -> FailOnce {
        FailOnce {
            store: store.clone(),
            lane_calls: AtomicUsize::new(0),
            lane_fail_at: 0,
            lanes_failing_half_way: None,
        }
    }

    fn injected() -> StoreError {
        StoreError::Contention { attempts: 0 }
    }
}

impl Projection for FailOnce {
    async fn project(
        &self,
        player: &PlayerId,
        sessions: &[ProjectedSession],
        now: Timestamp,
    ) -> Result<ProjectionOutcome, StoreError> {
        self.store
            .projection()
            .project_sessions(player, sessions, now)
            .await
    }
}

impl LaneIndex for FailOnce {
    async fn apply_lanes(
        &self,
        board: &BoardId,
        changes: &[LaneChange],
    ) -> Result<LaneApplyOutcome, StoreError> {
        if self.lane_calls.fetch_add(1, Ordering::SeqCst) + 1 == self.lane_fail_at {
            let Some(half_way) = &self.lanes_failing_half_way else {
                return Err(FailOnce::injected());
            };
            let outcome = half_way.rank().apply_lane_changes(board, changes).await;
            assert!(
                outcome.is_err(),
                "the half-way failure happened: {outcome:?}"
            );
            return outcome;
        }
        self.store.rank().apply_lane_changes(board, changes).await
    }
}

/// A play of `player` scoring `score` on `boards` at `ms` after T0, for the game `tetris`, in a
/// session of its own: the play and its time.
pub fn play_at(player: &str, score: u64, ms: u64, boards: Vec<BoardId>) -> (Play, Timestamp) {
    let now = at(ms);
    let play = Play {
        subscores: Default::default(),
        idempotency_key: None,
        metadata: None,
        player_id: pid(player),
        session_id: SessionId::from_parts(now.as_millis(), rand::random()).unwrap(),
        game_id: Some(GameId::parse("tetris").unwrap()),
        score,
        duration_sec: None,
        board_ids: boards,
    };
    (play, now)
}

/// Records a play of `player` scoring `score` on `board` at `ms` after T0 ([`play_at`]).
pub async fn play_on(store: &Store, board: &BoardId, player: &str, score: u64, ms: u64) {
    let (play, now) = play_at(player, score, ms, vec![board.clone()]);
    store.plays().record_play(&play, now).await.unwrap();
}

/// Delivers `records` to the handler as the event source mapping does (batches of 100,
/// re-delivery from the first reported record); answers how many re-deliveries it took.
pub async fn deliver<P: Projection + LaneIndex>(target: &P, records: &[EventRecord]) -> u32 {
    let delivery = EventSourceMapping::default()
        .deliver(records, |e| {
            handle(target, LambdaEvent::new(e, Context::default()))
        })
        .await;
    assert!(delivery.discarded.is_empty(), "records given up on");
    delivery.retries
}

/// An open v2 board `id` (highest score first, best kept), made at [`at`]`(0)`.
pub async fn open_v2_board(store: &Store, id: &str) -> leaderboard_store::model::Board {
    store
        .boards()
        .create_board(
            new_board(id, Order::Desc, Operator::Best, RankLayout::V2),
            at(0),
        )
        .await
        .unwrap()
}

/// A layout v2 board `id` holding `entries`, its index built (as a bulk load is), and a reader
/// of the table's stream positioned after everything so far.
pub async fn built_v2_board(
    table: &TestTable,
    store: &Store,
    id: &str,
    entries: &[(PlayerId, u64, Timestamp)],
) -> (leaderboard_store::model::Board, StreamReader) {
    let new = new_board(id, Order::Desc, Operator::Best, RankLayout::V2);
    let entries: Vec<_> = entries
        .iter()
        .map(|(p, score, at)| (p.clone(), *score, Vec::new(), *at))
        .collect();
    built_board(table, store, new, &entries).await
}

/// The board `new` holding `entries` (each with its tiebreak columns' values), made at
/// [`at`]`(0)`, its index built, and a reader of the table's stream positioned after
/// everything so far.
pub async fn built_board(
    table: &TestTable,
    store: &Store,
    new: NewBoard,
    entries: &[(PlayerId, u64, Vec<u64>, Timestamp)],
) -> (leaderboard_store::model::Board, StreamReader) {
    let board = store.boards().create_board(new, at(0)).await.unwrap();
    store
        .boards()
        .import_ranked_entries(&board, entries)
        .await
        .unwrap();
    store.rank().build_rank_index(&board).await.unwrap();
    let mut reader =
        StreamReader::for_table(&table.endpoint, &table.name, StartingPosition::TrimHorizon)
            .await
            .unwrap();
    reader.read_to_end().await.unwrap();
    (board, reader)
}
