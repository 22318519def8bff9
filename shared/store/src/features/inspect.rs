//! Inspect: the operator's reads of a board's entries as the table stores them (`lbctl`):
//! with their stored sort keys from any rank, in key order, a page at a time with their
//! players' pointers (for a check of the board). The rank index's own items are read by
//! `rank::inspect`. Never on a request path: a read from a far rank may pass every key above
//! it.

use std::collections::HashMap;

use leaderboard_keys::entity::{self, Key, SCORE_PREFIX, SCORE_UPPER_BOUND};
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::rank::TIEBREAK_DIGITS;
use leaderboard_keys::rank_index::{GENERATION_ATTR, Layout, node_key, root_key};

use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt, from_item, key_string};
use crate::ground::model::{Board, BoardStatus, Entry, EntryPointer, FinalStanding, ScoreEntry};
use crate::rank::compact::item_entries;
use crate::rank::count::RankCost;
use crate::rank::lanes::{lanes_lag, switched_since};
use crate::store::Store;
use crate::table::merge::Direction;
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

/// Ranks from which [`Inspect::stored_entries`] seeks with the rank index rather than pass the
/// keys above: 1,000 plain keys cost about 55 read units in one Query, the seek's 9 reads
/// about 9, and their latency is a chain of 9 requests.
pub const SEEK_FROM: u64 = 1_000;

/// The last sort key a closed board's final standings can have.
const FINAL_UPPER_BOUND: &str = "FINAL$";

/// Inspect: a board's entries as stored, for an operator's check (the handle [`Store::inspect`]
/// gives).
#[derive(Clone, Copy)]
pub struct Inspect<'a> {
    pub(crate) store: &'a Store,
}

impl Store {
    /// Inspect: a board's entries as stored, for an operator's check.
    pub fn inspect(&self) -> Inspect<'_> {
        Inspect { store: self }
    }
}

