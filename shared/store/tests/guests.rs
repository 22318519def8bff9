//! Guest sign-ups' limit on DynamoDB Local: of sign-ups from one network sent at once, exactly
//! the limit pass and the rest are refused with the wait to the next hour, writing nothing;
//! another network has its own count, an IPv6 /64 is one network, the next hour counts again,
//! and the table never holds an address.

use crate::common::*;

use std::net::IpAddr;

use leaderboard_devkit::testing::{n, s};
use leaderboard_store::StoreError;

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

#[tokio::test]
async fn a_network_makes_at_most_its_limit_of_guests_an_hour() {
    let (table, store) = store("guests").await;
    let now = at(10 * 60_000); // ten minutes into an hour
    // Twelve at once from one address, with a limit of ten.
    let tries = (0..12).map(|_| {
        let store = store.clone();
        async move {
            store
                .guests()
                .count_guest_sign_up(ip("203.0.113.7"), 10, now)
                .await
        }
    });
    let answers = futures::future::join_all(tries).await;
    let passed = answers.iter().filter(|a| a.is_ok()).count();
    assert_eq!(passed, 10, "{answers:?}");
    for refused in answers.iter().filter_map(|a| a.as_ref().err()) {
        match refused {
            StoreError::GuestLimit { retry_after_secs } => assert_eq!(*retry_after_secs, 50 * 60),
            other => panic!("{other:?}"),
        }
    }
    // The refusals wrote nothing: one item, counting ten.
    let items = table.dump().await;
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(n(&items[0], "signUps"), Some("10"));
    assert!(s(&items[0], "pk").unwrap().starts_with("GUEST#"));
    // No address anywhere in it.
    assert!(!format!("{items:?}").contains("203.0.113"), "{items:?}");
    let refused = store
        .guests()
        .count_guest_sign_up(ip("203.0.113.7"), 10, now)
        .await;
    assert!(matches!(refused, Err(StoreError::GuestLimit { .. })));
    assert_eq!(table.dump().await, items);

    // Another network counts on its own; an IPv4 address written as IPv6 is the same one.
    let other = store.guests();
    other
        .count_guest_sign_up(ip("198.51.100.1"), 10, now)
        .await
        .unwrap();
    let mapped = other
        .count_guest_sign_up(ip("::ffff:203.0.113.7"), 10, now)
        .await;
    assert!(matches!(mapped, Err(StoreError::GuestLimit { .. })));
    // One IPv6 /64 is one network: its addresses share a count.
    for host in 1..=2 {
        other
            .count_guest_sign_up(ip(&format!("2001:db8:1:2::{host}")), 2, now)
            .await
            .unwrap();
    }
    let same_block = other
        .count_guest_sign_up(ip("2001:db8:1:2:ffff::9"), 2, now)
        .await;
    assert!(matches!(same_block, Err(StoreError::GuestLimit { .. })));
    other
        .count_guest_sign_up(ip("2001:db8:1:3::1"), 2, now)
        .await
        .unwrap();
    // The next hour counts again.
    other
        .count_guest_sign_up(ip("203.0.113.7"), 10, at(60 * 60_000))
        .await
        .unwrap();
}
