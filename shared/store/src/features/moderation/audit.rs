//! The audit trail (contract §9): every admin action (an entry removal, a ban, an unban, an
//! erasure) leaves one item, written in the same transaction as the action's first write, so
//! an action that did not happen leaves none and one that did cannot lose it.
//!
//! An item lives in its player's partition of the trail, `AUDIT#<playerId>` / `<at>#<id>`, and
//! says who (the admin's `sub`), what, when and why (a ban's reason). An erasure's item lives
//! under the pseudonym instead, and the erasure moves the player's earlier items there with
//! the pseudonym in place of the id (in their reasons too, and the email), so the trail
//! outlives the player without naming them. [`Moderation::audit_trail`] lists a trail newest first.

use aws_sdk_dynamodb::types::TransactWriteItem;
use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::time::Timestamp;
use serde::{Deserialize, Serialize};

use crate::features::moderation::Moderation;
use crate::ground::error::StoreError;
use crate::ground::items::to_item;
use crate::ground::model::Page;
use crate::ground::session_id::new_session_id;
use crate::table::query::Listing;
use crate::table::request::{Index, Params};

/// What an admin did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditAction {
    /// Removed the player's entry from an open board.
    EntryRemoved,
    /// Banned the player.
    Banned,
    /// Lifted the player's ban.
    Unbanned,
    /// Erased the player (the item names the pseudonym).
    Erased,
}

/// One item of a player's audit trail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditItem {
    /// What was done.
    pub action: AuditAction,
    /// To whom: the playerId, or (after an erasure) the pseudonym.
    pub player_id: PlayerId,
    /// Who did it: the admin's `sub` (`player` for an erasure the player asked for).
    pub actor: String,
    /// When.
    pub at: Timestamp,
    /// Why, as the admin wrote it (a ban).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// On which board (an entry removal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaderboard_id: Option<BoardId>,
    /// What an erasure removed, by kind (once it finished).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed: Option<std::collections::BTreeMap<String, u64>>,
    /// When an erasure finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<Timestamp>,
}

impl AuditItem {
    /// An item of `action` on `player` by `actor` at `at`.
    pub fn new(action: AuditAction, player: &PlayerId, actor: &str, at: Timestamp) -> AuditItem {
        AuditItem {
            action,
            player_id: player.clone(),
            actor: actor.to_owned(),
            at,
            reason: None,
            leaderboard_id: None,
            removed: None,
            finished_at: None,
        }
    }

    /// The item's key: in its player's trail, made unique by a fresh ULID.
    pub(crate) fn key(&self) -> Result<Key, StoreError> {
        let id = new_session_id(self.at)?;
        Ok(entity::audit(&self.player_id, self.at, id.as_str()))
    }
}

impl Moderation<'_> {
    /// The audit trail of `subject` (a playerId, or a pseudonym), newest first, `limit` a page.
    pub async fn audit_trail(
        self,
        subject: &PlayerId,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<AuditItem>, StoreError> {
        let listing = Listing::new(
            "audit",
            Index::Table,
            entity::audit_pk(subject),
            entity::ACTION_PREFIX,
        )
        .descending();
        self.store.table.list_page(&listing, limit, cursor).await
    }

    /// The transaction's put of `item`, under a key no other item has.
    pub(crate) fn tx_audit(self, item: &AuditItem) -> Result<TransactWriteItem, StoreError> {
        self.tx_audit_at(item, &item.key()?)
    }

    /// The transaction's put of `item` at `key` (one of [`AuditItem::key`]).
    pub(crate) fn tx_audit_at(
        self,
        item: &AuditItem,
        key: &Key,
    ) -> Result<TransactWriteItem, StoreError> {
        self.store.table.tx_put(
            to_item(item, key, None, None)?,
            Some("attribute_not_exists(pk)"),
            Params::new(),
        )
    }
}
