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
//! keys, the ban and the rate item go 99 to a transaction with the tally; the player's audit
//! trail moves under the pseudonym (see `audit`). The profile and the email's owner item go
//! last, together. Each transaction adds what it removed to the marker's
//! counts, and each delete is conditional on the item existing, so the counts are
//! exact however often an erasure is interrupted, resumed or run twice at once.
//!
//! **Resumable.** An erasure that runs out of time (or meets a board in the middle of its
//! close, whose entry the close is about to archive) answers "not finished" and leaves its
//! marker listed under `ERASURES#PENDING` (GSI2); running it again carries on from what is left,
//! and the schedule finishes what a request could not ([`Moderation::continue_erasures`]). The last
//! step removes the `playerId` and the listing from the marker and sets `finishedAt`; an
//! erasure of a finished player writes nothing.

use std::collections::BTreeMap;
use std::time::Instant;

use aws_sdk_dynamodb::types::{AttributeValue, TransactWriteItem};
use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::erasure::Pseudonym;
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::time::Timestamp;
use serde::{Deserialize, Serialize};

use crate::features::moderation::Moderation;
use crate::features::moderation::audit::{AuditAction, AuditItem};
use crate::ground::error::{CancelReason, StoreError};
use crate::ground::items::{Item, ItemExt, from_item, s, to_item};
use crate::store::FENCE_ERASING;
use crate::table::request::{Index, Params, WithParams};
use crate::table::retry::Retry;

/// Items one erasure transaction deletes at most: 100 a transaction, one of them the tally.
pub(crate) const CHUNK: usize = 99;

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
    /// Items removed (or, for `finalStandings`, pseudonymised), by kind. Stored as one
    /// attribute a kind, `removed_<kind>` (never an empty map: DynamoDB Local's stream drops
    /// an empty map's type, which no stream reader can parse).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub removed: BTreeMap<String, u64>,
}

impl ErasureReceipt {
    /// Whether the erasure has finished.
    pub fn finished(&self) -> bool {
        self.finished_at.is_some()
    }
}

/// The prefix of the marker's count attributes, `removed_<kind>`.
const REMOVED_PREFIX: &str = "removed_";

/// The marker's attribute naming its audit item's sort key.
const AUDIT_SK: &str = "auditSk";

/// How a pass over the player's items ended.
pub(crate) enum Pass {
    /// Everything listed is gone.
    Clear,
    /// Something must wait: out of time, or a board in the middle of its close.
    Wait,
}

