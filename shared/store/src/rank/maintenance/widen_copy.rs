//! A widening's copy (docs/widen.md, step 2): the entries in service copied, a page at a time,
//! into the generation being built at the new width, while plays write both generations. Each
//! entry's new item is put in one transaction with a check that its old item is still the
//! version read: a change that committed since wrote the new generation itself (and may have
//! moved the entry, whose old key the copy must then not bring back); the same update moves
//! the entry's GSI1 key from its old item to its new one. The cursor on the board
//! item says where the next page starts; a page copied twice writes the same items again.

use aws_sdk_dynamodb::types::TransactWriteItem;
use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::ids::PlayerId;

use crate::ground::error::{CancelReason, StoreError};
use crate::ground::items::{Item, ItemExt, key_string, s};
use crate::ground::model::Board;
use crate::ground::widening::{WideningCursor, WideningRun, WideningStep};
use crate::rank::Rank;
use crate::rank::second_layout::{GSI1_PK, GSI1_SK, SecondLayout, WIDENING_ATTR};
use crate::table::request::{Params, WithParams};
use crate::table::retry::Retry;

/// Entries a copy transaction carries (a check and a put each, and the board's check: 51 of
/// its 100 items).
const COPY_CHUNK: usize = 25;

/// Rounds of reading an entry again after a change beat its copy.
const COPY_ROUNDS: u32 = 8;

