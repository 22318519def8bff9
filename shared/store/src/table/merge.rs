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

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use futures::{StreamExt, TryStreamExt};

use crate::ground::error::StoreError;
use crate::ground::items::{Item, key_string};
use crate::table::Table;
use crate::table::cursor::start_key_item;
use crate::table::query::{Listing, MAX_PAGE_SIZE, RawPage};
use crate::table::request::{Index, Params, WithParams};

/// Shards read at once.
const SHARDS_IN_FLIGHT: usize = 8;

/// What a merged read reads: the table or an index, the sort keys `lo..=hi` of each
/// partition, which way, and which attributes (all when `None`).
struct MergedRead<'a> {
    index: Index,
    range: (&'a str, &'a str),
    direction: Direction,
    projection: Option<&'a str>,
}

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
        range: (&str, &str),
        direction: Direction,
        after: Option<&str>,
        n: usize,
        projection: Option<&str>,
    ) -> Result<Vec<Item>, StoreError> {
        let after = after.map(|sk| BTreeMap::from([("sk".to_owned(), sk.to_owned())]));
        let read = MergedRead {
            index: Index::Table,
            range,
            direction,
            projection,
        };
        self.read_merged_in(&read, partitions, after.as_ref(), n)
            .await
    }

    /// Up to `n` items of `partitions` of `read`'s table or index, merged in its order, after
    /// the key `after` (its partition key attribute aside: each partition's own is used).
    async fn read_merged_in(
        &self,
        read: &MergedRead<'_>,
        partitions: &[String],
        after: Option<&BTreeMap<String, String>>,
        n: usize,
    ) -> Result<Vec<Item>, StoreError> {
        if n == 0 {
            return Ok(Vec::new());
        }
        // Owned partition keys: a closure over borrowed ones is not general enough for the
        // future to be `Send` in a Lambda's handler.
        let pages: Vec<Vec<Item>> = futures::stream::iter(partitions.to_vec())
            .map(|pk| async move { self.read_one(read, &pk, after, n).await })
            .buffer_unordered(SHARDS_IN_FLIGHT)
            .try_collect()
            .await?;
        let mut items: Vec<Item> = pages.into_iter().flatten().collect();
        // The index's sort key, then the table's key: the order DynamoDB keeps within one
        // partition of an index, so that ties (two sessions of one id) merge as they page.
        let (_, sk_attr) = read.index.key_attrs();
        items.sort_by_cached_key(|i| {
            (
                key_string(i, sk_attr),
                key_string(i, "pk"),
                key_string(i, "sk"),
            )
        });
        if read.direction == Direction::Down {
            items.reverse();
        }
        items.truncate(n);
        Ok(items)
    }

    /// Up to `n` items of one partition, as [`Table::read_merged_in`] reads each.
    async fn read_one(
        &self,
        read: &MergedRead<'_>,
        pk: &str,
        after: Option<&BTreeMap<String, String>>,
        n: usize,
    ) -> Result<Vec<Item>, StoreError> {
        let (pk_attr, sk_attr) = read.index.key_attrs();
        let (lo, hi) = read.range;
        let mut start: Option<Item> = after.map(|key| {
            let mut start = start_key_item(key);
            start.insert(pk_attr.to_owned(), AttributeValue::S(pk.to_owned()));
            start
        });
        let mut items = Vec::new();
        loop {
            let out = self
                .query_request(read.index)
                .key_condition_expression("#pk = :pk AND #sk BETWEEN :lo AND :hi")
                .params(
                    Params::new()
                        .name("#pk", pk_attr)
                        .name("#sk", sk_attr)
                        .value(":pk", pk)
                        .value(":lo", lo)
                        .value(":hi", hi),
                )?
                .scan_index_forward(read.direction == Direction::Up)
                .set_projection_expression(read.projection.map(str::to_owned))
                // An index cannot be read consistently; the table's shards are.
                .consistent_read(matches!(read.index, Index::Table))
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
        let read = MergedRead {
            index: listing.index,
            range: (lo, hi),
            direction: Direction::Down,
            projection: None,
        };
        let after = position.as_ref().map(|p| &p.start_key);
        let items = self
            .read_merged_in(&read, partitions, after, limit + 1)
            .await?;
        Ok(self.page_of(listing, items, limit, offset))
    }
}
