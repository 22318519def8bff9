//! The player's export on DynamoDB Local: the documents, followed through their cursors, hold
//! exactly what a scan of the table finds of the player (profile with email, ban, entries with
//! their ranks on open boards, season results, every session), a document holds at most its
//! caps, and a cursor that is not the player's own is refused.

use crate::common;

use std::collections::BTreeSet;

use aws_sdk_dynamodb::types::{AttributeValue, PutRequest, WriteRequest};
use common::*;
use leaderboard_devkit::testing::{TestTable, s};
use leaderboard_keys::ids::Email;
use leaderboard_keys::rank::Order;
use leaderboard_store::model::Operator;
use leaderboard_store::{CloseOptions, EXPORT_SESSIONS, PlayerExport, Store, StoreError};

const DAY: u64 = 86_400_000;
const ME: &str = "p_me";

/// What a scan finds in the player's partition, by kind: sort keys after their prefix.
async fn scanned(table: &TestTable, kind: &str) -> BTreeSet<String> {
    table
        .dump()
        .await
        .iter()
        .filter(|i| s(i, "pk") == Some(&format!("PLAYER#{ME}")))
        .filter_map(|i| {
            s(i, "sk")
                .and_then(|sk| sk.strip_prefix(kind))
                .map(str::to_owned)
        })
        .collect()
}

/// Every document of the export, following the cursors.
async fn documents(store: &Store) -> Vec<PlayerExport> {
    let mut docs = vec![
        store
            .moderation()
            .export_player(&pid(ME), None)
            .await
            .unwrap(),
    ];
    while let Some(cursor) = docs.last().unwrap().next_cursor.clone() {
        assert!(docs.len() < 10, "the export does not end");
        docs.push(
            store
                .moderation()
                .export_player(&pid(ME), Some(&cursor))
                .await
                .unwrap(),
        );
    }
    docs
}

/// `n` more sessions of the player, copies of a stored one under new ids, put directly.
async fn more_sessions(table: &TestTable, n: u64) {
    let template = table
        .dump()
        .await
        .into_iter()
        .find(|i| {
            s(i, "pk") == Some(&format!("PLAYER#{ME}"))
                && s(i, "sk").is_some_and(|sk| sk.starts_with("SESSION#"))
        })
        .unwrap();
    let puts: Vec<WriteRequest> = (0..n)
        .map(|i| {
            let id = sid(DAY + 100_000 + i, i.into()).to_string();
            let mut item = template.clone();
            item.insert("sk".into(), AttributeValue::S(format!("SESSION#{id}")));
            item.insert("sessionId".into(), AttributeValue::S(id.clone()));
            item.insert("gsi2sk".into(), AttributeValue::S(format!("SESSION#{id}")));
            let put = PutRequest::builder().set_item(Some(item)).build().unwrap();
            WriteRequest::builder().put_request(put).build()
        })
        .collect();
    for chunk in puts.chunks(25) {
        table
            .client
            .batch_write_item()
            .request_items(&table.name, chunk.to_vec())
            .send()
            .await
            .unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_export_holds_what_a_scan_finds_of_the_player() {
    let (table, store) = store_without_stream("export").await;
    board(&store, "live", Order::Desc, Operator::Best).await;
    let mut past = new_board("past", Order::Desc, Operator::Best, 9_999_999_999);
    past.ends_at = Some(at(DAY));
    store.boards().create_board(past, at(0)).await.unwrap();
    for (i, p) in ["ann", "bo"].iter().enumerate() {
        submit(&store, p, 500 - 100 * i as u64, &["live", "past"], 1_000).await;
    }
    submit(&store, ME, 450, &["live", "past"], 2_000).await;
    store
        .close()
        .close_board(&bid("past"), at(DAY + 1), &CloseOptions::default())
        .await
        .unwrap();
    submit(&store, ME, 600, &["live"], DAY + 2_000).await;
    let email = Email::parse("me@example.com").unwrap();
    store
        .players()
        .put_profile(&pid(ME), "Me", Some(&email), at(DAY))
        .await
        .unwrap();
    more_sessions(&table, EXPORT_SESSIONS as u64).await;

    let docs = documents(&store).await;
    let counts: Vec<_> = docs.iter().map(|d| d.sessions.len()).collect();
    assert_eq!(docs.len(), 2, "the sessions take two documents: {counts:?}");
    assert_eq!(docs[0].sessions.len(), EXPORT_SESSIONS);
    for doc in &docs {
        assert_eq!(doc.profile.as_ref().unwrap().email.as_ref(), Some(&email));
        assert!(doc.ban.is_none());
    }
    let entries: Vec<_> = docs.iter().flat_map(|d| &d.entries).collect();
    let boards: BTreeSet<String> = entries
        .iter()
        .map(|e| e.entry.board_id.to_string())
        .collect();
    assert_eq!(boards, scanned(&table, "ENTRY#").await);
    // On the open board the entry is ranked now (first of three); the closed board's is as
    // archived, its final rank among the results.
    let live = entries
        .iter()
        .find(|e| e.entry.board_id.as_str() == "live")
        .unwrap();
    assert_eq!(
        (live.board_status, live.rank, live.entry.score),
        ("open", Some(1), 600)
    );
    let past = entries
        .iter()
        .find(|e| e.entry.board_id.as_str() == "past")
        .unwrap();
    assert_eq!((past.board_status, past.rank), ("closed", None));
    let results: Vec<_> = docs.iter().flat_map(|d| &d.results).collect();
    assert_eq!(results.len(), 1);
    assert_eq!((results[0].rank, results[0].entry.score), (2, 450));
    assert_eq!(
        results
            .iter()
            .map(|r| r.entry.board_id.to_string())
            .collect::<BTreeSet<_>>(),
        scanned(&table, "RESULT#").await
    );
    let sessions: BTreeSet<String> = docs
        .iter()
        .flat_map(|d| &d.sessions)
        .map(|s| s.session_id.to_string())
        .collect();
    assert_eq!(sessions.len(), EXPORT_SESSIONS + 2);
    assert_eq!(sessions, scanned(&table, "SESSION#").await);

    // Banned: the ban is in every document, and the entry the ban removed is not.
    store
        .moderation()
        .ban_player(&pid(ME), "testing", &pid("ops"), at(DAY + 3_000))
        .await
        .unwrap();
    let docs = documents(&store).await;
    assert_eq!(docs[0].ban.as_ref().unwrap().reason, "testing");
    let boards: BTreeSet<String> = docs
        .iter()
        .flat_map(|d| &d.entries)
        .map(|e| e.entry.board_id.to_string())
        .collect();
    assert_eq!(boards, BTreeSet::from(["past".to_string()]));
    assert_eq!(boards, scanned(&table, "ENTRY#").await);

    // Another player's cursor, or none at all, is refused.
    let cursor = docs[0].next_cursor.clone().unwrap();
    let theirs = store
        .moderation()
        .export_player(&pid("ann"), Some(&cursor))
        .await;
    assert!(matches!(theirs, Err(StoreError::BadCursor)), "{theirs:?}");
    for bad in ["", "x", "eyJwYXJ0Ijo5fQ"] {
        let refused = store.moderation().export_player(&pid(ME), Some(bad)).await;
        assert!(
            matches!(refused, Err(StoreError::BadCursor)),
            "{bad}: {refused:?}"
        );
    }
}
