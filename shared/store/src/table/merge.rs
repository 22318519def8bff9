//! A board's write shards read as one: the Score items of several partitions in one sort-key
//! order. Every shard holds its players' Score items sorted by the same sort key, and a sort key
//! names its player, so no two shards share one: the board's order is the shards' orders
//! merged, and a position in it is one sort key, the last one read (each shard goes on after
//! it). So a merged listing's cursor is a plain listing's (one key and an offset) and fits the
//! same bound, whatever the number of shards.
//!
//! **Cost.** A read of `n` items from K shards reads each shard in chunks rather than `n` at
//! once: first `c = ceil(n / K) + 2 * ceil(sqrt(n / K))` items from every shard (a board's
//! players are spread over its shards by a hash, so a shard's share of the first `n` is
//! `n / K` give or take a few times its square root, and the slack makes a second round rare),
//! then, while fewer than `n` items are settled, one more chunk from the one shard that holds
//! them back (the shard whose last item read is the furthest ahead: every item up to it is
//! settled, as no shard has an unread item before it). A shard is read again only when every
//! item read from it is settled, so what is read and not returned is at most each shard's last
//! chunk: **at most `n + K * c` items** (and never more than `K * n`), in K Queries and one
//! more per refill (more than one request a chunk only past a 1 MB page). For a 1,000-entry
//! page on 32 shards: at most 1,001 + 32 * 44 = 2,409 items, where reading `n` from every
//! shard read 32,032.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};

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
/// partition, which way, which attributes (all when `None`), and whether strongly consistent
/// (only the table can be; an index never is).
struct MergedRead<'a> {
    index: Index,
    range: (&'a str, &'a str),
    direction: Direction,
    projection: Option<&'a str>,
    consistent: bool,
}

/// Which way a merged read goes in sort-key order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// Ascending (worse first on a board: the keys below a rank).
    Up,
    /// Descending (rank order).
    Down,
}

/// Where an item stands in a merged read: the index's sort key, then the table's key, the order
/// DynamoDB keeps within one partition of an index, so that ties (two sessions of one id) merge
/// as they page.
type Place = (String, String, String);

/// What has been read of one shard: its items in the read's order, and where its next chunk
/// starts (`None`: the shard has no more).
struct ShardRead {
    pk: String,
    items: Vec<Item>,
    next: Option<HashMap<String, AttributeValue>>,
}

/// The first chunk read from each of `shards` shards for `n` items (see the module's cost).
fn first_chunk(n: usize, shards: usize) -> usize {
    if shards <= 1 {
        return n;
    }
    let share = n.div_ceil(shards);
    // ceil(sqrt(share)) by integers: the smallest r with r * r >= share.
    let mut root = (share as f64).sqrt() as usize;
    while root * root < share {
        root += 1;
    }
    (share + 2 * root).min(n)
}

/// The most items a merged read of `n` items from `shards` shards reads: `n` on one shard,
/// else `n` and each shard's last chunk (see the module's cost).
pub fn merged_read_bound(n: usize, shards: usize) -> usize {
    if shards <= 1 {
        return n;
    }
    (n + shards * first_chunk(n, shards)).min(shards * n)
}

impl MergedRead<'_> {
    fn place(&self, item: &Item) -> Place {
        let (_, sk_attr) = self.index.key_attrs();
        (
            key_string(item, sk_attr),
            key_string(item, "pk"),
            key_string(item, "sk"),
        )
    }

    /// `a` against `b` in the read's order (`Less`: `a` comes first).
    fn order(&self, a: &Place, b: &Place) -> Ordering {
        match self.direction {
            Direction::Up => a.cmp(b),
            Direction::Down => b.cmp(a),
        }
    }
}

