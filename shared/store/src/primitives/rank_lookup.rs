//! Reading a player's own rank from the rank index, in the order [`rank_index::settle`] needs:
//!
//! 1. **The root**, read with the entry pointer by the caller (`BatchGetItem`): the generation
//!    of the nodes, and the entries it counts. After a play, and on a lookup once this process
//!    has seen the board's generation (`Store::board_and_rank`), this read is skipped: the
//!    generation is the one this process last saw for the board (it changes only when a
//!    rebuild switches), and the snapshot's root says the rest.
//! 2. **The snapshot** (`TransactGetItems`, one request): the root and the nodes on the key's
//!    path below it (8 items at the default width). Each apply writes its nodes and the root's
//!    watermarks in one transaction, so the snapshot holds counters and watermarks that agree.
//!    Transactional reads cost twice the read units; this one is what makes the counters and the
//!    watermarks belong together. A root naming another generation than the one read under (a
//!    rebuild switched) makes it read again under that one.
//! 3. **The tail** (`Select=COUNT` Query of at most [`TAIL_CAP`] keys), only when the snapshot
//!    says the key's group holds other players.
//! 4. **The lanes** (`BatchGetItem`, 10 items), last and not transactional: every play writes
//!    them, so a transactional read would be cancelled on a busy board. Read last, they hold
//!    every change the snapshot or the tail may have missed: the lag.
//!
//! A board of at most [`EXACT_TOP`] entries (as the root counts them) is counted instead, with
//! the lanes read after for its size. Either way at most 3 requests besides the pointer's read
//! and at most 20 items read by key at the default width (with the pointer), plus at most 1,000
//! keys counted; a rank within the first [`EXACT_TOP`] that is not exact yet costs one capped
//! count more.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank_index::journal::NODE_JOURNAL_ATTR;
use leaderboard_keys::rank_index::{
    self, CountedKey, GENERATION_ATTR, LanesRead, NodeCounters, PathRead, TAIL_CAP, TailCount,
    TailRange, TailSide, Watermarks, node_key, root_key,
};

use crate::ground::error::StoreError;
use crate::ground::freshness::{EXACT_TOP, Estimate, IndexView};
use crate::ground::items::{Item, ItemExt};
use crate::ground::model::Board;
use crate::primitives::lanes::lanes_for;
use crate::primitives::rank_apply::{item_counters, root_watermarks};
use crate::primitives::rank_count::{Prefetch, RankCost};
use crate::primitives::rank_journal::root_last_journal;
use crate::table::Table;

/// Snapshot attempts when rebuilds keep switching generations under the read.
const GENERATION_ROUNDS: usize = 3;

/// The most path nodes one snapshot reads besides the root (`TransactGetItems` takes 100
/// items).
pub(crate) const SNAPSHOT_NODES: usize = 99;

/// The prefixes of `key`'s path nodes below the root, top down (7 at the default width).
pub(crate) fn path_nodes(key: &CountedKey) -> impl Iterator<Item = String> + '_ {
    let layout = key.layout();
    (1..layout.levels()).map(move |level| layout.prefix(key.digits(), level).to_owned())
}

/// Entries the root counts: the sum of its counters.
pub(crate) fn root_entries(root: &Item) -> i64 {
    item_counters(root)
        .values()
        .fold(0i64, |s, c| s.saturating_add(*c))
}

/// What the snapshot's `path` and `watermarks`, the `tail` count and the `lanes` read last say
/// together about `key`'s rank on a board of `entries` entries ([`rank_index::settle`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn settled_estimate(
    board: &BoardId,
    player: &PlayerId,
    key: &CountedKey,
    path: &PathRead,
    watermarks: &Watermarks,
    tail: Option<&TailCount>,
    lanes: &LanesRead,
    entries: i64,
) -> Estimate {
    let settled = rank_index::settle(key, path, watermarks, tail, lanes);
    if settled.negative {
        tracing::error!(
            board = %board, player = %player, above = path.above, group = path.group,
            "rank index read gave a negative count: answering as not exact"
        );
    }
    Estimate::from_index(&IndexView {
        above: settled.above.min(i64::MAX as u64) as i64,
        entries,
        unapplied: (settled.lag.min(i64::MAX as u64 - 1) as i64)
            .saturating_add(i64::from(settled.negative)),
        own_unapplied: 0,
    })
}

