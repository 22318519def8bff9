//! Batched requests: consistent reads of known keys (`BatchGetItem`) and writes
//! (`BatchWriteItem`, 25 items a request) that retry unprocessed keys and items with backoff.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{DeleteRequest, KeysAndAttributes, PutRequest, WriteRequest};
use futures::{StreamExt, TryStreamExt};
use leaderboard_keys::entity::Key;

use crate::ground::error::StoreError;
use crate::ground::items::{Item, key_item, key_string};
use crate::table::Table;
use crate::table::retry::Retry;

/// Items per `BatchWriteItem` request (DynamoDB's limit).
pub const BATCH_WRITE_SIZE: usize = 25;

/// Keys per `BatchGetItem` request (DynamoDB's limit).
pub const BATCH_GET_SIZE: usize = 100;

/// What a batched write cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BatchStats {
    /// Items written.
    pub items: usize,
    /// `BatchWriteItem` requests sent (retries of unprocessed items included).
    pub requests: u32,
}

/// A put request for each of `items`.
fn put_requests(items: Vec<Item>) -> Result<Vec<WriteRequest>, StoreError> {
    items
        .into_iter()
        .map(|item| {
            let put = PutRequest::builder().set_item(Some(item)).build()?;
            Ok(WriteRequest::builder().put_request(put).build())
        })
        .collect()
}

/// A delete request for each of `keys`.
fn delete_requests(keys: &[Key]) -> Result<Vec<WriteRequest>, StoreError> {
    keys.iter()
        .map(|key| {
            let delete = DeleteRequest::builder()
                .set_key(Some(key_item(key)))
                .build()?;
            Ok(WriteRequest::builder().delete_request(delete).build())
        })
        .collect()
}

/// Starts the next round of a batch request that re-sends what DynamoDB left unprocessed:
/// the first round at once, each later one after [`Retry::BATCH_ROUNDS`]' backoff, and none
/// past its budget ([`StoreError::Contention`]).
async fn next_round(round: &mut u32) -> Result<(), StoreError> {
    let policy = Retry::BATCH_ROUNDS;
    if *round > 0 {
        if !policy.attempts().contains(&(*round + 1)) {
            return Err(policy.exhausted());
        }
        policy.pause(*round).await;
    }
    *round += 1;
    Ok(())
}

/// Items found by [`Table::batch_get`], by key.
#[derive(Default)]
pub(crate) struct Found(HashMap<(String, String), Item>);

impl Found {
    /// The item at `key`, if it exists (each can be taken once).
    pub(crate) fn take(&mut self, key: &Key) -> Option<Item> {
        self.0.remove(&(key.pk.clone(), key.sk.clone()))
    }
}

impl Table {
    /// Reads any number of items by key, 100 a `BatchGetItem` (DynamoDB's limit), each as
    /// [`Table::batch_get`] reads them: consistent, but not one snapshot across requests.
    pub(crate) async fn batch_get_all(
        &self,
        keys: &[Key],
        what: &'static str,
    ) -> Result<Found, StoreError> {
        let mut found = HashMap::new();
        for chunk in keys.chunks(BATCH_GET_SIZE) {
            found.extend(self.batch_get(chunk, what).await?.0);
        }
        Ok(Found(found))
    }

