//! Moderation and data rights (contract §7): removing a player's entry from an open board here;
//! bans, erasure, the export and the audit trail in their own rooms.
//!
//! **Removing an entry** is one transaction, as a play's change is: delete the entry pointer on
//! condition of the version read, delete the Score item it points at, and record the removal
//! on the player's lane (written + 1, created − 1, and `chg = {o: old key}`, with the player's
//! pseudonym in place of the playerId: the index reads only the key's digits, and a lane keeps
//! its latest change, which must not hold the id of a player erased later),
//! so that the rank index takes the entry out exactly once and `playerCount` drops by one. A
//! `ConditionCheck` that the board is still open fences it against season close (which sets
//! `closing` before it reads the entries). A concurrent play of the player changes the
//! pointer's version, so one of the two is cancelled and re-read: the removal never leaves a
//! Score item without its pointer, and a play that commits after it makes a new entry, as the
//! player's first. Sessions stay. The same transaction writes the removal's audit item and
//! checks that the player is not being erased (an erasure lists the trail after its marker).

pub(crate) mod audit;
pub(crate) mod bans;
pub(crate) mod erasure;
mod erasure_index;
mod erasure_steps;
pub(crate) mod export;
pub(crate) mod key_check;

use aws_sdk_dynamodb::types::TransactWriteItem;
use leaderboard_keys::entity;
use leaderboard_keys::erasure::pseudonymous_sort_key;
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::time::Timestamp;

use crate::features::moderation::audit::{AuditAction, AuditItem};
use crate::ground::error::{CancelReason, StoreError};
use crate::ground::items::{from_item, score_key};
use crate::ground::model::{Board, BoardStatus, EntryPointer};
use crate::store::Store;
use crate::table::request::Params;
use crate::table::retry::Retry;

/// Moderation and data rights: bans, a player's erasure and export, the audit trail, and the
/// erasure key's check (the handle [`Store::moderation`] gives).
#[derive(Clone, Copy)]
pub struct Moderation<'a> {
    pub(crate) store: &'a Store,
}

impl Store {
    /// Moderation and data rights: bans, a player's erasure and export, the audit trail, and
    /// the erasure key's check.
    pub fn moderation(&self) -> Moderation<'_> {
        Moderation { store: self }
    }
}

impl Moderation<'_> {
    /// Removes `player`'s entry from the open board `id` for the admin `by`, with its audit
    /// item: `Ok(true)` when removed, `Ok(false)` when the player has none there (nothing
    /// written). An unknown board is `NotFound`; a board that is not open (closing or closed)
    /// is `BoardClosed`; a player being erased is `Erased`. Retried, as a play is, when a
    /// concurrent write cancels it.
    pub async fn remove_entry(
        self,
        id: &BoardId,
        player: &PlayerId,
        by: &PlayerId,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let mut audit = AuditItem::new(AuditAction::EntryRemoved, player, by.as_str(), now);
        audit.leaderboard_id = Some(id.clone());
        self.remove_entry_audited(id, player, Some(&audit)).await
    }

    /// The removal, with `audit` (and the check that the player is not being erased) in its
    /// transaction when given: a ban's removals are part of the ban's one audited action.
    pub(crate) async fn remove_entry_audited(
        self,
        id: &BoardId,
        player: &PlayerId,
        audit: Option<&AuditItem>,
    ) -> Result<bool, StoreError> {
        for attempt in Retry::PLAY.attempts() {
            let keys = [entity::board(id), entity::entry(player, id)];
            let mut found = self
                .store
                .table
                .batch_get(&keys, "BatchGetItem(board, pointer)")
                .await?;
            let board: Board = found
                .take(&keys[0])
                .map(from_item)
                .transpose()?
                .ok_or_else(|| StoreError::NotFound {
                    what: "leaderboard",
                    id: id.to_string(),
                })?;
            if board.status != BoardStatus::Open {
                return Err(StoreError::BoardClosed {
                    board: id.clone(),
                    why: board.status.as_str(),
                });
            }
            let Some(pointer) = found.take(&keys[1]) else {
                return Ok(false);
            };
            let pointer: EntryPointer = from_item(pointer)?;
            let mut more = Vec::new();
            if let Some(audit) = audit {
                more.push(self.store.tx_not_erased(player)?);
                more.push(self.tx_audit(audit)?);
            }
            match self.remove_pointed(&board, &pointer, more).await {
                Ok(()) => return Ok(true),
                // The erasure check: the transaction's first item, however many the removal
                // itself has (a widening board's second layout adds some).
                Err(StoreError::TransactionCanceled { reasons })
                    if audit.is_some()
                        && reasons.first() == Some(&CancelReason::ConditionalCheckFailed) =>
                {
                    return Err(StoreError::Erased {
                        player: player.clone(),
                    });
                }
                // The board started closing, the player's entry changed, or a conflict or
                // throttling: read again.
                Err(e) if e.worth_rereading() => {
                    tracing::debug!(attempt, error = %e, "entry removal failed; reading again");
                }
                Err(e) => return Err(e),
            }
            Retry::PLAY.pause(attempt).await;
        }
        Err(Retry::PLAY.exhausted())
    }

    /// The removal's transaction for the entry `pointer` points at (see the module doc), with
    /// `more` written in the same transaction, first: a caller finds its items' cancellation
    /// reasons at their own indexes, whatever the removal's size.
    async fn remove_pointed(
        self,
        board: &Board,
        pointer: &EntryPointer,
        more: Vec<TransactWriteItem>,
    ) -> Result<(), StoreError> {
        let id = &board.board_id;
        let pointer = &pointer.clone().on_board(board)?;
        let player = &pointer.entry.player_id;
        let logged =
            pseudonymous_sort_key(&pointer.score_sk, player, &self.store.pseudonym(player))
                .ok_or_else(|| {
                    StoreError::corrupt(
                        &pointer.score_sk,
                        format!("the entry pointer of {player} names another player's Score item"),
                    )
                })?;
        let mut items = more;
        items.extend([
            self.store.table.tx_board_open(id)?,
            self.store.table.tx_delete(
                &entity::entry(&pointer.entry.player_id, id),
                "version = :v",
                Params::new().value(":v", pointer.version),
            )?,
            self.store.table.tx_delete(
                &score_key(board, player, &pointer.score_sk),
                "attribute_exists(pk)",
                Params::new(),
            )?,
        ]);
        items.push(
            self.store
                .table
                .written_update(board, player, Some(&logged), None)?,
        );
        items.extend(
            self.store
                .table
                .second_layout_writes(board, Some(pointer), None)?,
        );
        self.store
            .table
            .transact(items, "TransactWriteItems(remove entry)")
            .await
    }
}
