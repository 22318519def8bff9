//! Tournaments (contract section 12): a player joins a board (`POST /leaderboards/{b}/join`),
//! taking one of its `maxEntrants` places exactly however many race; and an admin ends a board
//! now (`POST /leaderboards/{b}/close`), after which the next run of season close closes it.
//!
//! A join is one consistent `BatchGetItem` (the board, the player's entrant item, the board's
//! entrant count) and one transaction: the player's play fence checked (neither banned nor
//! being erased), the entrant item's `joinedAt`, on condition that it has none, and for a
//! player new to the board one more on the entrant count, on condition that it is below
//! `maxEntrants`. A cancelled join reads again: a repeat answers joined, a lost race
//! for the last place answers `board_full`.

use leaderboard_keys::entity;
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::time::Timestamp;
use serde::{Deserialize, Serialize};

use crate::ground::error::{CancelReason, StoreError};
use crate::ground::items::{from_item, to_item};
use crate::ground::model::{Board, BoardStatus, Page};
use crate::ground::session_id::new_session_id;
use crate::ground::tournament::{Entrant, EntryRefusal};
use crate::primitives::entrants::places_taken;
use crate::rank::settings::SettingsChange;
use crate::store::Store;
use crate::table::query::Listing;
use crate::table::request::{Index, Params};
use crate::table::retry::Retry;

/// Tournaments: joining a board, and ending one now (the handle [`Store::tournaments`] gives).
#[derive(Clone, Copy)]
pub struct Tournaments<'a> {
    pub(crate) store: &'a Store,
}

impl Store {
    /// Tournaments: joining a board, and ending one now.
    pub fn tournaments(&self) -> Tournaments<'_> {
        Tournaments { store: self }
    }
}

/// What an admin did to a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoardAction {
    /// Ended the board now (`POST /leaderboards/{b}/close`).
    BoardClosed,
}

/// An item of a board's audit trail: an admin's action on the board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BoardAuditItem {
    /// What was done (`board_closed`).
    pub action: BoardAction,
    /// The board.
    #[serde(rename = "leaderboardId")]
    pub board_id: BoardId,
    /// Who did it: the admin's `sub`.
    pub actor: String,
    /// When.
    pub at: Timestamp,
}

/// What a join found: whether this call took the place (`false`: the player had joined).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Joined {
    /// This call joined the player (a repeat did not).
    pub new: bool,
}

