//! AP3: top-N with cursors.

use super::*;

#[tokio::test]
async fn ap3_top_scores_pages_every_entry_once_in_rank_order() {
    let (_table, store) = store("ap3").await;
    let board = common::board(&store, "top", Order::Desc, Operator::Best).await;
    // GIVEN 36 plays of 24 players (12 play twice; `best` keeps the better, and an equal score
    // keeps the earlier entry)
    let mut want: HashMap<PlayerId, (u64, Timestamp)> = HashMap::new();
    let mut ms = 1_000;
    for round in 0..2u64 {
        for i in 0..24u64 {
            if round == 1 && i % 2 == 1 {
                continue;
            }
            let player = format!("p_play_{i:02}");
            // scores 0..=11, so plays tie with each other and with imported entries
            let score = (i * 7 + round * 5) % 12 * 100;
            ms += 10;
            submit(&store, &player, score, &["top"], ms).await;
            let e = want.entry(pid(&player)).or_insert((score, at(ms)));
            if score > e.0 {
                *e = (score, at(ms));
            }
        }
    }
    // AND 276 imported entries with tied scores and times (300 entries in all)
    let imported: Vec<Entry> = (0..276u64)
        .map(|i| {
            let prefix = ["p_imp_", "P-", "p.", "q"][(i % 4) as usize];
            (
                pid(&format!("{prefix}{i}")),
                (i % 12) * 100,
                at(1_000 + (i % 5) * 10),
            )
        })
        .collect();
    import(&store, &board, &imported).await;
    let mut all: Vec<Entry> = want.into_iter().map(|(p, (sc, t))| (p, sc, t)).collect();
    all.extend(imported);
    assert_eq!(all.len(), 300);
    let expected = rank_order(Order::Desc, all);

    for limit in [7, 10, 299, 300, 1000] {
        // WHEN the board is read `limit` at a time
        let pages = top_pages(&store, "top", limit).await;
        // THEN every entry comes exactly once, in rank order, ranked 1..=300, and the last
        // page (also a page that exactly fills the end) has no cursor
        assert_eq!(page_sizes(&pages), want_sizes(300, limit), "limit {limit}");
        let flat: Vec<RankedEntry> = pages.into_iter().flatten().collect();
        assert_eq!(flat, expected, "limit {limit}");
    }

    // WHEN a cursor is continued with another limit
    let first = store
        .listings()
        .top_scores(&stored_board(&store, "top").await, 7, None)
        .await
        .unwrap();
    let rest = store
        .listings()
        .top_scores(
            &stored_board(&store, "top").await,
            1000,
            first.next_cursor.as_deref(),
        )
        .await
        .unwrap();
    // THEN the ranks carry on from the cursor
    assert_eq!(first.items, expected[..7]);
    assert_eq!(rest.items, expected[7..]);
    assert_eq!(rest.next_cursor, None);
}

#[tokio::test]
async fn ap3_a_thousand_entries_in_pages_of_137() {
    let (_table, store) = bulk_store("ap3_1000").await;
    let board = common::board(&store, "k", Order::Desc, Operator::Best).await;
    // GIVEN 1,000 imported entries, scores 0..50 and times 0..7 (many full ties)
    let entries: Vec<Entry> = (0..1000u64)
        .map(|i| {
            (
                pid(&format!("p{:x}", i * 7919 % 1000)),
                i * 31 % 50,
                at(i % 7),
            )
        })
        .collect();
    import(&store, &board, &entries).await;
    let expected = rank_order(Order::Desc, entries);
    // WHEN it is read 137 at a time
    let pages = top_pages(&store, "k", 137).await;
    // THEN 7 full pages and 41 on the last, every entry once, ranks 1..=1000
    assert_eq!(page_sizes(&pages), want_sizes(1000, 137));
    let flat: Vec<RankedEntry> = pages.into_iter().flatten().collect();
    assert_eq!(
        flat.iter().map(|e| e.rank).collect::<Vec<_>>(),
        (1..=1000).collect::<Vec<_>>()
    );
    let players: HashSet<&str> = flat.iter().map(|e| e.player_id.as_str()).collect();
    assert_eq!(players.len(), 1000);
    assert_eq!(flat, expected);
    // AND 1000 a page is one page, 200 a page five (the last exactly filling the end)
    assert_eq!(page_sizes(&top_pages(&store, "k", 1000).await), [1000]);
    assert_eq!(
        page_sizes(&top_pages(&store, "k", 200).await),
        [200, 200, 200, 200, 200]
    );
}

