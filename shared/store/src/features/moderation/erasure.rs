//! Erasure (contract §7, data rights): a player deleted from every item that holds their id or
//! email, except closed boards' final standings, which keep the rank under a pseudonym.
//!
//! **Block first.** The erasure's marker, `ERASED#<pseudonym>` / `#ERASURE`, is written before
//! anything is deleted, and every play and profile write checks in its transaction that it does
//! not exist: a play that read the player as not erased cannot commit once the marker has, and
//! every play that committed before it is in what the erasure lists afterwards (consistent
//! reads). The marker stays: it refuses the id's plays and profile writes for good (403
//! `erased`), stops the stream projector from recreating a profile from sessions still in
//! flight, and holds the receipt. It holds the `playerId` only while the erasure runs.
//!
//! **Then erase**, in the player's partition page by page (a strongly consistent Query): an
//! entry on an open board is removed as the admin removal does (index, counts, pointer), with
//! the tally of the marker in the same transaction; an entry on a closed board (its archived
//! Score item and pointer) is deleted after the player's lane on that board is made to hold the
//! pseudonym instead of the id; a season result's final standing takes the pseudonym and loses
//! its name and metadata, in the transaction that deletes the result; sessions, idempotency
//! keys, the ban and the rate item go 99 to a transaction with the tally. The profile and the
//! email's owner item go last, together. Each transaction adds what it removed to the marker's
//! `removed` counts, and each delete is conditional on the item existing, so the counts are
//! exact however often an erasure is interrupted, resumed or run twice at once.
//!
//! **Resumable.** An erasure that runs out of time (or meets a board in the middle of its
//! close, whose entry the close is about to archive) answers "not finished" and leaves its
//! marker listed under `ERASURES#PENDING` (GSI2); running it again carries on from what is left,
//! and the schedule finishes what a request could not ([`Store::continue_erasures`]). The last
//! step removes the `playerId` and the listing from the marker and sets `finishedAt`; an
//! erasure of a finished player writes nothing.

use std::collections::BTreeMap;
use std::time::Instant;

use aws_sdk_dynamodb::types::{AttributeValue, TransactWriteItem};
use leaderboard_keys::entity::{self, ItemKey, Key};
use leaderboard_keys::erasure::{Pseudonym, pseudonymous_sort_key};
use leaderboard_keys::ids::{BoardId, Email, PlayerId};
use leaderboard_keys::rank_index::{CHANGE_ATTR, WRITTEN_ATTR, lane_of};
use leaderboard_keys::time::Timestamp;
use serde::{Deserialize, Serialize};

use crate::ground::error::{CancelReason, StoreError};
use crate::ground::items::{Item, ItemExt, from_item};
use crate::ground::model::{Board, BoardStatus, EntryPointer};
use crate::store::Store;
use crate::table::request::{Index, Params, WithParams};
use crate::table::retry::Retry;

/// Items one erasure transaction deletes at most: 100 a transaction, one of them the tally.
const CHUNK: usize = 99;

/// What an erasure removed, and when: the receipt its marker keeps, which names the pseudonym
/// and never the player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErasureReceipt {
    /// The player's pseudonym, as the final standings show it.
    pub pseudonym: Pseudonym,
    /// When the erasure began.
    pub started_at: Timestamp,
    /// When it finished; absent while it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<Timestamp>,
    /// Who asked: `player` (the player themselves) or the admin's `sub`.
    pub requested_by: String,
    /// Items removed (or, for `finalStandings`, pseudonymised), by kind.
    #[serde(default)]
    pub removed: BTreeMap<String, u64>,
}

impl ErasureReceipt {
    /// Whether the erasure has finished.
    pub fn finished(&self) -> bool {
        self.finished_at.is_some()
    }
}

/// How a pass over the player's items ended.
enum Pass {
    /// Everything listed is gone.
    Clear,
    /// Something must wait: out of time, or a board in the middle of its close.
    Wait,
}

impl Store {
    /// Erases `player` (see the module doc), working until `deadline` if one is given. Returns
    /// the receipt: finished, or not yet (run it again, or let the schedule finish it). An
    /// erasure of a player erased before returns its receipt and writes nothing.
    pub async fn erase_player(
        &self,
        player: &PlayerId,
        requested_by: &str,
        now: Timestamp,
        deadline: Option<Instant>,
    ) -> Result<ErasureReceipt, StoreError> {
        let pseudonym = self.pseudonym(player);
        if let Some(done) = self
            .start_erasure(player, &pseudonym, requested_by, now)
            .await?
        {
            return Ok(done);
        }
        let marker = entity::erasure(&pseudonym);
        let out_of_time = || deadline.is_some_and(|d| Instant::now() >= d);
        for attempt in Retry::ITEM_UPDATE.attempts() {
            match self.erase_partition(player, &pseudonym, &out_of_time).await {
                Ok(Pass::Clear) => {
                    self.erase_profile(player, &marker).await?;
                    return self.finish_erasure(&marker, now).await;
                }
                Ok(Pass::Wait) => return self.receipt(&marker).await,
                // An item changed or went between the listing and the write: list again.
                Err(e) if e.worth_rereading() => {
                    tracing::debug!(attempt, error = %e, "erasure step failed; listing again");
                }
                Err(e) => return Err(e),
            }
            if out_of_time() {
                return self.receipt(&marker).await;
            }
            Retry::ITEM_UPDATE.pause(attempt).await;
        }
        Err(Retry::ITEM_UPDATE.exhausted())
    }

