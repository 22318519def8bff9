//! The three read shapes every access pattern is made of: a consistent single-item get, a keyed
//! listing of one partition with an opaque cursor, and a count over a sort-key range that
//! follows every 1 MB page (a single Query's count covers at most 1 MB of items).

use std::collections::BTreeMap;

use aws_sdk_dynamodb::operation::query::QueryOutput;
use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::types::Select;
use leaderboard_keys::entity::Key;
use serde::de::DeserializeOwned;

use crate::ground::error::StoreError;
use crate::ground::items::{Item, from_item, item_key, key_string};
use crate::ground::model::Page;
use crate::table::Table;
use crate::table::cursor::Position;
use crate::table::request::{Index, Params, WithParams};

/// The largest page a listing returns.
pub const MAX_PAGE_SIZE: usize = 1000;

/// The most entries a cursor may say came before it: beyond any board, and low enough that every
/// rank counted from it stays exact in a JavaScript number (below 2^53).
pub(crate) const MAX_CURSOR_OFFSET: u64 = (1 << 53) - 1 - MAX_PAGE_SIZE as u64;

/// The longest key value a cursor may carry: DynamoDB's limit for a sort key.
const MAX_KEY_BYTES: usize = 1024;

/// One listing: a partition of the table or of an index, read in sort-key order from a prefix.
pub(crate) struct Listing {
    /// Names the listing inside its cursors, so a cursor of one listing can't feed another.
    pub name: &'static str,
    /// The table or the index it reads.
    pub index: Index,
    /// The partition key value.
    pub partition: String,
    /// Every sort key of the listing starts with this.
    pub sk_prefix: String,
    /// `true` reads ascending, `false` descending.
    pub forward: bool,
}

impl Listing {
    /// The listing `name` of `partition` on `index`, the sort keys from `sk_prefix` ascending.
    pub(crate) fn new(
        name: &'static str,
        index: Index,
        partition: String,
        sk_prefix: impl Into<String>,
    ) -> Listing {
        Listing {
            name,
            index,
            partition,
            sk_prefix: sk_prefix.into(),
            forward: true,
        }
    }

    /// The same listing read descending (best or newest first).
    pub(crate) fn descending(self) -> Listing {
        Listing {
            forward: false,
            ..self
        }
    }

    /// Whether a cursor's position continues this listing: an offset within
    /// [`MAX_CURSOR_OFFSET`], and a start key of exactly the listing's key attributes whose
    /// partition is the listing's and whose sort key has its prefix. The signature already rules
    /// out a forged position; this keeps a leaked or mistaken key from steering a read or a rank.
    fn continues(&self, position: &Position) -> bool {
        let (pk_attr, sk_attr) = self.index.key_attrs();
        let key = &position.start_key;
        let attrs: std::collections::BTreeSet<&str> = ["pk", "sk", pk_attr, sk_attr].into();
        position.offset <= MAX_CURSOR_OFFSET
            && key.keys().map(String::as_str).eq(attrs)
            && key.get(pk_attr) == Some(&self.partition)
            && key
                .get(sk_attr)
                .is_some_and(|sk| sk.starts_with(&self.sk_prefix))
            && key
                .values()
                .all(|v| !v.is_empty() && v.len() <= MAX_KEY_BYTES)
    }
}

/// A listed page before mapping: the items, how many came before it, the next cursor.
pub(crate) struct RawPage {
    pub items: Vec<Item>,
    pub offset: u64,
    pub next_cursor: Option<String>,
}

impl RawPage {
    /// Maps the items to entities.
    pub fn into_page<T: DeserializeOwned>(self) -> Result<Page<T>, StoreError> {
        Ok(Page {
            items: self
                .items
                .into_iter()
                .map(from_item)
                .collect::<Result<_, _>>()?,
            next_cursor: self.next_cursor,
        })
    }
}

impl Table {
    /// The item at `key`, read strongly consistently.
    pub(crate) async fn get_raw(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        let out = self
            .get_request(key)
            .send()
            .await
            .map_err(|e| StoreError::sdk("GetItem", e))?;
        Ok(out.item)
    }