impl Tournaments<'_> {
    /// Joins `player` to `board` at `now`: repeatable. Refused, with nothing written, when the
    /// board is unknown (404), closing, closed or ended (409 `board_closed`; a board may be
    /// joined before it starts), has its `maxEntrants` (409 `board_full`), or the player is
    /// banned or erased (403, their play fence checked in the join's transaction).
    pub async fn join_board(
        self,
        board_id: &BoardId,
        player: &PlayerId,
        now: Timestamp,
    ) -> Result<Joined, StoreError> {
        let board_key = entity::board(board_id);
        let entrant_key = entity::entrant(player, board_id);
        let count_key = entity::entrant_count(board_id);
        for attempt in Retry::PLAY.attempts() {
            let keys = [board_key.clone(), entrant_key.clone(), count_key.clone()];
            let mut found = self
                .store
                .table
                .batch_get(&keys, "BatchGetItem(join)")
                .await?;
            let board: Board = found
                .take(&board_key)
                .map(from_item)
                .transpose()?
                .ok_or_else(|| StoreError::NotFound {
                    what: "leaderboard",
                    id: board_id.to_string(),
                })?;
            let entrant: Option<Entrant> = found.take(&entrant_key).map(from_item).transpose()?;
            if entrant.as_ref().is_some_and(|e| e.joined_at.is_some()) {
                return Ok(Joined { new: false });
            }
            check_joinable(&board, now)?;
            let count = places_taken(found.take(&count_key));
            // A player with an entrant item already took a place with a play.
            let first = entrant.is_none();
            if let (true, Some(max)) = (first, board.max_entrants)
                && count >= max
            {
                return Err(StoreError::EntryRefused {
                    board: board_id.clone(),
                    refusal: EntryRefusal::BoardFull(max),
                });
            }
            let table = &self.store.table;
            // A first play that commits meanwhile takes the place: this join then reads again
            // rather than count the player twice.
            let condition = if first {
                "attribute_not_exists(pk)"
            } else {
                "attribute_exists(pk) AND attribute_not_exists(joinedAt)"
            };
            let mut items = vec![
                // A ban or an erasure that commits first refuses the join: an erased player's
                // id must not come back in a place (the fence, as a play checks it).
                self.store.tx_fenced(player)?,
                table.tx_update_if(
                    &entrant_key,
                    "SET leaderboardId = :board, joinedAt = :now",
                    condition,
                    Params::new()
                        .value(":board", board_id.as_str())
                        .value(":now", now.to_string()),
                )?,
            ];
            if let (true, Some(max)) = (first, board.max_entrants) {
                items.push(table.tx_take_place(board_id, max)?);
            }
            match table.transact(items, "TransactWriteItems(join)").await {
                Ok(()) => return Ok(Joined { new: true }),
                Err(StoreError::TransactionCanceled { reasons })
                    if reasons.first() == Some(&CancelReason::ConditionalCheckFailed) =>
                {
                    return Err(self.store.fence_refusal(player).await?);
                }
                Err(StoreError::TransactionCanceled { reasons })
                    if CancelReason::all_retryable(&reasons) =>
                {
                    tracing::debug!(attempt, ?reasons, "join cancelled; reading again");
                }
                Err(e) if e.is_retryable() => {}
                Err(e) => return Err(e),
            }
            Retry::PLAY.pause(attempt).await;
        }
        Err(Retry::PLAY.exhausted())
    }

    /// Ends `board_id` now, by `actor` (an admin's `sub`): its `endsAt` becomes `now` (the end
    /// it had kept as `scheduledEndsAt`), so season close's next run finds it due and closes
    /// it, with its successor; one audit item `board_closed` in the board's trail, in the same
    /// transaction. A board already ended, closing or closed is answered as it is, with nothing
    /// written; a league's period is not ended early ([`StoreError::Invalid`]).
    pub async fn close_now(
        self,
        board_id: &BoardId,
        actor: &str,
        now: Timestamp,
    ) -> Result<Board, StoreError> {
        let table = &self.store.table;
        for attempt in Retry::PLAY.attempts() {
            let board = table
                .board(board_id)
                .await?
                .ok_or_else(|| StoreError::NotFound {
                    what: "leaderboard",
                    id: board_id.to_string(),
                })?;
            if board.status != BoardStatus::Open || board.ends_at.is_some_and(|e| e <= now) {
                return Ok(board);
            }
            if board.league.is_some() {
                return Err(StoreError::Invalid(format!(
                    "leaderboard {board_id} is a league's or a cohort's: its period ends at its \
                     endsAt, with every cohort of it"
                )));
            }
            let gsi2 = entity::board_open_gsi2(now, board_id);
            let (update, condition, params) = match board.ends_at {
                Some(ends_at) => (
                    "SET endsAt = :now, scheduledEndsAt = :was, gsi2pk = :gpk, gsi2sk = :gsk",
                    "#status = :open AND endsAt = :was",
                    Params::new().value(":was", ends_at.to_string()),
                ),
                None => (
                    "SET endsAt = :now, gsi2pk = :gpk, gsi2sk = :gsk",
                    "#status = :open AND attribute_not_exists(endsAt)",
                    Params::new(),
                ),
            };
            let audit = BoardAuditItem {
                action: BoardAction::BoardClosed,
                board_id: board_id.clone(),
                actor: actor.to_owned(),
                at: now,
            };
            let id = new_session_id(now)?;
            let audit_key = entity::board_audit(board_id, now, id.as_str());
            // The end is a setting plays decide by: its change moves the board and its lanes
            // to the next settings version, which a play's lane update checks.
            let change = SettingsChange::of(&board);
            let (unchanged, params) = change.condition(params);
            let mut items = vec![
                table.tx_update_if(
                    &entity::board(board_id),
                    &format!("{update}, {}", SettingsChange::SET),
                    &format!("{condition} AND {unchanged}"),
                    params
                        .name("#status", "status")
                        .value(":open", BoardStatus::Open.as_str())
                        .value(":now", now.to_string())
                        .value(":gpk", gsi2.pk.as_str())
                        .value(":gsk", gsi2.sk.as_str()),
                )?,
                table.tx_put(
                    to_item(&audit, &audit_key, None, None)?,
                    Some("attribute_not_exists(pk)"),
                    Params::new(),
                )?,
            ];
            items.extend(table.lanes_at_version(&board, change)?);
            match table.transact(items, "TransactWriteItems(close now)").await {
                Ok(()) => {
                    return Ok(Board {
                        scheduled_ends_at: board.ends_at,
                        ends_at: Some(now),
                        settings_version: change.next(),
                        ..board
                    });
                }
                Err(StoreError::TransactionCanceled { reasons })
                    if CancelReason::all_retryable(&reasons) => {}
                Err(e) if e.is_retryable() => {}
                Err(e) => return Err(e),
            }
            Retry::PLAY.pause(attempt).await;
        }
        Err(Retry::PLAY.exhausted())
    }

    /// The audit trail of `board` (admins' actions on the board itself), newest first, `limit`
    /// a page: one Query of the board's partition.
    pub async fn board_audit_trail(
        self,
        board: &BoardId,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<BoardAuditItem>, StoreError> {
        let listing = Listing::new(
            "board_audit",
            Index::Table,
            entity::board_pk(board),
            entity::ACTION_PREFIX,
        )
        .descending();
        self.store.table.list_page(&listing, limit, cursor).await
    }
}

/// A board takes joins while open and not ended (before it starts too).
fn check_joinable(board: &Board, now: Timestamp) -> Result<(), StoreError> {
    match board.accepts_at(now) {
        Ok(()) | Err("not started") => Ok(()),
        Err(why) => Err(StoreError::BoardClosed {
            board: board.board_id.clone(),
            why,
        }),
    }
}
