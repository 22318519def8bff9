//! Reading a player's own rank from the rank index, in the order [`rank_index::settle`] needs:
//!
//! 1. **The root**, read by the caller with the entry pointer (`BatchGetItem`), or with the
//!    play's own read before its transaction, or else alone here (`GetItem`): the generation of
//!    the nodes, the entries it counts, and the watermarks the answer starts from.
//! 2. **The snapshot** (`BatchGetItem`, strongly consistent, one request): the nodes on the
//!    key's path below the root (7 at the default width; on the compact layout the first
//!    [`FIRST_PATH_NODES`], and in a second request the rest of a longer path, a key with
//!    tiebreak columns, only where it has not ended in those). Read after the root, every node
//!    holds at least the changes up to the root's watermarks; one that took a journal the root
//!    had not finished holds more, and every such change is one the lanes (read last) count in
//!    the lag, moving the count above the key by at most one (see `docs/rank-index.md`,
//!    "Reading a rank").
//! 3. **The tail** (`Select=COUNT` Query of at most [`TAIL_CAP`] keys), only when the snapshot
//!    says the key's group holds other players.
//! 4. **The lanes** (one consistent Query of their partition, 10 items of about 1.5 KB in all:
//!    one read unit; 10 items by key on a board whose lanes are not grouped yet), last: they
//!    hold every change the snapshot or the tail may have missed or held past the root's
//!    watermarks: the lag. And the generation the last rebuild's switch put in service: one
//!    newer than the root's says the nodes may have been read while a switch's deletion of
//!    theirs went on, and the read starts again from a fresh root (at most
//!    [`GENERATION_ROUNDS`] times).
//!
//! A board of at most [`EXACT_TOP`] entries (as the root counts them) is counted instead, with
//! the lanes read after for its size. Either way at most 3 requests besides the pointer's read
//! and at most 9 items read by key at the default width (the pointer, the root and 7 nodes)
//! and the lanes' Query, plus at most [`TAIL_CAP`] keys of the tail; a rank that may be
//! within the first [`EXACT_TOP`] and is not exact yet costs one capped count more (at most
//! [`EXACT_TOP`] keys, about 6 read units).

use std::collections::BTreeSet;

use leaderboard_keys::entity::Key;
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank_index::compact::{CompactNodes, Entries};
use leaderboard_keys::rank_index::journal::NODE_JOURNAL_ATTR;
use leaderboard_keys::rank_index::{
    self, CountedKey, Counters, ENTRY_GENERATION_ATTR, GENERATION_ATTR, LanesRead, NodeCounters,
    PathRead, TAIL_CAP, TailCount, TailRange, TailSide, Watermarks, node_key, root_key,
};

use crate::ground::error::StoreError;
use crate::ground::freshness::{EXACT_TOP, Estimate, IndexView};
use crate::ground::items::{Item, ItemExt};
use crate::ground::model::Board;
use crate::rank::apply::{item_counters, root_watermarks};
use crate::rank::compact::{is_compact, item_entries};
use crate::rank::count::{Prefetch, RankCost};
use crate::rank::journal::root_last_journal;
use crate::rank::lanes::{lanes_for, switched_since};
use crate::table::Table;

/// Snapshot attempts when rebuilds keep switching generations under the read.
pub(crate) const GENERATION_ROUNDS: usize = 3;

/// The most path nodes one snapshot reads besides the root (`BatchGetItem` takes 100 keys).
pub(crate) const SNAPSHOT_NODES: usize = 99;

/// The prefixes of `key`'s path nodes below the root, top down (7 at the default width).
pub(crate) fn path_nodes(key: &CountedKey) -> impl Iterator<Item = String> + '_ {
    let layout = key.layout();
    (1..layout.levels()).map(move |level| layout.prefix(key.digits(), level).to_owned())
}

/// Path nodes a compact snapshot's first request reads of each key's path: the whole path at
/// the default width without tiebreak columns (8 levels), so such a key is read in one
/// request; a wider key's path goes on only where it has not ended by then.
pub(crate) const FIRST_PATH_NODES: usize = 7;

