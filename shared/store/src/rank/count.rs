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
    /// Capped `Select=COUNT` Queries made (0 or 1).
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

    /// Other players' Score items with sort keys in `lo..=hi`, counted by one consistent
    /// `Select=COUNT` Query that reads at most `cap` keys; `complete` when it reached `hi`.
    /// (The player's own item is left out: it may sort anywhere, a later play having moved it.)
    pub(crate) async fn count_others(
        &self,
        board: &Board,
        player: &PlayerId,
        (lo, hi): (&str, &str),
        cap: u64,
        what: &'static str,
        cost: &mut RankCost,
    ) -> Result<(u64, bool), StoreError> {
        // A board's write shards one after another, sharing the cap: the count is complete
        // when every shard reached `hi` within it.
        let (mut counted, mut left) = (0u64, cap);
        for pk in board.score_pks() {
            if left == 0 {
                return Ok((counted, false));
            }
            let out = self
                .range_query(&pk, lo, hi, Params::new().value(":me", player.as_str()))?
                .filter_expression("playerId <> :me")
                .select(Select::Count)
                .consistent_read(true)
                .limit(left.min(i32::MAX as u64) as i32)
                .send()
                .await
                .map_err(|e| StoreError::sdk(what, e))?;
            cost.requests += 1;
            cost.count_queries += 1;
            let scanned = out.scanned_count.max(0) as u64;
            cost.keys_counted += scanned;
            counted += out.count.max(0) as u64;
            if out.last_evaluated_key.is_some() {
                return Ok((counted, false));
            }
            left = left.saturating_sub(scanned);
        }
        Ok((counted, true))
    }
}