    /// Finishes the erasures that requests left unfinished, oldest first, until `deadline`:
    /// how many finished.
    pub async fn continue_erasures(
        &self,
        now: Timestamp,
        deadline: Option<Instant>,
    ) -> Result<usize, StoreError> {
        let out = self
            .table
            .query_request(Index::Gsi2)
            .key_condition_expression("gsi2pk = :p")
            .params(Params::new().value(":p", entity::ERASURES_PENDING))?
            .limit(25)
            .send()
            .await
            .map_err(|e| StoreError::sdk("Query(pending erasures)", e))?;
        let mut finished = 0;
        for item in out.items.unwrap_or_default() {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let player = item.string("playerId").map(PlayerId::parse);
            let (Some(Ok(player)), Some(by)) = (player, item.string("requestedBy")) else {
                continue;
            };
            if self
                .erase_player(&player, by, now, deadline)
                .await?
                .finished()
            {
                finished += 1;
            }
        }
        Ok(finished)
    }

    /// The receipt of `player`'s erasure, if they were erased (or are being erased).
    pub async fn erasure_of(
        &self,
        player: &PlayerId,
    ) -> Result<Option<ErasureReceipt>, StoreError> {
        self.table
            .get(&entity::erasure(&self.pseudonym(player)))
            .await
    }

    /// Writes the marker unless the erasure finished before: `Some(receipt)` when it had.
    async fn start_erasure(
        &self,
        player: &PlayerId,
        pseudonym: &Pseudonym,
        requested_by: &str,
        now: Timestamp,
    ) -> Result<Option<ErasureReceipt>, StoreError> {
        let marker = entity::erasure(pseudonym);
        let pending = entity::erasure_pending_gsi2(now, pseudonym);
        let sent = self
            .table
            .update_request(
                &marker,
                "SET pseudonym = :ps, playerId = :p, requestedBy = if_not_exists(requestedBy, :by), \
                 startedAt = if_not_exists(startedAt, :now), removed = if_not_exists(removed, :none), \
                 gsi2pk = if_not_exists(gsi2pk, :g2pk), gsi2sk = if_not_exists(gsi2sk, :g2sk)",
            )
            .condition_expression("attribute_not_exists(finishedAt)")
            .params(
                Params::new()
                    .value(":ps", pseudonym.as_str())
                    .value(":p", player.as_str())
                    .value(":by", requested_by)
                    .value(":now", now)
                    .attr(":none", AttributeValue::M(Default::default()))
                    .value(":g2pk", pending.pk)
                    .value(":g2sk", pending.sk),
            )?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(erasure marker)", e));
        match sent {
            Ok(_) => Ok(None),
            Err(e) if e.is_conditional_check_failed() => self.receipt(&marker).await.map(Some),
            Err(e) => Err(e),
        }
    }

