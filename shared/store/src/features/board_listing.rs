//! The one pass that lists the boards stored before the board listing: each Leaderboard item
//! without a series key gets its `seriesId` (its id's default, [`crate::rollover::series_of`]),
//! its series' GSI1 key and its listing item, in one transaction per board, so that
//! `GET /leaderboards` answers every board. Boards made since are listed at creation.
//!
//! A resumable pass (`primitives::pass`) whose Scan reads the boards without a series key, at
//! most [`ListingPassOptions::max_pages`] pages a run, its place kept on `LISTPASS` / `#CURSOR`:
//! `done` once a Scan has reached the end, after which a run costs one read. A board listed meanwhile (by another run, or made since) fails
//! its transaction's condition and is passed over, so a repeated or overlapping run lists no
//! board twice.

use std::time::{Duration, Instant};

use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::time::Timestamp;

use crate::ground::error::{CancelReason, StoreError};
use crate::ground::items::{Item, ItemExt, item_key};
use crate::primitives::pass::{Pass, PassPages, PassRun, PassSpec, PassWork, ScanFilter, Worked};
use crate::store::Store;
use crate::table::request::Params;

/// The pass's cursor item's partition.
pub const LISTING_PASS_PK: &str = "LISTPASS";

static LISTING_PASS: PassSpec = PassSpec {
    ready: None,
    lease: "UpdateItem(listing pass lease)",
    scan: "Scan(listing pass)",
    checkpoint: "UpdateItem(listing pass)",
    release: "UpdateItem(listing pass release)",
};

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
        let pages = PassPages {
            max: options.max_pages,
            items: options.page_items,
        };
        let work = |_: &Item| OldBoards {
            listing: self,
            listed: Vec::new(),
        };
        let run = Pass::run_pass(
            &self.store.table,
            &LISTING_PASS,
            cursor_key(),
            deadline,
            pages,
            work,
        );
        Ok(match run.await? {
            PassRun::Idle => ListingPassOutcome {
                done: true,
                ..ListingPassOutcome::default()
            },
            PassRun::Busy => ListingPassOutcome {
                busy: true,
                ..ListingPassOutcome::default()
            },
            PassRun::Ran { work, pages, done } => ListingPassOutcome {
                pages,
                listed: work.listed,
                done,
                busy: false,
            },
        })
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

/// The pass's item.
fn cursor_key() -> Key {
    Key::new(LISTING_PASS_PK, "#CURSOR")
}

/// The pass's work: every board of a page listed.
struct OldBoards<'a> {
    listing: BoardListing<'a>,
    listed: Vec<BoardId>,
}

impl PassWork for OldBoards<'_> {
    const MARGIN: Duration = Duration::ZERO;

    fn scan_filter(&self) -> ScanFilter {
        ScanFilter {
            // A league's cohorts are listed by their league, never as boards of its series.
            filter: "sk = :meta AND begins_with(pk, :board) AND attribute_not_exists(gsi1pk) \
                     AND attribute_not_exists(cohortOf)",
            projection: "pk, sk, createdAt, seriesId",
            params: Params::new()
                .value(":meta", entity::METADATA)
                .value(":board", entity::LEADERBOARD_PREFIX),
        }
    }

    async fn work_page(&mut self, _: &Pass<'_>, items: Vec<Item>) -> Result<Worked, StoreError> {
        for item in &items {
            if let Some(id) = self.listing.list_old_board(item).await? {
                self.listed.push(id);
            }
        }
        Ok(Worked::Page)
    }
}
