//! Round trips against DynamoDB Local: every entity the store writes (boards, players, sessions,
//! Score entries and their pointers) reads back identically, and its raw item carries the
//! contract's key attributes exactly. Expected keys and attribute values are written out by hand
//! here, never built with the key crate.

mod common;

use aws_sdk_dynamodb::types::AttributeValue;
use common::*;
use leaderboard_devkit::testing::{RawItem, TestTable, n, s};
use leaderboard_keys::ids::{Email, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{
    Board, BoardOutcome, BoardStatus, Entry, NewBoard, Operator, Player, Recurrence, ScoreEntry,
    Session,
};
use leaderboard_store::{Play, Store};

fn ts(rfc3339: &str) -> Timestamp {
    Timestamp::parse_rfc3339("test", rfc3339).unwrap()
}

/// The key attributes (`pk` .. `gsi2sk`) an item carries, with their values, in that order.
fn keys_of(item: &RawItem) -> Vec<(&'static str, String)> {
    ["pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk"]
        .into_iter()
        .filter_map(|k| item.get(k).map(|v| (k, v.as_s().unwrap().clone())))
        .collect()
}

fn keys(pairs: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    pairs.iter().map(|(k, v)| (*k, (*v).to_owned())).collect()
}

// ---------------------------------------------------------------------------------------------
// Boards
// ---------------------------------------------------------------------------------------------

struct BoardCase {
    id: String,
    name: &'static str,
    order: Order,
    operator: Operator,
    max_score: u64,
    starts_at: Option<&'static str>,
    ends_at: Option<&'static str>,
    recurrence: Recurrence,
    game_id: Option<&'static str>,
    // what the item must hold, by hand
    want_name: &'static str,
    want_attrs: [(&'static str, &'static str); 4],
    want_max: &'static str,
    want_starts_at: &'static str,
    want_ends_at: Option<&'static str>,
    want_gsi2sk: Option<String>,
}

fn board_cases() -> Vec<BoardCase> {
    // 64 characters whose trailing number keeps its width, so the season can recur
    let long_id = format!("{}-01", "B".repeat(61));
    vec![
        BoardCase {
            id: "season_1".into(),
            name: "Season 1",
            order: Order::Desc,
            operator: Operator::Best,
            max_score: 9_999_999_999,
            starts_at: Some("2026-01-01T00:00:00Z"),
            ends_at: Some("2026-02-01T00:00:00Z"),
            recurrence: Recurrence::None,
            game_id: None,
            want_name: "Season 1",
            want_attrs: [
                ("order", "desc"),
                ("operator", "best"),
                ("recurrence", "none"),
                ("status", "open"),
            ],
            want_max: "9999999999",
            want_starts_at: "2026-01-01T00:00:00.000Z",
            want_ends_at: Some("2026-02-01T00:00:00.000Z"),
            want_gsi2sk: Some("2026-02-01T00:00:00.000Z#season_1".into()),
        },
        // times given with an offset and sub-milliseconds are kept as UTC milliseconds
        BoardCase {
            id: "daily_2026-03-01".into(),
            name: "Daily",
            order: Order::Asc,
            operator: Operator::Latest,
            max_score: 999_999,
            starts_at: Some("2026-03-01T12:00:00.5+02:00"),
            ends_at: Some("2026-03-02T12:00:00.5009+02:00"),
            recurrence: Recurrence::Daily,
            game_id: Some("tetris"),
            want_name: "Daily",
            want_attrs: [
                ("order", "asc"),
                ("operator", "latest"),
                ("recurrence", "daily"),
                ("status", "open"),
            ],
            want_max: "999999",
            want_starts_at: "2026-03-01T10:00:00.500Z",
            want_ends_at: Some("2026-03-02T10:00:00.500Z"),
            want_gsi2sk: Some("2026-03-02T10:00:00.500Z#daily_2026-03-01".into()),
        },
        // no start (it starts at creation) and no end (never listed as open by end)
        BoardCase {
            id: "weekly.inc".into(),
            name: "  Ünïcödé ボード 🎮  ",
            order: Order::Desc,
            operator: Operator::Increment,
            max_score: 1,
            starts_at: None,
            ends_at: None,
            recurrence: Recurrence::Weekly,
            game_id: Some("g-1.x_Y"),
            want_name: "Ünïcödé ボード 🎮",
            want_attrs: [
                ("order", "desc"),
                ("operator", "increment"),
                ("recurrence", "weekly"),
                ("status", "open"),
            ],
            want_max: "1",
            want_starts_at: "2026-01-01T00:00:00.000Z",
            want_ends_at: None,
            want_gsi2sk: None,
        },
        // the widest board, a 64-character id, the latest end there is
        BoardCase {
            id: long_id.clone(),
            name: "Widest",
            order: Order::Asc,
            operator: Operator::Best,
            max_score: 999_999_999_999_999_999,
            starts_at: Some("2026-01-01T00:00:00.001Z"),
            ends_at: Some("9999-12-31T23:59:59.999Z"),
            recurrence: Recurrence::Season,
            game_id: None,
            want_name: "Widest",
            want_attrs: [
                ("order", "asc"),
                ("operator", "best"),
                ("recurrence", "season"),
                ("status", "open"),
            ],
            want_max: "999999999999999999",
            want_starts_at: "2026-01-01T00:00:00.001Z",
            want_ends_at: Some("9999-12-31T23:59:59.999Z"),
            want_gsi2sk: Some(format!("9999-12-31T23:59:59.999Z#{long_id}")),
        },
        // the smallest maxScore: only 0 fits
        BoardCase {
            id: "Z".into(),
            name: "n",
            order: Order::Desc,
            operator: Operator::Latest,
            max_score: 0,
            starts_at: Some("2025-12-31T23:59:59.999Z"),
            ends_at: Some("2026-01-01T00:00:00Z"),
            recurrence: Recurrence::None,
            game_id: Some("g"),
            want_name: "n",
            want_attrs: [
                ("order", "desc"),
                ("operator", "latest"),
                ("recurrence", "none"),
                ("status", "open"),
            ],
            want_max: "0",
            want_starts_at: "2025-12-31T23:59:59.999Z",
            want_ends_at: Some("2026-01-01T00:00:00.000Z"),
            want_gsi2sk: Some("2026-01-01T00:00:00.000Z#Z".into()),
        },
    ]
}

#[tokio::test]
async fn boards_read_back_identically_with_the_contract_keys() {
    let (table, store) = store("rt_boards").await;
    let now = at(0);
    for case in board_cases() {
        let id = case.id.as_str();
        // GIVEN the admin's request
        let new = NewBoard {
            board_id: bid(id),
            name: case.name.into(),
            order: case.order,
            operator: case.operator,
            max_score: case.max_score,
            starts_at: case.starts_at.map(ts),
            ends_at: case.ends_at.map(ts),
            recurrence: case.recurrence,
            game_id: case.game_id.map(gid),
            rank_layout: Default::default(),
        };
        // WHEN the board is created
        let created = store.create_board(new, now).await.unwrap();
        // THEN it is the open board asked for
        let want = Board {
            board_id: bid(id),
            name: case.want_name.into(),
            order: case.order,
            operator: case.operator,
            max_score: case.max_score,
            starts_at: ts(case.want_starts_at),
            ends_at: case.want_ends_at.map(ts),
            recurrence: case.recurrence,
            game_id: case.game_id.map(gid),
            status: BoardStatus::Open,
            created_at: now,
            closed_at: None,
            player_count: None,
            next_board_id: None,
            rollover_error: None,
            rank_index: true,
            rank_layout: Default::default(),
            rank_migrating: false,
        };
        assert_eq!(created, want, "{id}");
        // AND it reads back identically
        assert_eq!(store.get_board(&bid(id)).await.unwrap(), Some(want), "{id}");
        // AND the raw item has exactly the contract's keys (GSI2 only with an end)
        let pk = format!("LEADERBOARD#{id}");
        let raw = table.raw(&pk, "#METADATA").await.unwrap();
        let mut want_keys = keys(&[("pk", &pk), ("sk", "#METADATA")]);
        if let Some(gsi2sk) = &case.want_gsi2sk {
            want_keys.extend(keys(&[("gsi2pk", "BOARDS#OPEN"), ("gsi2sk", gsi2sk)]));
        }
        assert_eq!(keys_of(&raw), want_keys, "{id}");
        // AND its attributes are the contract's
        assert_eq!(s(&raw, "leaderboardId"), Some(id));
        assert_eq!(s(&raw, "name"), Some(case.want_name));
        for (attr, value) in case.want_attrs {
            assert_eq!(s(&raw, attr), Some(value), "{id} {attr}");
        }
        assert_eq!(n(&raw, "maxScore"), Some(case.want_max), "{id}");
        assert_eq!(s(&raw, "startsAt"), Some(case.want_starts_at), "{id}");
        assert_eq!(s(&raw, "endsAt"), case.want_ends_at, "{id}");
        assert_eq!(s(&raw, "gameId"), case.game_id, "{id}");
        assert_eq!(s(&raw, "createdAt"), Some("2026-01-01T00:00:00.000Z"));
        for absent in ["closedAt", "playerCount", "nextLeaderboardId", "ttl"] {
            assert!(!raw.contains_key(absent), "{id} {absent}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Players
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn players_read_back_identically_with_the_contract_keys() {
    let (table, store) = store("rt_players").await;
    let long_id = "p".repeat(64);
    let long_name = "é".repeat(128);
    // (playerId, name given, email, name stored)
    let cases: Vec<(&str, &str, Option<&str>, &str)> = vec![
        ("p_alice", "Alice", Some("alice@example.com"), "Alice"),
        ("P-Bob.2", "  Bob  ", None, "Bob"),
        ("x", "Zoë 🎮", Some("Zoe+games@Example.COM"), "Zoë 🎮"),
        (&long_id, &long_name, Some("a@b"), &long_name),
        ("0", "zero", None, "zero"),
    ];
    for (i, (id, name, email, want_name)) in cases.into_iter().enumerate() {
        let now = at(1_000 * i as u64 + 7);
        let email = email.map(|e| Email::parse(e).unwrap());
        // WHEN the profile is put
        let put = store
            .put_profile(&pid(id), name, email.as_ref(), now)
            .await
            .unwrap();
        // THEN it is the new profile, and reads back identically
        let want = Player {
            player_id: pid(id),
            name: want_name.into(),
            email: email.clone(),
            lifetime_score: 0,
            games_played: 0,
            last_played_at: None,
            created_at: now,
            updated_at: now,
        };
        assert_eq!(put, want, "{id}");
        assert_eq!(
            store.get_player(&pid(id)).await.unwrap(),
            Some(want.clone())
        );
        if let Some(e) = &email {
            assert_eq!(store.find_player_by_email(e).await.unwrap(), Some(want));
        }
        // AND the raw item has exactly the contract's keys (GSI1 only with an email)
        let pk = format!("PLAYER#{id}");
        let raw = table.raw(&pk, "#METADATA").await.unwrap();
        let mut want_keys = keys(&[("pk", &pk), ("sk", "#METADATA")]);
        if let Some(e) = &email {
            want_keys.extend(keys(&[
                ("gsi1pk", &format!("PLAYER_EMAIL#{}", e.as_str())),
                ("gsi1sk", &pk),
            ]));
        }
        assert_eq!(keys_of(&raw), want_keys, "{id}");
        assert_eq!(s(&raw, "playerId"), Some(id));
        assert_eq!(s(&raw, "name"), Some(want_name));
        assert_eq!(s(&raw, "email"), email.as_ref().map(Email::as_str));
        assert_eq!(n(&raw, "lifetimeScore"), Some("0"));
        assert_eq!(n(&raw, "gamesPlayed"), Some("0"));
        let when = format!("2026-01-01T00:00:{:02}.007Z", i);
        assert_eq!(s(&raw, "createdAt"), Some(when.as_str()));
        assert_eq!(s(&raw, "updatedAt"), Some(when.as_str()));
    }
}

// ---------------------------------------------------------------------------------------------
// Sessions, and the Score items and pointers their plays write
// ---------------------------------------------------------------------------------------------

struct SessionCase {
    player: &'static str,
    session: &'static str,
    game: &'static str,
    boards: &'static [&'static str],
    score: u64,
    duration: Option<u64>,
    at: &'static str,
    /// Per board: (best, improved, rank) after the play.
    outcomes: &'static [(u64, bool, u64)],
    /// Per board: the Score item's sort key, by hand.
    score_sks: &'static [&'static str],
    want_duration: Option<&'static str>,
}

// The tiebreak of T0 (2026-01-01T00:00:00Z = 1767225600000 ms) is
// 9999999999999 - 1767225600000 = 8232774399999; later times subtract their offset.
const SESSION_CASES: &[SessionCase] = &[
    SessionCase {
        player: "p1",
        session: "01KDXZ00000000000000000001",
        game: "tetris",
        boards: &["sd"],
        score: 0,
        duration: None,
        at: "2026-01-01T00:00:01.000Z",
        outcomes: &[(0, true, 1)],
        score_sks: &["SCORE#0000000000#8232774398999#p1"],
        want_duration: None,
    },
    SessionCase {
        player: "p2",
        session: "01KDXZ1ABCDEFGHJKMNPQRSTVW",
        game: "chess-960",
        boards: &["sd", "sa"],
        score: 42,
        duration: Some(0),
        at: "2026-01-01T00:00:02.500Z",
        outcomes: &[(42, true, 1), (42, true, 1)],
        score_sks: &[
            "SCORE#0000000042#8232774397499#p2",
            "SCORE#957#8232774397499#p2",
        ],
        want_duration: Some("0"),
    },
    SessionCase {
        player: "p3",
        session: "7ZZZZZZZZZZZZZZZZZZZZZZZZZ",
        game: "g.x",
        boards: &["sa", "si", "sd"],
        score: 999,
        duration: Some(3_600),
        at: "2026-01-01T00:01:00.000Z",
        outcomes: &[(999, true, 2), (999, true, 1), (999, true, 1)],
        score_sks: &[
            "SCORE#000#8232774339999#p3",
            "SCORE#0000999#8232774339999#p3",
            "SCORE#0000000999#8232774339999#p3",
        ],
        want_duration: Some("3600"),
    },
    SessionCase {
        player: "p1",
        session: "01KDXZ00000000000000000002",
        game: "tetris",
        boards: &["si"],
        score: 1_000_000,
        duration: Some(86_400),
        at: "2026-01-02T00:00:00.001Z",
        outcomes: &[(1_000_000, true, 1)],
        score_sks: &["SCORE#1000000#8232687999998#p1"],
        want_duration: Some("86400"),
    },
];

#[tokio::test]
async fn sessions_and_their_entries_read_back_identically_with_the_contract_keys() {
    let (table, store) = store("rt_sessions").await;
    // GIVEN three boards: desc (10 digits), asc (3 digits), increment (7 digits)
    store
        .create_board(
            new_board("sd", Order::Desc, Operator::Best, 9_999_999_999),
            at(0),
        )
        .await
        .unwrap();
    store
        .create_board(new_board("sa", Order::Asc, Operator::Best, 999), at(0))
        .await
        .unwrap();
    store
        .create_board(
            new_board("si", Order::Desc, Operator::Increment, 1_000_000),
            at(0),
        )
        .await
        .unwrap();
    for case in SESSION_CASES {
        let session_id = SessionId::parse_stored(case.session).unwrap();
        let now = ts(case.at);
        let play = Play {
            idempotency_key: None,
            metadata: None,
            player_id: pid(case.player),
            session_id: session_id.clone(),
            game_id: Some(gid(case.game)),
            score: case.score,
            duration_sec: case.duration,
            board_ids: case.boards.iter().map(|b| bid(b)).collect(),
        };
        // WHEN the play is recorded
        let out = store.record_play(&play, now).await.unwrap();
        // THEN the Session is the one expected, and reads back identically
        let want = Session {
            metadata: None,
            player_id: pid(case.player),
            session_id: session_id.clone(),
            board_ids: case.boards.iter().map(|b| bid(b)).collect(),
            game_id: gid(case.game),
            score: case.score,
            duration_sec: case.duration,
            attained_at: now,
            outcomes: case
                .boards
                .iter()
                .zip(case.outcomes)
                .map(|(b, &(best, improved, rank))| BoardOutcome {
                    saturated: false,
                    board_id: bid(b),
                    best,
                    improved,
                    rank,
                    freshness: None,
                })
                .collect(),
        };
        assert!(!out.duplicate);
        // (each rank exact on these small boards, and stored with the Session as answered)
        let mut plain = out.session.clone();
        for o in &mut plain.outcomes {
            let f = o.freshness.take().expect("a rank carries its freshness");
            assert!(f.rank_exact && f.rank_lag == 0, "{}: {f:?}", case.session);
            assert!(f.player_count >= o.rank, "{}: {f:?}", case.session);
        }
        assert_eq!(plain, want, "{}", case.session);
        assert_eq!(
            store
                .get_session(&pid(case.player), &session_id)
                .await
                .unwrap(),
            Some(out.session.clone())
        );
        // AND the Session item has exactly the contract's keys and attributes
        let pk = format!("PLAYER#{}", case.player);
        let sk = format!("SESSION#{}", case.session);
        let raw = table.raw(&pk, &sk).await.unwrap();
        assert_eq!(
            keys_of(&raw),
            keys(&[
                ("pk", &pk),
                ("sk", &sk),
                ("gsi2pk", &format!("GAME#{}", case.game)),
                ("gsi2sk", &sk),
            ]),
            "{}",
            case.session
        );
        assert_eq!(s(&raw, "playerId"), Some(case.player));
        assert_eq!(s(&raw, "sessionId"), Some(case.session));
        assert_eq!(s(&raw, "gameId"), Some(case.game));
        assert_eq!(n(&raw, "score"), Some(case.score.to_string().as_str()));
        assert_eq!(n(&raw, "durationSec"), case.want_duration);
        assert_eq!(s(&raw, "attainedAt"), Some(case.at));
        let ids: Vec<AttributeValue> = case
            .boards
            .iter()
            .map(|b| AttributeValue::S((*b).to_owned()))
            .collect();
        assert_eq!(raw.get("leaderboardIds"), Some(&AttributeValue::L(ids)));
        assert_eq!(
            raw.get("outcomes")
                .and_then(|o| o.as_l().ok())
                .map(Vec::len),
            Some(case.boards.len())
        );

        // AND on each board the Score item sits at the hand-built sort key, its pointer
        // points at it, and both read back as the entry the play set
        for (board, score_sk) in case.boards.iter().zip(case.score_sks) {
            check_entry(
                &table,
                &store,
                board,
                case.player,
                score_sk,
                case.at,
                &ScoreEntry {
                    entry: Entry {
                        metadata: None,
                        name: Some(case.player.into()),
                        board_id: bid(board),
                        player_id: pid(case.player),
                        score: case.score,
                        attained_at: now,
                    },
                    saturated: false,
                    session_id: session_id.clone(),
                },
            )
            .await;
        }
    }
}

/// Checks a player's entry on a board: the Score item at `score_sk` (keys and attributes), the
/// pointer `PLAYER#<p>` / `ENTRY#<b>`, and that AP4 and the pointer read back `want`;
/// `attained_at` is the raw attribute expected, by hand.
async fn check_entry(
    table: &TestTable,
    store: &Store,
    board: &str,
    player: &str,
    score_sk: &str,
    attained_at: &str,
    want: &ScoreEntry,
) {
    let pk = format!("LEADERBOARD#{board}");
    let raw = table
        .raw(&pk, score_sk)
        .await
        .unwrap_or_else(|| panic!("no Score item {pk} / {score_sk}"));
    assert_eq!(
        keys_of(&raw),
        keys(&[
            ("pk", &pk),
            ("sk", score_sk),
            ("gsi1pk", &format!("PLAYER#{player}")),
            ("gsi1sk", &format!("SCORE#{board}")),
        ])
    );
    assert_eq!(s(&raw, "leaderboardId"), Some(board));
    assert_eq!(s(&raw, "playerId"), Some(player));
    assert_eq!(
        n(&raw, "score"),
        Some(want.entry.score.to_string().as_str())
    );
    assert_eq!(s(&raw, "attainedAt"), Some(attained_at));
    assert_eq!(s(&raw, "sessionId"), Some(want.session_id.as_str()));
    // exactly one Score item of the player on the board
    let items = table.dump().await;
    let mine = items
        .iter()
        .filter(|i| s(i, "pk") == Some(pk.as_str()) && s(i, "gsi1pk") == s(&raw, "gsi1pk"))
        .count();
    assert_eq!(mine, 1, "{board} {player}");
    // the pointer
    let pointer_raw = table
        .raw(&format!("PLAYER#{player}"), &format!("ENTRY#{board}"))
        .await
        .unwrap();
    assert_eq!(s(&pointer_raw, "scoreSk"), Some(score_sk));
    assert!(!pointer_raw.contains_key("gsi1pk") && !pointer_raw.contains_key("gsi2pk"));
    let pointer = store
        .entry_pointer(&bid(board), &pid(player))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(pointer.score_sk, score_sk);
    assert_eq!(&pointer.score_entry(), want);
    // AP4 reads the same entry
    assert_eq!(
        store.player_entry(&bid(board), &pid(player)).await.unwrap(),
        Some(want.clone())
    );
}

// ---------------------------------------------------------------------------------------------
// Imported entries at the edges of the key formats
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn imported_entries_read_back_identically_at_the_edges_of_the_key_format() {
    let (table, store) = store("rt_entries").await;
    let board = |id: &str, order, max| {
        let mut b = new_board(id, order, Operator::Best, max);
        b.starts_at = Some(ts("1970-01-01T00:00:00Z"));
        b
    };
    let wide = 999_999_999_999_999_999;
    let mut boards = std::collections::HashMap::new();
    for nb in [
        board("contract", Order::Desc, 9_999_999_999),
        board("wide_desc", Order::Desc, wide),
        board("wide_asc", Order::Asc, wide),
        board("speed", Order::Asc, 999_999),
        board("tiny", Order::Desc, 0),
    ] {
        let b = store.create_board(nb, at(0)).await.unwrap();
        boards.insert(b.board_id.to_string(), b);
    }
    // (board, player, score, attainedAt, the Score item's sort key by hand)
    let cases: &[(&str, &str, u64, &str, &str)] = &[
        // the contract's own example
        (
            "contract",
            "p_bob",
            9_850,
            "2024-06-23T00:00:00.000Z",
            "SCORE#0000009850#8280899199999#p_bob",
        ),
        (
            "contract",
            "p_top",
            9_999_999_999,
            "2026-01-01T00:00:00.000Z",
            "SCORE#9999999999#8232774399999#p_top",
        ),
        (
            "wide_desc",
            "p_max",
            wide,
            "2026-01-01T00:00:00.000Z",
            "SCORE#999999999999999999#8232774399999#p_max",
        ),
        (
            "wide_desc",
            "p_zero",
            0,
            "2026-01-01T00:00:00.000Z",
            "SCORE#000000000000000000#8232774399999#p_zero",
        ),
        (
            "wide_asc",
            "p_max",
            wide,
            "2026-01-01T00:00:00.000Z",
            "SCORE#000000000000000000#8232774399999#p_max",
        ),
        (
            "wide_asc",
            "p_zero",
            0,
            "2026-01-01T00:00:00.000Z",
            "SCORE#999999999999999999#8232774399999#p_zero",
        ),
        // a speed-run of 61.25 s in ms (the key crate's example)
        (
            "speed",
            "p_x",
            61_250,
            "2024-06-23T00:00:00.000Z",
            "SCORE#938749#8280899199999#p_x",
        ),
        // the epoch (largest tiebreak) and a 1-digit board
        (
            "tiny",
            "p",
            0,
            "1970-01-01T00:00:00.000Z",
            "SCORE#0#9999999999999#p",
        ),
    ];
    for &(board_id, player, score, when, score_sk) in cases {
        // WHEN the entry is imported
        let attained_at = ts(when);
        store
            .import_entries(&boards[board_id], &[(pid(player), score, attained_at)])
            .await
            .unwrap();
        let pointer = store
            .entry_pointer(&bid(board_id), &pid(player))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(pointer.version, 1);
        // THEN the items are at the hand-built keys and read back identically
        check_entry(
            &table,
            &store,
            board_id,
            player,
            score_sk,
            when,
            &ScoreEntry {
                entry: Entry {
                    metadata: None,
                    name: None,
                    board_id: bid(board_id),
                    player_id: pid(player),
                    score,
                    attained_at,
                },
                saturated: false,
                session_id: pointer.session_id.clone(),
            },
        )
        .await;
    }
    // AND the wide boards list and rank the extremes exactly
    let desc = store.top_scores(&bid("wide_desc"), 10, None).await.unwrap();
    let got: Vec<(&str, u64, u64)> = desc
        .items
        .iter()
        .map(|e| (e.player_id.as_str(), e.score, e.rank))
        .collect();
    assert_eq!(got, [("p_max", wide, 1), ("p_zero", 0, 2)]);
    let asc = store.top_scores(&bid("wide_asc"), 10, None).await.unwrap();
    let got: Vec<(&str, u64, u64)> = asc
        .items
        .iter()
        .map(|e| (e.player_id.as_str(), e.score, e.rank))
        .collect();
    assert_eq!(got, [("p_zero", 0, 1), ("p_max", wide, 2)]);
}