#[tokio::test]
async fn ap3_asc_board_lists_lower_scores_first() {
    let (_table, store) = store("ap3_asc").await;
    let board = store
        .boards()
        .create_board(
            new_board("speed", Order::Asc, Operator::Best, 99_999),
            at(0),
        )
        .await
        .unwrap();
    // GIVEN plays (lower is better: a second, lower time improves) and imported entries
    let mut want: HashMap<PlayerId, (u64, Timestamp)> = HashMap::new();
    for (i, (player, score)) in [
        ("p_a", 5_000),
        ("p_b", 4_000),
        ("p_a", 3_000),
        ("p_c", 4_000),
        ("p_b", 4_500),
        ("p_d", 0),
        ("p_e", 99_999),
    ]
    .into_iter()
    .enumerate()
    {
        let ms = 100 + i as u64;
        submit(&store, player, score, &["speed"], ms).await;
        let e = want.entry(pid(player)).or_insert((score, at(ms)));
        if score < e.0 {
            *e = (score, at(ms));
        }
    }
    let imported: Vec<Entry> = (0..95u64)
        .map(|i| (pid(&format!("x{i}")), (i % 10) * 1_000, at(200 + i % 4)))
        .collect();
    import(&store, &board, &imported).await;
    let mut all: Vec<Entry> = want.into_iter().map(|(p, (sc, t))| (p, sc, t)).collect();
    all.extend(imported);
    assert_eq!(all.len(), 100);
    let expected = rank_order(Order::Asc, all);
    assert_eq!(expected[0].player_id.as_str(), "p_d");
    assert_eq!(expected[0].score, 0);
    assert_eq!(expected[99].player_id.as_str(), "p_e");
    // WHEN read 9 at a time, and 100 at a time (exactly the board)
    for limit in [9, 100] {
        let pages = top_pages(&store, "speed", limit).await;
        // THEN lower scores first, ties by the earlier time
        assert_eq!(page_sizes(&pages), want_sizes(100, limit));
        assert_eq!(
            pages.into_iter().flatten().collect::<Vec<_>>(),
            expected,
            "limit {limit}"
        );
    }
}

#[tokio::test]
async fn ap3_a_cursor_outlives_the_entry_it_stopped_at() {
    let (_table, store) = store("ap3_live").await;
    common::board(&store, "live", Order::Desc, Operator::Best).await;
    // GIVEN p0..p9 with 100..1000 (p9 on top)
    for i in 0..10u64 {
        submit(&store, &format!("p{i}"), (i + 1) * 100, &["live"], 10 + i).await;
    }
    // AND a first page of 3 that stopped at p7
    let first = store
        .listings()
        .top_scores(&stored_board(&store, "live").await, 3, None)
        .await
        .unwrap();
    let names = |items: &[RankedEntry]| -> Vec<String> {
        items.iter().map(|e| e.player_id.to_string()).collect()
    };
    assert_eq!(names(&first.items), ["p9", "p8", "p7"]);
    // WHEN p7 improves to the top (its Score item is replaced under a new key)
    submit(&store, "p7", 5_000, &["live"], 100).await;
    // THEN the cursor still works: it continues below where p7 was, ranks carrying on
    let second = store
        .listings()
        .top_scores(
            &stored_board(&store, "live").await,
            3,
            first.next_cursor.as_deref(),
        )
        .await
        .unwrap();
    assert_eq!(names(&second.items), ["p6", "p5", "p4"]);
    assert_eq!(
        second.items.iter().map(|e| e.rank).collect::<Vec<_>>(),
        [4, 5, 6]
    );
    // AND a fresh read shows p7 on top
    let fresh = store
        .listings()
        .top_scores(&stored_board(&store, "live").await, 2, None)
        .await
        .unwrap();
    assert_eq!(names(&fresh.items), ["p7", "p9"]);
}

