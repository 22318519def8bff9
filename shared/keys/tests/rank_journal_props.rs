//! The rank index's journal against its model: rival appliers that crash between any two
//! writes, fed redelivered and rebatched slices of the log, count every change once; at every
//! step the root counts exactly the changes up to its watermarks, each node those or those and
//! the pending journal's, and a lookup on what is stored is within its lag of the truth. So is
//! a lookup that reads the root first and its path's nodes some steps of the appliers later (a
//! consistent `BatchGetItem` after the root's read: its nodes may be any number of journals
//! ahead of that root).

use crate::common;

use std::collections::BTreeMap;

use common::{history, index_at, lookup_on, scrambled, true_above};
use leaderboard_keys::rank_index::journal::{
    Found, Journal, Node, Root, decode_deltas, encode_deltas, found, item_takes, take,
};
use leaderboard_keys::rank_index::{
    LaneChange, NodeCounters, PathRead, Watermarks, add_node_counters, build,
};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    #[test]
    fn a_journals_deltas_read_back_as_written(h in history(), max_nodes in 1usize..400) {
        let mut from = Watermarks::default();
        while let Some(j) = Journal::begin(1, &from, &h.changes, max_nodes) {
            let encoded = encode_deltas(&j.root, &j.nodes);
            prop_assert_eq!(decode_deltas(&encoded), Some((j.root.clone(), j.nodes.clone())));
            from = j.to;
        }
    }

    #[test]
    fn journals_count_every_change_once_through_crashes_redeliveries_rebatching_and_rivals(
        h in history(),
        cuts in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), any::<u64>()), 1..12),
        schedule in prop::collection::vec((0usize..3, 0u8..8, any::<prop::sample::Index>()), 0..600),
        max_nodes in 1usize..60,
    ) {
        prop_assume!(!h.changes.is_empty());
        // Deliveries: any slice of the log, in any order, again and again.
        let mut deliveries: Vec<Vec<LaneChange>> = cuts
            .iter()
            .map(|(a, b, seed)| {
                let (a, b) = (a.index(h.changes.len() + 1), b.index(h.changes.len() + 1));
                scrambled(&h.changes[a.min(b)..a.max(b)], *seed)
            })
            .collect();
        deliveries.reverse();
        let mut next = move || deliveries.pop().unwrap_or_default();
        let mut stored = Stored::default();
        let mut appliers: Vec<Applier> = (0..3).map(|_| Applier::new(next(), max_nodes)).collect();
        let players: Vec<usize> = h.last.keys().copied().collect();
        let mut settled = (Watermarks::default(), NodeCounters::new());
        let mut reader: Option<Reader> = None;
        for (who, action, pick) in schedule {
            let applier = &mut appliers[who];
            if action == 0 || matches!(applier.step, Step::Done) {
                // Crashed, or done: the next delivery, from the start.
                *applier = Applier::new(next(), max_nodes);
            } else {
                applier.advance(&mut stored);
            }
            // At every moment the root counts exactly the changes up to its watermarks; a node
            // that took the pending journal counts those and the journal's, any other node
            // exactly those.
            // (Built again only when the watermarks moved: most steps write a node.)
            if settled.0 != stored.root.watermarks {
                settled = (stored.root.watermarks.clone(), index_at(&h, &stored.root.watermarks));
            }
            let settled = &settled.1;
            prop_assert_eq!(&stored.root.counters, &settled.get("").cloned().unwrap_or_default());
            let pending = stored.pending();
            for (prefix, node) in &stored.nodes {
                let mut expected = settled.get(prefix).cloned().unwrap_or_default();
                if node.journal > stored.root.last {
                    let journal = pending.expect("a node ahead of the root with no journal pending");
                    prop_assert_eq!(node.journal, journal.id);
                    add_node_counters(&mut expected, &journal.nodes[prefix]);
                }
                prop_assert_eq!(&node.counters, &expected, "node {}", prefix);
            }
            // And a lookup of what is stored is within its lag of the truth.
            if !players.is_empty() {
                let player = *pick.get(&players);
                let s = lookup_on(&h, stored.path(&h.last[&player]), &stored.root.watermarks, player, 1_000, false);
                let truth = true_above(&h, player);
                prop_assert!(!s.negative);
                prop_assert!(s.above.abs_diff(truth) <= s.lag, "{} counted, {} true, lag {}", s.above, truth, s.lag);
                // The lookup under way waits, reads its nodes, or starts.
                match reader.take() {
                    None => reader = Some(Reader::start(*pick.get(&players), pick.index(8), &stored)),
                    Some(mut r) => match r.read(&h, &stored) {
                        Some(path) => {
                            // Against the index at the root's watermarks, its path counts are off
                            // by at most one per change journaled past them.
                            let at_root = PathRead::of(&h.last[&r.player], &index_at(&h, &r.root.watermarks));
                            let past = stored.item.as_ref().map_or(0, |j| past(&j.to, &r.root.watermarks));
                            prop_assert!(path.above.abs_diff(at_root.above) <= past, "mixed: above {} against {}, {} past", path.above, at_root.above, past);
                            prop_assert!(path.group.abs_diff(at_root.group) <= past, "mixed: group {} against {}, {} past", path.group, at_root.group, past);
                            let s = lookup_on(&h, path, &r.root.watermarks, r.player, 1_000, false);
                            let truth = true_above(&h, r.player);
                            prop_assert!(!s.negative);
                            prop_assert!(s.above.abs_diff(truth) <= s.lag, "mixed: {} counted, {} true, lag {}", s.above, truth, s.lag);
                        }
                        None => reader = Some(r),
                    },
                }
            }
        }
        // The stream delivers everything at last: the index is the one built from the entries.
        let mut last = Applier::new(h.changes.clone(), max_nodes);
        while !matches!(last.step, Step::Done) {
            last.advance(&mut stored);
        }
        prop_assert!(stored.pending().is_none());
        prop_assert_eq!(&stored.root.watermarks.0, &h.written);
        let mut index: NodeCounters = stored
            .nodes
            .iter()
            .filter(|(_, n)| !n.counters.is_empty())
            .map(|(p, n)| (p.clone(), n.counters.clone()))
            .collect();
        if !stored.root.counters.is_empty() {
            index.insert(String::new(), stored.root.counters.clone());
        }
        prop_assert_eq!(index, build(h.last.values()));
    }
}

