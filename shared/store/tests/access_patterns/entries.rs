//! AP4 and AP5: a player's entries.

use super::*;

#[tokio::test]
async fn ap4_player_entry_and_entry_pointer_agree_with_the_score_item() {
    let (table, store) = store("ap4").await;
    common::board(&store, "b", Order::Desc, Operator::Best).await;
    // GIVEN p1 plays 100, then 250 (better), then 50 (worse); p2 plays 300
    submit(&store, "p1", 100, &["b"], 10).await;
    let better = submit(&store, "p1", 250, &["b"], 20).await;
    submit(&store, "p1", 50, &["b"], 30).await;
    submit(&store, "p2", 300, &["b"], 40).await;

    // WHEN p1's entry is read through the pointer and through GSI1
    let pointer = store
        .listings()
        .entry_pointer(&bid("b"), &pid("p1"))
        .await
        .unwrap()
        .unwrap();
    let entry = store
        .listings()
        .player_entry(&bid("b"), &pid("p1"))
        .await
        .unwrap()
        .unwrap();
    // THEN both are the 250 of the second play
    let want = ScoreEntry {
        entry: leaderboard_store::model::Entry {
            subscores: Default::default(),
            metadata: None,
            name: Some("p1".into()),
            board_id: bid("b"),
            player_id: pid("p1"),
            score: 250,
            attained_at: at(20),
        },
        saturated: false,
        session_id: better.session.session_id.clone(),
    };
    assert_eq!(entry, want);
    assert_eq!(pointer.score_entry(), want);
    assert_eq!(pointer.version, 2);
    let sk = format!("SCORE#0000000250#{}#p1", tiebreak(T0 + 20));
    assert_eq!(sk, "SCORE#0000000250#8232774399979#p1");
    assert_eq!(pointer.score_sk, sk);
    // AND the Score item at the pointer's key holds the same entry, the only one of p1
    let raw = table.raw("LEADERBOARD#b", &sk).await.unwrap();
    assert_eq!(
        keys_of(&raw),
        want_keys(&[
            ("pk", "LEADERBOARD#b"),
            ("sk", &sk),
            ("gsi1pk", "PLAYER#p1"),
            ("gsi1sk", "SCORE#b"),
        ])
    );
    assert_eq!(s(&raw, "leaderboardId"), Some("b"));
    assert_eq!(s(&raw, "playerId"), Some("p1"));
    assert_eq!(n(&raw, "score"), Some("250"));
    assert_eq!(s(&raw, "attainedAt"), Some("2026-01-01T00:00:00.020Z"));
    assert_eq!(
        s(&raw, "sessionId"),
        Some(better.session.session_id.as_str())
    );
    let p1_scores = table
        .dump()
        .await
        .into_iter()
        .filter(|i| s(i, "pk") == Some("LEADERBOARD#b") && s(i, "playerId") == Some("p1"))
        .count();
    assert_eq!(p1_scores, 1);
    // AND the pointer item is keyed PLAYER#p1 / ENTRY#b
    let raw = table.raw("PLAYER#p1", "ENTRY#b").await.unwrap();
    assert_eq!(s(&raw, "scoreSk"), Some(sk.as_str()));
    assert_eq!(n(&raw, "version"), Some("2"));
    // AND the ranked read agrees
    assert_eq!(
        store
            .listings()
            .player_rank(&stored_board(&store, "b").await, &pid("p1"))
            .await
            .unwrap()
            .map(|e| exact(e, 2)),
        Some(RankedEntry {
            subscores: Default::default(),
            metadata: None,
            name: "p1".into(),
            rank: 2,
            player_id: pid("p1"),
            score: 250,
            attained_at: at(20),
            freshness: None,
        })
    );

    // A player with no entry, and an unknown board: None everywhere
    for (board, player) in [("b", "p_none"), ("nope", "p1")] {
        assert_eq!(
            store
                .listings()
                .player_entry(&bid(board), &pid(player))
                .await
                .unwrap(),
            None
        );
        assert_eq!(
            store
                .listings()
                .entry_pointer(&bid(board), &pid(player))
                .await
                .unwrap(),
            None
        );
        assert_eq!(
            store
                .listings()
                .player_rank(&stored_board(&store, board).await, &pid(player))
                .await
                .unwrap(),
            None
        );
    }
}