impl Table {
    /// Up to `n` items of `partitions` whose sort key is in `lo..=hi`, in `direction` order,
    /// starting after the sort key `after` (exclusive) when given; strongly consistent.
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
            consistent: true,
        };
        self.read_merged_in(&read, partitions, after.as_ref(), n)
            .await
    }

    /// Up to `n` items of `partitions` of `read`'s table or index, merged in its order, after
    /// the key `after` (its partition key attribute aside: each partition's own is used), read
    /// in chunks as the module's cost says.
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
        let chunk = first_chunk(n, partitions.len());
        let (pk_attr, _) = read.index.key_attrs();
        // Owned partition keys: a closure over borrowed ones is not general enough for the
        // future to be `Send` in a Lambda's handler.
        let mut shards: Vec<ShardRead> = futures::stream::iter(partitions.to_vec())
            .map(|pk| async move {
                let start = after.map(|key| {
                    let mut start = start_key_item(key);
                    start.insert(pk_attr.to_owned(), AttributeValue::S(pk.clone()));
                    start
                });
                let (items, next) = self.read_chunk(read, &pk, start, chunk).await?;
                Ok::<_, StoreError>(ShardRead { pk, items, next })
            })
            .buffer_unordered(SHARDS_IN_FLIGHT)
            .try_collect()
            .await?;
        while let Some((holding_back, settled)) = Self::held_back(read, &shards, n) {
            let shard = &mut shards[holding_back];
            let want = chunk.min(n - settled);
            let (items, next) = self
                .read_chunk(read, &shard.pk, shard.next.take(), want)
                .await?;
            shard.items.extend(items);
            shard.next = next;
        }
        let mut items: Vec<(Place, Item)> = shards
            .into_iter()
            .flat_map(|s| s.items)
            .map(|i| (read.place(&i), i))
            .collect();
        items.sort_by(|(a, _), (b, _)| read.order(a, b));
        items.truncate(n);
        Ok(items.into_iter().map(|(_, i)| i).collect())
    }

    /// The shard that holds the merge back and how many items are settled, while fewer than
    /// `n` are: the shard with more to read whose last item read comes first (every item up to
    /// it is settled: no shard has an unread one before it). `None` once `n` are settled or
    /// every shard is read to its end.
    fn held_back(read: &MergedRead<'_>, shards: &[ShardRead], n: usize) -> Option<(usize, usize)> {
        let (index, frontier) = shards
            .iter()
            .enumerate()
            .filter(|(_, s)| s.next.is_some())
            .filter_map(|(i, s)| s.items.last().map(|last| (i, read.place(last))))
            .min_by(|(_, a), (_, b)| read.order(a, b))?;
        let settled: usize = shards
            .iter()
            .map(|s| {
                // A shard's items are in the read's order: the settled ones are a prefix.
                s.items
                    .partition_point(|i| read.order(&read.place(i), &frontier).is_le())
            })
            .sum();
        (settled < n).then_some((index, settled))
    }

    /// Up to `n` items of one partition from `start` (exclusive), and where the next chunk
    /// starts (`None`: the partition has no more).
    async fn read_chunk(
        &self,
        read: &MergedRead<'_>,
        pk: &str,
        mut start: Option<HashMap<String, AttributeValue>>,
        n: usize,
    ) -> Result<(Vec<Item>, Option<HashMap<String, AttributeValue>>), StoreError> {
        let (pk_attr, sk_attr) = read.index.key_attrs();
        let (lo, hi) = read.range;
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
                .consistent_read(read.consistent && matches!(read.index, Index::Table))
                .limit((n - items.len()).min(i32::MAX as usize) as i32)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(|e| StoreError::sdk("Query(shard)", e))?;
            items.extend(out.items.unwrap_or_default());
            start = out.last_evaluated_key;
            if items.len() >= n || start.is_none() {
                return Ok((items, start));
            }
        }
    }

    /// One page of a descending `listing` whose items are spread over `partitions` (a sharded
    /// board's top-N), as [`Table::list`] pages one partition: up to `limit` items after the
    /// cursor, one more read to know whether a next page exists, eventually consistent as a
    /// plain listing is (a page is positional: it needs no snapshot). The listing's partition
    /// (the board's own) binds the cursor; on one partition this is [`Table::list`] itself.
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
            consistent: false,
        };
        let after = position.as_ref().map(|p| &p.start_key);
        let items = self
            .read_merged_in(&read, partitions, after, limit + 1)
            .await?;
        Ok(self.page_of(listing, items, limit, offset))
    }
}

#[cfg(test)]
mod tests {
    use super::first_chunk;

    #[test]
    fn the_first_chunk_is_a_share_and_its_slack() {
        assert_eq!(first_chunk(1001, 1), 1001);
        assert_eq!(first_chunk(1001, 32), 32 + 2 * 6);
        assert_eq!(first_chunk(1001, 8), 126 + 2 * 12);
        assert_eq!(first_chunk(1, 32), 1);
        assert_eq!(first_chunk(4, 2), 4);
    }
}
