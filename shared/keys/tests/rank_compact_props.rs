//! The compact layout against its model: journals planned from the nodes an apply reads,
//! their node writes landing in any order, keep the live nodes equal to the index built from
//! the entries at the root's watermarks, each write on a changed key's path; and a lookup that
//! reads the root at one journal and each of its path's nodes at any later moment (another
//! journal, or halfway through one) is within its lag of the truth.

use crate::common;

use std::collections::BTreeMap;

use common::{History, history, lookup_on, true_above};
use leaderboard_keys::rank_index::compact::{
    CompactNodes, Entries, apply_op, build, expand, group_deltas, live, plan, reads_needed, update,
};
use leaderboard_keys::rank_index::{CountedKey, Layout, PathRead, Watermarks};
use proptest::prelude::*;

/// The index as stored: the root, its watermarks and last journal; each node with the last
/// journal that wrote it (cleared ones stay, without entries).
#[derive(Debug, Clone, Default)]
struct Stored {
    root: Entries,
    watermarks: Watermarks,
    journal: u64,
    nodes: BTreeMap<String, (Entries, u64)>,
}

impl Stored {
    fn all(&self) -> CompactNodes {
        let mut all: CompactNodes = self
            .nodes
            .iter()
            .map(|(p, (e, _))| (p.clone(), e.clone()))
            .collect();
        all.insert(String::new(), self.root.clone());
        all
    }
}

fn layout_of(h: &History) -> Option<Layout> {
    let c = h.changes.first()?;
    c.new.as_ref().or(c.old.as_ref()).map(CountedKey::layout)
}

/// The entries after the first `n` changes.
fn keys_after(h: &History, n: usize) -> Vec<CountedKey> {
    let mut keys: BTreeMap<CountedKey, i64> = BTreeMap::new();
    for c in &h.changes[..n] {
        if let Some(o) = &c.old {
            *keys.entry(o.clone()).or_insert(0) -= 1;
        }
        if let Some(n) = &c.new {
            *keys.entry(n.clone()).or_insert(0) += 1;
        }
    }
    keys.into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, _)| k)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn journals_keep_the_live_nodes_built_and_lookups_within_their_lag(
        h in history(),
        sizes in prop::collection::vec(1usize..24, 1..40),
        order_seed in any::<u64>(),
        lookups in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), prop::collection::vec(any::<prop::sample::Index>(), 12)), 0..40),
    ) {
        let Some(layout) = layout_of(&h) else { return Ok(()) };
        let mut stored = Stored::default();
        // Every moment a reader can see: after each node write, and after each root write
        // (those are the ones a lookup starts from).
        let mut moments: Vec<Stored> = vec![stored.clone()];
        let mut finished: Vec<usize> = vec![0];
        let mut done = 0;
        let mut sizes = sizes.into_iter().cycle();
        while done < h.changes.len() {
            let end = (done + sizes.next().unwrap_or(1)).min(h.changes.len());
            let batch = &h.changes[done..end];
            let deltas = group_deltas(batch);
            // Read as an apply does: the root, then level by level.
            let mut read = CompactNodes::new();
            read.insert(String::new(), stored.root.clone());
            loop {
                let needed = reads_needed(layout, &deltas, &read);
                if needed.is_empty() {
                    break;
                }
                for p in needed {
                    let entries = stored.nodes.get(&p).map(|(e, _)| e.clone()).unwrap_or_default();
                    read.insert(p, entries);
                }
            }
            let planned = plan(layout, &deltas, &read);
            prop_assert!(planned.is_ok(), "{:?}", planned);
            let planned = planned.unwrap();
            // Every write is on a changed key's path.
            for prefix in planned.nodes.keys() {
                prop_assert!(deltas.keys().any(|g| g.starts_with(prefix.as_str())), "{} off every path", prefix);
            }
            // The node writes land in any order, then the root's.
            let journal = stored.journal + 1;
            let mut writes: Vec<_> = planned.nodes.iter().collect();
            let n = writes.len();
            for i in 0..n {
                let mixed = (order_seed ^ journal).wrapping_add(i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                writes.swap(i, (mixed % n as u64) as usize);
            }
            for (prefix, op) in writes {
                let node = stored.nodes.entry(prefix.clone()).or_default();
                apply_op(&mut node.0, op);
                node.1 = journal;
                moments.push(stored.clone());
            }
            update(&mut stored.root, &planned.root);
            for c in batch {
                stored.watermarks.0.insert(c.lane, c.seq);
            }
            stored.journal = journal;
            moments.push(stored.clone());
            finished.push(moments.len() - 1);
            done = end;
            // The live nodes are the index built from the entries the watermarks stand for.
            let keys = keys_after(&h, done);
            let live = live(layout, &stored.all());
            prop_assert_eq!(&live, &build(&keys));
            // And they count as layout 2's nodes do.
            prop_assert_eq!(expand(layout, &live), leaderboard_keys::rank_index::build(&keys));
        }
        // A lookup reads a root once its journal finished, then each node of its path at that
        // moment or any later one.
        let players: Vec<usize> = h.last.keys().copied().collect();
        if players.is_empty() {
            return Ok(());
        }
        for (who, start, later) in lookups {
            let player = *who.get(&players);
            let key = &h.last[&player];
            let at = *start.get(&finished);
            let root = &moments[at];
            let mut nodes = CompactNodes::new();
            nodes.insert(String::new(), root.root.clone());
            let mut ahead = false;
            for level in 1..layout.levels() {
                let prefix = layout.prefix(key.group(), level).to_owned();
                let moment = &moments[at + later[level].index(moments.len() - at)];
                if let Some((entries, journal)) = moment.nodes.get(&prefix) {
                    ahead |= *journal > root.journal;
                    nodes.insert(prefix, entries.clone());
                }
            }
            let mut path = PathRead::of_compact(key, &nodes);
            path.ahead = ahead;
            let s = lookup_on(&h, path, &root.watermarks, player, 1_000, false);
            let truth = true_above(&h, player);
            prop_assert!(!s.negative, "negative: {:?}", path);
            prop_assert!(s.above.abs_diff(truth) <= s.lag, "{} counted, {} true, lag {} ({:?})", s.above, truth, s.lag, path);
            // Read whole at the end, it is exact.
            let last = moments.last().unwrap();
            let s = lookup_on(&h, PathRead::of_compact(key, &last.all()), &last.watermarks, player, 1_000, false);
            prop_assert_eq!((s.above, s.lag), (truth, 0));
        }
    }
}