impl Inspect<'_> {
    /// Up to `limit` (1..=1000) entries of `board` from rank `from` (1 = top), in key order,
    /// each with its stored sort key: the Score items of a live (open or closing) board, the
    /// final standings of a closed one. A closed board's rank `from` is one key away; on a live
    /// board from rank [`SEEK_FROM`] + 1 on, the rank index finds the group holding it when it
    /// has applied every change (at most 9 reads at the default width) and only that group's
    /// keys above it are passed; else the `from - 1` keys above are, by key-only Queries of at
    /// most 1 MB.
    pub async fn stored_entries(
        self,
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
        // From the group holding rank `from` when the index can say which (no change pending):
        // only that group's keys above it are passed.
        let (seek, mut requests) = self.seek_group(board, from - 1).await?;
        let (hi, mut skip) = seek.unwrap_or_else(|| (SCORE_UPPER_BOUND.to_owned(), from - 1));
        if board.write_shards > 1 {
            return self
                .stored_entries_merged(board, &hi, skip, from, limit, requests)
                .await;
        }
        // The entries of the generation in service (a widened board's are in their own).
        let pk = board.score_pks().swap_remove(0);
        let mut start = None;
        while skip > 0 {
            let out = self
                .store
                .table
                .range_query(&pk, SCORE_PREFIX, &hi, Params::new())?
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
            .stored_page(&pk, SCORE_PREFIX, &hi, false, start, limit)
            .await?;
        let entries = score_entries(items, from)?;
        Ok(StoredPage {
            entries,
            requests: requests + 1,
        })
    }

    /// Up to `limit` (1..=1000) Score items of the live board `board` after sort key `after`
    /// (from the top without it), in rank order, each with its stored key, and the entry
    /// pointers of their players on the board (one strongly consistent `BatchGetItem` per 100):
    /// what a check of the board reads a page at a time, so that its memory stays one page
    /// whatever the board's size. Ranks count from 1 on each page.
    pub async fn entries_with_pointers(
        self,
        board: &Board,
        after: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<StoredEntry>, HashMap<PlayerId, EntryPointer>), StoreError> {
        let limit = limit.clamp(1, MAX_PAGE_SIZE);
        let range = (SCORE_PREFIX, SCORE_UPPER_BOUND);
        let items = self
            .store
            .table
            .read_merged(&board.score_pks(), range, Direction::Down, after, limit)
            .await?;
        let entries = score_entries(items, 1)?;
        // Each player once: a player with two Score items (what a check looks for) would
        // otherwise ask for one key twice, which BatchGetItem refuses.
        let mut players: Vec<&PlayerId> = entries.iter().map(|e| &e.entry.player_id).collect();
        players.sort();
        players.dedup();
        let keys: Vec<Key> = players
            .iter()
            .map(|p| entity::entry(p, &board.board_id))
            .collect();
        let mut pointers = HashMap::new();
        if !keys.is_empty() {
            let mut found = self
                .store
                .table
                .batch_get_all(&keys, "BatchGetItem(pointers)")
                .await?;
            for (key, player) in keys.iter().zip(&players) {
                if let Some(item) = found.take(key) {
                    let pointer: EntryPointer = from_item(item)?;
                    pointers.insert((*player).clone(), pointer.on_board(board)?);
                }
            }
        }
        Ok((entries, pointers))
    }

    /// Where the entry `above + 1` in rank order is, from the rank index: the inclusive upper
    /// bound of its group's sort keys and how many of that group's keys come before it, or
    /// `None` when the index cannot say exactly (a change it has not applied, a rebuild's
    /// switch meanwhile, fewer entries than that, a board not on it). A descent from the root,
    /// each level's greater labels passed whole: 1 read of the root, at most one a level below
    /// (7 at the default width), and the lanes; with the requests made.
    async fn seek_group(
        self,
        board: &Board,
        above: u64,
    ) -> Result<(Option<(String, u64)>, u32), StoreError> {
        if !board.indexed() || above < SEEK_FROM {
            return Ok((None, 0));
        }
        let spec = board.spec()?;
        let layout = Layout::new(spec.ranked_digits());
        let root = self.store.table.get_raw(&root_key(&board.board_id)).await?;
        let mut requests = 1;
        let root = root.unwrap_or_default();
        let generation: u64 = root.number(GENERATION_ATTR).unwrap_or(0);
        let mut remaining = i64::try_from(above).unwrap_or(i64::MAX);
        let mut prefix = String::new();
        let mut node = root.clone();
        loop {
            let entries = item_entries(&node);
            // Descending labels are rank order: pass whole every child that ends above.
            let Some((label, entry)) = entries.iter().rev().find_map(|(label, e)| {
                if e.count <= remaining {
                    remaining -= e.count;
                    None
                } else {
                    Some((label.clone(), e))
                }
            }) else {
                return Ok((None, requests));
            };
            prefix.push_str(&label);
            // An entry of one key that names it (the compact layout): its group is known.
            if let Some(rest) = entry.rest.as_deref().filter(|_| entry.count == 1) {
                prefix.push_str(rest);
            }
            if prefix.len() >= layout.stored_digits() {
                break;
            }
            let key = node_key(&board.board_id, generation, &prefix);
            node = self.store.table.get_raw(&key).await?.unwrap_or_default();
            requests += 1;
        }
        let mut cost = RankCost::default();
        let lanes = self.store.table.read_lane_items(board, &mut cost).await?;
        requests += cost.requests;
        if switched_since(&lanes, &root) || lanes_lag(&lanes, &root) > 0 {
            return Ok((None, requests));
        }
        // The group's keys are `SCORE#<score>[#<column>...]#<tiebreak>#<player>` whose
        // stored digits (the ranked ones, then the tiebreak's first) are `prefix`: each at most
        // the prefix padded with 9s, delimited as the board's keys are, then '$' (after the
        // '#' before the player).
        let rest = (spec.ranked_digits() + TIEBREAK_DIGITS as usize).saturating_sub(prefix.len());
        let top = spec
            .delimit(&format!("{prefix}{}", "9".repeat(rest)))
            .ok_or_else(|| StoreError::corrupt(&prefix, "a rank index path of another width"))?;
        let hi = format!("{SCORE_PREFIX}{top}$");
        Ok((Some((hi, remaining.max(0) as u64)), requests))
    }

    /// [`Inspect::stored_entries`] on a board of several write shards: the `skip` keys from
    /// `hi` down passed 1,000 at a time, then the page, each read in chunks of every shard,
    /// merged.
    async fn stored_entries_merged(
        self,
        board: &Board,
        hi: &str,
        mut skip: u64,
        from: u64,
        limit: i32,
        mut requests: u32,
    ) -> Result<StoredPage, StoreError> {
        let pks = board.score_pks();
        let shards = pks.len() as u32;
        let mut after: Option<String> = None;
        loop {
            // The keys to pass, a page at most at a time; then the page itself.
            let n = match skip {
                0 => limit as usize,
                s => s.min(MAX_PAGE_SIZE as u64) as usize,
            };
            let items = self
                .store
                .table
                .read_merged(
                    &pks,
                    (SCORE_PREFIX, hi),
                    Direction::Down,
                    after.as_deref(),
                    n,
                )
                .await?;
            requests += shards;
            if skip == 0 {
                return Ok(StoredPage {
                    entries: score_entries(items, from)?,
                    requests,
                });
            }
            if items.len() < n {
                // Fewer entries than `from - 1`: nothing from there.
                return Ok(StoredPage {
                    entries: Vec::new(),
                    requests,
                });
            }
            skip -= n as u64;
            after = items.last().map(|i| key_string(i, "sk"));
        }
    }

    async fn stored_page(
        self,
        pk: &str,
        lo: &str,
        hi: &str,
        forward: bool,
        start: Option<Item>,
        limit: i32,
    ) -> Result<Vec<Item>, StoreError> {
        let out = self
            .store
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

/// Score items as stored entries, ranked from `first` on in the order given.
fn score_entries(items: Vec<Item>, first: u64) -> Result<Vec<StoredEntry>, StoreError> {
    items
        .into_iter()
        .zip(first..)
        .map(|(item, rank)| {
            let sort_key = key_string(&item, "sk");
            let e: ScoreEntry = from_item(item)?;
            Ok(StoredEntry {
                rank,
                sort_key,
                entry: e.entry,
            })
        })
        .collect()
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
