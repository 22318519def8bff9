//! AP6, AP7 and AP8: sessions.

use super::*;

fn game_play(player: &str, game: &str, score: u64, ms: u64, salt: u128) -> leaderboard_store::Play {
    let mut p = play(player, score, &["b"], sid(ms, salt));
    p.game_id = Some(gid(game));
    p
}

#[tokio::test]
async fn ap6_player_sessions_newest_first_in_pages() {
    let (_table, store) = store("ap6").await;
    common::board(&store, "b", Order::Desc, Operator::Best).await;
    // GIVEN 25 sessions of p1 at increasing times, interleaved with 5 of p2
    let mut p1 = Vec::new();
    for i in 0..25u64 {
        let ms = 1_000 * (i + 1);
        let out = store
            .plays()
            .record_play(&game_play("p1", "tetris", i, ms, i as u128), at(ms))
            .await
            .unwrap();
        p1.push(out.session);
        if i % 5 == 0 {
            store
                .plays()
                .record_play(&game_play("p2", "tetris", i, ms + 1, 0), at(ms + 1))
                .await
                .unwrap();
        }
    }
    p1.reverse();

    // WHEN p1's sessions are read 10 at a time
    let pages = session_pages(&store, "p1", 10).await;
    // THEN 10, 10, 5, newest first, exactly the sessions record_play returned
    assert_eq!(page_sizes(&pages), [10, 10, 5]);
    assert_eq!(pages.concat(), p1);
    // AND at 5 a page (exactly filling the end), 25 and 1000: the last page has no cursor
    for (limit, sizes) in [
        (5, vec![5, 5, 5, 5, 5]),
        (25, vec![25]),
        (1000, vec![25]),
        (24, vec![24, 1]),
    ] {
        let pages = session_pages(&store, "p1", limit).await;
        assert_eq!(page_sizes(&pages), sizes, "limit {limit}");
        assert_eq!(pages.concat(), p1, "limit {limit}");
    }
    assert_eq!(session_pages(&store, "p2", 3).await.concat().len(), 5);

    // A player with no sessions: nothing, no cursor
    let page = store
        .listings()
        .player_sessions(&pid("p3"), 10, None)
        .await
        .unwrap();
    assert!(page.items.is_empty());
    assert_eq!(page.next_cursor, None);

    // Bad limits and cursors
    assert!(is_invalid(
        store.listings().player_sessions(&pid("p1"), 0, None).await
    ));
    assert!(is_invalid(
        store
            .listings()
            .player_sessions(&pid("p1"), 1001, None)
            .await
    ));
    let cursor = store
        .listings()
        .player_sessions(&pid("p1"), 10, None)
        .await
        .unwrap()
        .next_cursor
        .unwrap();
    assert!(is_bad_cursor(
        store
            .listings()
            .player_sessions(&pid("p2"), 10, Some(&cursor))
            .await
    ));
    assert!(is_bad_cursor(
        store
            .listings()
            .game_sessions(&gid("tetris"), 10, Some(&cursor))
            .await
    ));
    assert!(is_bad_cursor(
        store
            .listings()
            .top_scores(&stored_board(&store, "b").await, 10, Some(&cursor))
            .await
    ));
}

#[tokio::test]
async fn ap7_game_sessions_across_players_newest_first() {
    let (_table, store) = store("ap7").await;
    common::board(&store, "b", Order::Desc, Operator::Best).await;
    // GIVEN 18 tetris sessions of three players, interleaved in time, and 4 chess sessions
    let mut tetris = Vec::new();
    let mut chess = Vec::new();
    for i in 0..18u64 {
        let player = ["p1", "p2", "p3"][(i % 3) as usize];
        let ms = 500 + 37 * i;
        let out = store
            .plays()
            .record_play(&game_play(player, "tetris", i, ms, 7), at(ms))
            .await
            .unwrap();
        tetris.push(out.session);
        if i % 5 == 0 {
            let out = store
                .plays()
                .record_play(&game_play(player, "chess", i, ms + 1, 9), at(ms + 1))
                .await
                .unwrap();
            chess.push(out.session);
        }
    }
    tetris.reverse();
    chess.reverse();
    // WHEN tetris' sessions are read 4 at a time
    let pages = game_pages(&store, "tetris", 4).await;
    // THEN 4, 4, 4, 4, 2, newest first across players
    assert_eq!(page_sizes(&pages), [4, 4, 4, 4, 2]);
    assert_eq!(pages.concat(), tetris);
    // AND 6 a page exactly fills the end; 1000 is one page
    assert_eq!(
        page_sizes(&game_pages(&store, "tetris", 6).await),
        [6, 6, 6]
    );
    assert_eq!(game_pages(&store, "tetris", 1000).await, [tetris.clone()]);
    // AND chess has only its own
    assert_eq!(game_pages(&store, "chess", 3).await.concat(), chess);
    // AND an unknown game has none
    let page = store
        .listings()
        .game_sessions(&gid("go"), 10, None)
        .await
        .unwrap();
    assert!(page.items.is_empty() && page.next_cursor.is_none());
    // AND a tetris cursor is refused for chess, and limits are checked
    let cursor = store
        .listings()
        .game_sessions(&gid("tetris"), 4, None)
        .await
        .unwrap()
        .next_cursor
        .unwrap();
    assert!(is_bad_cursor(
        store
            .listings()
            .game_sessions(&gid("chess"), 4, Some(&cursor))
            .await
    ));
    assert!(is_bad_cursor(
        store
            .listings()
            .player_sessions(&pid("p1"), 4, Some(&cursor))
            .await
    ));
    assert!(is_invalid(
        store
            .listings()
            .game_sessions(&gid("tetris"), 0, None)
            .await
    ));
    assert!(is_invalid(
        store
            .listings()
            .game_sessions(&gid("tetris"), 1001, None)
            .await
    ));
}

