//! The second layout a widening board's entry changes write (docs/widen.md): from the run's
//! begin until its switch, every transaction that changes an entry also writes the entry's
//! Score item in the new generation's partitions at the new width, and records its lane change
//! at the new width too (`chgw`), so that the copy only has to move the entries no change
//! touched, and the index built at the new width can take the changes after its scan. An
//! entry's GSI1 key (`PLAYER#<p>` / `SCORE#<b>`, a player's boards) is on one of its two items
//! only: the new one's once the copy or a change wrote it, so that no listing of a player's
//! boards shows one twice.

use aws_sdk_dynamodb::types::TransactWriteItem;
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::rank::RankKeySpec;
use leaderboard_keys::widen;

use crate::ground::error::StoreError;
use crate::ground::items::{Item, score_item, score_item_at};
use crate::ground::model::{Board, EntryPointer};
use crate::table::Table;
use crate::table::request::Params;
use leaderboard_keys::entity::Key;

/// The lane attribute that fences a widening: the generation being built, set on every lane by
/// the run's begin and removed by its switch. A change holds only on a lane whose `widening` is
/// what its board item said when the change read it, so no change writes one layout only.
pub(crate) const WIDENING_ATTR: &str = "widening";

/// The generation being built and its spec, with the board's spec now: what a change of a
/// widening board writes twice.
pub(crate) struct SecondLayout {
    /// The generation being built.
    pub(crate) generation: u64,
    /// The board's spec now.
    pub(crate) from: RankKeySpec,
    /// The spec after the switch.
    pub(crate) to: RankKeySpec,
}

impl SecondLayout {
    /// The second layout of `board`, while it widens.
    pub(crate) fn of(board: &Board) -> Result<Option<SecondLayout>, StoreError> {
        Ok(match board.second_layout()? {
            Some((generation, to)) => Some(SecondLayout {
                generation,
                from: board.spec()?,
                to,
            }),
            None => None,
        })
    }

    /// `sort_key` (of the board's width now, its player's or a pseudonym) at the new width.
    pub(crate) fn key(&self, sort_key: &str) -> Result<String, StoreError> {
        Ok(widen::rekey(&self.from, &self.to, sort_key)?)
    }

    /// The key in the new generation of `player`'s Score item `sort_key` (of the board's
    /// width now).
    pub(crate) fn score_key(
        &self,
        board: &Board,
        player: &PlayerId,
        sort_key: &str,
    ) -> Result<Key, StoreError> {
        Ok(Key::new(
            board.generation_score_pk(self.generation, player),
            self.key(sort_key)?,
        ))
    }
}

/// The Score item of the entry `pointer` names in the generation in service: without its GSI1
/// key while the board widens (the new generation's item has it).
pub(crate) fn score_item_in_service(
    board: &Board,
    pointer: &EntryPointer,
) -> Result<Item, StoreError> {
    let mut item = score_item(board, pointer)?;
    if board.second_layout()?.is_some() {
        item.remove(GSI1_PK);
        item.remove(GSI1_SK);
    }
    Ok(item)
}

/// The attributes of a Score item's GSI1 key.
pub(crate) const GSI1_PK: &str = "gsi1pk";
/// See [`GSI1_PK`].
pub(crate) const GSI1_SK: &str = "gsi1sk";

impl Table {
    /// What a change of a player's entry on `board` from `old` to `new` (either absent: a
    /// first entry, a removal) writes in the generation being built, if the board widens:
    /// the put of the new item, and the delete of the old one when the key moves. At most 2
    /// items, neither conditioned (the copy may not have come to the entry yet).
    pub(crate) fn second_layout_writes(
        &self,
        board: &Board,
        old: Option<&EntryPointer>,
        new: Option<&EntryPointer>,
    ) -> Result<Vec<TransactWriteItem>, StoreError> {
        let Some(layout) = SecondLayout::of(board)? else {
            return Ok(Vec::new());
        };
        let mut items = Vec::new();
        let new_key = new
            .map(|p| layout.score_key(board, &p.entry.player_id, &p.score_sk))
            .transpose()?;
        if let Some(old) = old {
            let old_key = layout.score_key(board, &old.entry.player_id, &old.score_sk)?;
            if new_key.as_ref() != Some(&old_key) {
                items.push(self.tx_delete(&old_key, "", Params::new())?);
            }
        }
        if let (Some(new), Some(key)) = (new, new_key) {
            items.push(self.tx_put(score_item_at(key, new)?, None, Params::new())?);
        }
        Ok(items)
    }

    /// The delete, in the generation being built, of `player`'s Score item `sort_key` (one no
    /// pointer names) that a change of a widening board deletes; none on a board not widening.
    pub(crate) fn second_layout_removal(
        &self,
        board: &Board,
        player: &PlayerId,
        sort_key: &str,
    ) -> Result<Option<TransactWriteItem>, StoreError> {
        let Some(layout) = SecondLayout::of(board)? else {
            return Ok(None);
        };
        let key = layout.score_key(board, player, sort_key)?;
        Ok(Some(self.tx_delete(&key, "", Params::new())?))
    }
}
