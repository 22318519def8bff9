//! Inspect: the operator's reads of a board as the table stores it (`lbctl`): its entries with
//! their stored sort keys from any rank, in key order. Never on a request path: a read from rank
//! R first passes the R - 1 keys above it.

use leaderboard_keys::entity::{self, SCORE_PREFIX, SCORE_UPPER_BOUND};

use crate::ground::error::StoreError;
use crate::ground::items::{Item, from_item, key_string};
use crate::ground::model::{Board, BoardStatus, Entry, FinalStanding, ScoreEntry};
use crate::store::Store;
use crate::table::query::MAX_PAGE_SIZE;
use crate::table::request::Params;

/// An entry as stored: its item's sort key beside what the item says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEntry {
    /// Its position in key order (1 = first): the rank, on a live board as of this read.
    pub rank: u64,
    /// The item's sort key: `SCORE#<rankKey>#<playerId>` live, `FINAL#<rank>` after close.
    pub sort_key: String,
    /// The item's attributes.
    pub entry: Entry,
}

/// A page of stored entries, and what reading it took.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredPage {
    /// The entries, in rank order.
    pub entries: Vec<StoredEntry>,
    /// The Queries made: the skip's key-only pages, then the page's one.
    pub requests: u32,
}

/// The last sort key a closed board's final standings can have.
const FINAL_UPPER_BOUND: &str = "FINAL$";

impl Store {
    /// Up to `limit` (1..=1000) entries of `board` from rank `from` (1 = top), in key order,
    /// each with its stored sort key: the Score items of a live (open or closing) board, the
    /// final standings of a closed one. A closed board's rank `from` is one key away; on a live
    /// board the `from - 1` keys above are passed first, by key-only Queries of at most 1 MB.
    pub async fn stored_entries(
        &self,
        board: &Board,
        from: u64,
        limit: usize,
    ) -> Result<StoredPage, StoreError> {
        let from = from.max(1);
        let limit = limit.clamp(1, MAX_PAGE_SIZE) as i32;
        let pk = entity::board_pk(&board.board_id);
        if board.status == BoardStatus::Closed {
            let lo = entity::final_standing(&board.board_id, from)?.sk;
            let items = self
                .stored_page(&pk, &lo, FINAL_UPPER_BOUND, true, None, limit)
                .await?;
            let entries = items
                .into_iter()
                .map(|item| {
                    let sort_key = key_string(&item, "sk");
                    let f: FinalStanding = from_item(item)?;
                    Ok(StoredEntry {
                        rank: f.rank,
                        sort_key,
                        entry: f.entry,
                    })
                })
                .collect::<Result<_, StoreError>>()?;
            return Ok(StoredPage {
                entries,
                requests: 1,
            });
        }
        let mut requests = 0;
        let mut start = None;
        let mut skip = from - 1;
        while skip > 0 {
            let out = self
                .table
                .range_query(&pk, SCORE_PREFIX, SCORE_UPPER_BOUND, Params::new())?
                .scan_index_forward(false)
                .consistent_read(true)
                .projection_expression("pk, sk")
                .limit(skip.min(i32::MAX as u64) as i32)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(|e| StoreError::sdk("Query(skip)", e))?;
            requests += 1;
            skip = skip.saturating_sub(out.count.max(0) as u64);
            start = out.last_evaluated_key;
            if start.is_none() && skip > 0 {
                // Fewer entries than `from - 1`: nothing from there.
                return Ok(StoredPage {
                    entries: Vec::new(),
                    requests,
                });
            }
        }
        let items = self
            .stored_page(&pk, SCORE_PREFIX, SCORE_UPPER_BOUND, false, start, limit)
            .await?;
        let entries = items
            .into_iter()
            .zip(from..)
            .map(|(item, rank)| {
                let sort_key = key_string(&item, "sk");
                let e: ScoreEntry = from_item(item)?;
                Ok(StoredEntry {
                    rank,
                    sort_key,
                    entry: e.entry,
                })
            })
            .collect::<Result<_, StoreError>>()?;
        Ok(StoredPage {
            entries,
            requests: requests + 1,
        })
    }

    async fn stored_page(
        &self,
        pk: &str,
        lo: &str,
        hi: &str,
        forward: bool,
        start: Option<Item>,
        limit: i32,
    ) -> Result<Vec<Item>, StoreError> {
        let out = self
            .table
            .range_query(pk, lo, hi, Params::new())?
            .scan_index_forward(forward)
            .consistent_read(true)
            .limit(limit)
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(|e| StoreError::sdk("Query(stored entries)", e))?;
        Ok(out.items.unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use leaderboard_keys::entity::FINAL_PREFIX;

    #[test]
    fn the_final_bound_follows_every_final_key() {
        let b = leaderboard_keys::ids::BoardId::parse("b").unwrap();
        let last = entity::final_standing(&b, 9_999_999_999).unwrap().sk;
        assert!(last.as_str() < FINAL_UPPER_BOUND && last.starts_with(FINAL_PREFIX));
    }
}
