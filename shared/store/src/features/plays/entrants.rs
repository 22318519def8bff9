//! A play on a board with tournament rules (`joinRequired`, `maxEntrants`, `maxAttempts`):
//! after the play's read, one more `BatchGetItem` of the player's entrant item on each such
//! board (and the entrant count of each that counts its first plays' players); the decision,
//! refusing the whole play before anything is written; and the play transaction's writes that
//! keep the limits exact under any race:
//! - every accepted play adds one to the player's `attempts` on the board, on condition that it
//!   is below `maxAttempts` (and that they joined, where the board requires it);
//! - a player's first accepted play on a board with `maxEntrants` and without `joinRequired`
//!   creates their entrant item, on condition that it does not exist, and adds one to the
//!   board's entrant count, on condition that it is below `maxEntrants`.
//!
//! A condition that fails cancels the play, which reads again and decides again: a second race
//! lost finds the board full or the attempts made. A repeated `sessionId` meets its Session
//! first (the transaction's item 0), so it is never an attempt.

use aws_sdk_dynamodb::types::TransactWriteItem;
use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::time::Timestamp;

use crate::features::plays::{BoardPlan, Play, Plays};
use crate::ground::error::StoreError;
use crate::ground::items::from_item;
use crate::ground::model::Board;
use crate::ground::tournament::{Entrant, EntryRefusal};
use crate::primitives::entrants::places_taken;
use crate::table::request::Params;

/// What a play read of one board's rules: the player's entrant item and the board's entrant
/// count (0 where the board keeps none).
#[derive(Debug, Default)]
pub(crate) struct EntrantRead {
    entrant: Option<Entrant>,
    count: u64,
}

/// What a play writes on one board's rules.
pub(crate) struct Admission {
    board: Board,
    /// The player has no entrant item yet (their first play counts now).
    first: bool,
}

/// Whether `board` has rules a play must pass.
fn ruled(board: &Board) -> bool {
    board.join_required || board.max_entrants.is_some() || board.max_attempts.is_some()
}

/// Whether `board` counts its entrants at their first play (not at their join).
fn counts_first_plays(board: &Board) -> bool {
    board.max_entrants.is_some() && !board.join_required
}

impl Plays<'_> {
    /// The entrant items (and counts) of `boards` with rules, in board order (`None` for a
    /// board without, or unknown): no request when none has rules.
    pub(crate) async fn read_entrants(
        self,
        play: &Play,
        boards: &[Option<Board>],
    ) -> Result<Vec<Option<EntrantRead>>, StoreError> {
        let with_rules: Vec<&Board> = boards.iter().flatten().filter(|b| ruled(b)).collect();
        if with_rules.is_empty() {
            return Ok(boards.iter().map(|_| None).collect());
        }
        let mut keys: Vec<Key> = Vec::new();
        for board in &with_rules {
            keys.push(entity::entrant(&play.player_id, &board.board_id));
            if counts_first_plays(board) {
                keys.push(entity::entrant_count(&board.board_id));
            }
        }
        let mut found = self
            .store
            .table
            .batch_get(&keys, "BatchGetItem(entrants)")
            .await?;
        let mut reads = Vec::with_capacity(boards.len());
        for board in boards {
            let Some(board) = board.as_ref().filter(|b| ruled(b)) else {
                reads.push(None);
                continue;
            };
            let entrant = found
                .take(&entity::entrant(&play.player_id, &board.board_id))
                .map(from_item)
                .transpose()?;
            let count = places_taken(found.take(&entity::entrant_count(&board.board_id)));
            reads.push(Some(EntrantRead { entrant, count }));
        }
        Ok(reads)
    }

    /// The entrant items' writes of a play admitted by [`admit`], at `now`.
    pub(crate) fn entrant_writes(
        self,
        play: &Play,
        admitted: &[Admission],
        now: Timestamp,
    ) -> Result<Vec<TransactWriteItem>, StoreError> {
        let table = &self.store.table;
        let mut items = Vec::new();
        for Admission { board, first } in admitted {
            let key = entity::entrant(&play.player_id, &board.board_id);
            let mut condition = vec![if *first {
                "attribute_not_exists(pk)"
            } else {
                "attribute_exists(pk)"
            }];
            let mut params = Params::new()
                .value(":one", 1u64)
                .value(":board", board.board_id.as_str())
                .value(":now", now.to_string());
            if board.join_required {
                condition.push("attribute_exists(joinedAt)");
            }
            if let Some(max) = board.max_attempts {
                condition.push("(attribute_not_exists(attempts) OR attempts < :max)");
                params = params.value(":max", max);
            }
            items.push(table.tx_update_if(
                &key,
                "SET leaderboardId = :board, enteredAt = if_not_exists(enteredAt, :now) \
                 ADD attempts :one",
                &condition.join(" AND "),
                params,
            )?);
            if let (true, Some(max)) = (*first, board.max_entrants) {
                items.push(table.tx_take_place(&board.board_id, max)?);
            }
        }
        Ok(items)
    }
}

/// Decides a play's admission on each planned board with rules, from what was read: the first
/// refusal refuses the whole play.
pub(crate) fn admit(
    plans: &[BoardPlan],
    reads: &[Option<EntrantRead>],
    play: &Play,
) -> Result<Vec<Admission>, StoreError> {
    let mut admitted = Vec::new();
    for plan in plans {
        let board = &plan.board;
        if !ruled(board) {
            continue;
        }
        let index = play.board_ids.iter().position(|b| *b == board.board_id);
        let read = index
            .and_then(|i| reads.get(i))
            .and_then(Option::as_ref)
            .ok_or_else(|| StoreError::Invalid(format!("{} was not read", board.board_id)))?;
        let refuse = |refusal| StoreError::EntryRefused {
            board: board.board_id.clone(),
            refusal,
        };
        let joined = read.entrant.as_ref().is_some_and(|e| e.joined_at.is_some());
        if board.join_required && !joined {
            return Err(refuse(EntryRefusal::NotJoined));
        }
        let attempts = read.entrant.as_ref().map_or(0, |e| e.attempts);
        if let Some(max) = board.max_attempts
            && attempts >= max
        {
            return Err(refuse(EntryRefusal::AttemptsExhausted(max)));
        }
        let first = read.entrant.is_none();
        if let Some(max) = board.max_entrants
            && first
            && !board.join_required
            && read.count >= max
        {
            return Err(refuse(EntryRefusal::BoardFull(max)));
        }
        admitted.push(Admission {
            board: board.clone(),
            first,
        });
    }
    Ok(admitted)
}
