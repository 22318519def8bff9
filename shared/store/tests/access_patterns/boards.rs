//! Board creation and AP9 (a board by id).

use super::*;

#[tokio::test]
async fn create_board_writes_the_contract_item_and_ap9_reads_it_back() {
    let (table, store) = store("boards").await;
    // GIVEN an asc, latest, weekly board of a game that ends 7 days and 123 ms after T0
    let mut nb = new_board("speed_run-1.a", Order::Asc, Operator::Latest, 999_999);
    nb.name = " Speed run ".into();
    nb.ends_at = Some(at(7 * 86_400_000 + 123));
    nb.recurrence = leaderboard_store::model::Recurrence::Weekly;
    nb.game_id = Some(gid("tetris"));
    // WHEN it is created
    let created = store
        .boards()
        .create_board(nb.clone(), at(42))
        .await
        .unwrap();
    // THEN the raw item is the contract's, listed open under GSI2 by its end, and under GSI1
    // in its series (the id itself: it ends in no date, week or number)
    let raw = table
        .raw("LEADERBOARD#speed_run-1.a", "#METADATA")
        .await
        .unwrap();
    assert_eq!(
        keys_of(&raw),
        want_keys(&[
            ("pk", "LEADERBOARD#speed_run-1.a"),
            ("sk", "#METADATA"),
            ("gsi1pk", "SERIES#speed_run-1.a"),
            ("gsi1sk", "BOARD#2026-01-01T00:00:00.042Z#speed_run-1.a"),
            ("gsi2pk", "BOARDS#OPEN"),
            ("gsi2sk", "2026-01-08T00:00:00.123Z#speed_run-1.a"),
        ])
    );
    assert_eq!(s(&raw, "leaderboardId"), Some("speed_run-1.a"));
    assert_eq!(s(&raw, "name"), Some("Speed run"));
    assert_eq!(s(&raw, "status"), Some("open"));
    assert_eq!(s(&raw, "order"), Some("asc"));
    assert_eq!(s(&raw, "operator"), Some("latest"));
    assert_eq!(n(&raw, "maxScore"), Some("999999"));
    assert_eq!(s(&raw, "recurrence"), Some("weekly"));
    assert_eq!(s(&raw, "gameId"), Some("tetris"));
    assert_eq!(s(&raw, "startsAt"), Some("2026-01-01T00:00:00.000Z"));
    assert_eq!(s(&raw, "endsAt"), Some("2026-01-08T00:00:00.123Z"));
    assert_eq!(s(&raw, "createdAt"), Some("2026-01-01T00:00:00.042Z"));
    // AND AP9 reads back what create returned
    assert_eq!(
        store
            .boards()
            .get_board(&bid("speed_run-1.a"))
            .await
            .unwrap(),
        Some(created.clone())
    );

    // GIVEN a board with no end and no start (it starts at creation)
    let mut open_ended = new_board("forever", Order::Desc, Operator::Best, 9_999_999_999);
    open_ended.starts_at = None;
    open_ended.ends_at = None;
    let forever = store
        .boards()
        .create_board(open_ended, at(5))
        .await
        .unwrap();
    // THEN it has no GSI2 attributes at all (only its series' GSI1 key), and startsAt is the
    // creation time
    let raw = table.raw("LEADERBOARD#forever", "#METADATA").await.unwrap();
    assert_eq!(
        keys_of(&raw),
        want_keys(&[
            ("pk", "LEADERBOARD#forever"),
            ("sk", "#METADATA"),
            ("gsi1pk", "SERIES#forever"),
            ("gsi1sk", "BOARD#2026-01-01T00:00:00.005Z#forever"),
        ])
    );
    assert!(!raw.contains_key("endsAt"));
    assert!(!raw.contains_key("gameId"));
    assert_eq!(s(&raw, "startsAt"), Some("2026-01-01T00:00:00.005Z"));
    assert_eq!(s(&raw, "order"), Some("desc"));
    assert_eq!(s(&raw, "operator"), Some("best"));
    assert_eq!(s(&raw, "recurrence"), Some("none"));
    assert_eq!(n(&raw, "maxScore"), Some("9999999999"));
    assert_eq!(
        store.boards().get_board(&bid("forever")).await.unwrap(),
        Some(forever)
    );

    // WHEN the same id is created again, even with other settings
    let before = table.dump().await;
    let mut again = new_board("speed_run-1.a", Order::Desc, Operator::Best, 10);
    again.name = "Other".into();
    let err = store
        .boards()
        .create_board(again, at(99))
        .await
        .unwrap_err();
    // THEN AlreadyExists, and nothing changed
    assert!(
        matches!(&err, StoreError::AlreadyExists { what: "leaderboard", id } if id == "speed_run-1.a"),
        "{err:?}"
    );
    assert_eq!(table.dump().await, before);
    assert_eq!(
        store
            .boards()
            .get_board(&bid("speed_run-1.a"))
            .await
            .unwrap(),
        Some(created)
    );

    // AND an unknown board is None
    assert_eq!(store.boards().get_board(&bid("nope")).await.unwrap(), None);
}

#[tokio::test]
async fn create_board_refuses_invalid_boards_and_writes_nothing() {
    let (table, store) = store("boards_invalid").await;
    let before = table.dump().await;
    let base = || new_board("bad", Order::Desc, Operator::Best, 9_999_999_999);
    let mut cases = Vec::new();
    // endsAt equal to startsAt, and before it
    let mut b = base();
    b.ends_at = b.starts_at;
    cases.push(("endsAt == startsAt", b));
    let mut b = base();
    b.starts_at = Some(at(10_000));
    b.ends_at = Some(at(9_999));
    cases.push(("endsAt < startsAt", b));
    // no startsAt (= now) and an end not after now
    let mut b = base();
    b.starts_at = None;
    b.ends_at = Some(at(500));
    cases.push(("endsAt == now", b));
    // names
    for (why, name) in [
        ("empty name", ""),
        ("blank name", "  "),
        ("control in name", "a\u{0}b"),
    ] {
        let mut b = base();
        b.name = name.into();
        cases.push((why, b));
    }
    let mut b = base();
    b.name = "n".repeat(129);
    cases.push(("129-character name", b));
    // maxScore above 10^18 - 1
    cases.push((
        "maxScore 10^18",
        new_board(
            "bad",
            Order::Desc,
            Operator::Best,
            1_000_000_000_000_000_000,
        ),
    ));
    cases.push((
        "maxScore u64::MAX",
        new_board("bad", Order::Asc, Operator::Best, u64::MAX),
    ));
    for (why, nb) in cases {
        // WHEN it is created
        let r = store.boards().create_board(nb, at(500)).await;
        // THEN Invalid
        assert!(is_invalid(r), "{why}");
    }
    // AND nothing was written
    assert_eq!(table.dump().await, before);
    assert_eq!(store.boards().get_board(&bid("bad")).await.unwrap(), None);
    // while the largest maxScore is accepted
    store
        .boards()
        .create_board(
            new_board(
                "widest",
                Order::Desc,
                Operator::Best,
                999_999_999_999_999_999,
            ),
            at(500),
        )
        .await
        .unwrap();
}
