//! What every rank read shares: its cost, the one consistent snapshot, the capped count of the
//! entries above a key, and the dispatch of a player's own rank: from the rank index
//! (`rank::lookup`) on an indexed board, by counting alone on a board made before the index and
//! not moved onto it yet. Such a board's rank is exact within the first [`UNINDEXED_TOP`]
//! entries, and beyond them rank `UNINDEXED_TOP + 1` with `rankLag` [`UNINDEXED_LAG`],
//! meaning "not known"; its `playerCount` is its lanes' `created` counts where they have
//! counted it since its creation (`rankIndex`), else not known either (at least
//! `UNINDEXED_TOP + 1`).

use aws_sdk_dynamodb::types::Select;
use leaderboard_keys::entity::{self, SCORE_UPPER_BOUND};
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::rank_index::{CREATED_ATTR, WRITTEN_ATTR};

use crate::ground::error::StoreError;
use crate::ground::freshness::Estimate;
use crate::ground::items::{Item, ItemExt};
use crate::ground::model::Board;
use crate::rank::index_copy::RootBefore;
use crate::table::Table;
use crate::table::request::Params;

/// How many entries of the top a board not on the rank index counts for a rank: such a board
/// has nothing else to answer from, so it keeps the wider count (at most 1,000 keys, about 60
/// read units) until the layout sweep moves it onto the index.
pub const UNINDEXED_TOP: u64 = 1_000;

/// The `rankLag` of a rank beyond the first [`UNINDEXED_TOP`] on a board not on the rank index:
/// the rank is a lower bound and how far off it is is not known.
pub const UNINDEXED_LAG: u64 = u32::MAX as u64;

/// What reading a rank cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RankCost {
    /// Requests made (snapshot attempts, the written counts, the capped count).
    pub requests: u32,
    /// Items read by key (snapshots and written counts).
    pub items: u64,
    /// Capped `Select=COUNT` Queries made (on a plain board 0 or 1 a count; on a sharded board
    /// one a write shard, and one more for each shard that held more than its share).
    pub count_queries: u32,
    /// Keys those Queries read (at most `EXACT_TOP` on an indexed board, [`UNINDEXED_TOP`]
    /// on one not on the index yet).
    pub keys_counted: u64,
}

impl RankCost {
    /// The sum of two costs.
    pub fn plus(self, other: RankCost) -> RankCost {
        RankCost {
            requests: self.requests + other.requests,
            items: self.items + other.items,
            count_queries: self.count_queries + other.count_queries,
            keys_counted: self.keys_counted + other.keys_counted,
        }
    }
}

/// What the caller read for a rank in the same request as the entry pointer.
#[derive(Debug, Clone)]
pub(crate) enum Prefetch {
    /// The board's root as read before the player's play, whose rank is read now (empty when
    /// the board has none), or the process's copy of the board's index.
    AfterPlay(RootBefore),
    /// The board's root (empty when the board has none yet).
    Root(Item),
    /// Nothing: an indexed board's root is read first (one `GetItem`).
    Nothing,
}

/// One count Query's answer: the keys it counted and read, and where the next would start
/// (`None` when it reached the end of its range).
struct CountPage {
    counted: u64,
    scanned: u64,
    more: Option<Item>,
}

impl CountPage {
    /// Adds the Query to `cost`.
    fn charge(&self, cost: &mut RankCost) {
        cost.requests += 1;
        cost.count_queries += 1;
        cost.keys_counted += self.scanned;
    }
}

impl Table {
    /// The rank of `player`'s entry whose Score sort key is `score_sk` (committed before this
    /// call), with how fresh it is and what it cost: from the index on an indexed board (see
    /// `lookup`), else by the capped count alone. `before` is what the caller read with
    /// its own batch.
    pub(crate) async fn own_rank(
        &self,
        board: &Board,
        player: &PlayerId,
        score_sk: &str,
        before: Prefetch,
    ) -> Result<(Estimate, RankCost), StoreError> {
        let mut cost = RankCost::default();
        if board.indexed() {
            let estimate = self
                .indexed_rank(board, player, score_sk, before, &mut cost)
                .await?;
            return Ok((estimate, cost));
        }
        let mut unknown = Estimate {
            above: UNINDEXED_TOP,
            lag: UNINDEXED_LAG,
            exact: false,
            entries: UNINDEXED_TOP + 1,
        };
        if board.rank_index
            && let Some(entries) = self.counted_entries(board, &mut cost).await?
        {
            unknown.entries = entries;
        }
        let (counted, complete) = self
            .count_above_capped(board, player, score_sk, UNINDEXED_TOP, &mut cost)
            .await?;
        Ok((unknown.with_count(counted, complete), cost))
    }

