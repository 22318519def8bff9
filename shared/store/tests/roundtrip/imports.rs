//! Imported entries at the edges of the key formats.

use super::*;

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
        let b = store.boards().create_board(nb, at(0)).await.unwrap();
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
            .boards()
            .import_entries(&boards[board_id], &[(pid(player), score, attained_at)])
            .await
            .unwrap();
        let pointer = store
            .listings()
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
                    subscores: Default::default(),
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
    let desc = store
        .listings()
        .top_scores(&stored_board(&store, "wide_desc").await, 10, None)
        .await
        .unwrap();
    let got: Vec<(&str, u64, u64)> = desc
        .items
        .iter()
        .map(|e| (e.player_id.as_str(), e.score, e.rank))
        .collect();
    assert_eq!(got, [("p_max", wide, 1), ("p_zero", 0, 2)]);
    let asc = store
        .listings()
        .top_scores(&stored_board(&store, "wide_asc").await, 10, None)
        .await
        .unwrap();
    let got: Vec<(&str, u64, u64)> = asc
        .items
        .iter()
        .map(|e| (e.player_id.as_str(), e.score, e.rank))
        .collect();
    assert_eq!(got, [("p_zero", 0, 1), ("p_max", wide, 2)]);
}
