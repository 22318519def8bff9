//! The three read shapes every access pattern is made of: a consistent single-item get, a keyed
//! listing of one partition with an opaque cursor, and a count over a sort-key range that
//! follows every 1 MB page (a single Query's count covers at most 1 MB of items).

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::Select;
use leaderboard_keys::entity::Key;
use serde::de::DeserializeOwned;

use crate::cursor::Position;
use crate::items::{Item, from_item, key_item, key_string, s};
use crate::model::Page;
use crate::{Store, StoreError};

/// The largest page a listing returns.
pub const MAX_PAGE_SIZE: usize = 1000;

/// One listing: a partition of the table or of an index, read in sort-key order from a prefix.
pub(crate) struct Listing {
    /// Names the listing inside its cursors, so a cursor of one listing can't feed another.
    pub name: &'static str,
    /// The index, or `None` for the table.
    pub index: Option<&'static str>,
    /// The partition key value.
    pub partition: String,
    /// Every sort key of the listing starts with this.
    pub sk_prefix: &'static str,
    /// `true` reads ascending, `false` descending.
    pub forward: bool,
}

impl Listing {
    fn key_attrs(&self) -> (&'static str, &'static str) {
        match self.index {
            None => ("pk", "sk"),
            Some("GSI1") => ("gsi1pk", "gsi1sk"),
            Some(_) => ("gsi2pk", "gsi2sk"),
        }
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

impl Store {
    /// The item at `key`, read strongly consistently.
    pub(crate) async fn get_raw(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key_item(key)))
            .consistent_read(true)
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
        let position = cursor
            .map(|c| self.cursors.decode(c, listing.name, &listing.partition))
            .transpose()?;
        let offset = position.as_ref().map_or(0, |p| p.offset);
        let (pk_attr, sk_attr) = listing.key_attrs();
        let mut start = position.map(|p| p.exclusive_start_key());
        let mut items: Vec<Item> = Vec::with_capacity(limit + 1);
        loop {
            let out = self
                .client
                .query()
                .table_name(&self.table)
                .set_index_name(listing.index.map(str::to_owned))
                .key_condition_expression("#pk = :pk AND begins_with(#sk, :prefix)")
                .expression_attribute_names("#pk", pk_attr)
                .expression_attribute_names("#sk", sk_attr)
                .expression_attribute_values(":pk", s(&listing.partition))
                .expression_attribute_values(":prefix", s(listing.sk_prefix))
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
        let next_cursor = if items.len() > limit {
            items.truncate(limit);
            let last = &items[limit - 1];
            // The exclusive start key of an index query names the table's key and the index's.
            let mut start_key = BTreeMap::new();
            for attr in ["pk", "sk", pk_attr, sk_attr] {
                start_key.insert(attr.to_owned(), key_string(last, attr));
            }
            Some(self.cursors.encode(&Position {
                listing: listing.name.to_owned(),
                partition: listing.partition.clone(),
                start_key,
                offset: offset + limit as u64,
            }))
        } else {
            None
        };
        Ok(RawPage {
            items,
            offset,
            next_cursor,
        })
    }

    /// Every item of `listing`, page after page, as entities.
    pub(crate) async fn list_all<T: DeserializeOwned>(
        &self,
        listing: &Listing,
    ) -> Result<Vec<T>, StoreError> {
        let mut all = Vec::new();
        let mut cursor = None;
        loop {
            let page = self.list(listing, MAX_PAGE_SIZE, cursor.as_deref()).await?;
            cursor = page.next_cursor.clone();
            all.extend(page.into_page::<T>()?.items);
            if cursor.is_none() {
                return Ok(all);
            }
        }
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
        let mut requests = 0u32;
        let mut start = None;
        loop {
            let out = self
                .client
                .query()
                .table_name(&self.table)
                .key_condition_expression("pk = :pk AND sk BETWEEN :lo AND :hi")
                .expression_attribute_values(":pk", s(pk))
                .expression_attribute_values(":lo", s(lo))
                .expression_attribute_values(":hi", s(hi))
                .select(Select::Count)
                .consistent_read(true)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(|e| StoreError::sdk("Query(count)", e))?;
            requests += 1;
            count += out.count.max(0) as u64;
            start = out.last_evaluated_key;
            if start.is_none() {
                return Ok((count, requests));
            }
        }
    }
}