    /// The entries of a board whose lanes have counted them since its creation (`rankIndex`):
    /// the sum of their `created` counts (the lanes read as a lookup reads them, one
    /// `BatchGetItem` of 10 items); `None` when a lane's count predates `created`.
    async fn counted_entries(
        &self,
        board: &Board,
        cost: &mut RankCost,
    ) -> Result<Option<u64>, StoreError> {
        let lanes = self.read_lane_items(board, cost).await?;
        let mut entries = 0i64;
        // A lane never written has no counts (no item, or one holding only a fence or the
        // board's settings version).
        let written = |item: &&Item| item.number::<u64>(WRITTEN_ATTR).is_some();
        for item in lanes.iter().filter(written) {
            let Some(created) = item.number::<i64>(CREATED_ATTR) else {
                return Ok(None);
            };
            entries = entries.saturating_add(created);
        }
        Ok(Some(entries.max(0) as u64))
    }

    /// The entries of other players above `score_sk`, counted with one consistent
    /// `Select=COUNT` Query that reads at most `cap` keys (the index's `EXACT_TOP`, or
    /// [`UNINDEXED_TOP`]); `complete` when it reached the end of them.
    pub(crate) async fn count_above_capped(
        &self,
        board: &Board,
        player: &PlayerId,
        score_sk: &str,
        cap: u64,
        cost: &mut RankCost,
    ) -> Result<(u64, bool), StoreError> {
        self.count_others(
            board,
            player,
            (&entity::score_sort_keys_above(score_sk), SCORE_UPPER_BOUND),
            cap,
            "Query(capped count)",
            cost,
        )
        .await
    }

    /// Other players' Score items with sort keys in `lo..=hi`, counted by consistent
    /// `Select=COUNT` Queries that read at most `cap` keys in all; `complete` when every write
    /// shard's reached `hi`. (The player's own item is left out: it may sort anywhere, a later
    /// play having moved it.) A board of K write shards counts them all at once, each at most
    /// `cap / K` keys, then goes on, one shard after another, with those that had more, within
    /// what is left of `cap`: one round trip for a group spread over the shards, where one
    /// shard after another made K.
    pub(crate) async fn count_others(
        &self,
        board: &Board,
        player: &PlayerId,
        (lo, hi): (&str, &str),
        cap: u64,
        what: &'static str,
        cost: &mut RankCost,
    ) -> Result<(u64, bool), StoreError> {
        let pks = board.score_pks();
        let (mut counted, mut read) = (0u64, 0u64);
        // Where each shard's count goes on from: not begun (`None` inside), or past a page.
        let mut unfinished: Vec<(&String, Option<Item>)> = Vec::new();
        let shards = pks.len() as u64;
        if shards > 1 && cap >= shards {
            let first = pks
                .iter()
                .map(|pk| self.count_page(pk, player, (lo, hi), cap / shards, None, what));
            for (pk, page) in pks.iter().zip(futures::future::try_join_all(first).await?) {
                page.charge(cost);
                counted += page.counted;
                read += page.scanned;
                if let Some(from) = page.more {
                    unfinished.push((pk, Some(from)));
                }
            }
        } else {
            unfinished.extend(pks.iter().map(|pk| (pk, None)));
        }
        let mut left = cap.saturating_sub(read);
        for (pk, mut from) in unfinished {
            loop {
                if left == 0 {
                    return Ok((counted, false));
                }
                let page = self
                    .count_page(pk, player, (lo, hi), left, from.take(), what)
                    .await?;
                page.charge(cost);
                counted += page.counted;
                left = left.saturating_sub(page.scanned);
                match page.more {
                    Some(next) => from = Some(next),
                    None => break,
                }
            }
        }
        Ok((counted, true))
    }

    /// One consistent `Select=COUNT` Query of partition `pk`'s other players' Score items in
    /// `lo..=hi`, reading at most `limit` keys, from `start` on.
    async fn count_page(
        &self,
        pk: &str,
        player: &PlayerId,
        (lo, hi): (&str, &str),
        limit: u64,
        start: Option<Item>,
        what: &'static str,
    ) -> Result<CountPage, StoreError> {
        let out = self
            .range_query(pk, lo, hi, Params::new().value(":me", player.as_str()))?
            .filter_expression("playerId <> :me")
            .select(Select::Count)
            .consistent_read(true)
            .limit(limit.min(i32::MAX as u64) as i32)
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(|e| StoreError::sdk(what, e))?;
        Ok(CountPage {
            counted: out.count.max(0) as u64,
            scanned: out.scanned_count.max(0) as u64,
            more: out.last_evaluated_key,
        })
    }
}