impl Rank<'_> {
    /// Copies the next page (at most `page` entries, 1 MB) of the board's entries in service
    /// into the generation `run` builds, and moves the cursor past it (to the step `index` after
    /// the last page of the last shard): the entries copied, and the step now. Requests: 1 Query, 1 transaction a
    /// [`COPY_CHUNK`] entries (more, one entry at a time, where a change beat the copy), 1
    /// UpdateItem.
    pub(super) async fn copy_page(
        self,
        board: &Board,
        run: &WideningRun,
        page: usize,
    ) -> Result<(u64, WideningStep), StoreError> {
        let layout = SecondLayout::of(board)?
            .ok_or_else(|| StoreError::Invalid("the board is not widening".into()))?;
        let from = board.score_pks();
        let to = board.generation_score_pks(run.generation);
        let at = run.cursor.clone().unwrap_or_default();
        let (items, next) = self
            .entries_page(&from, &at, page, None, "Query(widening copy)")
            .await?;
        let mut copied = 0;
        if let Some(new_pk) = to.get(usize::from(at.shard)) {
            for chunk in items.chunks(COPY_CHUNK) {
                copied += self.copy_chunk(board, &layout, new_pk, chunk).await?;
            }
        }
        let step = self.save_copy_cursor(board, run, next, from.len()).await?;
        Ok((copied, step))
    }

    /// Copies `items` (old Score items) into the partition `new_pk`: one transaction, or, if a
    /// change beat it, one entry at a time. The entries copied.
    async fn copy_chunk(
        self,
        board: &Board,
        layout: &SecondLayout,
        new_pk: &str,
        items: &[Item],
    ) -> Result<u64, StoreError> {
        let mut tx = Vec::with_capacity(2 * items.len() + 1);
        // First: the board is still open (a close clears the generation a run built).
        tx.push(self.table.tx_board_open(&board.board_id)?);
        for item in items {
            tx.extend(self.copy_items(board, layout, new_pk, item)?);
        }
        match self
            .table
            .transact(tx, "TransactWriteItems(widening copy)")
            .await
        {
            Ok(()) => return Ok(items.len() as u64),
            Err(e) if matches!(e, StoreError::TransactionCanceled { .. }) || e.is_retryable() => {}
            Err(e) => return Err(e),
        }
        let mut copied = 0;
        for item in items {
            copied += u64::from(self.copy_one(board, layout, new_pk, item).await?);
        }
        Ok(copied)
    }

    /// Copies one entry, reading its old item again each time a change beat the copy: `false`
    /// when the entry's old item is gone (a change moved or removed it, and wrote the new
    /// generation itself).
    async fn copy_one(
        self,
        board: &Board,
        layout: &SecondLayout,
        new_pk: &str,
        item: &Item,
    ) -> Result<bool, StoreError> {
        let key = Key::new(key_string(item, "pk"), key_string(item, "sk"));
        let mut current = item.clone();
        for _ in 0..COPY_ROUNDS {
            let mut tx = vec![self.table.tx_board_open(&board.board_id)?];
            tx.extend(self.copy_items(board, layout, new_pk, &current)?);
            let sent = Retry::ITEM_UPDATE
                .run("widening copy", || {
                    self.table
                        .transact(tx.to_vec(), "TransactWriteItems(widening copy)")
                })
                .await;
            match sent {
                Ok(()) => return Ok(true),
                Err(StoreError::TransactionCanceled { reasons })
                    if reasons.first() == Some(&CancelReason::ConditionalCheckFailed) =>
                {
                    return Err(StoreError::BoardClosed {
                        board: board.board_id.clone(),
                        why: "closing",
                    });
                }
                Err(StoreError::TransactionCanceled { reasons })
                    if reasons.contains(&CancelReason::ConditionalCheckFailed) => {}
                Err(e) => return Err(e),
            }
            match self.table.get_raw(&key).await? {
                Some(again) => current = again,
                None => return Ok(false),
            }
        }
        Err(StoreError::Contention {
            attempts: COPY_ROUNDS,
        })
    }

    /// The move of `item`'s GSI1 key off it, on condition that it is still as read, and the
    /// put of its copy: the same attributes under the new generation's partition `new_pk`, the
    /// sort key at the new width, and the GSI1 key (see `second_layout`).
    fn copy_items(
        self,
        board: &Board,
        layout: &SecondLayout,
        new_pk: &str,
        item: &Item,
    ) -> Result<[TransactWriteItem; 2], StoreError> {
        let key = Key::new(key_string(item, "pk"), key_string(item, "sk"));
        let (condition, params) = match item.number::<u64>("version") {
            Some(v) => ("version = :v", Params::new().value(":v", v)),
            None => (
                "attribute_exists(pk) AND attribute_not_exists(version)",
                Params::new(),
            ),
        };
        let unlisted = self.table.tx_update_if(
            &key,
            "REMOVE #g1pk, #g1sk",
            condition,
            params.name("#g1pk", GSI1_PK).name("#g1sk", GSI1_SK),
        )?;
        let player = PlayerId::parse(item.string("playerId").unwrap_or_default())
            .map_err(|e| StoreError::corrupt(&key.sk, e))?;
        let gsi1 = entity::score_gsi1(&player, &board.board_id);
        let mut copy = item.clone();
        copy.insert("pk".into(), s(new_pk));
        copy.insert("sk".into(), s(layout.key(&key.sk)?));
        copy.insert(GSI1_PK.into(), s(gsi1.pk));
        copy.insert(GSI1_SK.into(), s(gsi1.sk));
        Ok([unlisted, self.table.tx_put(copy, None, Params::new())?])
    }

    /// Records where the copy goes on (`next`), or, past the last of the board's `shards`,
    /// that it is over (the step `index`), on condition that the run is still this one's copy:
    /// the step now.
    async fn save_copy_cursor(
        self,
        board: &Board,
        run: &WideningRun,
        next: WideningCursor,
        shards: usize,
    ) -> Result<WideningStep, StoreError> {
        let done = next.shard as usize >= shards;
        let (update, params) = if done {
            (
                "SET #wid.#step = :index REMOVE #wid.#cur",
                Params::new().value(":index", WideningStep::Index),
            )
        } else {
            ("SET #wid.#cur = :cur", Params::new().value(":cur", &next))
        };
        self.table
            .update_request(&entity::board(&board.board_id), update)
            .condition_expression("#wid.#gen = :g AND #wid.#step = :copy")
            .params(
                params
                    .name("#wid", WIDENING_ATTR)
                    .name("#step", "step")
                    .name("#cur", "cursor")
                    .name("#gen", "generation")
                    .value(":g", run.generation)
                    .value(":copy", WideningStep::Copy),
            )?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(widening cursor)", e))?;
        Ok(if done {
            WideningStep::Index
        } else {
            WideningStep::Copy
        })
    }
}
