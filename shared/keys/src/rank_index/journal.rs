//! The journal: an apply of the rank index whose node writes are single-item updates (one write
//! unit each, sent together) and still count every change exactly once.
//!
//! A batch's fold is written first, whole, as the board's pending journal, on condition that
//! none is pending and that the index is at the watermarks the fold starts from. Then each node
//! below the root takes its delta with an update conditioned on the node's last journal being
//! older than this one ([`node_takes`]), which also records this one: a node updated twice, by a
//! redelivery or by a second applier finishing the same journal, takes it once. Last, the root
//! takes its own delta and the new watermarks and drops the journal, on condition that the
//! journal pending is still this one ([`Root::finish`]). An applier that finds a journal
//! pending finishes it (every node, then the root) before it folds anything of its own.
//!
//! Journal numbers go up by one per journal, and a journal is written only once the one before
//! it is finished, and finished only once every one of its nodes took it: so a node's last
//! journal only grows, and a late update of an older journal finds a newer one and does nothing.
//! While a journal is pending, a node may count changes the root's watermarks do not: each such
//! change is one of the lanes' written changes not yet applied, which the lag counts, so an
//! answer stays within its lag.

use super::fold::LaneChange;
use super::{Counters, NodeCounters, Watermarks, add_counters, fold};

/// A batch's net deltas, written once before any node takes them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Journal {
    /// One more than the last journal of the board.
    pub id: u64,
    /// The watermarks it starts from (its write's condition).
    pub from: Watermarks,
    /// The watermarks it ends at.
    pub to: Watermarks,
    /// The deltas of the nodes below the root, by prefix.
    pub nodes: NodeCounters,
    /// The root's deltas.
    pub root: Counters,
}

/// A node's part of an index as stored: its counters and the last journal it took (0: none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Node {
    /// Its counters, by child label.
    pub counters: Counters,
    /// The last journal it took.
    pub journal: u64,
}

/// The root as stored: its counters, the watermarks, the last journal finished, and the one
/// pending.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Root {
    /// Its counters, by child label.
    pub counters: Counters,
    /// The last change applied, per lane.
    pub watermarks: Watermarks,
    /// The last journal finished.
    pub last: u64,
    /// The journal written and not yet finished.
    pub pending: Option<Journal>,
}

impl Root {
    /// The journal of `batch` on this root: `None` when a journal is pending (finish it first)
    /// or when the batch holds nothing past the watermarks.
    pub fn begin(&self, batch: &[LaneChange]) -> Option<Journal> {
        if self.pending.is_some() {
            return None;
        }
        let mut folded = fold(&self.watermarks, batch);
        if folded.applied.is_empty() {
            return None;
        }
        let root = folded.deltas.remove("").unwrap_or_default();
        Some(Journal {
            id: self.last + 1,
            from: self.watermarks.clone(),
            to: folded.watermarks,
            nodes: folded.deltas,
            root,
        })
    }

    /// Writes `journal` as pending, on its condition: none pending, and the root at its `from`
    /// (so at its `id - 1`). Whether it was written.
    pub fn write(&mut self, journal: &Journal) -> bool {
        let fits = self.pending.is_none()
            && self.watermarks == journal.from
            && self.last + 1 == journal.id;
        if fits {
            self.pending = Some(journal.clone());
        }
        fits
    }

    /// Finishes `journal`, on condition that it is still the one pending: the root's deltas,
    /// the new watermarks, the journal dropped. Whether it did (if not, another applier did).
    pub fn finish(&mut self, journal: &Journal) -> bool {
        if self.pending.as_ref().is_none_or(|p| p.id != journal.id) {
            return false;
        }
        add_to(&mut self.counters, &journal.root);
        self.watermarks = journal.to.clone();
        self.last = journal.id;
        self.pending = None;
        true
    }
}

/// Whether a node whose last journal is `node_journal` takes journal `id` (the update's
/// condition): only a journal newer than its last.
pub fn node_takes(node_journal: u64, id: u64) -> bool {
    node_journal < id
}

/// The update of one node by journal `id`, if it takes it: its delta added, `id` recorded.
/// Whether it took it.
pub fn take(node: &mut Node, id: u64, delta: &Counters) -> bool {
    if !node_takes(node.journal, id) {
        return false;
    }
    add_to(&mut node.counters, delta);
    node.journal = id;
    true
}

/// Adds `delta` to `counters`, dropping counters that reach zero (as [`add_counters`] does).
fn add_to(counters: &mut Counters, delta: &Counters) {
    let mut node = NodeCounters::from([(String::new(), std::mem::take(counters))]);
    add_counters(
        &mut node,
        &NodeCounters::from([(String::new(), delta.clone())]),
    );
    *counters = node.remove("").unwrap_or_default();
}
