//! Step 2 of a rank read (`rank::lookup`): the *snapshot*, the nodes on the key's path below
//! the root, read in one strongly consistent `BatchGetItem` after the root (on the compact
//! layout the first [`FIRST_PATH_NODES`], and in a second request the rest of a longer path
//! only where it has not ended in those), from a hot board's copy of its index where the
//! process holds one (`rank::index_copy`). Read after the root, every node holds at least the
//! changes up to the root's watermarks; one that took a journal the root had not finished
//! holds more, and every such change is one the lanes (read last) count in the lag. A node
//! missing where its parent counts entries (a retired generation's deletion) makes the
//! snapshot be read again from a fresh root, at most [`GENERATION_ROUNDS`] times.

use std::collections::BTreeSet;
use std::sync::Arc;

use leaderboard_keys::entity::Key;
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank_index::compact::{CompactNodes, Entries};
use leaderboard_keys::rank_index::journal::NODE_JOURNAL_ATTR;
use leaderboard_keys::rank_index::{
    CountedKey, Counters, GENERATION_ATTR, NodeCounters, PathRead, Watermarks, node_key, root_key,
};

use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt};
use crate::ground::model::Board;
use crate::rank::apply::root_watermarks;
use crate::rank::compact::{is_compact, item_entries};
use crate::rank::count::RankCost;
use crate::rank::index_copy::IndexCopy;
use crate::rank::journal::root_last_journal;
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

impl Table {
    /// Step 2 for one key: see [`Table::paths_snapshot`]; with the process's `copy` of the
    /// board's index (its root is `root`), whose nodes stand for reads of them, and which
    /// keeps the nodes read; dropped (`None`) when found spoiled.
    pub(crate) async fn path_snapshot(
        &self,
        board: &Board,
        key: &CountedKey,
        root: Option<Item>,
        copy: &mut Option<Arc<IndexCopy>>,
        cost: &mut RankCost,
    ) -> Result<(PathRead, Watermarks, Item), StoreError> {
        let (mut paths, watermarks, root) = self
            .paths_snapshot_with(board, std::slice::from_ref(key), root, copy, cost)
            .await?;
        Ok((paths.remove(0), watermarks, root))
    }

    /// Step 2 for several keys of one board at once: the union of their path nodes (at most
    /// [`SNAPSHOT_NODES`]: see [`path_nodes`]) in one consistent `BatchGetItem`, read after
    /// `root` (the root as read by an earlier request; one `GetItem` first without it). So
    /// every node holds at least the changes up to the root's watermarks, and a node ahead of
    /// them holds only changes the lanes, read last, count in the lag (see `PathRead::ahead`).
    /// A node missing where its parent (the root, or a node not ahead) counts entries, which
    /// only a retired generation's deletion can do, makes the nodes be read again after a fresh
    /// read of the root. Whether a switch retired the root's generation before the nodes were
    /// read is for the caller to tell from the lanes it reads next (`lanes::switched_since`).
    /// With the root as used.
    pub(crate) async fn paths_snapshot(
        &self,
        board: &Board,
        keys: &[CountedKey],
        root: Option<Item>,
        cost: &mut RankCost,
    ) -> Result<(Vec<PathRead>, Watermarks, Item), StoreError> {
        self.paths_snapshot_with(board, keys, root, &mut None, cost)
            .await
    }

    /// The same, with the process's `copy` of the board's index, whose root `root` is: a
    /// node it holds is not read again, and one read is kept in it. A torn read drops it (and
    /// marks it spoiled for the process's other ranks) before reading afresh.
    async fn paths_snapshot_with(
        &self,
        board: &Board,
        keys: &[CountedKey],
        root: Option<Item>,
        copy: &mut Option<Arc<IndexCopy>>,
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
                // The copy's nodes first; the rest read (in one request) and kept in it.
                let mut held: Vec<(String, Option<Item>)> = Vec::new();
                let mut unread: Vec<&String> = Vec::new();
                for prefix in &prefixes {
                    match copy.as_ref().and_then(|c| c.node(prefix)) {
                        Some(node) => held.push((prefix.clone(), node)),
                        None => unread.push(prefix),
                    }
                }
                let item_keys: Vec<Key> =
                    unread.iter().map(|p| node_key(id, generation, p)).collect();
                if !item_keys.is_empty() {
                    cost.requests += 1;
                    cost.items += item_keys.len() as u64;
                }
                let mut found = self
                    .batch_get(&item_keys, "BatchGetItem(rank index path)")
                    .await?;
                for (prefix, key) in unread.into_iter().zip(&item_keys) {
                    let node = found.take(key);
                    if let Some(c) = copy.as_ref() {
                        c.keep_node(prefix, node.as_ref());
                    }
                    held.push((prefix.clone(), node));
                }
                for (prefix, node) in held {
                    match node {
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
                if let Some(c) = copy.take() {
                    c.spoil();
                }
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
