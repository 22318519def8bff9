//! The steps of an erasure over the player's items (see `erasure` for the order and why):
//! one pass over the player's partition, an entry on an open or a closed board (its board's
//! rank index in `erasure_index`), a lane's latest change, a closed board's close cursor, a
//! recount's wait, a season result and its final standing, the player's audit trail moved
//! under the pseudonym, and the profile with its email's owner.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use leaderboard_keys::entity::{self, ItemKey, Key};
use leaderboard_keys::erasure::{Pseudonym, pseudonymous_sort_key};
use leaderboard_keys::ids::{BoardId, Email, PlayerId};
use leaderboard_keys::rank_index::{CHANGE_ATTR, LANES, WRITTEN_ATTR, lane_of};

use crate::features::moderation::Moderation;
use crate::features::moderation::erasure::{CHUNK, Pass};
use crate::ground::error::{CancelReason, StoreError};
use crate::ground::items::{Item, ItemExt, from_item, s};
use crate::ground::model::{Board, BoardStatus, EntryPointer};
use crate::rank::lanes::LaneKeys;
use crate::table::request::{Index, Params, WithParams};

impl Moderation<'_> {
    /// One pass over the player's partition, oldest key first, 99 items a page.
    pub(crate) async fn erase_partition(
        self,
        player: &PlayerId,
        pseudonym: &Pseudonym,
        out_of_time: &impl Fn() -> bool,
    ) -> Result<Pass, StoreError> {
        let marker = entity::erasure(pseudonym);
        let mut start = None;
        let mut waits = false;
        loop {
            if out_of_time() {
                return Ok(Pass::Wait);
            }
            let out = self
                .store
                .table
                .query_request(Index::Table)
                .key_condition_expression("pk = :pk")
                .params(Params::new().value(":pk", entity::player_pk(player)))?
                .consistent_read(true)
                .limit(CHUNK as i32)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(|e| StoreError::sdk("Query(player's items)", e))?;
            let mut bulk = Vec::new();
            for item in out.items.unwrap_or_default() {
                let (pk, sk) = (item.string("pk"), item.string("sk"));
                let key = Key::new(pk.unwrap_or_default(), sk.unwrap_or_default());
                match ItemKey::parse(&key.pk, &key.sk) {
                    // Last, with the email's owner (see `erase_profile`).
                    Ok(ItemKey::Player(_)) => {}
                    Ok(ItemKey::Entry { board, .. }) => {
                        let pointer: EntryPointer = from_item(item.clone())?;
                        let archived = item.contains_key("ttl");
                        waits |= !self
                            .erase_entry(&board, &pointer, archived, pseudonym)
                            .await?;
                    }
                    Ok(ItemKey::SeasonResult { board, .. }) => {
                        self.erase_result(player, &board, &item, pseudonym).await?;
                    }
                    Ok(ItemKey::Session { .. }) => bulk.push((key, "sessions")),
                    Ok(ItemKey::Idempotency { .. }) => bulk.push((key, "idempotencyKeys")),
                    Ok(ItemKey::Ban(_)) => bulk.push((key, "ban")),
                    Ok(ItemKey::PlayRate(_)) => bulk.push((key, "playRate")),
                    Ok(ItemKey::Entrant { .. }) => bulk.push((key, "entrants")),
                    Ok(ItemKey::Reward { .. }) => bulk.push((key, "rewards")),
                    // Whatever else the partition holds is the player's too.
                    _ => bulk.push((key, "other")),
                }
            }
            self.delete_counted(&marker, &bulk).await?;
            start = out.last_evaluated_key;
            if start.is_none() {
                if waits {
                    return Ok(Pass::Wait);
                }
                // A recount run's wait for the player's plays to settle names them too.
                let busy = entity::recount_wait(player);
                if self.store.table.get_raw(&busy).await?.is_some() {
                    self.delete_counted(&marker, &[(busy, "recountWaits")])
                        .await?;
                }
                self.move_audit_trail(player, pseudonym).await?;
                return Ok(Pass::Clear);
            }
        }
    }

    /// Erases the entry `pointer` points at: `Ok(false)` when it must wait for the board's
    /// close to finish (the close archives it, and the next run erases the archive).
    async fn erase_entry(
        self,
        board_id: &BoardId,
        pointer: &EntryPointer,
        archived: bool,
        pseudonym: &Pseudonym,
    ) -> Result<bool, StoreError> {
        let marker = entity::erasure(pseudonym);
        let raw = self.store.table.get_raw(&entity::board(board_id)).await?;
        let cursor = raw
            .as_ref()
            .and_then(|r| r.string("closeCursor"))
            .map(str::to_owned);
        let board: Option<Board> = raw.map(from_item).transpose()?;
        let status = board.as_ref().map(|b| b.status);
        if let (Some(board), false, Some(BoardStatus::Open)) = (&board, archived, status) {
            let counts = BTreeMap::from([("entryPointers", 1), ("scores", 1)]);
            // Conflicts and a board that began to close come back as worth re-reading: the
            // next pass lists the pointer again.
            self.remove_pointed(board, pointer, vec![self.erasure_tally(&marker, &counts)?])
                .await?;
            self.pseudonymise_rank_index(board_id, &pointer.entry.player_id, pseudonym)
                .await?;
            return Ok(true);
        }
        // A closing board's entry waits for the close to finish, archived or not: a page archived
        // but not yet checkpointed is written again by a resumed close, which must find the
        // entry (its ranks and rewards follow it), and the checkpoint's cursor may name the
        // player until the finish removes it.
        if status == Some(BoardStatus::Closing) {
            return Ok(false);
        }
        let player = &pointer.entry.player_id;
        self.pseudonymise_lane(board_id, board.as_ref(), player, pseudonym)
            .await?;
        self.pseudonymise_rank_index(board_id, player, pseudonym)
            .await?;
        if let Some(cursor) =
            cursor.filter(|c| pseudonymous_sort_key(c, player, pseudonym).is_some())
        {
            self.drop_close_cursor(board_id, &cursor).await?;
        }
        // In the player's write shard of the board's entries in service; a board item gone
        // (the product never deletes one) is taken for a board of one shard, never widened.
        let score = match &board {
            Some(b) => Key::new(b.score_pk(player), pointer.score_sk_on(b)?),
            None => Key::new(entity::score_pk(board_id, 1, player), &pointer.score_sk),
        };
        let mut keys = vec![(entity::entry(player, board_id), "entryPointers")];
        if self.store.table.get_raw(&score).await?.is_some() {
            keys.push((score, "scores"));
        }
        self.delete_counted(&marker, &keys).await?;
        Ok(true)
    }

    /// Makes the player's lane on `board` record their pseudonym where its latest change holds
    /// their id (a closed board's lane keeps its last change for good), on condition that no
    /// change came since it was read. The lane's item is where `stored` (the board as read)
    /// keeps it (grouping dropped the old items' changes); with the board item gone, both of
    /// the lane's keys are looked at.
    async fn pseudonymise_lane(
        self,
        board: &BoardId,
        stored: Option<&Board>,
        player: &PlayerId,
        pseudonym: &Pseudonym,
    ) -> Result<(), StoreError> {
        // A board item gone (the product never deletes one) is taken for a board of one
        // shard, as for its Score item: [`LANES`] lanes.
        let keys = match stored {
            Some(b) => {
                let lanes = LaneKeys::of(b);
                vec![lanes.key(lanes.lane_of(player))]
            }
            None => {
                let lane = lane_of(player.as_str(), LANES);
                vec![entity::grouped_lane(board, lane), entity::lane(board, lane)]
            }
        };
        for key in &keys {
            self.pseudonymise_lane_item(key, player, pseudonym).await?;
        }
        Ok(())
    }

    /// `Moderation::pseudonymise_lane` for one of the lane's keys.
    async fn pseudonymise_lane_item(
        self,
        lane: &Key,
        player: &PlayerId,
        pseudonym: &Pseudonym,
    ) -> Result<(), StoreError> {
        let Some(item) = self.store.table.get_raw(lane).await? else {
            return Ok(());
        };
        let Some(AttributeValue::M(change)) = item.get(CHANGE_ATTR) else {
            return Ok(());
        };
        let mut clean = change.clone();
        let mut touched = false;
        for value in clean.values_mut() {
            if let AttributeValue::S(key) = value
                && let Some(p) = pseudonymous_sort_key(key, player, pseudonym)
            {
                *value = AttributeValue::S(p);
                touched = true;
            }
        }
        if !touched {
            return Ok(());
        }
        let written: u64 = item.number(WRITTEN_ATTR).unwrap_or(0);
        let sent = self
            .store
            .table
            .update_request(lane, "SET #chg = :chg")
            .condition_expression("#w = :w")
            .params(
                Params::new()
                    .name("#chg", CHANGE_ATTR)
                    .name("#w", WRITTEN_ATTR)
                    .attr(":chg", AttributeValue::M(clean))
                    .value(":w", written),
            )?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(lane change)", e));
        match sent {
            // A later change replaced it: the lane holds someone else's change now.
            Err(e) if e.is_conditional_check_failed() => Ok(()),
            other => other.map(drop),
        }
    }

    /// Removes a closed board's close checkpoint cursor, `cursor`, on condition that it is
    /// still that (boards closed before the close removed it on finishing keep the Score sort
    /// key of the last entry snapshotted, which may be the player's).
    async fn drop_close_cursor(self, board: &BoardId, cursor: &str) -> Result<(), StoreError> {
        let sent = self
            .store
            .table
            .update_request(&entity::board(board), "REMOVE closeCursor")
            .condition_expression("closeCursor = :c")
            .params(Params::new().value(":c", cursor))?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(close cursor)", e));
        match sent {
            Err(e) if e.is_conditional_check_failed() => Ok(()),
            other => other.map(drop),
        }
    }

    /// Gives the final standing a season result names the pseudonym (no name, no metadata) and
    /// deletes the result, in one transaction with the tally.
    async fn erase_result(
        self,
        player: &PlayerId,
        board: &BoardId,
        result: &Item,
        pseudonym: &Pseudonym,
    ) -> Result<(), StoreError> {
        let marker = entity::erasure(pseudonym);
        let result_key = entity::season_result(player, board);
        let standing = result
            .number::<u64>("rank")
            .and_then(|rank| entity::final_standing(board, rank).ok());
        if let Some(standing) = standing {
            let counts = BTreeMap::from([("finalStandings", 1), ("seasonResults", 1)]);
            let items = vec![
                self.store.table.tx_update_if(
                    &standing,
                    "SET playerId = :ps REMOVE #name, metadata",
                    "playerId = :p",
                    Params::new()
                        .name("#name", "name")
                        .value(":ps", pseudonym.as_str())
                        .value(":p", player.as_str()),
                )?,
                self.store
                    .table
                    .tx_delete(&result_key, "attribute_exists(pk)", Params::new())?,
                self.erasure_tally(&marker, &counts)?,
            ];
            match self
                .store
                .table
                .transact(items, "TransactWriteItems(erase result)")
                .await
            {
                Ok(()) => return Ok(()),
                // The standing is not the player's (or is gone): the result goes alone.
                Err(StoreError::TransactionCanceled { reasons })
                    if reasons.first() == Some(&CancelReason::ConditionalCheckFailed) => {}
                Err(e) => return Err(e),
            }
        }
        self.delete_counted(&marker, &[(result_key, "seasonResults")])
            .await
    }

    /// Deletes the profile and its email's owner item, with the tally.
    pub(crate) async fn erase_profile(
        self,
        player: &PlayerId,
        marker: &Key,
    ) -> Result<(), StoreError> {
        let profile = entity::player(player);
        let Some(item) = self.store.table.get_raw(&profile).await? else {
            return Ok(());
        };
        let mut keys = vec![(profile, "profile")];
        if let Some(email) = item.string("email").and_then(|e| Email::parse(e).ok()) {
            let owner = entity::email_owner(&email);
            let held = self.store.table.get_raw(&owner).await?;
            if held.is_some_and(|o| o.string("playerId") == Some(player.as_str())) {
                keys.push((owner, "emailOwner"));
            }
        }
        self.delete_counted(marker, &keys).await
    }

    /// Moves the player's audit trail under the pseudonym, 49 items a transaction (put the
    /// copy, delete the original) with the tally: each copy names the pseudonym, and a reason
    /// that quoted the id or the email quotes the pseudonym instead.
    async fn move_audit_trail(
        self,
        player: &PlayerId,
        pseudonym: &Pseudonym,
    ) -> Result<(), StoreError> {
        let marker = entity::erasure(pseudonym);
        let email = self
            .store
            .table
            .get_raw(&entity::player(player))
            .await?
            .and_then(|p| p.string("email").map(str::to_owned));
        let to = entity::audit_pk(&pseudonym.as_player_id());
        loop {
            let out = self
                .store
                .table
                .query_request(Index::Table)
                .key_condition_expression("pk = :pk")
                .params(Params::new().value(":pk", entity::audit_pk(player)))?
                .consistent_read(true)
                .limit(AUDIT_CHUNK as i32)
                .send()
                .await
                .map_err(|e| StoreError::sdk("Query(audit trail)", e))?;
            let items = out.items.unwrap_or_default();
            if items.is_empty() {
                return Ok(());
            }
            let mut writes = Vec::with_capacity(2 * items.len() + 1);
            for item in &items {
                let (Some(pk), Some(sk)) = (item.string("pk"), item.string("sk")) else {
                    continue;
                };
                let mut copy = item.clone();
                copy.insert("pk".into(), s(&to));
                copy.insert("playerId".into(), s(pseudonym.as_str()));
                if let Some(reason) = item.string("reason") {
                    let mut clean = reason.replace(player.as_str(), pseudonym.as_str());
                    if let Some(email) = &email {
                        clean = clean.replace(email.as_str(), pseudonym.as_str());
                    }
                    copy.insert("reason".into(), s(clean));
                }
                writes.push(self.store.table.tx_put(
                    copy,
                    Some("attribute_not_exists(pk)"),
                    Params::new(),
                )?);
                writes.push(self.store.table.tx_delete(
                    &Key::new(pk, sk),
                    "attribute_exists(pk)",
                    Params::new(),
                )?);
            }
            let counts = BTreeMap::from([("auditItemsMoved", (writes.len() / 2) as u64)]);
            writes.push(self.erasure_tally(&marker, &counts)?);
            self.store
                .table
                .transact(writes, "TransactWriteItems(move audit trail)")
                .await?;
        }
    }
}

/// Audit items one transaction moves: two writes each, and the tally.
const AUDIT_CHUNK: usize = 49;
