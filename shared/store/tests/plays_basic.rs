//! The write path of a play against DynamoDB Local: raw item formats, operators, refusals.

use crate::common;

use common::*;
use leaderboard_devkit::testing::{n, s};
use leaderboard_keys::rank::Order;
use leaderboard_store::StoreError;
use leaderboard_store::model::Operator;

#[tokio::test]
async fn a_play_writes_the_contract_items_exactly() {
    let (table, store) = store("play_items").await;
    board(&store, "season_3", Order::Desc, Operator::Best).await;
    // GIVEN the contract's example: p_bob scores 9850 at 1719100800000 ms.
    let t = 1_719_100_800_000 - T0 as i64;
    assert!(t < 0); // the example predates T0: use a board that started earlier
    let mut nb = new_board("s_old", Order::Desc, Operator::Best, 9_999_999_999);
    nb.starts_at = Some(leaderboard_keys::time::Timestamp::from_millis(1_700_000_000_000).unwrap());
    store.boards().create_board(nb, at(0)).await.unwrap();
    let session = leaderboard_keys::ids::SessionId::from_parts(1_719_100_800_000, 7).unwrap();
    let now = leaderboard_keys::time::Timestamp::from_millis(1_719_100_800_000).unwrap();
    // WHEN it is recorded
    let out = store
        .plays()
        .record_play(&play("p_bob", 9850, &["s_old"], session.clone()), now)
        .await
        .unwrap();
    // THEN the Score item has the contract's key, byte for byte
    assert!(!out.duplicate);
    let score = table
        .raw("LEADERBOARD#s_old", "SCORE#0000009850#8280899199999#p_bob")
        .await
        .expect("score item");
    assert_eq!(s(&score, "gsi1pk"), Some("PLAYER#p_bob"));
    assert_eq!(s(&score, "gsi1sk"), Some("SCORE#s_old"));
    assert_eq!(s(&score, "leaderboardId"), Some("s_old"));
    assert_eq!(s(&score, "playerId"), Some("p_bob"));
    assert_eq!(n(&score, "score"), Some("9850"));
    assert_eq!(s(&score, "attainedAt"), Some("2024-06-23T00:00:00.000Z"));
    assert_eq!(s(&score, "sessionId"), Some(session.as_str()));
    // and the Session item too
    let sess = table
        .raw("PLAYER#p_bob", &format!("SESSION#{}", session.as_str()))
        .await
        .expect("session item");
    assert_eq!(s(&sess, "gsi2pk"), Some("GAME#tetris"));
    assert_eq!(
        s(&sess, "gsi2sk"),
        Some(format!("SESSION#{}", session.as_str()).as_str())
    );
    assert_eq!(n(&sess, "score"), Some("9850"));
    assert_eq!(n(&sess, "durationSec"), Some("60"));
    assert_eq!(out.session.outcomes.len(), 1);
    assert_eq!(out.session.outcomes[0].rank, 1);
    assert!(out.session.outcomes[0].improved);
}

#[tokio::test]
async fn best_keeps_the_better_and_replaces_the_item() {
    let (table, store) = store("best").await;
    board(&store, "b", Order::Desc, Operator::Best).await;
    submit(&store, "p1", 100, &["b"], 1).await;
    let worse = submit(&store, "p1", 50, &["b"], 2).await;
    assert!(!worse.session.outcomes[0].improved);
    assert_eq!(worse.session.outcomes[0].best, 100);
    let better = submit(&store, "p1", 150, &["b"], 3).await;
    assert!(better.session.outcomes[0].improved);
    assert_eq!(better.session.outcomes[0].best, 150);
    let scores: Vec<_> = table
        .dump()
        .await
        .into_iter()
        .filter(|i| s(i, "sk").unwrap().starts_with("SCORE#"))
        .collect();
    assert_eq!(scores.len(), 1);
    assert_eq!(n(&scores[0], "score"), Some("150"));
}

#[tokio::test]
async fn a_closed_board_refuses_the_whole_play() {
    let (table, store) = store("closed").await;
    board(&store, "open", Order::Desc, Operator::Best).await;
    let mut nb = new_board("ended", Order::Desc, Operator::Best, 9_999_999_999);
    nb.ends_at = Some(at(10));
    store.boards().create_board(nb, at(0)).await.unwrap();
    let before = table.dump().await;
    let err = store
        .plays()
        .record_play(&play("p1", 5, &["open", "ended"], sid(20, 1)), at(20))
        .await
        .unwrap_err();
    assert!(
        matches!(err, StoreError::BoardClosed { why: "ended", .. }),
        "{err:?}"
    );
    assert_eq!(table.dump().await, before);
}

#[tokio::test]
async fn a_repeat_of_a_recorded_play_is_answered_after_its_board_ended_and_writes_nothing() {
    let (table, store) = store("repeat_ended").await;
    let mut nb = new_board("ends", Order::Desc, Operator::Best, 9_999_999_999);
    nb.ends_at = Some(at(100));
    store.boards().create_board(nb, at(0)).await.unwrap();
    let first = play("p1", 7, &["ends"], sid(20, 1));
    let recorded = store.plays().record_play(&first, at(20)).await.unwrap();
    assert!(!recorded.duplicate);

    // The board has ended: a new play is refused, the repeat answered with its first outcome
    // (the Session is read only once the play is refused); another play under its id is 409.
    let before = table.dump().await;
    let err = store
        .plays()
        .record_play(&play("p1", 9, &["ends"], sid(200, 2)), at(200))
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::BoardClosed { .. }), "{err:?}");
    let again = store.plays().record_play(&first, at(200)).await.unwrap();
    assert!(again.duplicate);
    assert_eq!(again.session.outcomes[0].best, 7);
    assert_eq!(
        again.session.outcomes[0].rank,
        recorded.session.outcomes[0].rank
    );
    let mut other = first.clone();
    other.score = 8;
    let err = store
        .plays()
        .record_play(&other, at(200))
        .await
        .unwrap_err();
    assert!(
        matches!(err, StoreError::IdempotencyMismatch { .. }),
        "{err:?}"
    );
    assert_eq!(table.dump().await, before);
}