impl Moderation<'_> {
    /// Erases `player` (see the module doc), working until `deadline` if one is given. Returns
    /// the receipt: finished, or not yet (run it again, or let the schedule finish it). An
    /// erasure of a player erased before returns its receipt and writes nothing.
    pub async fn erase_player(
        self,
        player: &PlayerId,
        requested_by: &str,
        now: Timestamp,
        deadline: Option<Instant>,
    ) -> Result<ErasureReceipt, StoreError> {
        let pseudonym = self.store.pseudonym(player);
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
        self,
        now: Timestamp,
        deadline: Option<Instant>,
    ) -> Result<usize, StoreError> {
        let out = self
            .store
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

    /// Which of `players` are erased or being erased, each with their pseudonym: what an event
    /// names in their place (never the id, never a name), checked just before it is
    /// published. An erasure writes its marker before it reads anything, so one that began
    /// before this read is seen here. One consistent BatchGetItem of the markers (`players`
    /// deduplicated: an event names at most 11, the top 10 and a leader before).
    pub async fn erased_among(
        self,
        players: &[PlayerId],
    ) -> Result<BTreeMap<PlayerId, Pseudonym>, StoreError> {
        let unique: std::collections::BTreeSet<&PlayerId> = players.iter().collect();
        let keys: Vec<Key> = unique
            .iter()
            .map(|p| self.store.erasure_marker(p))
            .collect();
        if keys.is_empty() {
            return Ok(BTreeMap::new());
        }
        let mut found = self
            .store
            .table
            .batch_get_all(&keys, "BatchGetItem(erasure markers)")
            .await?;
        Ok(unique
            .into_iter()
            .zip(&keys)
            .filter(|(_, key)| found.take(key).is_some())
            .map(|(player, _)| (player.clone(), self.store.pseudonym(player)))
            .collect())
    }

    /// The receipt of `player`'s erasure, if they were erased (or are being erased).
    pub async fn erasure_of(self, player: &PlayerId) -> Result<Option<ErasureReceipt>, StoreError> {
        self.store
            .table
            .get_raw(&self.store.erasure_marker(player))
            .await?
            .map(receipt_of)
            .transpose()
    }

    /// Writes the marker unless the erasure began before: `Some(receipt)` when it finished
    /// before, `None` when it runs now. The first run writes the marker with the erasure's
    /// audit item (under the pseudonym), in one transaction; a run that resumes writes nothing
    /// here (the marker names the player until the end).
    async fn start_erasure(
        self,
        player: &PlayerId,
        pseudonym: &Pseudonym,
        requested_by: &str,
        now: Timestamp,
    ) -> Result<Option<ErasureReceipt>, StoreError> {
        let marker = entity::erasure(pseudonym);
        if let Some(begun) = self.store.table.get_raw(&marker).await? {
            let begun = receipt_of(begun)?;
            return Ok(begun.finished().then_some(begun));
        }
        let pending = entity::erasure_pending_gsi2(now, pseudonym);
        let audit = AuditItem::new(
            AuditAction::Erased,
            &pseudonym.as_player_id(),
            requested_by,
            now,
        );
        let audit_key = audit.key()?;
        let receipt = ErasureReceipt {
            pseudonym: pseudonym.clone(),
            started_at: now,
            finished_at: None,
            requested_by: requested_by.to_owned(),
            removed: BTreeMap::new(),
        };
        let mut item = to_item(&receipt, &marker, None, Some(&pending))?;
        item.insert("playerId".into(), s(player.as_str()));
        item.insert(AUDIT_SK.into(), s(&audit_key.sk));
        let first = vec![
            self.store
                .table
                .tx_put(item, Some("attribute_not_exists(pk)"), Params::new())?,
            self.tx_audit_at(&audit, &audit_key)?,
            // The fence a play checks: no play commits after this.
            self.store.tx_fence(player, FENCE_ERASING, true)?,
        ];
        match self
            .store
            .table
            .transact(first, "TransactWriteItems(erasure marker)")
            .await
        {
            Ok(()) => Ok(None),
            // A run of the same erasure began it a moment ago: go on with it.
            Err(StoreError::TransactionCanceled { reasons })
                if reasons.first() == Some(&CancelReason::ConditionalCheckFailed) =>
            {
                let begun = self.receipt(&marker).await?;
                Ok(begun.finished().then_some(begun))
            }
            Err(e) => Err(e),
        }
    }

    /// Deletes `keys` (each with the kind it is counted as), on condition that each exists, and
    /// adds them to the marker's tally in the same transaction.
    pub(crate) async fn delete_counted(
        self,
        marker: &Key,
        keys: &[(Key, &'static str)],
    ) -> Result<(), StoreError> {
        for chunk in keys.chunks(CHUNK) {
            let mut counts = BTreeMap::new();
            let mut items = Vec::with_capacity(chunk.len() + 1);
            for (key, kind) in chunk {
                *counts.entry(*kind).or_insert(0u64) += 1;
                items.push(self.store.table.tx_delete(
                    key,
                    "attribute_exists(pk)",
                    Params::new(),
                )?);
            }
            items.push(self.erasure_tally(marker, &counts)?);
            self.store
                .table
                .transact(items, "TransactWriteItems(erase items)")
                .await?;
        }
        Ok(())
    }

    /// The marker's update adding `counts` to its tally, on condition that the
    /// erasure is still running.
    pub(crate) fn erasure_tally(
        self,
        marker: &Key,
        counts: &BTreeMap<&'static str, u64>,
    ) -> Result<TransactWriteItem, StoreError> {
        let mut update = String::from("SET ");
        let mut params = Params::new();
        for (i, (kind, n)) in counts.iter().enumerate() {
            if i > 0 {
                update.push_str(", ");
            }
            update.push_str(&format!("#k{i} = if_not_exists(#k{i}, :z) + :n{i}"));
            params = params
                .name(format!("#k{i}"), format!("{REMOVED_PREFIX}{kind}"))
                .value(format!(":n{i}"), *n);
        }
        self.store.table.tx_update_if(
            marker,
            &update,
            "attribute_exists(pk) AND attribute_not_exists(finishedAt)",
            params.value(":z", 0u64),
        )
    }

    /// Sets `finishedAt` and takes the `playerId` and the pending listing off the marker, and
    /// writes the receipt's counts on the erasure's audit item, in one transaction.
    async fn finish_erasure(
        self,
        marker: &Key,
        now: Timestamp,
    ) -> Result<ErasureReceipt, StoreError> {
        let raw = self
            .store
            .table
            .get_raw(marker)
            .await?
            .ok_or_else(|| StoreError::corrupt(&marker.pk, "the erasure's marker is gone"))?;
        if raw.contains_key("finishedAt") {
            return receipt_of(raw);
        }
        let mut items = vec![self.store.table.tx_update_if(
            marker,
            "SET finishedAt = :now REMOVE playerId, gsi2pk, gsi2sk",
            "attribute_exists(pk) AND attribute_not_exists(finishedAt)",
            Params::new().value(":now", now),
        )?];
        let audit_sk = raw.string(AUDIT_SK).map(str::to_owned);
        let receipt = receipt_of(raw)?;
        if let Some(sk) = audit_sk {
            let audit = Key::new(entity::audit_pk(&receipt.pseudonym.as_player_id()), sk);
            let (update, params) = if receipt.removed.is_empty() {
                ("SET finishedAt = :now", Params::new())
            } else {
                let counts = receipt
                    .removed
                    .iter()
                    .map(|(k, n)| (k.clone(), AttributeValue::N(n.to_string())))
                    .collect();
                (
                    "SET removed = :r, finishedAt = :now",
                    Params::new().attr(":r", AttributeValue::M(counts)),
                )
            };
            items.push(
                self.store
                    .table
                    .tx_update(&audit, update, params.value(":now", now))?,
            );
        }
        match self
            .store
            .table
            .transact(items, "TransactWriteItems(erasure finished)")
            .await
        {
            // A run of the same erasure finished it first.
            Err(StoreError::TransactionCanceled { reasons })
                if reasons.first() == Some(&CancelReason::ConditionalCheckFailed) => {}
            other => other?,
        }
        // Read again: a run of the same erasure at the same time may have counted more since.
        self.receipt(marker).await
    }

    /// The marker's receipt, read consistently.
    async fn receipt(self, marker: &Key) -> Result<ErasureReceipt, StoreError> {
        let item = self
            .store
            .table
            .get_raw(marker)
            .await?
            .ok_or_else(|| StoreError::corrupt(&marker.pk, "the erasure's marker is gone"))?;
        receipt_of(item)
    }
}

/// The receipt a marker item holds: its fields, and its `removed_<kind>` counts.
fn receipt_of(item: Item) -> Result<ErasureReceipt, StoreError> {
    let counts: BTreeMap<String, u64> = item
        .iter()
        .filter_map(|(attr, v)| {
            let kind = attr.strip_prefix(REMOVED_PREFIX)?;
            let AttributeValue::N(n) = v else { return None };
            Some((kind.to_owned(), n.parse().ok()?))
        })
        .collect();
    let mut receipt: ErasureReceipt = from_item(item)?;
    receipt.removed = counts;
    Ok(receipt)
}