/// The unread nodes of `key`'s path (on the compact layout) when its walk from the root
/// through the nodes read reaches one not read while on an entry of two keys or more: that
/// node and the rest of the path below it. None when the path ended in what was read.
fn unread_below_shared(
    key: &CountedKey,
    entries: &CompactNodes,
    read: &BTreeSet<String>,
) -> Vec<String> {
    let layout = key.layout();
    let digits = key.digits();
    for level in 0..layout.levels() {
        let prefix = layout.prefix(digits, level);
        if level > 0 && !read.contains(prefix) {
            return path_nodes(key).skip(level - 1).collect();
        }
        let label = layout.label(digits, level);
        let shared = entries
            .get(prefix)
            .and_then(|node| node.get(label))
            .is_some_and(|e| e.count >= 2);
        if !shared {
            return Vec::new();
        }
    }
    Vec::new()
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

/// Whether `key`'s path read in `nodes` misses a node its parent counts entries in while that
/// parent (the root, or a node not `ahead`) holds only journals the root had finished: every
/// such journal wrote the node before the root finished it, so only the deletion of a retired
/// generation can have removed it since.
fn torn(
    key: &CountedKey,
    nodes: &NodeCounters,
    ahead: &BTreeSet<String>,
    missing: &BTreeSet<String>,
) -> bool {
    let layout = key.layout();
    let digits = key.digits();
    (1..layout.levels()).any(|level| {
        let prefix = layout.prefix(digits, level);
        let parent = layout.prefix(digits, level - 1);
        missing.contains(prefix)
            && !ahead.contains(parent)
            && nodes
                .get(parent)
                .and_then(|c| c.get(layout.label(digits, level - 1)))
                .is_some_and(|n| *n > 0)
    })
}

/// Whether the index `root` counts the generation of entries `board` (as read) names: a
/// widening's switch between the board's read and the root's puts keys of another width in
/// the index, which a key of the board's cannot be ranked among. The read is refused as busy
/// (the caller reads the board again); it takes a request landing within that switch.
fn same_entries(board: &Board, root: &Item) -> Result<(), StoreError> {
    let counted = root.number(ENTRY_GENERATION_ATTR).unwrap_or(0u64);
    if counted != board.entry_generation {
        return Err(StoreError::Contention { attempts: 1 });
    }
    Ok(())
}

impl Table {
    /// The own rank of `player`'s entry at `score_sk` on an indexed board: see the module
    /// documentation. `before` is the root as read with the pointer, or nothing (the snapshot
    /// reads it, under the generation this process last saw), or that the player's play has
    /// just changed the entry, so that the index most likely does not hold its key yet.
    pub(crate) async fn indexed_rank(
        &self,
        board: &Board,
        player: &PlayerId,
        score_sk: &str,
        before: Prefetch,
        cost: &mut RankCost,
    ) -> Result<Estimate, StoreError> {
        let (root, just_played) = match before {
            Prefetch::Root(root) => (Some(root), false),
            Prefetch::AfterPlay(root) => (Some(root), true),
            Prefetch::Nothing => (None, false),
        };
        let id = &board.board_id;
        let key = CountedKey::parse(score_sk)?;
        let prefetched = root.is_some();
        // A small board: counting it (at most 100 keys, about 6 read units) costs less than
        // the snapshot, and is exact. (Not complete, the board has grown past what the root
        // counts: the index answers, and this count stands in for the top's.)
        let mut top_count = None;
        if let Some(root) = &root {
            same_entries(board, root)?;
        }
        if let Some(root) = &root
            && let Some(exact) = self
                .count_small_board(board, player, score_sk, root, &mut top_count, cost)
                .await?
        {
            return Ok(exact);
        }
        let mut root = root;
        let mut sized = prefetched;
        for _ in 0..GENERATION_ROUNDS {
            let (path, watermarks, used) =
                self.path_snapshot(board, &key, root.take(), cost).await?;
            same_entries(board, &used)?;
            if !sized {
                sized = true;
                if let Some(exact) = self
                    .count_small_board(board, player, score_sk, &used, &mut top_count, cost)
                    .await?
                {
                    return Ok(exact);
                }
            }
            let tail = match TailSide::for_key(&key, &path, just_played) {
                Some(side) => Some(
                    self.count_tail(board, player, &key, side, TAIL_CAP, cost)
                        .await?,
                ),
                None => None,
            };
            let items = self.read_lane_items(board, cost).await?;
            if switched_since(&items, &used) {
                // The nodes may have been read during their deletion: again, from a fresh
                // root (`path_snapshot` reads it).
                continue;
            }
            let (lanes, entries) = lanes_for(&items, player, board.entry_generation);
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
                    self.count_above_capped(board, player, score_sk, EXACT_TOP, cost)
                        .await?
                }
            };
            return Ok(estimate.with_count(counted, complete));
        }
        Err(StoreError::Contention {
            attempts: GENERATION_ROUNDS as u32,
        })
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
            .count_above_capped(board, player, score_sk, EXACT_TOP, cost)
            .await?;
        if !complete {
            *top_count = Some((counted, complete));
            return Ok(None);
        }
        let (_, entries) = self.read_lanes(board, player, cost).await?;
        let entries = (entries.max(0) as u64).max(counted.saturating_add(1));
        Ok(Some(Estimate::exact(counted, entries)))
    }

    /// Step 2 for one key: see [`Table::paths_snapshot`].
    async fn path_snapshot(
        &self,
        board: &Board,
        key: &CountedKey,
        root: Option<Item>,
        cost: &mut RankCost,
    ) -> Result<(PathRead, Watermarks, Item), StoreError> {
        let (mut paths, watermarks, root) = self
            .paths_snapshot(board, std::slice::from_ref(key), root, cost)
            .await?;
        Ok((paths.remove(0), watermarks, root))
    }

    /// Step 2 for several keys of one board at once: the union of their path nodes (at most
    /// [`SNAPSHOT_NODES`]: see [`path_nodes`]) in one consistent `BatchGetItem`, read after
    /// `root` (the root as read by an earlier request; one `GetItem` first without it). So
    /// every node holds at least the changes up to the root's watermarks, and a node ahead of
    /// them holds only changes the lanes, read last, count in the lag (see [`PathRead::ahead`]).
    /// A node missing where its parent (the root, or a node not ahead) counts entries, which
    /// only a retired generation's deletion can do, makes the nodes be read again after a fresh
    /// read of the root. Whether a switch retired the root's generation before the nodes were
    /// read is for the caller to tell from the lanes it reads next ([`switched_since`]). With
    /// the root as used.
    pub(crate) async fn paths_snapshot(
        &self,
        board: &Board,
        keys: &[CountedKey],
        root: Option<Item>,
        cost: &mut RankCost,
    ) -> Result<(Vec<PathRead>, Watermarks, Item), StoreError> {
        let id = &board.board_id;
        let mut root = match root {
            Some(root) => root,
            None => self.root_item(id, cost).await?,
        };
        for _ in 0..GENERATION_ROUNDS {
            let generation = root.number(GENERATION_ATTR).unwrap_or(0u64);
            let last = root_last_journal(&root);
            let compact = is_compact(&root);
            // Each item's entries, read once; its counters as the torn check counts them: on
            // the compact layout only an entry of two keys or more has a node below it.
            let counters = |entries: &Entries| -> Counters {
                entries
                    .iter()
                    .filter(|(_, e)| !compact || e.count >= 2)
                    .map(|(label, e)| (label.clone(), e.count))
                    .collect()
            };
            let mut nodes = NodeCounters::new();
            let mut entries = CompactNodes::new();
            let root_entries = item_entries(&root);
            nodes.insert(String::new(), counters(&root_entries));
            entries.insert(String::new(), root_entries);
            // Nodes that took a journal the root had not finished (see `PathRead::ahead`).
            let mut ahead = BTreeSet::new();
            let mut missing = BTreeSet::new();
            // On the compact layout a path ends at its first entry of one key: the first
            // request reads the first FIRST_PATH_NODES nodes of each path, and a second the
            // rest of a path still on shared nodes there (keys of tiebreak columns, equal in
            // their first digits). Layout 2 counts along whole paths: one request.
            let first = if compact {
                FIRST_PATH_NODES
            } else {
                usize::MAX
            };
            let mut prefixes: BTreeSet<String> = keys
                .iter()
                .flat_map(|k| path_nodes(k).take(first))
                .collect();
            let mut read = BTreeSet::new();
            while !prefixes.is_empty() {
                let item_keys: Vec<Key> = prefixes
                    .iter()
                    .map(|p| node_key(id, generation, p))
                    .collect();
                cost.requests += 1;
                cost.items += item_keys.len() as u64;
                let mut found = self
                    .batch_get(&item_keys, "BatchGetItem(rank index path)")
                    .await?;
                for (prefix, key) in prefixes.iter().zip(&item_keys) {
                    match found.take(key) {
                        Some(item) => {
                            if item.number::<u64>(NODE_JOURNAL_ATTR) > Some(last) {
                                ahead.insert(prefix.clone());
                            }
                            let read = item_entries(&item);
                            nodes.insert(prefix.clone(), counters(&read));
                            entries.insert(prefix.clone(), read);
                        }
                        None => {
                            missing.insert(prefix.clone());
                            nodes.insert(prefix.clone(), Default::default());
                        }
                    }
                }
                read.append(&mut prefixes);
                prefixes = keys
                    .iter()
                    .flat_map(|k| unread_below_shared(k, &entries, &read))
                    .collect();
            }
            if keys.iter().any(|k| torn(k, &nodes, &ahead, &missing)) {
                root = self.root_item(id, cost).await?;
                continue;
            }
            let paths = keys
                .iter()
                .map(|k| {
                    let mut path = match compact {
                        false => PathRead::of(k, &nodes),
                        true => PathRead::of_compact(k, &entries),
                    };
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

    /// The index's root, read strongly consistent (an empty item when there is none).
    pub(crate) async fn root_item(
        &self,
        board: &BoardId,
        cost: &mut RankCost,
    ) -> Result<Item, StoreError> {
        cost.requests += 1;
        cost.items += 1;
        Ok(self.get_raw(&root_key(board)).await?.unwrap_or_default())
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
        Ok(lanes_for(&items, player, board.entry_generation))
    }
}

#[cfg(test)]
mod tests {
    use leaderboard_keys::ids::PlayerId;
    use leaderboard_keys::rank::{DEFAULT_MAX_SCORE, Order, RankKeySpec};

    use super::*;

    fn key() -> CountedKey {
        let spec = RankKeySpec::new(Order::Desc, DEFAULT_MAX_SCORE).unwrap();
        let player = PlayerId::parse("p1").unwrap();
        CountedKey::parse(&spec.score_sort_key(4_200, 1_000, &player).unwrap()).unwrap()
    }

    /// The path as read, with the node at `level` missing.
    fn read_without(key: &CountedKey, level: usize) -> (NodeCounters, BTreeSet<String>) {
        let layout = key.layout();
        let digits = key.digits();
        let mut nodes = NodeCounters::new();
        let mut missing = BTreeSet::new();
        for l in 0..layout.levels() {
            let prefix = layout.prefix(digits, l).to_owned();
            if l == level {
                missing.insert(prefix.clone());
                nodes.insert(prefix, Default::default());
            } else {
                let label = layout.label(digits, l).to_owned();
                nodes.insert(prefix, [(label, 1)].into());
            }
        }
        (nodes, missing)
    }

    #[test]
    fn a_missing_node_its_parent_counts_is_torn_unless_the_parent_is_ahead() {
        let key = key();
        let none = BTreeSet::new();
        for level in 1..key.layout().levels() {
            let (nodes, missing) = read_without(&key, level);
            assert!(torn(&key, &nodes, &none, &missing), "level {level}");
            // A parent that took a journal the root had not finished may count a node that
            // journal has not written yet.
            let parent = key.layout().prefix(key.digits(), level - 1).to_owned();
            let ahead = BTreeSet::from([parent.clone()]);
            assert!(!torn(&key, &nodes, &ahead, &missing), "level {level}");
            // A parent that counts no one there: nothing is missing.
            let mut empty = nodes.clone();
            empty.insert(parent, Default::default());
            assert!(!torn(&key, &empty, &none, &missing), "level {level}");
        }
        let (nodes, _) = read_without(&key, usize::MAX);
        assert!(!torn(&key, &nodes, &none, &BTreeSet::new()));
    }

    #[test]
    fn a_compact_path_goes_on_past_the_first_request_only_while_shared() {
        use leaderboard_keys::rank_index::compact::Entry;
        // score, a 7-digit column and a 3-digit one: a path of 13 levels
        let sk = "SCORE#0000004200#1234567#042#9999999998999#p1";
        let key = CountedKey::parse(sk).unwrap();
        let (layout, digits) = (key.layout(), key.digits());
        assert_eq!(layout.levels(), 13);
        let first: BTreeSet<String> = path_nodes(&key).take(FIRST_PATH_NODES).collect();
        // every node read shares the key's label with another key: the rest is needed
        let mut entries = CompactNodes::new();
        for level in 0..=FIRST_PATH_NODES {
            let label = layout.label(digits, level).to_owned();
            let node = [(label, Entry::counted(2))].into_iter().collect();
            entries.insert(layout.prefix(digits, level).to_owned(), node);
        }
        let rest = unread_below_shared(&key, &entries, &first);
        assert_eq!(
            rest,
            path_nodes(&key).skip(FIRST_PATH_NODES).collect::<Vec<_>>()
        );
        assert_eq!(rest.len(), 12 - FIRST_PATH_NODES);
        // a path that ends in what was read (an entry of one key at level 3) needs no more
        let level3 = layout.prefix(digits, 3).to_owned();
        let label3 = layout.label(digits, 3).to_owned();
        entries.insert(level3, [(label3, Entry::counted(1))].into_iter().collect());
        assert!(unread_below_shared(&key, &entries, &first).is_empty());
        // nor one whose root entry counts one key
        let mut lone = CompactNodes::new();
        let label0 = layout.label(digits, 0).to_owned();
        lone.insert(
            String::new(),
            [(label0, Entry::counted(1))].into_iter().collect(),
        );
        assert!(unread_below_shared(&key, &lone, &first).is_empty());
    }
}
