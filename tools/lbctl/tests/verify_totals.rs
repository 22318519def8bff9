//! `lbctl verify`'s totals against DynamoDB Local: a total off (a hand edit, or sessions the
//! projection never counted) is reported with the player's key; `--repair` recounts it to the
//! sessions' totals and a second verify is clean; a player who just played is a note, not a
//! problem.

use crate::common;

use common::*;
use leaderboard_devkit::testing::n;
use leaderboard_keys::ids::{BoardId, GameId, PlayerId, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::Play;

fn play(player: &str, at_ms: u64, score: u64) -> Play {
    Play {
        subscores: Default::default(),
        idempotency_key: None,
        metadata: None,
        player_id: PlayerId::parse(player).unwrap(),
        session_id: SessionId::from_parts(at_ms, u128::from(at_ms)).unwrap(),
        game_id: Some(GameId::parse("tetris").unwrap()),
        score,
        duration_sec: Some(60),
        board_ids: vec![BoardId::parse("season_1").unwrap()],
    }
}

#[tokio::test]
async fn a_total_off_is_found_and_recounted() {
    let (table, store) = store("lbctl_verify_totals").await;
    board_with(&store, "season_1", Order::Desc, 999, Vec::new()).await;
    // p_a and p_b: 3 plays each, their totals recounted (as projected); p_c: 2 plays the
    // projection never counted (an outage past the stream's retention).
    let mut ms = 0;
    for (player, plays) in [("p_a", 3), ("p_b", 3), ("p_c", 2)] {
        for k in 0..plays {
            ms += 1_000;
            store
                .plays()
                .record_play(&play(player, T0 + ms, 10 + k), at(ms))
                .await
                .unwrap();
        }
    }
    for player in ["p_a", "p_b"] {
        lbctl(&store, true, &["recount", player]).await.unwrap();
    }
    let board = store
        .boards()
        .get_board(&BoardId::parse("season_1").unwrap())
        .await
        .unwrap()
        .unwrap();
    store.rank().build_rank_index(&board).await.unwrap();
    let totals = |p: &str| {
        let table = table.clone();
        let pk = format!("PLAYER#{p}");
        async move {
            let raw = table.raw(&pk, "#METADATA").await.unwrap_or_default();
            (
                n(&raw, "lifetimeScore").map(|v| v.parse::<u64>().unwrap()),
                n(&raw, "gamesPlayed").map(|v| v.parse::<u64>().unwrap()),
            )
        }
    };
    let players = ["--player", "p_a", "--player", "p_b", "--player", "p_c"];
    assert_eq!(verify_report(&store, &players).await.0, 4);
    assert_eq!(
        verify_report(&store, &players).await.1,
        [("total_off".to_owned(), "PLAYER#p_c".to_owned())]
    );

    // A hand edit.
    table
        .update_raw(
            "PLAYER#p_a",
            "#METADATA",
            "SET lifetimeScore = lifetimeScore + lifetimeScore",
        )
        .await;
    let off = vec![
        ("total_off".to_owned(), "PLAYER#p_a".to_owned()),
        ("total_off".to_owned(), "PLAYER#p_c".to_owned()),
    ];
    let (code, found, report) = verify_report(&store, &players).await;
    assert_eq!((code, found), (4, off.clone()));
    assert_eq!(report["players"], 3);
    // The board's players, with --totals: the same, beside a clean board.
    let (code, found, report) = verify_report(&store, &["season_1", "--totals"]).await;
    let mut found = found;
    found.sort();
    assert_eq!((code, found), (4, off.clone()));
    assert_eq!(
        (report["entries"].as_u64(), report["players"].as_u64()),
        (Some(3), Some(3))
    );

    // Repaired: recounted to the sessions' totals, then clean.
    let (code, found, report) =
        verify_report(&store, &[&players[..], &["--repair"]].concat()).await;
    assert_eq!((code, found), (0, off));
    assert!(
        report["violations"][0]["repaired"]
            .as_str()
            .unwrap()
            .starts_with("recounted")
    );
    assert_eq!(totals("p_a").await, (Some(33), Some(3)));
    assert_eq!(totals("p_c").await, (Some(21), Some(2)));
    assert_eq!(verify_report(&store, &players).await.1, []);

    // A player who played minutes ago cannot be compared exactly yet (the stream may still be
    // bringing the play to the totals): a note, not a problem.
    let now = Timestamp::from_millis(Timestamp::now().as_millis() - 150_000).unwrap();
    store
        .plays()
        .record_play(&play("p_d", now.as_millis(), 5), now)
        .await
        .unwrap();
    let (code, found, report) = verify_report(&store, &["--player", "p_d"]).await;
    assert_eq!((code, found), (0, vec![]));
    assert!(
        report["notes"][0]
            .as_str()
            .unwrap()
            .contains("p_d played too recently"),
        "{report}"
    );
}