    /// Reads up to 100 items by key in one strongly consistent `BatchGetItem`, re-asking for
    /// unprocessed keys with jittered backoff (a bounded number of rounds). `what` names the
    /// read in errors.
    pub(crate) async fn batch_get(
        &self,
        keys: &[Key],
        what: &'static str,
    ) -> Result<Found, StoreError> {
        let mut found = HashMap::new();
        // DynamoDB refuses a BatchGetItem of no keys: nothing to read is nothing found.
        if keys.is_empty() {
            return Ok(Found(found));
        }
        let mut pending = Some(
            KeysAndAttributes::builder()
                .set_keys(Some(keys.iter().map(key_item).collect()))
                .consistent_read(true)
                .build()
                .map_err(StoreError::from)?,
        );
        let mut round = 0u32;
        while let Some(keys) = pending.take() {
            next_round(&mut round).await?;
            let out = self
                .client
                .batch_get_item()
                .request_items(&self.name, keys)
                .send()
                .await
                .map_err(|e| StoreError::sdk(what, e))?;
            for item in out
                .responses
                .unwrap_or_default()
                .remove(&self.name)
                .unwrap_or_default()
            {
                found.insert((key_string(&item, "pk"), key_string(&item, "sk")), item);
            }
            pending = out
                .unprocessed_keys
                .unwrap_or_default()
                .remove(&self.name)
                .filter(|k| !k.keys().is_empty());
        }
        Ok(Found(found))
    }

    /// Puts every item, 25 a request, re-sending unprocessed items with jittered backoff.
    pub(crate) async fn put_all(&self, items: Vec<Item>) -> Result<BatchStats, StoreError> {
        self.write_all(put_requests(items)?).await
    }

    /// Puts every item as [`Table::put_all`] does, `in_flight` requests at a time: for bulk
    /// writes off the request path (a rebuild's nodes), whose time is their number of rounds.
    pub(crate) async fn put_all_in_flight(
        &self,
        items: Vec<Item>,
        in_flight: usize,
    ) -> Result<BatchStats, StoreError> {
        self.write_all_in_flight(put_requests(items)?, in_flight)
            .await
    }

    /// Deletes every item of `keys` as [`Table::delete_all`] does, `in_flight` requests at a
    /// time, as [`Table::put_all_in_flight`] puts.
    pub(crate) async fn delete_all_in_flight(
        &self,
        keys: &[Key],
        in_flight: usize,
    ) -> Result<BatchStats, StoreError> {
        self.write_all_in_flight(delete_requests(keys)?, in_flight)
            .await
    }

    /// [`Table::write_all`] over chunks of 25 requests, `in_flight` chunks at a time.
    async fn write_all_in_flight(
        &self,
        mut requests: Vec<WriteRequest>,
        in_flight: usize,
    ) -> Result<BatchStats, StoreError> {
        let mut chunks = Vec::new();
        while !requests.is_empty() {
            let rest = requests.split_off(requests.len().min(BATCH_WRITE_SIZE));
            chunks.push(self.write_all(std::mem::replace(&mut requests, rest)));
        }
        futures::stream::iter(chunks)
            .buffer_unordered(in_flight.max(1))
            .try_fold(BatchStats::default(), |total, done| async move {
                Ok(BatchStats {
                    items: total.items + done.items,
                    requests: total.requests + done.requests,
                })
            })
            .await
    }

    /// Deletes every item of `keys`, as [`Table::put_all`] puts.
    pub(crate) async fn delete_all(&self, keys: &[Key]) -> Result<BatchStats, StoreError> {
        self.write_all(delete_requests(keys)?).await
    }

    async fn write_all(&self, mut requests: Vec<WriteRequest>) -> Result<BatchStats, StoreError> {
        let mut stats = BatchStats {
            items: requests.len(),
            ..BatchStats::default()
        };
        while !requests.is_empty() {
            let rest = requests.split_off(requests.len().min(BATCH_WRITE_SIZE));
            let mut chunk = std::mem::replace(&mut requests, rest);
            let mut round = 0u32;
            while !chunk.is_empty() {
                next_round(&mut round).await?;
                let out = self
                    .client
                    .batch_write_item()
                    .request_items(&self.name, chunk)
                    .send()
                    .await
                    .map_err(|e| StoreError::sdk("BatchWriteItem", e))?;
                stats.requests += 1;
                chunk = out
                    .unprocessed_items
                    .unwrap_or_default()
                    .remove(&self.name)
                    .unwrap_or_default();
            }
        }
        Ok(stats)
    }
}
