//! AP1 and AP2: players by id and by email.

use super::*;

#[tokio::test]
async fn ap1_profile_is_created_read_back_and_updated() {
    let (table, store) = store("ap1").await;
    let alice = pid("p_alice");
    // GIVEN no profile
    assert_eq!(store.players().get_player(&alice).await.unwrap(), None);

    // WHEN alice creates hers with an email
    let created = store
        .players()
        .put_profile(
            &alice,
            "  Alice  ",
            Some(&email("alice@example.com")),
            at(1_000),
        )
        .await
        .unwrap();
    // THEN it is the new profile (name trimmed, totals zero) and reads back equal
    assert_eq!(
        created,
        Player {
            player_id: alice.clone(),
            name: "Alice".into(),
            email: Some(email("alice@example.com")),
            lifetime_score: 0,
            games_played: 0,
            last_played_at: None,
            created_at: at(1_000),
            updated_at: at(1_000),
        }
    );
    assert_eq!(
        store.players().get_player(&alice).await.unwrap(),
        Some(created.clone())
    );
    // and the raw item carries the contract's keys, GSI1 included
    let raw = table.raw("PLAYER#p_alice", "#METADATA").await.unwrap();
    assert_eq!(
        keys_of(&raw),
        want_keys(&[
            ("pk", "PLAYER#p_alice"),
            ("sk", "#METADATA"),
            ("gsi1pk", "PLAYER_EMAIL#alice@example.com"),
            ("gsi1sk", "PLAYER#p_alice"),
        ])
    );
    assert_eq!(s(&raw, "playerId"), Some("p_alice"));
    assert_eq!(s(&raw, "name"), Some("Alice"));
    assert_eq!(s(&raw, "email"), Some("alice@example.com"));
    assert_eq!(n(&raw, "lifetimeScore"), Some("0"));
    assert_eq!(n(&raw, "gamesPlayed"), Some("0"));
    assert_eq!(s(&raw, "createdAt"), Some("2026-01-01T00:00:01.000Z"));
    assert_eq!(s(&raw, "updatedAt"), Some("2026-01-01T00:00:01.000Z"));
    assert!(!raw.contains_key("lastPlayedAt"));

    // WHEN she renames herself without giving an email
    let renamed = store
        .players()
        .put_profile(&alice, "Alice B.", None, at(5_000))
        .await
        .unwrap();
    // THEN the name and updatedAt change, createdAt and the stored email are kept
    assert_eq!(
        renamed,
        Player {
            name: "Alice B.".into(),
            updated_at: at(5_000),
            ..created.clone()
        }
    );
    assert_eq!(
        store.players().get_player(&alice).await.unwrap(),
        Some(renamed.clone())
    );
    let raw = table.raw("PLAYER#p_alice", "#METADATA").await.unwrap();
    assert_eq!(s(&raw, "gsi1pk"), Some("PLAYER_EMAIL#alice@example.com"));
    assert_eq!(s(&raw, "createdAt"), Some("2026-01-01T00:00:01.000Z"));
    assert_eq!(s(&raw, "updatedAt"), Some("2026-01-01T00:00:05.000Z"));
    assert_eq!(
        store
            .players()
            .find_player_by_email(&email("alice@example.com"))
            .await
            .unwrap(),
        Some(renamed.clone())
    );

    // WHEN she changes her email
    let moved = store
        .players()
        .put_profile(
            &alice,
            "Alice B.",
            Some(&email("ab@new.example")),
            at(9_000),
        )
        .await
        .unwrap();
    // THEN GSI1 follows: the new address finds her, the old one no longer does
    assert_eq!(moved.email, Some(email("ab@new.example")));
    assert_eq!(moved.created_at, at(1_000));
    let raw = table.raw("PLAYER#p_alice", "#METADATA").await.unwrap();
    assert_eq!(s(&raw, "gsi1pk"), Some("PLAYER_EMAIL#ab@new.example"));
    assert_eq!(s(&raw, "gsi1sk"), Some("PLAYER#p_alice"));
    assert_eq!(
        store
            .players()
            .find_player_by_email(&email("ab@new.example"))
            .await
            .unwrap(),
        Some(moved)
    );
    assert_eq!(
        store
            .players()
            .find_player_by_email(&email("alice@example.com"))
            .await
            .unwrap(),
        None
    );

    // WHEN a player without an email creates a profile
    let bob = store
        .players()
        .put_profile(&pid("p_bob"), "Bob", None, at(2_000))
        .await
        .unwrap();
    // THEN the item has no GSI1 attribute at all, and no email
    assert_eq!(bob.email, None);
    assert_eq!(
        store.players().get_player(&pid("p_bob")).await.unwrap(),
        Some(bob.clone())
    );
    let raw = table.raw("PLAYER#p_bob", "#METADATA").await.unwrap();
    assert_eq!(
        keys_of(&raw),
        want_keys(&[("pk", "PLAYER#p_bob"), ("sk", "#METADATA")])
    );
    assert!(!raw.contains_key("email"));
    assert_eq!(n(&raw, "lifetimeScore"), Some("0"));
    assert_eq!(n(&raw, "gamesPlayed"), Some("0"));

    // AND an unknown player is None
    assert_eq!(
        store.players().get_player(&pid("p_nobody")).await.unwrap(),
        None
    );
}