/// The generation of each board's index as this process last saw it. A guess, never trusted:
/// the snapshot's root says which generation its nodes must be read under.
#[derive(Clone, Default)]
pub(crate) struct GenerationCache(Arc<Mutex<HashMap<BoardId, u64>>>);

impl GenerationCache {
    pub(crate) fn get(&self, board: &BoardId) -> Option<u64> {
        self.0.lock().ok()?.get(board).copied()
    }

    fn remember(&self, board: &BoardId, generation: u64) {
        if let Ok(mut cache) = self.0.lock() {
            cache.insert(board.clone(), generation);
        }
    }
}

impl Table {
    /// The own rank of `player`'s entry at `score_sk` on an indexed board: see the module
    /// documentation. `before` is the root as read with the pointer, or nothing (the snapshot
    /// reads it, under the generation this process last saw), or that the player's play has
    /// just changed the entry, so that the index most likely does not hold its key yet.
    pub(crate) async fn indexed_rank(
        &self,
        generations: &GenerationCache,
        board: &Board,
        player: &PlayerId,
        score_sk: &str,
        before: Prefetch,
        cost: &mut RankCost,
    ) -> Result<Estimate, StoreError> {
        let (root, just_played) = match before {
            Prefetch::Root(root) => (Some(root), false),
            Prefetch::AfterPlay => (None, true),
            Prefetch::Nothing => (None, false),
        };
        let id = &board.board_id;
        let key = CountedKey::parse(score_sk)?;
        let prefetched = root.is_some();
        // A small board: counting it reads fewer items than the snapshot, and is exact. (Not
        // complete, the board has grown past what the root counts: the index answers, and this
        // count stands in for the top's.)
        let mut top_count = None;
        let generation = match &root {
            Some(root) => {
                if let Some(exact) = self
                    .count_small_board(board, player, score_sk, root, &mut top_count, cost)
                    .await?
                {
                    return Ok(exact);
                }
                root.number(GENERATION_ATTR).unwrap_or(0u64)
            }
            None => generations.get(id).unwrap_or(0),
        };
        let (path, watermarks, root) = self
            .path_snapshot(generations, board, &key, generation, cost)
            .await?;
        if !prefetched
            && let Some(exact) = self
                .count_small_board(board, player, score_sk, &root, &mut top_count, cost)
                .await?
        {
            return Ok(exact);
        }
        let tail = match TailSide::for_key(&key, &path, just_played) {
            Some(side) => Some(
                self.count_tail(board, player, &key, side, TAIL_CAP, cost)
                    .await?,
            ),
            None => None,
        };
        let (lanes, entries) = self.read_lanes(board, player, cost).await?;
        let estimate = settled_estimate(
            id,
            player,
            &key,
            &path,
            &watermarks,
            tail.as_ref(),
            &lanes,
            entries,
        );
        if !estimate.worth_counting() {
            return Ok(estimate);
        }
        let (counted, complete) = match top_count {
            Some(count) => count,
            None => {
                self.count_above_capped(board, player, score_sk, cost)
                    .await?
            }
        };
        Ok(estimate.with_count(counted, complete))
    }

    /// On a board `root` counts at most [`EXACT_TOP`] entries on, the capped count of the keys
    /// above: the exact rank when it reached their end (then the lanes give the board's size),
    /// else kept in `top_count` for the top's count (the board has grown past what the root
    /// counted). `None`, and nothing read, for a larger board.
    async fn count_small_board(
        &self,
        board: &Board,
        player: &PlayerId,
        score_sk: &str,
        root: &Item,
        top_count: &mut Option<(u64, bool)>,
        cost: &mut RankCost,
    ) -> Result<Option<Estimate>, StoreError> {
        if root_entries(root) > EXACT_TOP as i64 {
            return Ok(None);
        }
        let (counted, complete) = self
            .count_above_capped(board, player, score_sk, cost)
            .await?;
        if !complete {
            *top_count = Some((counted, complete));
            return Ok(None);
        }
        let (_, entries) = self.read_lanes(board, player, cost).await?;
        let entries = (entries.max(0) as u64).max(counted.saturating_add(1));
        Ok(Some(Estimate::exact(counted, entries)))
    }