#[tokio::test]
async fn ap3_empty_board_bad_limits_and_bad_cursors() {
    let (_table, store) = store("ap3_refusals").await;
    common::board(&store, "empty", Order::Desc, Operator::Best).await;
    let full = common::board(&store, "full", Order::Desc, Operator::Best).await;
    let other = common::board(&store, "other", Order::Desc, Operator::Best).await;
    let entries: Vec<Entry> = (0..20u64)
        .map(|i| (pid(&format!("p{i}")), i, at(i)))
        .collect();
    import(&store, &full, &entries).await;
    import(&store, &other, &entries).await;

    // An empty board: no items and no cursor, at any limit
    for limit in [1, 100, 1000] {
        let page = store
            .listings()
            .top_scores(&stored_board(&store, "empty").await, limit, None)
            .await
            .unwrap();
        assert!(page.items.is_empty());
        assert_eq!(page.next_cursor, None);
    }
    // An unknown board reads as an empty one
    let page = store
        .listings()
        .top_scores(&stored_board(&store, "unknown").await, 10, None)
        .await
        .unwrap();
    assert!(page.items.is_empty() && page.next_cursor.is_none());

    // limit 0 and 1001: Invalid; 1 and 1000 are fine
    assert!(is_invalid(
        store
            .listings()
            .top_scores(&stored_board(&store, "full").await, 0, None)
            .await
    ));
    assert!(is_invalid(
        store
            .listings()
            .top_scores(&stored_board(&store, "full").await, 1001, None)
            .await
    ));
    assert_eq!(
        store
            .listings()
            .top_scores(&stored_board(&store, "full").await, 1, None)
            .await
            .unwrap()
            .items
            .len(),
        1
    );

    // GIVEN a genuine cursor of `full` after 5 entries
    let page = store
        .listings()
        .top_scores(&stored_board(&store, "full").await, 5, None)
        .await
        .unwrap();
    let cursor = page.next_cursor.unwrap();
    assert!(
        store
            .listings()
            .top_scores(&stored_board(&store, "full").await, 5, Some(&cursor))
            .await
            .is_ok()
    );
    // WHEN it is used on another board, even one with the same entries
    // THEN BadCursor
    assert!(is_bad_cursor(
        store
            .listings()
            .top_scores(&stored_board(&store, "other").await, 5, Some(&cursor))
            .await
    ));
    assert!(is_bad_cursor(
        store
            .listings()
            .top_scores(&stored_board(&store, "empty").await, 5, Some(&cursor))
            .await
    ));
    // WHEN it is fed to another listing: BadCursor
    assert!(is_bad_cursor(
        store
            .listings()
            .player_sessions(&pid("p1"), 5, Some(&cursor))
            .await
    ));
    assert!(is_bad_cursor(
        store
            .listings()
            .game_sessions(&gid("tetris"), 5, Some(&cursor))
            .await
    ));

    // WHEN it is tampered with: any character of it flipped
    let (payload, tag) = cursor.split_once('.').unwrap();
    for i in [
        0,
        payload.len() / 2,
        payload.len() - 1,
        payload.len() + 1,
        cursor.len() - 1,
    ] {
        let mut bytes = cursor.clone().into_bytes();
        bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
        let edited = String::from_utf8(bytes).unwrap();
        assert!(
            is_bad_cursor(
                store
                    .listings()
                    .top_scores(&stored_board(&store, "full").await, 5, Some(&edited))
                    .await
            ),
            "edit at {i}"
        );
    }
    // or its payload rewritten to start over on another board, keeping the tag
    let json = String::from_utf8(URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap();
    assert!(json.contains("LEADERBOARD#full"), "{json}");
    for forged in [
        json.replace("LEADERBOARD#full", "LEADERBOARD#other"),
        json.replace("\"n\":5", "\"n\":0"),
    ] {
        assert_ne!(forged, json);
        let forged = format!("{}.{tag}", URL_SAFE_NO_PAD.encode(forged));
        assert!(is_bad_cursor(
            store
                .listings()
                .top_scores(&stored_board(&store, "full").await, 5, Some(&forged))
                .await
        ));
        assert!(is_bad_cursor(
            store
                .listings()
                .top_scores(&stored_board(&store, "other").await, 5, Some(&forged))
                .await
        ));
    }
    // AND garbage is refused too
    let long = "A".repeat(5_000);
    for junk in [
        "",
        ".",
        "garbage",
        "abc.def",
        "!!!.???",
        "eyJ9.AAAAAAAAAAAAAAAAAAAAAA",
        long.as_str(),
    ] {
        assert!(
            is_bad_cursor(
                store
                    .listings()
                    .top_scores(&stored_board(&store, "full").await, 5, Some(junk))
                    .await
            ),
            "{junk:?}"
        );
    }
}
