//! Sessions, and the Score items and pointers their plays write.

use super::*;

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
        .boards()
        .create_board(
            new_board("sd", Order::Desc, Operator::Best, 9_999_999_999),
            at(0),
        )
        .await
        .unwrap();
    store
        .boards()
        .create_board(new_board("sa", Order::Asc, Operator::Best, 999), at(0))
        .await
        .unwrap();
    store
        .boards()
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
            subscores: Default::default(),
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
        let out = store.plays().record_play(&play, now).await.unwrap();
        // THEN the Session is the one expected, and reads back identically
        let want = Session {
            subscores: Default::default(),
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
                    cohort_id: None,
                    tier: None,
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
                .listings()
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
                        subscores: Default::default(),
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