    /// One pass over the player's partition, oldest key first, 99 items a page.
    async fn erase_partition(
        &self,
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
                    // Whatever else the partition holds is the player's too.
                    _ => bulk.push((key, "other")),
                }
            }
            self.delete_counted(&marker, &bulk).await?;
            start = out.last_evaluated_key;
            if start.is_none() {
                return Ok(if waits { Pass::Wait } else { Pass::Clear });
            }
        }
    }

    /// Deletes `keys` (each with the kind it is counted as), on condition that each exists, and
    /// adds them to the marker's tally in the same transaction.
    async fn delete_counted(
        &self,
        marker: &Key,
        keys: &[(Key, &'static str)],
    ) -> Result<(), StoreError> {
        for chunk in keys.chunks(CHUNK) {
            let mut counts = BTreeMap::new();
            let mut items = Vec::with_capacity(chunk.len() + 1);
            for (key, kind) in chunk {
                *counts.entry(*kind).or_insert(0u64) += 1;
                items.push(
                    self.table
                        .tx_delete(key, "attribute_exists(pk)", Params::new())?,
                );
            }
            items.push(self.tally(marker, &counts)?);
            self.table
                .transact(items, "TransactWriteItems(erase items)")
                .await?;
        }
        Ok(())
    }

    /// The marker's update adding `counts` to its `removed` tally, on condition that the
    /// erasure is still running.
    fn tally(
        &self,
        marker: &Key,
        counts: &BTreeMap<&'static str, u64>,
    ) -> Result<TransactWriteItem, StoreError> {
        let mut update = String::from("SET ");
        let mut params = Params::new();
        for (i, (kind, n)) in counts.iter().enumerate() {
            if i > 0 {
                update.push_str(", ");
            }
            update.push_str(&format!(
                "removed.#k{i} = if_not_exists(removed.#k{i}, :z) + :n{i}"
            ));
            params = params
                .name(format!("#k{i}"), *kind)
                .value(format!(":n{i}"), *n);
        }
        self.table.tx_update_if(
            marker,
            &update,
            "attribute_exists(pk) AND attribute_not_exists(finishedAt)",
            params.value(":z", 0u64),
        )
    }

    /// Erases the entry `pointer` points at: `Ok(false)` when it must wait for the board's
    /// close to finish (the close archives it, and the next run erases the archive).
    async fn erase_entry(
        &self,
        board_id: &BoardId,
        pointer: &EntryPointer,
        archived: bool,
        pseudonym: &Pseudonym,
    ) -> Result<bool, StoreError> {
        let marker = entity::erasure(pseudonym);
        let raw = self.table.get_raw(&entity::board(board_id)).await?;
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
            self.remove_pointed(board, pointer, vec![self.tally(&marker, &counts)?])
                .await?;
            return Ok(true);
        }
        if !archived && status == Some(BoardStatus::Closing) {
            return Ok(false);
        }
        let player = &pointer.entry.player_id;
        self.pseudonymise_lane(board_id, player, pseudonym).await?;
        if let Some(cursor) =
            cursor.filter(|c| pseudonymous_sort_key(c, player, pseudonym).is_some())
        {
            self.drop_close_cursor(board_id, &cursor).await?;
        }
        let score = Key::new(entity::board_pk(board_id), &pointer.score_sk);
        let mut keys = vec![(entity::entry(player, board_id), "entryPointers")];
        if self.table.get_raw(&score).await?.is_some() {
            keys.push((score, "scores"));
        }
        self.delete_counted(&marker, &keys).await?;
        Ok(true)
    }

    /// Makes the player's lane on `board` record their pseudonym where its latest change holds
    /// their id (a closed board's lane keeps its last change for good), on condition that no
    /// change came since it was read.
    async fn pseudonymise_lane(
        &self,
        board: &BoardId,
        player: &PlayerId,
        pseudonym: &Pseudonym,
    ) -> Result<(), StoreError> {
        let lane = entity::lane(board, lane_of(player.as_str()));
        let Some(item) = self.table.get_raw(&lane).await? else {
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
            .table
            .update_request(&lane, "SET #chg = :chg")
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
    async fn drop_close_cursor(&self, board: &BoardId, cursor: &str) -> Result<(), StoreError> {
        let sent = self
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
        &self,
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
                self.table.tx_update_if(
                    &standing,
                    "SET playerId = :ps REMOVE #name, metadata",
                    "playerId = :p",
                    Params::new()
                        .name("#name", "name")
                        .value(":ps", pseudonym.as_str())
                        .value(":p", player.as_str()),
                )?,
                self.table
                    .tx_delete(&result_key, "attribute_exists(pk)", Params::new())?,
                self.tally(&marker, &counts)?,
            ];
            match self
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
    async fn erase_profile(&self, player: &PlayerId, marker: &Key) -> Result<(), StoreError> {
        let profile = entity::player(player);
        let Some(item) = self.table.get_raw(&profile).await? else {
            return Ok(());
        };
        let mut keys = vec![(profile, "profile")];
        if let Some(email) = item.string("email").and_then(|e| Email::parse(e).ok()) {
            let owner = entity::email_owner(&email);
            let held = self.table.get_raw(&owner).await?;
            if held.is_some_and(|o| o.string("playerId") == Some(player.as_str())) {
                keys.push((owner, "emailOwner"));
            }
        }
        self.delete_counted(marker, &keys).await
    }

    /// Sets `finishedAt` and takes the `playerId` and the pending listing off the marker.
    async fn finish_erasure(
        &self,
        marker: &Key,
        now: Timestamp,
    ) -> Result<ErasureReceipt, StoreError> {
        let sent = self
            .table
            .update_request(
                marker,
                "SET finishedAt = :now REMOVE playerId, gsi2pk, gsi2sk",
            )
            .condition_expression("attribute_exists(pk) AND attribute_not_exists(finishedAt)")
            .params(Params::new().value(":now", now))?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(erasure finished)", e));
        match sent {
            // A run of the same erasure finished it first.
            Err(e) if !e.is_conditional_check_failed() => return Err(e),
            _ => {}
        }
        self.receipt(marker).await
    }

    /// The marker's receipt, read consistently.
    async fn receipt(&self, marker: &Key) -> Result<ErasureReceipt, StoreError> {
        self.table
            .get(marker)
            .await?
            .ok_or_else(|| StoreError::corrupt(&marker.pk, "the erasure's marker is gone"))
    }
}
