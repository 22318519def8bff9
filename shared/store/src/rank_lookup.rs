//! Reading a player's own rank: from the rank index, with how fresh it is, in a number of
//! requests and items that does not depend on the board's size (contract §4).
//!
//! 0. **The board's size**: the written counts (`BatchGetItem`, 10 items; on a lookup in the
//!    same request as the entry pointer). Their `created` counts sum to the board's entries.
//!    A board of at most [`EXACT_TOP`] entries goes straight to step 3, which then reads all of
//!    it, exactly, for fewer read units than the snapshot.
//! 1. **The snapshot** (`TransactGetItems`, one request): the player's rank marker and every
//!    shard's node on the key's path (81 items at the default width). Marker, node counters and
//!    the roots' `applied` are written in one transaction by the index, so the snapshot sees
//!    them consistent with each other: the count of other players above the key, the entries
//!    counted, and which of the player's versions the index holds.
//! 2. **The written counts again** (`BatchGetItem`, one request, 10 items), *after* the
//!    snapshot and outside it: every play transacts on them, and real DynamoDB cancels a
//!    transactional read that meets a transactional write in flight, so a snapshot holding them
//!    would fail most of the time on a busy board. Read after, they include every change the
//!    snapshot could have missed, so `Σ written − Σ applied` is an upper bound of the changes
//!    not counted: the lag. `Σ created` is `playerCount`, exactly as of this read.
//! 3. **The capped count** (`Select=COUNT` Query, `Limit` [`EXACT_TOP`], at most once): only
//!    when the answer is not exact and the player may be within the first [`EXACT_TOP`]
//!    entries. A count that reaches the end of the keys above makes the rank exact.
//!
//! Nothing else ever counts entries. A board without a rank index (made before it existed)
//! gets the capped count alone: exact within the first [`EXACT_TOP`], and beyond them rank
//! `EXACT_TOP + 1` with `rankLag` [`UNINDEXED_LAG`], meaning "not known".

use aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsError;
use aws_sdk_dynamodb::types::{AttributeValue, Select, TransactGetItem};
use leaderboard_keys::entity::{self, Key, SCORE_UPPER_BOUND};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rankindex::{
    self, APPLIED_ATTR, CREATED_ATTR, IndexedKey, NodeCounts, WRITTEN_ATTR, WRITTEN_SHARDS,
};

use crate::batch::Found;
use crate::freshness::{EXACT_TOP, Estimate, IndexView};
use crate::items::{Item, ItemExt};
use crate::model::{Board, RankLayout};
use crate::rank_index::num;
use crate::request::Params;
use crate::retry::Retry;
use crate::{Store, StoreError};

/// The `rankLag` of a rank beyond the first [`EXACT_TOP`] on a board without a rank index:
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
    /// Keys those Queries read (at most [`EXACT_TOP`]).
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

/// A node item's counters and tie sets.
fn node_counts(item: &Item) -> NodeCounts {
    let mut node = NodeCounts::default();
    for (name, value) in item {
        let (kind, label) = name.split_at(1.min(name.len()));
        if label.is_empty() || !label.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        match (kind, value) {
            ("c", AttributeValue::N(v)) => {
                node.counts
                    .insert(label.to_owned(), v.parse().unwrap_or_default());
            }
            ("t", AttributeValue::Ss(ids)) => {
                node.ties
                    .insert(label.to_owned(), ids.iter().cloned().collect());
            }
            _ => {}
        }
    }
    node
}

/// The board's written counts, as one read saw them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Written {
    /// Σ written: entry changes committed.
    pub written: i64,
    /// Σ created: the board's entries (absent on boards whose counts predate it).
    pub created: Option<i64>,
}

/// The keys of a board's written counts.
pub(crate) fn written_keys(board: &BoardId) -> Vec<Key> {
    (0..WRITTEN_SHARDS)
        .map(|shard| entity::rank_written(board, shard))
        .collect()
}

impl Written {
    /// The counts among the items of a batch read of [`written_keys`].
    pub(crate) fn take_from(found: &mut Found, board: &BoardId) -> Written {
        let mut sum = Written::default();
        for item in written_keys(board).iter().filter_map(|k| found.take(k)) {
            // Saturating: the counts are stored numbers, never trusted not to wrap.
            sum.written = sum.written.saturating_add(num(&item, WRITTEN_ATTR));
            if item.contains_key(CREATED_ATTR) {
                let created = sum.created.get_or_insert(0);
                *created = created.saturating_add(num(&item, CREATED_ATTR));
            }
        }
        sum
    }
}

