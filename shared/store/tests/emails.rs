//! Emails on DynamoDB Local: an address is stored lower-cased and belongs to one player. Players
//! racing for one address get it once; a change or a clear frees the old address in the same
//! write; a claim of another's address is refused with nothing written; the lookup answers the
//! one owner.

use crate::common;

use aws_sdk_dynamodb::types::AttributeValue;
use common::*;
use leaderboard_devkit::testing::s;
use leaderboard_keys::ids::Email;
use leaderboard_store::{EmailChange, StoreError};

fn email(s: &str) -> Email {
    Email::parse(s).unwrap()
}

#[tokio::test]
async fn players_racing_for_one_address_get_it_once() {
    let (table, store) = store_without_stream("emails_race").await;
    for round in 0..5 {
        let address = email(&format!("race{round}@x.com"));
        let players: Vec<_> = (0..8).map(|i| pid(&format!("r{round}_{i}"))).collect();
        let results = futures::future::join_all(players.iter().map(|p| {
            let store = store.clone();
            let address = address.clone();
            async move {
                store
                    .players()
                    .put_profile(p, "racer", Some(&address), at(round))
                    .await
            }
        }))
        .await;
        let winners: Vec<_> = results.iter().filter(|r| r.is_ok()).collect();
        assert_eq!(winners.len(), 1, "round {round}: {results:?}");
        for r in results.iter().filter(|r| r.is_err()) {
            assert!(
                matches!(r, Err(StoreError::AlreadyExists { what: "email", .. })),
                "{r:?}"
            );
        }
        let winner = winners[0].as_ref().unwrap();
        assert_eq!(winner.email.as_ref(), Some(&address));
        // The owner item names the winner, and only the winner's profile has the address.
        let owner = table
            .raw(&format!("EMAIL#{}", address.as_str()), "#OWNER")
            .await
            .unwrap();
        assert_eq!(s(&owner, "playerId"), Some(winner.player_id.as_str()));
        for p in &players {
            let profile = store.players().get_player(p).await.unwrap();
            let has = profile.and_then(|p| p.email).is_some();
            assert_eq!(has, *p == winner.player_id, "{p}");
        }
        let found = store
            .players()
            .find_player_by_email(&address)
            .await
            .unwrap();
        assert_eq!(found.map(|p| p.player_id), Some(winner.player_id.clone()));
    }
}

#[tokio::test]
async fn a_change_or_a_clear_frees_the_old_address_and_a_claim_writes_nothing() {
    let (table, store) = store_without_stream("emails_change").await;
    let (ada, bo) = (pid("ada"), pid("bo"));
    // Stored lower-cased, and found however it is typed.
    let first = store
        .players()
        .put_profile(&ada, "Ada", Some(&email("Ada@X.com")), at(0))
        .await
        .unwrap();
    assert_eq!(first.email.as_ref().map(Email::as_str), Some("ada@x.com"));
    let found = store
        .players()
        .find_player_by_email(&email("ADA@x.COM"))
        .await
        .unwrap();
    assert_eq!(found.map(|p| p.player_id), Some(ada.clone()));

    // Another player's address: refused, nothing written.
    store
        .players()
        .put_profile(&bo, "Bo", None, at(1))
        .await
        .unwrap();
    let before = table.dump().await;
    let claim = store
        .players()
        .put_profile(&bo, "Bo", Some(&email("ada@x.com")), at(2))
        .await;
    assert!(
        matches!(claim, Err(StoreError::AlreadyExists { what: "email", .. })),
        "{claim:?}"
    );
    assert_eq!(
        table.dump().await,
        before,
        "the refused claim wrote something"
    );

    // Ada moves to another address: the old one is free for Bo, the new one is not.
    store
        .players()
        .put_profile(&ada, "Ada", Some(&email("ada@new.com")), at(3))
        .await
        .unwrap();
    assert!(table.raw("EMAIL#ada@x.com", "#OWNER").await.is_none());
    let bo_now = store
        .players()
        .put_profile(&bo, "Bo", Some(&email("ada@x.com")), at(4))
        .await
        .unwrap();
    assert_eq!(bo_now.email.as_ref().map(Email::as_str), Some("ada@x.com"));
    let found = store
        .players()
        .find_player_by_email(&email("ada@x.com"))
        .await
        .unwrap();
    assert_eq!(found.map(|p| p.player_id), Some(bo.clone()));
    let refused = store
        .players()
        .put_profile(&bo, "Bo", Some(&email("ada@new.com")), at(5))
        .await;
    assert!(matches!(refused, Err(StoreError::AlreadyExists { .. })));

    // A rename keeps the address; a clear frees it and removes it from the profile.
    let renamed = store
        .players()
        .put_profile(&ada, "Ada L.", None, at(6))
        .await
        .unwrap();
    assert_eq!(
        renamed.email.as_ref().map(Email::as_str),
        Some("ada@new.com")
    );
    let cleared = store
        .players()
        .put_profile_as(&ada, "Ada L.", EmailChange::Clear, at(7))
        .await
        .unwrap();
    assert_eq!(cleared.email, None);
    assert!(table.raw("EMAIL#ada@new.com", "#OWNER").await.is_none());
    let raw = table.raw("PLAYER#ada", "#METADATA").await.unwrap();
    for gone in ["email", "gsi1pk", "gsi1sk"] {
        assert!(!raw.contains_key(gone), "{gone}");
    }
    assert_eq!(
        store
            .players()
            .find_player_by_email(&email("ada@new.com"))
            .await
            .unwrap(),
        None
    );
    store
        .players()
        .put_profile(&bo, "Bo", Some(&email("ada@new.com")), at(8))
        .await
        .unwrap();
}

#[tokio::test]
async fn an_address_stored_before_emails_were_lower_cased_can_be_changed() {
    let (table, store) = store_without_stream("emails_legacy").await;
    let leg = pid("leg");
    store
        .players()
        .put_profile(&leg, "Leg", None, at(0))
        .await
        .unwrap();
    // As an older version stored it: the address as typed, no owner item.
    table
        .client
        .update_item()
        .table_name(&table.name)
        .key("pk", AttributeValue::S("PLAYER#leg".into()))
        .key("sk", AttributeValue::S("#METADATA".into()))
        .update_expression("SET email = :e, gsi1pk = :g, gsi1sk = :s")
        .expression_attribute_values(":e", AttributeValue::S("Old@Case.com".into()))
        .expression_attribute_values(":g", AttributeValue::S("PLAYER_EMAIL#Old@Case.com".into()))
        .expression_attribute_values(":s", AttributeValue::S("PLAYER#leg".into()))
        .send()
        .await
        .unwrap();
    let moved = store
        .players()
        .put_profile(&leg, "Leg", Some(&email("new@case.com")), at(1))
        .await
        .unwrap();
    assert_eq!(
        moved.email.as_ref().map(Email::as_str),
        Some("new@case.com")
    );
    let found = store
        .players()
        .find_player_by_email(&email("NEW@case.com"))
        .await
        .unwrap();
    assert_eq!(found.map(|p| p.player_id), Some(leg));
}
