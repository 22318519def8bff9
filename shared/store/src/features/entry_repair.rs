//! Entry repair: an operator's fix of one Score item that a check of its board found is not
//! its player's entry (`lbctl verify --repair`). A player has exactly one entry per board: one
//! Score item, named by their entry pointer. A Score item breaks that in one of two ways:
//!
//! - **no pointer names anything that exists** (no pointer, or one naming a key with no Score
//!   item: a stale pointer): the pointer is rebuilt from the Score item (which carries what
//!   the pointer does), so the item becomes the player's entry;
//! - **the pointer names another Score item that exists**: this one is a second entry, and is
//!   deleted as a removal is, with its change recorded on the player's lane for the rank index.
//!
//! Each is one transaction on condition that the board is open and what decided it is still
//! as read (the pointer's version, the items' existence), read again and decided again when a
//! play moved it meanwhile. Repeating a repair does nothing: the item is then its player's
//! entry, or gone. Which of two Score items stays is the one repaired first; `lbctl` goes in
//! rank order, so a player keeps their best-ranked one.
//!
//! A pointer can also outlive its Score item (an item deleted by hand, a restore that missed
//! it): the pointer holds everything the item does (score, time, player, session), so the item
//! is put back from it ([`EntryRepairs::restore_entry`]), on condition that the pointer is as read and
//! the item still absent. [`EntryRepairs::lost_entries`] finds them, a player at a time: pointers are
//! in the player's partition, not the board's.
//!
//! The rank index is not adjusted item by item: a Score item outside the invariant may or may
//! not be counted. A repair run ends with a rebuild of the board's index from its entries.

use leaderboard_keys::entity;
use leaderboard_keys::erasure::pseudonymous_sort_key;
use leaderboard_keys::ids::{BoardId, PlayerId};

use crate::ground::error::StoreError;
use crate::ground::items::{ItemExt, pointer_from_score_item, pointer_item, score_key};
use crate::ground::model::{BoardStatus, EntryPointer};
use crate::rank::second_layout::score_item_in_service;
use crate::store::Store;
use crate::table::request::Params;
use crate::table::retry::Retry;

/// What [`EntryRepairs::repair_entry`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryRepair {
    /// The player's pointer now names the Score item.
    Repointed,
    /// The Score item was a second entry of its player's, and is deleted.
    Removed,
    /// The Score item the player's pointer names was gone, and is put back from the pointer.
    Restored,
    /// Nothing to do: the item is its player's entry already, or is gone.
    Unchanged,
}

/// Entry repair: a player's entry and pointer made whole, and the entries a lost play left (the
/// handle [`Store::entry_repair`] gives).
#[derive(Clone, Copy)]
pub struct EntryRepairs<'a> {
    pub(crate) store: &'a Store,
}

impl Store {
    /// Entry repair: a player's entry and pointer made whole, and the entries a lost play
    /// left.
    pub fn entry_repair(&self) -> EntryRepairs<'_> {
        EntryRepairs { store: self }
    }
}

