//! Moderation (contract §7): banning a player, and lifting the ban.
//!
//! **The ban** is one item in the player's partition, `PLAYER#<p>` / `#BAN`. A play reads it
//! with the play's one `BatchGetItem` (one key more, no request more) and is refused with
//! `Banned` before anything is written; and every play's transaction checks that it still does
//! not exist (one `ConditionCheck` more, no request more), so a play that read the player as
//! not banned cannot commit once the ban has.
//!
//! **Banning** writes the ban first, then removes the player's entries on open boards: it lists
//! the player's entry pointers with a strongly consistent Query of the player's partition
//! (archived pointers, which carry a `ttl`, belong to closed boards and are left out), and
//! removes each entry as the admin removal does. No play can add an entry after the ban is
//! written, and every play that committed before it is in the listing, so no entry of the
//! player is left on an open board. A ban that fails part-way (the function stopped, the store
//! was unavailable) has written the ban: banning again finishes the removals. Boards that are
//! closing or closed keep their entries (their standings are final).
//!
//! **Lifting** deletes the ban. Removed entries come back only through new plays.
//!
//! Each writes its audit item in the transaction of its first write (the ban's put, the
//! lift's delete), with a check that the player is not being erased; the ban's removals are
//! part of that one action.

use leaderboard_keys::entity;
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::time::Timestamp;
use serde::{Deserialize, Serialize};

use crate::features::moderation::Moderation;
use crate::features::moderation::audit::{AuditAction, AuditItem};
use crate::ground::error::{CancelReason, StoreError};
use crate::ground::items::{from_item, to_item};
use crate::store::FENCE_BANNED;
use crate::table::request::Params;

/// The longest ban reason, in characters.
pub const MAX_BAN_REASON: usize = 500;

/// A player's ban, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ban {
    /// The banned player.
    pub player_id: PlayerId,
    /// Why, as the admin wrote it.
    pub reason: String,
    /// When the ban was (last) written.
    pub banned_at: Timestamp,
    /// The admin who wrote it.
    pub banned_by: PlayerId,
}

/// What banning a player did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BanOutcome {
    /// The ban as written.
    #[serde(flatten)]
    pub ban: Ban,
    /// The open boards whose entry of the player was removed, in board id order.
    pub removed_from: Vec<BoardId>,
}

/// Checks a ban's reason: 1 to [`MAX_BAN_REASON`] characters, not only white space, no
/// control characters.
fn check_reason(reason: &str) -> Result<(), StoreError> {
    if reason.trim().is_empty() || reason.chars().count() > MAX_BAN_REASON {
        return Err(StoreError::Invalid(format!(
            "reason must be 1 to {MAX_BAN_REASON} characters, not only white space"
        )));
    }
    if reason.chars().any(char::is_control) {
        return Err(StoreError::Invalid(
            "reason must not contain control characters".into(),
        ));
    }
    Ok(())
}

impl Moderation<'_> {
    /// Bans `player` (see the module doc): writes the ban, then removes the player's entries
    /// on every open board. Banning a banned player writes the ban again (its reason, time and
    /// admin) and removes anything left, so a ban that failed part-way is finished by banning
    /// again. An invalid reason is `Invalid`, with nothing written.
    pub async fn ban_player(
        self,
        player: &PlayerId,
        reason: &str,
        by: &PlayerId,
        now: Timestamp,
    ) -> Result<BanOutcome, StoreError> {
        check_reason(reason)?;
        let ban = Ban {
            player_id: player.clone(),
            reason: reason.to_owned(),
            banned_at: now,
            banned_by: by.clone(),
        };
        let mut audit = AuditItem::new(AuditAction::Banned, player, by.as_str(), now);
        audit.reason = Some(reason.to_owned());
        let items = vec![
            self.store.tx_not_erased(player)?,
            self.store.table.tx_put(
                to_item(&ban, &entity::ban(player), None, None)?,
                None,
                Params::new(),
            )?,
            self.tx_audit(&audit)?,
            // The fence a play checks: no play commits after this.
            self.store.tx_fence(player, FENCE_BANNED, true)?,
        ];
        self.transact_admin(player, items, "TransactWriteItems(ban)")
            .await?;
        let mut outcome = BanOutcome {
            ban,
            removed_from: Vec::new(),
        };
        for board in self.store.table.live_entry_boards(player).await? {
            match self.remove_entry_audited(&board, player, None).await {
                Ok(true) => outcome.removed_from.push(board),
                // Gone already (removed, or the board deleted), or final: nothing to do.
                Ok(false) | Err(StoreError::NotFound { .. } | StoreError::BoardClosed { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        tracing::info!(
            player = %player,
            by = %by,
            removed = outcome.removed_from.len(),
            "player banned"
        );
        Ok(outcome)
    }

    /// Lifts `player`'s ban for the admin `by`, with its audit item: `Ok(true)` when there was
    /// one (lifting none is an action too, and leaves its item). An erased player is `Erased`.
    pub async fn unban_player(
        self,
        player: &PlayerId,
        by: &PlayerId,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let audit = AuditItem::new(AuditAction::Unbanned, player, by.as_str(), now);
        let lift = vec![
            self.store.tx_not_erased(player)?,
            self.store.table.tx_delete(
                &entity::ban(player),
                "attribute_exists(pk)",
                Params::new(),
            )?,
            self.tx_audit(&audit)?,
            self.store.tx_fence(player, FENCE_BANNED, false)?,
        ];
        match self
            .transact_admin(player, lift, "TransactWriteItems(unban)")
            .await
        {
            Ok(()) => Ok(true),
            // No ban: the audit item alone.
            Err(StoreError::TransactionCanceled { reasons })
                if reasons.get(1) == Some(&CancelReason::ConditionalCheckFailed) =>
            {
                let alone = vec![self.store.tx_not_erased(player)?, self.tx_audit(&audit)?];
                self.transact_admin(player, alone, "TransactWriteItems(unban)")
                    .await?;
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// An admin action's transaction whose first item is the check that `player` is not
    /// being erased: that check failing is `Erased`.
    async fn transact_admin(
        self,
        player: &PlayerId,
        items: Vec<aws_sdk_dynamodb::types::TransactWriteItem>,
        what: &'static str,
    ) -> Result<(), StoreError> {
        match self.store.table.transact(items, what).await {
            Err(StoreError::TransactionCanceled { reasons })
                if reasons.first() == Some(&CancelReason::ConditionalCheckFailed) =>
            {
                Err(StoreError::Erased {
                    player: player.clone(),
                })
            }
            other => other,
        }
    }

    /// `player`'s ban, if banned (read strongly consistently).
    pub async fn get_ban(self, player: &PlayerId) -> Result<Option<Ban>, StoreError> {
        self.store
            .table
            .get_raw(&entity::ban(player))
            .await?
            .map(from_item)
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons() {
        for ok in ["cheating", " x ", &"é".repeat(MAX_BAN_REASON)] {
            assert!(check_reason(ok).is_ok(), "{ok:?}");
        }
        for bad in [
            "",
            "   ",
            "\t\n",
            "a\u{0}b",
            "line\nbreak",
            &"a".repeat(MAX_BAN_REASON + 1),
        ] {
            assert!(
                matches!(check_reason(bad), Err(StoreError::Invalid(_))),
                "{bad:?}"
            );
        }
    }
}
