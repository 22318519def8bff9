//! A player's own entry on an open board, ranked: the pointer read (with the index's root, on
//! an indexed board, in the same request) and the rank counted from it. Every route that
//! answers a player's rank (a lookup, around a player, a play's outcome) reads it here.

use leaderboard_keys::entity;
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::rank_index;

use crate::ground::error::StoreError;
use crate::ground::freshness::{Estimate, Freshness};
use crate::ground::items::from_item;
use crate::ground::model::{Board, EntryPointer, RankedEntry};
use crate::rank::Rank;
use crate::rank::count::{Prefetch, RankCost};
use crate::table::Table;

/// The entry `pointer` points at, ranked as `estimate` says, with its freshness (also on the
/// entry): a player's own rank as every route answers it.
pub(crate) fn own_entry(pointer: &EntryPointer, estimate: &Estimate) -> (RankedEntry, Freshness) {
    let rank = estimate.rank();
    let freshness = Freshness::of(rank, estimate);
    (
        pointer.entry.clone().ranked(rank, Some(freshness)),
        freshness,
    )
}

impl Rank<'_> {
    /// The player's ranked entry on `board` (`None`: the player has none), with what the rank
    /// cost, the pointer's read included: the rank every route answers, read as the AP4
    /// lookup reads it.
    pub async fn player_rank_counted(
        self,
        board: &Board,
        player: &PlayerId,
    ) -> Result<Option<(RankedEntry, RankCost)>, StoreError> {
        let mut cost = RankCost::default();
        let Some((pointer, before)) = self
            .table
            .pointer_and_size(board, player, &mut cost)
            .await?
        else {
            return Ok(None);
        };
        let (entry, _, rank_cost) = self.table.rank_pointer(board, &pointer, before).await?;
        Ok(Some((entry, cost.plus(rank_cost))))
    }
}

impl Table {
    /// The player's entry pointer (consistent) and, on an indexed board, in the same
    /// `BatchGetItem`, what its rank starts from: the index's root (its generation and the
    /// entries it counts).
    pub(crate) async fn pointer_and_size(
        &self,
        board: &Board,
        player: &PlayerId,
        cost: &mut RankCost,
    ) -> Result<Option<(EntryPointer, Prefetch)>, StoreError> {
        let id = &board.board_id;
        cost.requests += 1;
        if !board.indexed() {
            cost.items += 1;
            return self
                .get::<EntryPointer>(&entity::entry(player, id))
                .await?
                .map(|p| Ok((p.on_board(board)?, Prefetch::Nothing)))
                .transpose();
        }
        let keys = [entity::entry(player, id), rank_index::root_key(id)];
        cost.items += keys.len() as u64;
        let mut found = self
            .batch_get(&keys, "BatchGetItem(pointer, rank index root)")
            .await?;
        let Some(pointer) = found.take(&keys[0]) else {
            return Ok(None);
        };
        let before = Prefetch::Root(found.take(&keys[1]).unwrap_or_default());
        let pointer: EntryPointer = from_item(pointer)?;
        Ok(Some((pointer.on_board(board)?, before)))
    }

    /// The entry `pointer` points at, ranked, with its freshness (also on the entry).
    pub(crate) async fn rank_pointer(
        &self,
        board: &Board,
        pointer: &EntryPointer,
        before: Prefetch,
    ) -> Result<(RankedEntry, Freshness, RankCost), StoreError> {
        let (estimate, cost) = self
            .own_rank(board, &pointer.entry.player_id, &pointer.score_sk, before)
            .await?;
        let (entry, freshness) = own_entry(pointer, &estimate);
        Ok((entry, freshness, cost))
    }
}