impl EntryRepairs<'_> {
    /// Makes the Score item `score_sk` of `board` its player's entry, or deletes it when the
    /// player's pointer names another Score item that exists (see the module documentation).
    /// Reads: the board, the item, the pointer and the item it names (4 consistent reads);
    /// writes: one transaction of 4 or 5 items; again on a race, at most `Retry::PLAY`'s
    /// attempts.
    pub async fn repair_entry(
        self,
        board: &BoardId,
        score_sk: &str,
    ) -> Result<EntryRepair, StoreError> {
        for attempt in Retry::PLAY.attempts() {
            match self.repair_entry_once(board, score_sk).await {
                Err(e) if e.worth_rereading() => {
                    tracing::debug!(attempt, error = %e, "entry repair raced a write; reading again");
                }
                done => return done,
            }
            Retry::PLAY.pause(attempt).await;
        }
        Err(Retry::PLAY.exhausted())
    }

    /// The entries of `player` on open boards (`only`: that board alone) whose pointer names a
    /// Score item that is gone: each board and the sort key its pointer names. Reads: the
    /// player's entry pointers (a Query a page of them), then per board the board, the pointer
    /// and the Score item it names (3 consistent GetItems).
    pub async fn lost_entries(
        self,
        player: &PlayerId,
        only: Option<&BoardId>,
    ) -> Result<Vec<(BoardId, String)>, StoreError> {
        let mut lost = Vec::new();
        for id in self.store.table.live_entry_boards(player).await? {
            if only.is_some_and(|b| *b != id) {
                continue;
            }
            if let Some((_, pointer)) = self.lost_entry(&id, player).await? {
                lost.push((id, pointer.score_sk));
            }
        }
        Ok(lost)
    }

    /// The open board `id` and `player`'s pointer on it, when the Score item it names is gone.
    async fn lost_entry(
        self,
        id: &BoardId,
        player: &PlayerId,
    ) -> Result<Option<(crate::ground::model::Board, EntryPointer)>, StoreError> {
        let Some(board) = self.store.table.board(id).await? else {
            return Ok(None);
        };
        if board.status != BoardStatus::Open {
            return Ok(None);
        }
        let pointer: Option<EntryPointer> =
            self.store.table.get(&entity::entry(player, id)).await?;
        let Some(pointer) = pointer.map(|p| p.on_board(&board)).transpose()? else {
            return Ok(None);
        };
        let key = score_key(&board, player, &pointer.score_sk);
        Ok(match self.store.table.get_raw(&key).await? {
            Some(_) => None,
            None => Some((board, pointer)),
        })
    }

    /// Puts back `player`'s Score item on the open board `id` from their entry pointer, when
    /// the item it names is gone (see the module documentation): one transaction of the
    /// board's open check, the pointer's version, and the item's put on condition that it is
    /// still absent (and, on a widening board, its item of the generation being built); again
    /// on a race. `Unchanged` when there is no pointer or its item is there.
    pub async fn restore_entry(
        self,
        id: &BoardId,
        player: &PlayerId,
    ) -> Result<EntryRepair, StoreError> {
        for attempt in Retry::PLAY.attempts() {
            let Some((board, pointer)) = self.lost_entry(id, player).await? else {
                return Ok(EntryRepair::Unchanged);
            };
            let mut items = self.open_at_version(id, player, pointer.version)?;
            items.push(self.store.table.tx_put(
                score_item_in_service(&board, &pointer)?,
                Some("attribute_not_exists(pk)"),
                Params::new(),
            )?);
            items.extend(
                self.store
                    .table
                    .second_layout_writes(&board, None, Some(&pointer))?,
            );
            match self
                .store
                .table
                .transact(items, "TransactWriteItems(restore entry)")
                .await
            {
                Err(e) if e.worth_rereading() => {
                    tracing::debug!(attempt, error = %e, "entry restore raced a write; reading again");
                }
                done => return done.map(|()| EntryRepair::Restored),
            }
            Retry::PLAY.pause(attempt).await;
        }
        Err(Retry::PLAY.exhausted())
    }

    async fn repair_entry_once(
        self,
        id: &BoardId,
        score_sk: &str,
    ) -> Result<EntryRepair, StoreError> {
        let board = self
            .store
            .table
            .board(id)
            .await?
            .ok_or_else(|| StoreError::NotFound {
                what: "leaderboard",
                id: id.to_string(),
            })?;
        if board.status != BoardStatus::Open {
            return Err(StoreError::Invalid(format!(
                "leaderboard {id} is not open: a closing or closed board's entries are not changed"
            )));
        }
        // The sort key ends with the player's id: their write shard holds the item.
        let player = score_sk
            .rsplit('#')
            .next()
            .and_then(|p| PlayerId::parse(p).ok())
            .ok_or_else(|| StoreError::corrupt(score_sk, "a Score sort key without a playerId"))?;
        let key = score_key(&board, &player, score_sk);
        let Some(item) = self.store.table.get_raw(&key).await? else {
            return Ok(EntryRepair::Unchanged);
        };
        if item.string("playerId") != Some(player.as_str()) {
            return Err(StoreError::corrupt(
                score_sk,
                "the Score item's playerId is not its key's: a key and item that disagree are for a person to mend",
            ));
        }
        let pointer_key = entity::entry(&player, id);
        let pointer: Option<EntryPointer> = self.store.table.get(&pointer_key).await?;
        let pointer = pointer.map(|p| p.on_board(&board)).transpose()?;
        let mut rebuilt = pointer_from_score_item(&item)?;
        let (condition, params) = match &pointer {
            None => ("attribute_not_exists(pk)", Params::new()),
            Some(p) if p.score_sk == score_sk => return Ok(EntryRepair::Unchanged),
            Some(p) => {
                let named = score_key(&board, &player, &p.score_sk);
                if self.store.table.get_raw(&named).await?.is_some() {
                    self.remove_second_entry(&board, &player, score_sk, p)
                        .await?;
                    return Ok(EntryRepair::Removed);
                }
                // The next play's condition is the pointer's version: it only ever grows.
                rebuilt.version = rebuilt.version.max(p.version + 1);
                ("version = :v", Params::new().value(":v", p.version))
            }
        };
        let items = vec![
            self.store.table.tx_board_open(id)?,
            self.store
                .table
                .tx_check(&key, "attribute_exists(pk)", Params::new())?,
            self.store
                .table
                .tx_put(pointer_item(&rebuilt)?, Some(condition), params)?,
        ];
        self.store
            .table
            .transact(items, "TransactWriteItems(re-point entry)")
            .await?;
        Ok(EntryRepair::Repointed)
    }

    /// Deletes `score_sk`, a Score item of `player` that `pointer` does not name, on condition
    /// that the pointer and the Score item it names are as read.
    async fn remove_second_entry(
        self,
        board: &crate::ground::model::Board,
        player: &PlayerId,
        score_sk: &str,
        pointer: &EntryPointer,
    ) -> Result<(), StoreError> {
        let id = &board.board_id;
        // The lane's change carries the pseudonym, as every removal's does.
        let logged = pseudonymous_sort_key(score_sk, player, &self.store.pseudonym(player))
            .ok_or_else(|| {
                StoreError::corrupt(score_sk, "the Score item's key names another player")
            })?;
        let mut items = self.open_at_version(id, player, pointer.version)?;
        items.extend([
            self.store.table.tx_check(
                &score_key(board, player, &pointer.score_sk),
                "attribute_exists(pk)",
                Params::new(),
            )?,
            self.store.table.tx_delete(
                &score_key(board, player, score_sk),
                "attribute_exists(pk)",
                Params::new(),
            )?,
            self.store
                .table
                .written_update(board, player, Some(&logged), None)?,
        ]);
        items.extend(
            self.store
                .table
                .second_layout_removal(board, player, score_sk)?,
        );
        self.store
            .table
            .transact(items, "TransactWriteItems(remove second entry)")
            .await
    }

    /// A repair's first two transaction items: the board `id` is open, and `player`'s pointer
    /// on it is at `version` (as read).
    fn open_at_version(
        self,
        id: &BoardId,
        player: &PlayerId,
        version: u64,
    ) -> Result<Vec<aws_sdk_dynamodb::types::TransactWriteItem>, StoreError> {
        Ok(vec![
            self.store.table.tx_board_open(id)?,
            self.store.table.tx_check(
                &entity::entry(player, id),
                "version = :v",
                Params::new().value(":v", version),
            )?,
        ])
    }
}
