//! Banning on DynamoDB Local, at the exact points where a play and a ban can cross: a play that
//! read the player as not banned and sends its transaction after the ban is refused and writes
//! nothing, and so is a play between the ban and its listing of the player's entries; a play
//! read before an erasure began is refused as erased; a lifted ban lets the player play again
//! (both checked through the one play fence a play's transaction reads).

use crate::common;

use common::*;
use leaderboard_keys::rank::Order;
use leaderboard_store::StoreError;
use leaderboard_store::model::Operator;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_play_read_before_the_ban_cannot_commit_after_it() {
    let (table, store) = store_without_stream("ban_gate").await;
    for id in ["gate_a", "gate_b"] {
        board(&store, id, Order::Desc, Operator::Best).await;
    }
    submit(&store, "cheat", 10, &["gate_a"], 1_000).await;
    submit(&store, "fair", 20, &["gate_a", "gate_b"], 1_000).await;

    // The cheater's next play has read (no ban yet) and waits before its transaction. It
    // counts on a board where the cheater has no entry, so only the ban can stop it.
    let (client, gate) =
        leaderboard_devkit::local::gated_client(&table.endpoint, "TransactWriteItems");
    let gated = store_with_client(&table, client);
    let playing = tokio::spawn(async move {
        let p = play("cheat", 99, &["gate_b"], sid(2_000, 1));
        gated.plays().record_play(&p, at(2_000)).await
    });
    assert!(gate.reached().await);
    let ban = store
        .moderation()
        .ban_player(&pid("cheat"), "aimbot", &pid("ops"), at(3_000))
        .await
        .unwrap();
    assert_eq!(ban.removed_from, vec![bid("gate_a")]);
    let before = table.dump().await;
    gate.release();
    let refused = playing.await.unwrap();
    assert!(
        matches!(&refused, Err(StoreError::Banned { player }) if player.as_str() == "cheat"),
        "{refused:?}"
    );
    assert_eq!(table.dump().await, before, "the refused play wrote");
    for id in ["gate_a", "gate_b"] {
        assert!(
            store
                .listings()
                .entry_pointer(&bid(id), &pid("cheat"))
                .await
                .unwrap()
                .is_none()
        );
    }
    assert_eq!(
        store
            .moderation()
            .get_ban(&pid("cheat"))
            .await
            .unwrap()
            .unwrap()
            .reason,
        "aimbot"
    );

    // Lifted, the same play goes through as the player's first entry on both boards.
    assert!(
        store
            .moderation()
            .unban_player(&pid("cheat"), &pid("ops"), at(4_000))
            .await
            .unwrap()
    );
    assert!(
        !store
            .moderation()
            .unban_player(&pid("cheat"), &pid("ops"), at(4_001))
            .await
            .unwrap()
    );
    assert!(
        store
            .moderation()
            .get_ban(&pid("cheat"))
            .await
            .unwrap()
            .is_none()
    );
    let again = store
        .plays()
        .record_play(
            &play("cheat", 99, &["gate_a", "gate_b"], sid(4_000, 2)),
            at(4_000),
        )
        .await
        .unwrap();
    assert!(
        again
            .session
            .outcomes
            .iter()
            .all(|o| o.improved && o.rank == 1)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_play_between_the_ban_and_its_listing_is_refused() {
    let (table, store) = store_without_stream("ban_gate_query").await;
    board(&store, "gate_q", Order::Desc, Operator::Best).await;
    // The ban has been written and its listing of the player's pointers waits: any play that
    // committed before the ban is in the listing, and none commits after it.
    let (client, gate) = leaderboard_devkit::local::gated_client(&table.endpoint, "Query");
    let gated = store_with_client(&table, client);
    submit(&store, "cheat", 10, &["gate_q"], 1_000).await;
    let banning = tokio::spawn(async move {
        gated
            .moderation()
            .ban_player(&pid("cheat"), "aimbot", &pid("ops"), at(3_000))
            .await
    });
    assert!(gate.reached().await);
    let late = store
        .plays()
        .record_play(&play("cheat", 50, &["gate_q"], sid(3_500, 3)), at(3_500))
        .await;
    assert!(matches!(late, Err(StoreError::Banned { .. })), "{late:?}");
    gate.release();
    let ban = banning.await.unwrap().unwrap();
    assert_eq!(ban.removed_from, vec![bid("gate_q")]);
    let dump = table.dump().await;
    assert!(
        !dump.iter().any(
            |i| leaderboard_devkit::testing::s(i, "playerId") == Some("cheat")
                && leaderboard_devkit::testing::s(i, "pk") == Some("LEADERBOARD#gate_q")
        ),
        "the entry stays"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_play_read_before_an_erasure_began_cannot_commit_after_it() {
    let (table, store) = store_without_stream("erasure_gate").await;
    board(&store, "gate_e", Order::Desc, Operator::Best).await;
    // The player's play has read (no erasure yet) and waits before its transaction.
    let (client, gate) =
        leaderboard_devkit::local::gated_client(&table.endpoint, "TransactWriteItems");
    let gated = store_with_client(&table, client);
    let playing = tokio::spawn(async move {
        let p = play("leaving", 7, &["gate_e"], sid(2_000, 1));
        gated.plays().record_play(&p, at(2_000)).await
    });
    assert!(gate.reached().await);
    let receipt = store
        .moderation()
        .erase_player(&pid("leaving"), "player", at(3_000), None)
        .await
        .unwrap();
    assert!(receipt.finished(), "{receipt:?}");
    let before = table.dump().await;
    gate.release();
    let refused = playing.await.unwrap();
    assert!(
        matches!(&refused, Err(StoreError::Erased { .. })),
        "{refused:?}"
    );
    assert_eq!(table.dump().await, before, "the refused play wrote");
}

#[tokio::test]
async fn a_lifted_ban_lets_the_player_play_again() {
    let (_table, store) = store_without_stream("ban_lifted").await;
    board(&store, "lift", Order::Desc, Operator::Best).await;
    let (cheat, ops) = (pid("cheat"), pid("ops"));
    let moderation = store.moderation();
    moderation
        .ban_player(&cheat, "aimbot", &ops, at(1_000))
        .await
        .unwrap();
    let refused = store
        .plays()
        .record_play(&play("cheat", 5, &["lift"], sid(2_000, 2)), at(2_000))
        .await;
    assert!(
        matches!(refused, Err(StoreError::Banned { .. })),
        "{refused:?}"
    );
    assert!(
        moderation
            .unban_player(&cheat, &ops, at(3_000))
            .await
            .unwrap()
    );
    let back = submit(&store, "cheat", 6, &["lift"], 4_000).await;
    assert_eq!(back.session.outcomes[0].rank, 1);
    // Banned again: the fence holds again.
    moderation
        .ban_player(&cheat, "again", &ops, at(5_000))
        .await
        .unwrap();
    let refused = store
        .plays()
        .record_play(&play("cheat", 7, &["lift"], sid(6_000, 3)), at(6_000))
        .await;
    assert!(
        matches!(refused, Err(StoreError::Banned { .. })),
        "{refused:?}"
    );
}