/// What the caller read for a rank in the same request as the entry pointer.
#[derive(Debug, Clone)]
pub(crate) enum Prefetch {
    /// Nothing: the rank is read right after the player's play.
    AfterPlay,
    /// The board's written counts (layout v1).
    Written(Written),
    /// The board's v2 root (empty when the board has none yet).
    Root(Item),
    /// Nothing, on a lookup: a v2 board's snapshot is read under the generation this process
    /// last saw (its root checks that guess), a v1 board's written counts are read.
    Nothing,
}

impl Store {
    /// The rank of `player`'s entry whose Score sort key is `score_sk` and whose version is
    /// `version` (committed before this call), with how fresh it is and what it cost: see the
    /// module documentation, and `rank_lookup_v2` for a layout v2 board. `before` is what the
    /// caller read with its own batch (the rest is read here). On v1 at most 4 requests, 101
    /// items read by key and [`EXACT_TOP`] keys counted at the default width, whatever the
    /// board's size.
    pub(crate) async fn own_rank(
        &self,
        board: &Board,
        player: &PlayerId,
        score_sk: &str,
        version: u64,
        before: Prefetch,
    ) -> Result<(Estimate, RankCost), StoreError> {
        let mut cost = RankCost::default();
        if board.rank_index && board.rank_layout == RankLayout::V2 {
            let (root, just_played) = match before {
                Prefetch::Root(root) => (Some(root), false),
                Prefetch::AfterPlay => (None, true),
                _ => (None, false),
            };
            let estimate = self
                .own_rank_v2(board, player, score_sk, root, just_played, &mut cost)
                .await?;
            return Ok((estimate, cost));
        }
        if !board.rank_index {
            let unknown = Estimate {
                above: EXACT_TOP,
                lag: UNINDEXED_LAG,
                exact: false,
                entries: EXACT_TOP + 1,
            };
            let (counted, complete) = self
                .count_above_capped(board, player, score_sk, &mut cost)
                .await?;
            return Ok((unknown.with_count(counted, complete), cost));
        }
        let size = match before {
            Prefetch::Written(size) => size,
            _ => self.read_written(&board.leaderboard_id, &mut cost).await?,
        };
        // A board of at most EXACT_TOP entries: the capped count reads all of it, exactly, for
        // fewer read units than the index's snapshot.
        if let Some(created) = size.created.filter(|&c| c <= EXACT_TOP as i64) {
            let (counted, complete) = self
                .count_above_capped(board, player, score_sk, &mut cost)
                .await?;
            if complete {
                let entries = (created.max(0) as u64).max(counted + 1);
                return Ok((Estimate::exact(counted, entries), cost));
            }
        }
        let view = self
            .index_view(board, player, score_sk, version, &mut cost)
            .await?;
        let estimate = Estimate::from_index(&view);
        if !estimate.worth_counting() {
            return Ok((estimate, cost));
        }
        let (counted, complete) = self
            .count_above_capped(board, player, score_sk, &mut cost)
            .await?;
        Ok((estimate.with_count(counted, complete), cost))
    }

    /// The board's written counts: one consistent `BatchGetItem` of 10 items.
    async fn read_written(
        &self,
        board: &BoardId,
        cost: &mut RankCost,
    ) -> Result<Written, StoreError> {
        let keys = written_keys(board);
        let mut found = self.batch_get(&keys, "BatchGetItem(rank written)").await?;
        cost.requests += 1;
        cost.items += keys.len() as u64;
        Ok(Written::take_from(&mut found, board))
    }

