//! Boards read back identically, with the contract's keys.

use super::*;

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
            recurrence: Recurrence::Weekly,
            game_id: None,
            want_name: "Season 1",
            want_attrs: [
                ("order", "desc"),
                ("operator", "best"),
                ("recurrence", "weekly"),
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
            // A board without an end never recurs (a recurring one needs endsAt).
            recurrence: Recurrence::None,
            game_id: Some("g-1.x_Y"),
            want_name: "Ünïcödé ボード 🎮",
            want_attrs: [
                ("order", "desc"),
                ("operator", "increment"),
                ("recurrence", "none"),
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
            order: case.order,
            operator: case.operator,
            max_score: case.max_score,
            starts_at: case.starts_at.map(ts),
            ends_at: case.ends_at.map(ts),
            recurrence: case.recurrence.clone(),
            game_id: case.game_id.map(gid),
            ..NewBoard::named(bid(id), case.name.into())
        };
        // WHEN the board is created
        let created = store.boards().create_board(new, now).await.unwrap();
        // THEN it is the open board asked for
        let want = Board {
            board_id: bid(id),
            name: case.want_name.into(),
            order: case.order,
            operator: case.operator,
            max_score: case.max_score,
            min_score: 0,
            min_duration_sec: None,
            starts_at: ts(case.want_starts_at),
            ends_at: case.want_ends_at.map(ts),
            scheduled_ends_at: None,
            recurrence: case.recurrence,
            writers: Default::default(),
            game_id: case.game_id.map(gid),
            status: BoardStatus::Open,
            created_at: now,
            closed_at: None,
            player_count: None,
            next_board_id: None,
            rollover_error: None,
            rank_index: true,
            rank_layout: Default::default(),
            series_id: Some(leaderboard_store::rollover::series_of(&bid(id))),
            rank_migrating: false,
            lanes_grouped: true,
            lanes: 10,
            settings_version: 0,
            write_shards: 1,
            league: None,
            cohort_of: None,
            tier: None,
            entry_generation: 0,
            widening: None,
            columns: vec![],
            join_required: false,
            max_entrants: None,
            max_attempts: None,
            rewards: vec![],
        };
        assert_eq!(created, want, "{id}");
        // AND it reads back identically
        assert_eq!(
            store.boards().get_board(&bid(id)).await.unwrap(),
            Some(want),
            "{id}"
        );
        // AND the raw item has exactly the contract's keys (GSI2 only with an end)
        let pk = format!("LEADERBOARD#{id}");
        let raw = table.raw(&pk, "#METADATA").await.unwrap();
        let series = leaderboard_store::rollover::series_of(&bid(id));
        let mut want_keys = keys(&[
            ("pk", &pk),
            ("sk", "#METADATA"),
            ("gsi1pk", &format!("SERIES#{series}")),
            ("gsi1sk", &format!("BOARD#2026-01-01T00:00:00.000Z#{id}")),
        ]);
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
        assert_eq!(n(&raw, "minScore"), Some("0"), "{id}");
        assert_eq!(s(&raw, "startsAt"), Some(case.want_starts_at), "{id}");
        assert_eq!(s(&raw, "endsAt"), case.want_ends_at, "{id}");
        assert_eq!(s(&raw, "gameId"), case.game_id, "{id}");
        assert_eq!(s(&raw, "createdAt"), Some("2026-01-01T00:00:00.000Z"));
        for absent in [
            "closedAt",
            "playerCount",
            "nextLeaderboardId",
            "ttl",
            "minDurationSec",
        ] {
            assert!(!raw.contains_key(absent), "{id} {absent}");
        }
    }
}