#[tokio::test]
async fn ap8_get_session_reads_the_play_back() {
    let (table, store) = store("ap8").await;
    common::board(&store, "b1", Order::Desc, Operator::Best).await;
    common::board(&store, "b2", Order::Asc, Operator::Best).await;
    // GIVEN a play on two boards
    let session_id = sid(777, 12345);
    let mut p = play("p1", 420, &["b2", "b1"], session_id.clone());
    p.game_id = Some(gid("chess-960"));
    p.duration_sec = Some(93);
    let out = store.plays().record_play(&p, at(777)).await.unwrap();
    // WHEN it is read back
    let got = store
        .listings()
        .get_session(&pid("p1"), &session_id)
        .await
        .unwrap();
    // THEN it equals what record_play returned
    assert_eq!(got, Some(out.session.clone()));
    assert_eq!(out.session.board_ids, [bid("b2"), bid("b1")]);
    assert_eq!(out.session.duration_sec, Some(93));
    // AND the raw item has the contract's keys
    let sk = format!("SESSION#{}", session_id.as_str());
    let raw = table.raw("PLAYER#p1", &sk).await.unwrap();
    assert_eq!(
        keys_of(&raw),
        want_keys(&[
            ("pk", "PLAYER#p1"),
            ("sk", &sk),
            ("gsi2pk", "GAME#chess-960"),
            ("gsi2sk", &sk),
        ])
    );
    assert_eq!(s(&raw, "sessionId"), Some(session_id.as_str()));
    assert_eq!(s(&raw, "gameId"), Some("chess-960"));
    assert_eq!(n(&raw, "score"), Some("420"));
    assert_eq!(n(&raw, "durationSec"), Some("93"));
    assert_eq!(s(&raw, "attainedAt"), Some("2026-01-01T00:00:00.777Z"));
    // AND a repeat changes nothing and answers the same session
    let before = table.dump().await;
    let again = store.plays().record_play(&p, at(999)).await.unwrap();
    assert!(again.duplicate);
    assert_eq!(again.session, out.session);
    assert_eq!(table.dump().await, before);
    // AND an unknown session, or this session under another player, is None
    assert_eq!(
        store
            .listings()
            .get_session(&pid("p1"), &sid(777, 1))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .listings()
            .get_session(&pid("p2"), &session_id)
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn ap7_a_game_some_board_names_lists_only_the_plays_its_boards_took() {
    let (table, store) = store("ap7_claimed").await;
    common::board(&store, "b", Order::Desc, Operator::Best).await;
    let mut of_tetris = new_board("tb", Order::Desc, Operator::Best, 1_000);
    of_tetris.game_id = Some(gid("tetris"));
    store.boards().create_board(of_tetris, at(0)).await.unwrap();
    let record = async |player: &str, game: &str, boards: &[&str], ms: u64| {
        let mut p = play(player, 5, boards, sid(ms, 3));
        p.game_id = Some(gid(game));
        store.plays().record_play(&p, at(ms)).await.unwrap().session
    };
    // GIVEN a play naming tetris on a board of no game, and two a tetris board took
    let outside = record("p1", "tetris", &["b"], 100).await;
    let on_its_board = record("p2", "tetris", &["tb"], 200).await;
    let on_both = record("p3", "tetris", &["b", "tb"], 300).await;
    // AND a play naming a game no board names
    let unclaimed = record("p4", "chess", &["b"], 400).await;
    // THEN tetris' feed lists only what its boards took; chess' lists its play
    assert_eq!(
        game_pages(&store, "tetris", 10).await.concat(),
        [on_both, on_its_board]
    );
    assert_eq!(game_pages(&store, "chess", 10).await.concat(), [unclaimed]);
    // AND the play kept out is recorded, in its player's sessions, under no game's feed key
    assert_eq!(outside.game_id, gid("tetris"));
    let raw = table
        .raw("PLAYER#p1", &format!("SESSION#{}", outside.session_id))
        .await
        .unwrap();
    assert!(!raw.contains_key("gsi2pk") && !raw.contains_key("gsi2sk"));
    let page = store
        .listings()
        .player_sessions(&pid("p1"), 10, None)
        .await
        .unwrap();
    assert_eq!(page.items, [outside]);
}