    /// Steps 1 and 2 of the module documentation.
    async fn index_view(
        &self,
        board: &Board,
        player: &PlayerId,
        score_sk: &str,
        version: u64,
        cost: &mut RankCost,
    ) -> Result<IndexView, StoreError> {
        let key = IndexedKey::parse(score_sk)?;
        let layout = key.layout();
        let id = &board.leaderboard_id;
        let mut keys: Vec<Key> = vec![entity::rank_marker(player, id)];
        for level in 0..layout.levels {
            for shard in 0..layout.node_shards {
                keys.push(entity::rank_node(id, shard, key.prefix(level)));
            }
        }
        let items = self.snapshot(&keys, cost).await?;
        let empty = Item::new();
        let item = |i: usize| items.get(i).and_then(Option::as_ref).unwrap_or(&empty);
        let shards = layout.node_shards as usize;
        let path: Vec<Vec<NodeCounts>> = (0..layout.levels)
            .map(|level| {
                let at = 1 + level * shards;
                (at..at + shards).map(|i| node_counts(item(i))).collect()
            })
            .collect();
        let applied = (1..1 + shards)
            .map(|i| num(item(i), APPLIED_ATTR))
            .fold(0i64, i64::saturating_add);
        let counted = path[0]
            .iter()
            .flat_map(|root| root.counts.values())
            .fold(0i64, |sum, c| sum.saturating_add(*c));
        let marker = item(0);
        let held = marker.string("rk");
        // The player's entry as the index holds it is the player's, never above the player.
        let own_above = held.is_some_and(|rk| rk > score_sk);
        let held_version = num(marker, "version").max(0) as u64;
        // After the snapshot, so that every change it may have missed is in `written`.
        let after = self.read_written(id, cost).await?;
        Ok(IndexView {
            above: rankindex::count_above(&key, &path).saturating_sub(i64::from(own_above)),
            // The created counts are exact; boards whose counts predate them have the index's.
            entries: after
                .created
                .unwrap_or(counted.saturating_add(i64::from(held.is_none()))),
            unapplied: after.written.saturating_sub(applied),
            own_unapplied: version.saturating_sub(held_version),
        })
    }

    /// One consistent snapshot of `keys` (`TransactGetItems`), retried when cancelled by a
    /// write in flight.
    pub(crate) async fn snapshot(
        &self,
        keys: &[Key],
        cost: &mut RankCost,
    ) -> Result<Vec<Option<Item>>, StoreError> {
        let gets: Vec<TransactGetItem> = keys
            .iter()
            .map(|k| self.tx_get(k))
            .collect::<Result<_, _>>()?;
        for attempt in Retry::RANK_SNAPSHOT.attempts() {
            cost.requests += 1;
            cost.items += gets.len() as u64;
            let out = self
                .client
                .transact_get_items()
                .set_transact_items(Some(gets.clone()))
                .send()
                .await;
            match out {
                Ok(out) => {
                    return Ok(out
                        .responses
                        .unwrap_or_default()
                        .into_iter()
                        .map(|r| r.item)
                        .collect());
                }
                Err(e) => match e.as_service_error() {
                    Some(TransactGetItemsError::TransactionCanceledException(_)) => {
                        tracing::debug!(attempt, "rank index snapshot conflicted; retrying");
                        Retry::RANK_SNAPSHOT.pause(attempt).await;
                    }
                    _ => return Err(StoreError::sdk("TransactGetItems(rank index)", e)),
                },
            }
        }
        Err(Retry::RANK_SNAPSHOT.exhausted())
    }

    /// Step 3: the entries of other players above `score_sk`, counted with one consistent
    /// `Select=COUNT` Query that reads at most [`EXACT_TOP`] keys; `complete` when it reached
    /// the end of them.
    pub(crate) async fn count_above_capped(
        &self,
        board: &Board,
        player: &PlayerId,
        score_sk: &str,
        cost: &mut RankCost,
    ) -> Result<(u64, bool), StoreError> {
        self.count_others(
            board,
            player,
            (&entity::score_sort_keys_above(score_sk), SCORE_UPPER_BOUND),
            EXACT_TOP,
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
        let out = self
            .range_query(
                &entity::board_pk(&board.leaderboard_id),
                lo,
                hi,
                Params::new().value(":me", player.as_str()),
            )?
            .filter_expression("playerId <> :me")
            .select(Select::Count)
            .consistent_read(true)
            .limit(cap.min(i32::MAX as u64) as i32)
            .send()
            .await
            .map_err(|e| StoreError::sdk(what, e))?;
        cost.requests += 1;
        cost.count_queries += 1;
        cost.keys_counted += out.scanned_count.max(0) as u64;
        Ok((out.count.max(0) as u64, out.last_evaluated_key.is_none()))
    }
}
