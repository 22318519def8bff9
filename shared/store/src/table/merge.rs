//! A board's write shards read as one: the Score items of several partitions in one sort-key
//! order. Every shard holds its players' Score items sorted by the same sort key, and a sort key
//! names its player, so no two shards share one: the board's order is the shards' orders
//! merged, and a position in it is one sort key, the last one read (each shard goes on after
//! it). So a merged listing's cursor is a plain listing's (one key and an offset) and fits the
//! same bound, whatever the number of shards.
//!
//! **Cost.** A read of `n` items in order: one Query per shard of at most `n` items (more than
//! one request only past a 1 MB page), the shards 8 at a time; at most `K * n` items read for
//! `n` kept.

use futures::{StreamExt, TryStreamExt};
use leaderboard_keys::entity::Key;

use crate::ground::error::StoreError;
use crate::ground::items::{Item, key_item, key_string};
use crate::table::Table;
use crate::table::query::{Listing, MAX_PAGE_SIZE, RawPage};
use crate::table::request::Params;

/// Shards read at once.
const SHARDS_IN_FLIGHT: usize = 8;

/// Which way a merged read goes in sort-key order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// Ascending (worse first on a board: the keys below a rank).
    Up,
    /// Descending (rank order).
    Down,
}

impl Table {
    /// Up to `n` items of `partitions` whose sort key is in `lo..=hi`, in `direction` order,
    /// starting after the sort key `after` (exclusive) when given.
    pub(crate) async fn read_merged(
        &self,
        partitions: &[String],
        range: (&str, &str),
        direction: Direction,
        after: Option<&str>,
        n: usize,
    ) -> Result<Vec<Item>, StoreError> {
        self.read_merged_projected(partitions, range, direction, after, n, None)
            .await
    }

    /// [`Table::read_merged`] reading only the attributes `projection` names (`sk` among
    /// them: the merge orders by it).
    pub(crate) async fn read_merged_projected(
        &self,
        partitions: &[String],
        (lo, hi): (&str, &str),
        direction: Direction,
        after: Option<&str>,
        n: usize,
        projection: Option<&str>,
    ) -> Result<Vec<Item>, StoreError> {
        if n == 0 {
            return Ok(Vec::new());
        }
        // Owned partition keys: a closure over borrowed ones is not general enough for the
        // future to be `Send` in a Lambda's handler.
        let pages: Vec<Vec<Item>> = futures::stream::iter(partitions.to_vec())
            .map(|pk| async move {
                self.read_one(&pk, (lo, hi), direction, after, n, projection)
                    .await
            })
            .buffer_unordered(SHARDS_IN_FLIGHT)
            .try_collect()
            .await?;
        let mut items: Vec<Item> = pages.into_iter().flatten().collect();
        items.sort_by_cached_key(|i| key_string(i, "sk"));
        if direction == Direction::Down {
            items.reverse();
        }
        items.truncate(n);
        Ok(items)
    }

    /// Up to `n` items of one partition, as [`Table::read_merged`] reads each.
    async fn read_one(
        &self,
        pk: &str,
        (lo, hi): (&str, &str),
        direction: Direction,
        after: Option<&str>,
        n: usize,
        projection: Option<&str>,
    ) -> Result<Vec<Item>, StoreError> {
        let mut start = after.map(|sk| key_item(&Key::new(pk, sk)));
        let mut items = Vec::new();
        loop {
            let out = self
                .range_query(pk, lo, hi, Params::new())?
                .scan_index_forward(direction == Direction::Up)
                .set_projection_expression(projection.map(str::to_owned))
                .consistent_read(true)
                .limit((n - items.len()).min(i32::MAX as usize) as i32)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(|e| StoreError::sdk("Query(shard)", e))?;
            items.extend(out.items.unwrap_or_default());
            start = out.last_evaluated_key;
            if items.len() >= n || start.is_none() {
                return Ok(items);
            }
        }
    }

    /// One page of a descending `listing` whose items are spread over `partitions` (a sharded
    /// board's top-N), as [`Table::list`] pages one partition: up to `limit` items after the
    /// cursor, one more read to know whether a next page exists. The listing's partition (the
    /// board's own) binds the cursor; on one partition this is [`Table::list`] itself.
    pub(crate) async fn list_merged(
        &self,
        listing: &Listing,
        partitions: &[String],
        (lo, hi): (&str, &str),
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<RawPage, StoreError> {
        if partitions.len() <= 1 {
            return self.list(listing, limit, cursor).await;
        }
        if limit == 0 || limit > MAX_PAGE_SIZE {
            return Err(StoreError::Invalid(format!(
                "limit must be between 1 and {MAX_PAGE_SIZE}"
            )));
        }
        let position = self.position(listing, cursor)?;
        let offset = position.as_ref().map_or(0, |p| p.offset);
        let after = position
            .as_ref()
            .and_then(|p| p.start_key.get("sk").cloned());
        let items = self
            .read_merged(
                partitions,
                (lo, hi),
                Direction::Down,
                after.as_deref(),
                limit + 1,
            )
            .await?;
        Ok(self.page_of(listing, items, limit, offset))
    }
}
