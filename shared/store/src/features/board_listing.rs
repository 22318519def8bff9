//! The one pass that lists the boards stored before the board listing: each Leaderboard item
//! without a series key gets its `seriesId` (its id's default, [`crate::rollover::series_of`]),
//! its series' GSI1 key and its listing item, in one transaction per board, so that
//! `GET /leaderboards` answers every board. Boards made since are listed at creation.
//!
//! A `Scan` with a filter, a page (1 MB read) at a time, at most [`ListingPassOptions::max_pages`]
//! pages a run, its position kept on `LISTPASS` / `#CURSOR` under a lease as the rank layout
//! pass keeps its own (`rank::maintenance::sweep`): `done` once a Scan has reached the end, after
//! which a run costs one read. A board listed meanwhile (by another run, or made since) fails
//! its transaction's condition and is passed over, so a repeated or overlapping run lists no
//! board twice.

use std::time::Instant;

use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::time::Timestamp;

use crate::ground::error::{CancelReason, StoreError};
use crate::ground::items::{Item, ItemExt, item_key, key_item};
use crate::primitives::lease::{CloseLease, PassStart, pass_after};
use crate::store::Store;
use crate::table::request::{Params, WithParams};

/// The pass's cursor item's partition.
pub const LISTING_PASS_PK: &str = "LISTPASS";
const CURSOR_SK: &str = "#CURSOR";

/// How much of the pass a run does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListingPassOptions {
    /// Scan pages a run reads at most (each up to 1 MB, 128 read units).
    pub max_pages: u32,
    /// Items a page reads at most, if fewer than 1 MB of them.
    pub page_items: Option<u32>,
}

impl Default for ListingPassOptions {
    fn default() -> Self {
        ListingPassOptions {
            max_pages: 40,
            page_items: None,
        }
    }
}

/// What one run of the pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListingPassOutcome {
    /// Scan pages read.
    pub pages: u32,
    /// Boards listed by this run.
    pub listed: Vec<BoardId>,
    /// Whether the pass is over (this run or an earlier one finished it).
    pub done: bool,
    /// Whether another run holds the pass, so this one did nothing.
    pub busy: bool,
}

/// The board listing pass: the boards stored before the board listing, listed (the handle
/// [`Store::board_listing`] gives).
#[derive(Clone, Copy)]
pub struct BoardListing<'a> {
    pub(crate) store: &'a Store,
}

impl Store {
    /// The board listing pass: the boards stored before the board listing, listed.
    pub fn board_listing(&self) -> BoardListing<'_> {
        BoardListing { store: self }
    }
}

impl BoardListing<'_> {
    /// One run of the pass (see the module documentation), until its pages or `deadline` run
    /// out. Requests: 1 read of the cursor (all a run does once the pass is over), 1 lease, per
    /// page 1 Scan, 1 transaction per board it lists, and 1 checkpoint.
    pub async fn list_old_boards(
        self,
        options: &ListingPassOptions,
        deadline: Option<Instant>,
    ) -> Result<ListingPassOutcome, StoreError> {
        let mut out = ListingPassOutcome::default();
        let cursor_key = Key::new(LISTING_PASS_PK, CURSOR_SK);
        let lease = CloseLease::new(deadline);
        let by = lease.by();
        let taken = match self
            .store
            .table
            .start_pass(&cursor_key, &lease, "UpdateItem(listing pass lease)")
            .await?
        {
            PassStart::Done => {
                out.done = true;
                return Ok(out);
            }
            PassStart::Busy => {
                out.busy = true;
                return Ok(out);
            }
            PassStart::Taken(item) => item,
        };
        let mut after = pass_after(&taken);
        let result: Result<(), StoreError> = async {
            while out.pages < options.max_pages && deadline.is_none_or(|d| Instant::now() < d) {
                let page = self
                    .store
                    .table
                    .scan_request()
                    .filter_expression(
                        "sk = :meta AND begins_with(pk, :board) AND attribute_not_exists(gsi1pk)",
                    )
                    .projection_expression("pk, sk, createdAt, seriesId")
                    .set_limit(options.page_items.map(|l| l.min(i32::MAX as u32) as i32))
                    .set_exclusive_start_key(after.as_ref().map(key_item))
                    .params(
                        Params::new()
                            .value(":meta", entity::METADATA)
                            .value(":board", entity::LEADERBOARD_PREFIX),
                    )?
                    .send()
                    .await
                    .map_err(|e| StoreError::sdk("Scan(listing pass)", e))?;
                out.pages += 1;
                for item in page.items() {
                    if let Some(id) = self.list_old_board(item).await? {
                        out.listed.push(id);
                    }
                }
                after = page.last_evaluated_key.map(|k| item_key(&k));
                out.done = after.is_none();
                let (update, params) = match &after {
                    None => (
                        "SET done = :yes REMOVE afterPk, afterSk, leaseBy, leaseUntil",
                        Params::new().value(":yes", true),
                    ),
                    Some(at) => (
                        "SET afterPk = :pk, afterSk = :sk",
                        Params::new().value(":pk", &at.pk).value(":sk", &at.sk),
                    ),
                };
                self.store
                    .table
                    .update_under_lease(&cursor_key, by, update, params, "UpdateItem(listing pass)")
                    .await?;
                if out.done {
                    return Ok(());
                }
            }
            Ok(())
        }
        .await;
        if !out.done {
            let _ = self
                .store
                .table
                .release_item_lease(&cursor_key, by, "UpdateItem(listing pass release)")
                .await;
        }
        result.map(|()| out)
    }

    /// Lists the board of Leaderboard item `item` (its keys, `createdAt`, any `seriesId`): its
    /// series and GSI1 key set and its listing item put, together, unless it is listed already.
    async fn list_old_board(self, item: &Item) -> Result<Option<BoardId>, StoreError> {
        let key = item_key(item);
        let id = key
            .pk
            .strip_prefix(entity::LEADERBOARD_PREFIX)
            .unwrap_or_default();
        let (Ok(id), Some(created_at)) = (
            BoardId::parse(id),
            item.string("createdAt")
                .and_then(|t| Timestamp::parse_rfc3339("createdAt", t).ok()),
        ) else {
            tracing::warn!(pk = %key.pk, "a board item the listing pass cannot read; left unlisted");
            return Ok(None);
        };
        let series = match item
            .string("seriesId")
            .map(leaderboard_keys::ids::SeriesId::parse)
        {
            Some(Ok(s)) => s,
            _ => crate::ground::rollover::series_of(&id),
        };
        let gsi1 = entity::board_series_gsi1(&series, created_at, &id);
        let set = self.store.table.tx_update_if(
            &key,
            "SET seriesId = if_not_exists(seriesId, :series), gsi1pk = :g1pk, gsi1sk = :g1sk",
            "attribute_exists(pk) AND attribute_not_exists(gsi1pk)",
            Params::new()
                .value(":series", series.as_str())
                .value(":g1pk", &gsi1.pk)
                .value(":g1sk", &gsi1.sk),
        )?;
        let put = self.store.table.tx_put_listing(created_at, &id)?;
        match self
            .store
            .table
            .transact(vec![set, put], "TransactWriteItems(list board)")
            .await
        {
            Ok(()) => Ok(Some(id)),
            // Listed meanwhile (another run, or deleted): nothing to do. Any other cancel (a
            // conflict, a throttle) fails the run, whose next one scans this page again.
            Err(StoreError::TransactionCanceled { reasons })
                if reasons.first() == Some(&CancelReason::ConditionalCheckFailed) =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}
