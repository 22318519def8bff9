//! The audit trail on DynamoDB Local: every admin action (entry removal, ban, unban, erasure)
//! leaves exactly one item, newest first, with who, what, when and why; a ban's removals are
//! part of the ban; an action that did nothing (no entry to remove) leaves none; an erasure
//! moves the player's trail under the pseudonym, quoting it instead of the id, and its own item
//! carries the receipt; an admin action on an erased player is refused and writes nothing.

use crate::common;

use common::*;
use leaderboard_devkit::testing::s;
use leaderboard_keys::rank::Order;
use leaderboard_store::model::Operator;
use leaderboard_store::{AuditAction, AuditItem, Store, StoreError};

const BEE: &str = "p_bee_91";

async fn trail(store: &Store, subject: &str) -> Vec<AuditItem> {
    let page = store
        .moderation()
        .audit_trail(&pid(subject), 100, None)
        .await
        .unwrap();
    assert!(page.next_cursor.is_none());
    page.items
}

fn actions(items: &[AuditItem]) -> Vec<AuditAction> {
    items.iter().map(|i| i.action).collect()
}

#[tokio::test]
async fn every_admin_action_leaves_one_item_and_an_erasure_moves_the_trail() {
    let (table, store) = store_without_stream("audit").await;
    board(&store, "aud", Order::Desc, Operator::Best).await;
    for (p, score) in [("p_ann", 10), (BEE, 20)] {
        submit(&store, p, score, &["aud"], 1_000).await;
    }
    let ops = pid("ops");

    // A removal, then one of nothing: one item.
    assert!(
        store
            .moderation()
            .remove_entry(&bid("aud"), &pid("p_ann"), &ops, at(2_000))
            .await
            .unwrap()
    );
    assert!(
        !store
            .moderation()
            .remove_entry(&bid("aud"), &pid("p_ann"), &ops, at(2_001))
            .await
            .unwrap()
    );
    let ann = trail(&store, "p_ann").await;
    assert_eq!(actions(&ann), vec![AuditAction::EntryRemoved]);
    assert_eq!(
        (
            ann[0].actor.as_str(),
            ann[0].at,
            ann[0].leaderboard_id.as_ref()
        ),
        ("ops", at(2_000), Some(&bid("aud")))
    );

    // A ban (its removal is part of it), two unbans (the second lifts nothing): three items,
    // newest first.
    let ban = store
        .moderation()
        .ban_player(&pid(BEE), &format!("{BEE} used an aimbot"), &ops, at(3_000))
        .await
        .unwrap();
    assert_eq!(ban.removed_from, vec![bid("aud")]);
    assert!(
        store
            .moderation()
            .unban_player(&pid(BEE), &ops, at(4_000))
            .await
            .unwrap()
    );
    assert!(
        !store
            .moderation()
            .unban_player(&pid(BEE), &ops, at(5_000))
            .await
            .unwrap()
    );
    let bee = trail(&store, BEE).await;
    assert_eq!(
        actions(&bee),
        vec![
            AuditAction::Unbanned,
            AuditAction::Unbanned,
            AuditAction::Banned
        ]
    );
    assert_eq!(bee[2].reason.as_deref(), Some("p_bee_91 used an aimbot"));

    // The erasure: its own item and the moved trail under the pseudonym, nothing under the id.
    let receipt = store
        .moderation()
        .erase_player(&pid(BEE), "ops", at(6_000), None)
        .await
        .unwrap();
    let pseudonym = receipt.pseudonym.to_string();
    assert!(trail(&store, BEE).await.is_empty());
    let moved = trail(&store, &pseudonym).await;
    assert_eq!(
        actions(&moved),
        vec![
            AuditAction::Erased,
            AuditAction::Unbanned,
            AuditAction::Unbanned,
            AuditAction::Banned
        ]
    );
    assert!(moved.iter().all(|i| i.player_id.as_str() == pseudonym));
    assert_eq!(moved[3].reason, Some(format!("{pseudonym} used an aimbot")));
    let erased = &moved[0];
    assert_eq!((erased.actor.as_str(), erased.at), ("ops", at(6_000)));
    assert_eq!(erased.finished_at, Some(at(6_000)));
    assert_eq!(erased.removed.as_ref(), Some(&receipt.removed));
    assert_eq!(receipt.removed.get("auditItemsMoved"), Some(&3));
    let dump = table.dump().await;
    assert!(
        dump.iter().all(|i| !format!("{i:?}").contains(BEE)),
        "the id is left somewhere"
    );
    let audit_items = dump
        .iter()
        .filter(|i| s(i, "pk").is_some_and(|pk| pk.starts_with("AUDIT#")))
        .count();
    assert_eq!(audit_items, 1 + 4, "one item per action");

    // Admin actions on the erased id are refused and write nothing.
    let ban = store
        .moderation()
        .ban_player(&pid(BEE), "again", &ops, at(7_000))
        .await;
    assert!(matches!(ban, Err(StoreError::Erased { .. })), "{ban:?}");
    let unban = store
        .moderation()
        .unban_player(&pid(BEE), &ops, at(7_000))
        .await;
    assert!(matches!(unban, Err(StoreError::Erased { .. })), "{unban:?}");
    assert_eq!(table.dump().await, dump);
}
