//! An erasure's step on a board's rank index: its root keeps the sort key of the board's
//! leader, and each generation's journal item the step of the last journal that moved it (the
//! lead key, the leader, the leader before). On a board that stays open the projector moves
//! them on once it applies the entry's removal; on a board that closed nothing ever will, so
//! the erasure makes them name the pseudonym, with the key's digits kept (ranks still read
//! the same counters, and a removal recorded under the pseudonym still matches the lead).
//!
//! Cost: one strongly consistent Query of the index's root partition (the root and one journal
//! item per generation) a page of [`PAGE`], and one conditional UpdateItem per item that names
//! the player (at most the root and the journals: a handful), retried on the item as re-read
//! when the projector wrote it in between.

use aws_sdk_dynamodb::types::AttributeValue;
use leaderboard_keys::entity::Key;
use leaderboard_keys::erasure::Pseudonym;
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank_index::root_key;

use crate::features::moderation::Moderation;
use crate::ground::error::StoreError;
use crate::ground::items::{Item, item_key};
use crate::rank::lead::naming;
use crate::table::request::{Index, Params, WithParams};
use crate::table::retry::Retry;

/// Items of the root partition a Query reads at once.
const PAGE: i32 = 25;

impl Moderation<'_> {
    /// Makes `board`'s rank index name `pseudonym` wherever its root or a journal names
    /// `player` (see the module doc).
    pub(crate) async fn pseudonymise_rank_index(
        self,
        board: &BoardId,
        player: &PlayerId,
        pseudonym: &Pseudonym,
    ) -> Result<(), StoreError> {
        let pk = root_key(board).pk;
        let mut start = None;
        loop {
            let out = self
                .store
                .table
                .query_request(Index::Table)
                .key_condition_expression("pk = :pk")
                .params(Params::new().value(":pk", pk.as_str()))?
                .consistent_read(true)
                .limit(PAGE)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(|e| StoreError::sdk("Query(rank index root)", e))?;
            for item in out.items.unwrap_or_default() {
                if !naming(&item, player, pseudonym).is_empty() {
                    let key = item_key(&item);
                    self.pseudonymise_index_item(&key, item, player, pseudonym)
                        .await?;
                }
            }
            start = out.last_evaluated_key;
            if start.is_none() {
                return Ok(());
            }
        }
    }

    /// Rewrites the attributes of `item` (at `key`) that name `player`, on condition that each
    /// still holds what was read; a projector's write in between is read again and looked at
    /// anew.
    async fn pseudonymise_index_item(
        self,
        key: &Key,
        mut item: Item,
        player: &PlayerId,
        pseudonym: &Pseudonym,
    ) -> Result<(), StoreError> {
        for attempt in Retry::ITEM_UPDATE.attempts() {
            let names = naming(&item, player, pseudonym);
            if names.is_empty() {
                return Ok(());
            }
            let mut sets = Vec::new();
            let mut conditions = Vec::new();
            let mut params = Params::new();
            for (i, (attr, old, new)) in names.into_iter().enumerate() {
                sets.push(format!("#a{i} = :n{i}"));
                conditions.push(format!("#a{i} = :o{i}"));
                params = params
                    .name(format!("#a{i}"), attr)
                    .attr(format!(":n{i}"), AttributeValue::S(new))
                    .attr(format!(":o{i}"), AttributeValue::S(old));
            }
            let sent = self
                .store
                .table
                .update_request(key, format!("SET {}", sets.join(", ")))
                .condition_expression(conditions.join(" AND "))
                .params(params)?
                .send()
                .await
                .map_err(|e| StoreError::sdk("UpdateItem(rank index leader)", e));
            match sent {
                Ok(_) => return Ok(()),
                Err(e) if e.is_conditional_check_failed() => {
                    let Some(now) = self.store.table.get_raw(key).await? else {
                        return Ok(());
                    };
                    item = now;
                }
                Err(e) => return Err(e),
            }
            Retry::ITEM_UPDATE.pause(attempt).await;
        }
        Err(Retry::ITEM_UPDATE.exhausted())
    }
}