#[tokio::test]
async fn ap1_invalid_names_are_refused_and_nothing_is_written() {
    let (table, store) = store("ap1_invalid").await;
    // GIVEN one existing player
    store
        .players()
        .put_profile(&pid("p_a"), "A", Some(&email("a@example.com")), at(0))
        .await
        .unwrap();
    let before = table.dump().await;
    let long = "x".repeat(129);
    let long_wide = "é".repeat(129);
    let bad_names = [
        "",
        "   ",
        "a\u{0}b",
        "tab\tinside",
        "new\nline",
        "del\u{7f}",
        "esc\u{1b}[0m",
        long.as_str(),
        long_wide.as_str(),
    ];
    // WHEN each bad name is given, for the existing player and for a new one
    for bad in bad_names {
        for player in ["p_a", "p_new"] {
            let r = store
                .players()
                .put_profile(&pid(player), bad, Some(&email("x@example.com")), at(7))
                .await;
            // THEN Invalid
            assert!(is_invalid(r), "{player} {bad:?}");
        }
    }
    // AND the table is exactly as it was
    assert_eq!(table.dump().await, before);
    assert_eq!(
        store.players().get_player(&pid("p_new")).await.unwrap(),
        None
    );
    // 128 characters (not bytes) is the limit, and it is accepted
    let ok = store
        .players()
        .put_profile(&pid("p_b"), &"é".repeat(128), None, at(1))
        .await
        .unwrap();
    assert_eq!(ok.name.chars().count(), 128);
}

#[tokio::test]
async fn ap2_player_by_email() {
    let (_table, store) = store("ap2").await;
    // GIVEN three players, two with an email
    let a = store
        .players()
        .put_profile(&pid("p_a"), "A", Some(&email("a@example.com")), at(1))
        .await
        .unwrap();
    let b = store
        .players()
        .put_profile(
            &pid("p_b"),
            "B",
            Some(&email("B.Smith+x@Example.org")),
            at(2),
        )
        .await
        .unwrap();
    store
        .players()
        .put_profile(&pid("p_c"), "C", None, at(3))
        .await
        .unwrap();
    // THEN each email finds its player, however it is typed
    assert_eq!(
        store
            .players()
            .find_player_by_email(&email("a@example.com"))
            .await
            .unwrap(),
        Some(a)
    );
    assert_eq!(
        store
            .players()
            .find_player_by_email(&email("B.Smith+x@Example.org"))
            .await
            .unwrap(),
        Some(b)
    );
    assert_eq!(
        store
            .players()
            .find_player_by_email(&email("b.smith+X@EXAMPLE.org"))
            .await
            .unwrap()
            .map(|p| p.player_id),
        Some(pid("p_b"))
    );
    // AND an unknown address finds nobody
    for unknown in ["nobody@example.com", "a@example.co"] {
        assert_eq!(
            store
                .players()
                .find_player_by_email(&email(unknown))
                .await
                .unwrap(),
            None,
            "{unknown}"
        );
    }
}