    /// Step 2: the root and the key's path nodes in one transactional read, under `generation`
    /// or, if the root names another, under that one; with the root as read.
    async fn path_snapshot(
        &self,
        generations: &GenerationCache,
        board: &Board,
        key: &CountedKey,
        generation: u64,
        cost: &mut RankCost,
    ) -> Result<(PathRead, Watermarks, Item), StoreError> {
        let (mut paths, watermarks, root) = self
            .paths_snapshot(
                generations,
                board,
                std::slice::from_ref(key),
                generation,
                cost,
            )
            .await?;
        Ok((paths.remove(0), watermarks, root))
    }

    /// Step 2 for several keys of one board at once: the root and the union of their path
    /// nodes (at most [`SNAPSHOT_NODES`]: see [`path_nodes`]) in one transactional read, so
    /// every key's path agrees with the same watermarks.
    pub(crate) async fn paths_snapshot(
        &self,
        generations: &GenerationCache,
        board: &Board,
        keys: &[CountedKey],
        mut generation: u64,
        cost: &mut RankCost,
    ) -> Result<(Vec<PathRead>, Watermarks, Item), StoreError> {
        let id = &board.board_id;
        let prefixes: BTreeSet<String> = keys.iter().flat_map(path_nodes).collect();
        for _ in 0..GENERATION_ROUNDS {
            let mut item_keys = vec![root_key(id)];
            item_keys.extend(prefixes.iter().map(|p| node_key(id, generation, p)));
            let mut items = self.snapshot(&item_keys, cost).await?;
            let root = items.first_mut().and_then(Option::take).unwrap_or_default();
            let now = root.number(GENERATION_ATTR).unwrap_or(0u64);
            generations.remember(id, now);
            if now != generation {
                // A rebuild switched generations since the root was read (or this process
                // last saw it).
                generation = now;
                continue;
            }
            let mut nodes = NodeCounters::new();
            nodes.insert(String::new(), item_counters(&root));
            // Nodes that took a journal the root has not finished (see `PathRead::ahead`).
            let last = root_last_journal(&root);
            let mut ahead = BTreeSet::new();
            for (prefix, item) in prefixes.iter().zip(items.iter().skip(1)) {
                let counters = item.as_ref().map(item_counters).unwrap_or_default();
                nodes.insert(prefix.clone(), counters);
                if item
                    .as_ref()
                    .and_then(|i| i.number::<u64>(NODE_JOURNAL_ATTR))
                    > Some(last)
                {
                    ahead.insert(prefix);
                }
            }
            let paths = keys
                .iter()
                .map(|k| {
                    let mut path = PathRead::of(k, &nodes);
                    path.ahead = path_nodes(k).any(|p| ahead.contains(&p));
                    path
                })
                .collect();
            return Ok((paths, root_watermarks(&root), root));
        }
        Err(StoreError::Contention {
            attempts: GENERATION_ROUNDS as u32,
        })
    }

    /// Step 3: the other players' keys of `key`'s group on `side` of it, at most `cap` (a
    /// lookup's is [`TAIL_CAP`]; the friends listing's share a budget).
    pub(crate) async fn count_tail(
        &self,
        board: &Board,
        player: &PlayerId,
        key: &CountedKey,
        side: TailSide,
        cap: u64,
        cost: &mut RankCost,
    ) -> Result<TailCount, StoreError> {
        let ranges = TailRange::of(key);
        let (lo, hi) = match side {
            TailSide::Above => ranges.above,
            TailSide::Below => ranges.below,
        };
        let (counted, complete) = self
            .count_others(
                board,
                player,
                (&lo, &hi),
                cap,
                "Query(rank index tail)",
                cost,
            )
            .await?;
        Ok(TailCount {
            side,
            counted,
            complete,
        })
    }

    /// Step 4: every lane's written count, the player's lane's latest change, and the board's
    /// entries (Σ created).
    async fn read_lanes(
        &self,
        board: &Board,
        player: &PlayerId,
        cost: &mut RankCost,
    ) -> Result<(LanesRead, i64), StoreError> {
        let items = self.read_lane_items(board, cost).await?;
        Ok(lanes_for(&items, player))
    }
}