/// A board's index as the journal's protocol stores it.
#[derive(Default)]
struct Stored {
    root: Root,
    /// The journal item: the last journal written.
    item: Option<Journal>,
    nodes: BTreeMap<String, Node>,
}

impl Stored {
    /// The journal pending, if one is.
    fn pending(&self) -> Option<&Journal> {
        let item = self.item.as_ref()?;
        (found(self.root.last, item.id) == Found::Pending).then_some(item)
    }

    /// What a lookup's snapshot of `key`'s path reads: see [`path_read`].
    fn path(&self, key: &leaderboard_keys::rank_index::CountedKey) -> PathRead {
        path_read(key, &self.root, &self.nodes)
    }
}

/// What a lookup reads of `key`'s path: `root`'s counters, the path's `nodes` as they are, and
/// whether one of them took a journal `root` had not finished.
fn path_read(
    key: &leaderboard_keys::rank_index::CountedKey,
    root: &Root,
    nodes: &BTreeMap<String, Node>,
) -> PathRead {
    let mut counters = NodeCounters::from([(String::new(), root.counters.clone())]);
    let mut ahead = false;
    for (prefix, _) in key.layout().path(key.digits()).skip(1) {
        if let Some(node) = nodes.get(prefix) {
            counters.insert(prefix.to_owned(), node.counters.clone());
            ahead |= node.journal > root.last;
        }
    }
    let mut path = PathRead::of(key, &counters);
    path.ahead = ahead;
    path
}

/// Changes numbered past `from` up to `to`, over every lane.
fn past(to: &Watermarks, from: &Watermarks) -> u64 {
    to.0.iter()
        .map(|(lane, n)| n.saturating_sub(from.0.get(lane).copied().unwrap_or(0)))
        .sum()
}

/// A lookup under way: the root as read first, then, some steps of the appliers later, the
/// nodes of the player's path all at once as they are then (one `BatchGetItem`).
struct Reader {
    player: usize,
    root: Root,
    /// Steps of the appliers before the nodes are read.
    wait: usize,
}

impl Reader {
    fn start(player: usize, wait: usize, stored: &Stored) -> Reader {
        Reader {
            player,
            root: stored.root.clone(),
            wait,
        }
    }

    /// One step later: once its wait is over, what the path says as read now beside the root
    /// read at the start.
    fn read(&mut self, h: &common::History, stored: &Stored) -> Option<PathRead> {
        if self.wait > 0 {
            self.wait -= 1;
            return None;
        }
        Some(path_read(&h.last[&self.player], &self.root, &stored.nodes))
    }
}

/// Where an applier is in the protocol: each step is one request.
enum Step {
    /// Read the root (consistent), fold the batch from it.
    ReadRoot,
    /// Write the journal on condition that the item holds the one before; on failure, the
    /// item's journal comes back with the error.
    Write(Journal),
    /// The journal's node updates from the `usize`-th on.
    Node(Journal, usize),
    /// The root's update on condition of its last journal.
    Finish(Journal),
    Done,
}

/// One delivery's applier.
struct Applier {
    batch: Vec<LaneChange>,
    max_nodes: usize,
    step: Step,
}

impl Applier {
    fn new(batch: Vec<LaneChange>, max_nodes: usize) -> Applier {
        Applier {
            batch,
            max_nodes,
            step: Step::ReadRoot,
        }
    }

    fn advance(&mut self, stored: &mut Stored) {
        self.step = match std::mem::replace(&mut self.step, Step::Done) {
            Step::ReadRoot => {
                let root = &stored.root;
                Journal::begin(root.last + 1, &root.watermarks, &self.batch, self.max_nodes)
                    .map_or(Step::Done, Step::Write)
            }
            Step::Write(j) => {
                if item_takes(stored.item.as_ref().map(|i| i.id), j.id) {
                    stored.item = Some(j.clone());
                    Step::Node(j, 0)
                } else {
                    match stored.item.clone() {
                        Some(item) if found(j.id - 1, item.id) == Found::Pending => {
                            Step::Node(item, 0)
                        }
                        _ => Step::ReadRoot,
                    }
                }
            }
            Step::Node(j, i) => match j.nodes.iter().nth(i) {
                Some((prefix, delta)) => {
                    take(stored.nodes.entry(prefix.clone()).or_default(), j.id, delta);
                    Step::Node(j, i + 1)
                }
                None => Step::Finish(j),
            },
            Step::Finish(j) => {
                stored.root.finish(&j);
                Step::ReadRoot
            }
            Step::Done => Step::Done,
        }
    }
}
