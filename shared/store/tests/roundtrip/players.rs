//! Players read back identically, with the contract's keys.

use super::*;

#[tokio::test]
async fn players_read_back_identically_with_the_contract_keys() {
    let (table, store) = store("rt_players").await;
    let long_id = "p".repeat(64);
    let long_name = "é".repeat(128);
    // (playerId, name given, email, name stored)
    let cases: Vec<(&str, &str, Option<&str>, &str)> = vec![
        ("p_alice", "Alice", Some("alice@example.com"), "Alice"),
        ("P-Bob.2", "  Bob  ", None, "Bob"),
        ("x", "Zoë 🎮", Some("Zoe+games@Example.COM"), "Zoë 🎮"),
        (&long_id, &long_name, Some("a@b"), &long_name),
        ("0", "zero", None, "zero"),
    ];
    for (i, (id, name, email, want_name)) in cases.into_iter().enumerate() {
        let now = at(1_000 * i as u64 + 7);
        let email = email.map(|e| Email::parse(e).unwrap());
        // WHEN the profile is put
        let put = store
            .players()
            .put_profile(&pid(id), name, email.as_ref(), now)
            .await
            .unwrap();
        // THEN it is the new profile, and reads back identically
        let want = Player {
            player_id: pid(id),
            name: want_name.into(),
            email: email.clone(),
            lifetime_score: 0,
            games_played: 0,
            last_played_at: None,
            created_at: now,
            updated_at: now,
        };
        assert_eq!(put, want, "{id}");
        assert_eq!(
            store.players().get_player(&pid(id)).await.unwrap(),
            Some(want.clone())
        );
        if let Some(e) = &email {
            assert_eq!(
                store.players().find_player_by_email(e).await.unwrap(),
                Some(want)
            );
        }
        // AND the raw item has exactly the contract's keys (GSI1 only with an email)
        let pk = format!("PLAYER#{id}");
        let raw = table.raw(&pk, "#METADATA").await.unwrap();
        let mut want_keys = keys(&[("pk", &pk), ("sk", "#METADATA")]);
        if let Some(e) = &email {
            want_keys.extend(keys(&[
                ("gsi1pk", &format!("PLAYER_EMAIL#{}", e.as_str())),
                ("gsi1sk", &pk),
            ]));
        }
        assert_eq!(keys_of(&raw), want_keys, "{id}");
        assert_eq!(s(&raw, "playerId"), Some(id));
        assert_eq!(s(&raw, "name"), Some(want_name));
        assert_eq!(s(&raw, "email"), email.as_ref().map(Email::as_str));
        assert_eq!(n(&raw, "lifetimeScore"), Some("0"));
        assert_eq!(n(&raw, "gamesPlayed"), Some("0"));
        let when = format!("2026-01-01T00:00:{:02}.007Z", i);
        assert_eq!(s(&raw, "createdAt"), Some(when.as_str()));
        assert_eq!(s(&raw, "updatedAt"), Some(when.as_str()));
    }
}