    /// The entity at `key`, read strongly consistently.
    pub(crate) async fn get<T: DeserializeOwned>(
        &self,
        key: &Key,
    ) -> Result<Option<T>, StoreError> {
        self.get_raw(key).await?.map(from_item).transpose()
    }

    /// One page of `listing` as entities: [`Table::list`], mapped.
    pub(crate) async fn list_page<T: DeserializeOwned>(
        &self,
        listing: &Listing,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<T>, StoreError> {
        self.list(listing, limit, cursor).await?.into_page()
    }

    /// One page of `listing`: up to `limit` items after `cursor`. It reads one item more than
    /// it returns, so that the last page says `next_cursor: None` rather than sending the
    /// client for an empty page.
    pub(crate) async fn list(
        &self,
        listing: &Listing,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<RawPage, StoreError> {
        if limit == 0 || limit > MAX_PAGE_SIZE {
            return Err(StoreError::Invalid(format!(
                "limit must be between 1 and {MAX_PAGE_SIZE}"
            )));
        }
        let position = self.position(listing, cursor)?;
        let offset = position.as_ref().map_or(0, |p| p.offset);
        let (pk_attr, sk_attr) = listing.index.key_attrs();
        let mut start = position.map(|p| p.exclusive_start_key());
        let mut items: Vec<Item> = Vec::with_capacity(limit + 1);
        loop {
            let out = self
                .query_request(listing.index)
                .key_condition_expression("#pk = :pk AND begins_with(#sk, :prefix)")
                .params(
                    Params::new()
                        .name("#pk", pk_attr)
                        .name("#sk", sk_attr)
                        .value(":pk", &listing.partition)
                        .value(":prefix", listing.sk_prefix.as_str()),
                )?
                .scan_index_forward(listing.forward)
                .limit((limit + 1 - items.len()) as i32)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(|e| StoreError::sdk("Query", e))?;
            items.extend(out.items.unwrap_or_default());
            start = out.last_evaluated_key;
            if items.len() > limit || start.is_none() {
                break;
            }
        }
        Ok(self.page_of(listing, items, limit, offset))
    }

    /// The position a cursor of `listing` holds, checked: signed for this listing and its
    /// partition, and continuing it ([`Listing::continues`]).
    pub(crate) fn position(
        &self,
        listing: &Listing,
        cursor: Option<&str>,
    ) -> Result<Option<Position>, StoreError> {
        let position = cursor
            .map(|c| self.cursors.decode(c, listing.name, &listing.partition))
            .transpose()?;
        if position.as_ref().is_some_and(|p| !listing.continues(p)) {
            return Err(StoreError::BadCursor);
        }
        Ok(position)
    }

    /// A page of `listing` from `items` read after `offset` others: the first `limit`, and a
    /// cursor after the last of them when more were read.
    pub(crate) fn page_of(
        &self,
        listing: &Listing,
        mut items: Vec<Item>,
        limit: usize,
        offset: u64,
    ) -> RawPage {
        let (pk_attr, sk_attr) = listing.index.key_attrs();
        let next_cursor = if items.len() > limit {
            items.truncate(limit);
            let last = &items[limit - 1];
            // The exclusive start key of an index query names the table's key and the index's.
            let mut start_key = BTreeMap::new();
            for attr in ["pk", "sk", pk_attr, sk_attr] {
                start_key.insert(attr.to_owned(), key_string(last, attr));
            }
            // The listing's partition: a sharded board's listing goes on from the key in
            // every shard (`merge`), its cursor bound to the board.
            start_key.insert(pk_attr.to_owned(), listing.partition.clone());
            Some(self.cursors.encode(&Position {
                listing: listing.name.to_owned(),
                partition: listing.partition.clone(),
                start_key,
                // `continues` bounds the offset, so this neither wraps nor leaves the bound.
                offset: offset.saturating_add(limit as u64).min(MAX_CURSOR_OFFSET),
            }))
        } else {
            None
        };
        RawPage {
            items,
            offset,
            next_cursor,
        }
    }

    /// Sends `query` (`what` names it in errors) and follows it past every 1 MB page to the
    /// end, handing `each` every page: the requests made.
    pub(crate) async fn query_pages(
        &self,
        what: &'static str,
        query: QueryFluentBuilder,
        mut each: impl FnMut(QueryOutput) -> Result<(), StoreError>,
    ) -> Result<u32, StoreError> {
        let mut requests = 0;
        let mut start = None;
        loop {
            let mut out = query
                .clone()
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(|e| StoreError::sdk(what, e))?;
            requests += 1;
            start = out.last_evaluated_key.take();
            each(out)?;
            if start.is_none() {
                return Ok(requests);
            }
        }
    }

    /// The keys of every item of partition `pk` (`what` names the Query in errors), every
    /// page: the keys and the requests made.
    pub(crate) async fn partition_keys(
        &self,
        pk: &str,
        what: &'static str,
    ) -> Result<(Vec<Key>, u32), StoreError> {
        let query = self
            .query_request(Index::Table)
            .key_condition_expression("pk = :pk")
            .params(Params::new().value(":pk", pk))?
            .projection_expression("pk, sk");
        let mut keys = Vec::new();
        let requests = self
            .query_pages(what, query, |page| {
                keys.extend(page.items().iter().map(item_key));
                Ok(())
            })
            .await?;
        Ok((keys, requests))
    }

    /// Counts the items of partition `pk` whose sort key is in `lo..=hi`, strongly
    /// consistently, following every page. Returns the count and the number of requests made.
    pub(crate) async fn count_range(
        &self,
        pk: &str,
        lo: &str,
        hi: &str,
    ) -> Result<(u64, u32), StoreError> {
        let mut count = 0u64;
        let query = self
            .range_query(pk, lo, hi, Params::new())?
            .select(Select::Count)
            .consistent_read(true);
        let requests = self
            .query_pages("Query(count)", query, |out| {
                count += out.count.max(0) as u64;
                Ok(())
            })
            .await?;
        Ok((count, requests))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::cursor::{CursorCodec, sample_position};
    use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};

    const SECRET: &[u8] = b"query-test-secret-of-32-bytes-or-more";

    /// A store whose client has nowhere to send a request: a cursor refused before any read
    /// never finds out.
    fn store() -> Table {
        let sdk = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::for_tests())
            .endpoint_url("http://127.0.0.1:9")
            .build();
        Table::new(aws_sdk_dynamodb::Client::from_conf(sdk), "t".into(), SECRET)
    }

    fn top() -> Listing {
        Listing::new("top", Index::Table, "LEADERBOARD#b1".into(), "SCORE#")
    }

    fn position(edit: impl FnOnce(&mut Position)) -> String {
        let mut p = sample_position();
        edit(&mut p);
        CursorCodec::new(SECRET).encode(&p)
    }

    #[tokio::test]
    async fn signed_positions_that_do_not_continue_the_listing_are_refused_before_any_read() {
        let store = store();
        let forged = [
            position(|p| p.offset = u64::MAX),
            position(|p| p.offset = MAX_CURSOR_OFFSET + 1),
            position(|p| {
                p.start_key.insert("pk".into(), "LEADERBOARD#b2".into());
            }),
            position(|p| {
                p.start_key.insert("sk".into(), "#METADATA".into());
            }),
            position(|p| {
                p.start_key.insert("gsi1pk".into(), "PLAYER#p1".into());
            }),
            position(|p| {
                p.start_key.remove("sk");
            }),
            position(|p| {
                p.start_key
                    .insert("sk".into(), format!("SCORE#{}", "9".repeat(1100)));
            }),
        ];
        for cursor in &forged {
            let r = store.list(&top(), 10, Some(cursor)).await;
            assert!(
                matches!(r, Err(StoreError::BadCursor)),
                "{cursor}: {:?}",
                r.err()
            );
        }
        // while the genuine position passes the check and goes on to the (unreachable) table
        let ok = store.list(&top(), 10, Some(&position(|_| {}))).await;
        assert!(
            matches!(ok, Err(StoreError::Dynamo { .. })),
            "{:?}",
            ok.err()
        );
        assert!(
            top().continues(&Position {
                listing: "top".into(),
                partition: "LEADERBOARD#b1".into(),
                start_key: [
                    ("pk".to_owned(), "LEADERBOARD#b1".to_owned()),
                    ("sk".to_owned(), "SCORE#1".to_owned()),
                ]
                .into(),
                offset: MAX_CURSOR_OFFSET,
            })
        );
    }
}