#[tokio::test]
async fn ap5_player_entries_across_boards() {
    let (_table, store) = store("ap5").await;
    // GIVEN three boards created in an order other than their id order
    common::board(&store, "zeta", Order::Desc, Operator::Increment).await;
    common::board(&store, "Mid", Order::Desc, Operator::Latest).await;
    common::board(&store, "alpha", Order::Desc, Operator::Best).await;
    // AND p1 plays twice on all three, p2 once on alpha only
    let first = submit(&store, "p1", 10, &["zeta", "Mid", "alpha"], 1).await;
    let second = submit(&store, "p1", 5, &["alpha", "zeta", "Mid"], 2).await;
    let p2 = submit(&store, "p2", 7, &["alpha"], 3).await;
    let s1 = first.session.session_id;
    let s2 = second.session.session_id;
    let entry = |board: &str, player: &str, score, ms, session: &SessionId| ScoreEntry {
        entry: leaderboard_store::model::Entry {
            subscores: Default::default(),
            metadata: None,
            name: Some(player.into()),
            board_id: bid(board),
            player_id: pid(player),
            score,
            attained_at: at(ms),
        },
        saturated: false,
        session_id: session.clone(),
    };
    // WHEN p1's entries are listed
    let got = store
        .listings()
        .player_entries(&pid("p1"), 100, None)
        .await
        .unwrap();
    assert_eq!(got.next_cursor, None);
    let got = got.items;
    // THEN one per board, in board id byte order, each as its operator left it
    assert_eq!(
        got,
        vec![
            entry("Mid", "p1", 5, 2, &s2),
            entry("alpha", "p1", 10, 1, &s1),
            entry("zeta", "p1", 15, 2, &s2),
        ]
    );
    // AND each agrees with its pointer
    for e in &got {
        let pointer = store
            .listings()
            .entry_pointer(&e.entry.board_id, &e.entry.player_id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(&pointer.score_entry(), e);
    }
    assert_eq!(
        store
            .listings()
            .player_entries(&pid("p2"), 100, None)
            .await
            .unwrap()
            .items,
        vec![entry("alpha", "p2", 7, 3, &p2.session.session_id)]
    );
    // AND a player with no entries gets none
    let none = store
        .listings()
        .player_entries(&pid("p3"), 100, None)
        .await
        .unwrap();
    assert!(none.items.is_empty() && none.next_cursor.is_none());
    // AND pages of 2 follow one another to the end
    let first = store
        .listings()
        .player_entries(&pid("p1"), 2, None)
        .await
        .unwrap();
    assert_eq!(first.items, got[..2]);
    let cursor = first.next_cursor.expect("a second page");
    let second = store
        .listings()
        .player_entries(&pid("p1"), 2, Some(&cursor))
        .await
        .unwrap();
    assert_eq!(
        (second.items.as_slice(), second.next_cursor),
        (&got[2..], None)
    );
    // AND the cursor is bound to its listing and its player: another player's, another
    // listing's, or an edited one is refused before any read
    for (player, c) in [("p2", cursor.clone()), ("p1", format!("{}x", cursor))] {
        let refused = store
            .listings()
            .player_entries(&pid(player), 2, Some(&c))
            .await;
        assert!(
            matches!(refused, Err(StoreError::BadCursor)),
            "{player}: {refused:?}"
        );
    }
    let refused = store
        .listings()
        .player_results(&pid("p1"), 2, Some(&cursor))
        .await;
    assert!(matches!(refused, Err(StoreError::BadCursor)), "{refused:?}");
}
