//! The journal: an apply of the rank index whose node writes are single-item updates (one write
//! unit each, sent together) and still count every change exactly once.
//!
//! A generation's index keeps one journal item beside its root: the last journal written for it
//! (the store's `RANKV2#<board>` / `#JOURNAL#<generation>`). Journals are numbered 1, 2, 3...; the
//! root records the last one it *finished* (`last`). A journal numbered `last + 1` is *pending*.
//!
//! 1. **Begin**: fold the batch from the root's watermarks and write the first [`JOURNAL_NODES`]
//!    nodes' worth of it (whole changes) as journal `last + 1`, on condition that the journal
//!    item holds `last` (or nothing). The root's `last` only moves by finishing the journal the
//!    item holds, so that condition means the root still is where the fold started.
//! 2. **Nodes**: each node below the root takes its delta with one update conditioned on the
//!    node's last journal being older than this one ([`node_takes`]), which also records this
//!    one: a node updated twice, by a redelivery or by a second applier finishing the same
//!    journal, takes it once. The updates of one journal go out together.
//! 3. **Finish**: the root takes its own delta, the new watermarks and the journal's number, on
//!    condition that its `last` is the one before ([`Root::finish`]).
//!
//! An applier that finds a journal pending (its begin's condition failed on it) finishes it,
//! every node then the root, before it folds again. A journal is written only once the one
//! before it is finished, and finished only once every one of its nodes took it: so a node's last
//! journal only grows, and a late update of an older journal finds a newer one and does nothing.
//!
//! While a journal is pending, nodes may count changes the root's watermarks do not. Each such
//! change is a written change not yet applied, which the lag counts, and it moves a count by at
//! most one wherever its nodes stand: so an answer stays within its lag, provided the reader does
//! not also take the player's own pending change out of the count by hand (the node may already
//! have). A snapshot that sees a node ahead of the root ([`PathRead::ahead`](super::PathRead))
//! leaves the player's own change in the lag.

use std::collections::BTreeMap;

use super::compact::Plan;
use super::fold::LaneChange;
use super::{Counters, NodeCounters, Watermarks, add_node_counters, chunk, fold, root_key};
use crate::entity::Key;
use crate::ids::BoardId;

/// The most nodes below the root one journal carries: a journal of this many nodes is some
/// 20 KB (the item limit is 400 KB), and its node updates are one round of writes.
pub const JOURNAL_NODES: usize = 1_000;

/// The attribute of a node holding the last journal it took.
pub const NODE_JOURNAL_ATTR: &str = "j";

/// The attribute of the root holding the last journal it finished.
pub const ROOT_JOURNAL_ATTR: &str = "jl";

/// The journal item of `board`'s index generation `generation`, beside the root (each
/// generation numbers its journals from 1: a rebuild's switch writes a root without any).
pub fn journal_key(board: &BoardId, generation: u64) -> Key {
    Key::new(root_key(board).pk, format!("#JOURNAL#{generation}"))
}

/// A slice of a batch's fold, written once before any node takes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Journal {
    /// One more than the root's last journal when it was written.
    pub id: u64,
    /// The watermarks it starts from.
    pub from: Watermarks,
    /// The watermarks it ends at.
    pub to: Watermarks,
    /// The deltas of the nodes below the root, by prefix.
    pub nodes: NodeCounters,
    /// The root's deltas.
    pub root: Counters,
    /// How many changes it carries.
    pub changes: usize,
    /// On the compact layout, the writes planned from the nodes read (`nodes` and `root` then
    /// only bound which nodes it touches): see [`super::compact`].
    pub plan: Option<Plan>,
}

impl Journal {
    /// The journal numbered `id` of the first `max_nodes` nodes' worth of `batch` on an index
    /// at `from` (the store's is [`JOURNAL_NODES`]): `None` when the batch holds nothing past
    /// the watermarks (or only changes after a gap).
    pub fn begin(
        id: u64,
        from: &Watermarks,
        batch: &[LaneChange],
        max_nodes: usize,
    ) -> Option<Journal> {
        let folded = fold(from, batch);
        let mut first = chunk(from, &folded.applied, max_nodes).into_iter().next()?;
        let mut to = from.clone();
        for (lane, (_, seq)) in &first.advances {
            to.0.insert(*lane, *seq);
        }
        let root = first.deltas.remove("").unwrap_or_default();
        Some(Journal {
            id,
            from: from.clone(),
            to,
            nodes: first.deltas,
            root,
            changes: first.changes,
            plan: None,
        })
    }
}

impl Journal {
    /// The changes of `batch` this journal carries (past its starting watermark, up to its
    /// end), each once: what its changes do to the board's leader is decided from these.
    pub fn carried<'a>(&self, batch: &'a [LaneChange]) -> Vec<&'a LaneChange> {
        let mut carried: BTreeMap<(u8, u64), &LaneChange> = BTreeMap::new();
        for c in batch {
            if self.from.get(c.lane) < c.seq && c.seq <= self.to.get(c.lane) {
                carried.entry((c.lane, c.seq)).or_insert(c);
            }
        }
        carried.into_values().collect()
    }
}

/// What the journal item says, beside the root's last journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// No journal pending: the next is `last + 1`.
    Finished,
    /// The journal item holds `last + 1`: finish it before anything else.
    Pending,
    /// The root was read before the journal item moved on: read the root again.
    Stale,
}

/// What a journal item holding journal `item` (0: none) means to a root whose last journal is
/// `last`.
pub fn found(last: u64, item: u64) -> Found {
    if item <= last {
        Found::Finished
    } else if item == last + 1 {
        Found::Pending
    } else {
        Found::Stale
    }
}

/// Whether a journal item holding journal `item` (0: none) takes journal `id` (the begin's
/// condition): only the one after it, or any journal when the item is missing.
pub fn item_takes(item: Option<u64>, id: u64) -> bool {
    item.is_none_or(|item| item + 1 == id)
}

/// A node's part of an index as stored: its counters and the last journal it took (0: none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Node {
    /// Its counters, by child label.
    pub counters: Counters,
    /// The last journal it took.
    pub journal: u64,
}

/// The root as stored: its counters, the watermarks and the last journal finished.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Root {
    /// Its counters, by child label.
    pub counters: Counters,
    /// The last change applied, per lane.
    pub watermarks: Watermarks,
    /// The last journal finished.
    pub last: u64,
}

impl Root {
    /// Finishes `journal`, on condition that it is the one after the last: the root's deltas,
    /// the new watermarks, its number. Whether it did (if not, another applier did).
    pub fn finish(&mut self, journal: &Journal) -> bool {
        if self.last + 1 != journal.id {
            return false;
        }
        add_node_counters(&mut self.counters, &journal.root);
        self.watermarks = journal.to.clone();
        self.last = journal.id;
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
    add_node_counters(&mut node.counters, delta);
    node.journal = id;
    true
}

/// A journal's deltas as one string, the root's first: per node, how many leading digits its
/// prefix shares with the previous prefix, a `.`, the rest of it, a `=`, then its counters as
/// `label:delta` joined by `,`; nodes joined by `;`. Prefixes in order share most of their
/// digits (a path's nodes sort together), so a node takes some 15 bytes.
pub fn encode_deltas(root: &Counters, nodes: &NodeCounters) -> String {
    let mut out = String::new();
    let mut previous = "";
    for (prefix, counters) in std::iter::once(("", root)).chain(
        nodes
            .iter()
            .filter(|(p, _)| !p.is_empty())
            .map(|(p, c)| (p.as_str(), c)),
    ) {
        push_prefix(&mut out, previous, prefix);
        out.push('=');
        let pairs: Vec<String> = counters.iter().map(|(l, d)| format!("{l}:{d}")).collect();
        out.push_str(&pairs.join(","));
        previous = prefix;
    }
    out
}

/// Starts a node of a journal's string: `;` unless it is the first, then how many leading
/// digits its prefix shares with the one before, `.` and the rest of it.
pub(super) fn push_prefix(out: &mut String, previous: &str, prefix: &str) {
    let shared = previous
        .bytes()
        .zip(prefix.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    if !out.is_empty() {
        out.push(';');
    }
    out.push_str(&format!("{shared}.{}", &prefix[shared..]));
}

/// The prefix a node's head (what [`push_prefix`] wrote, without the `;`) names after
/// `previous`.
pub(super) fn read_prefix(head: &str, previous: &str) -> Option<String> {
    let (shared, rest) = head.split_once('.')?;
    Some(format!(
        "{}{rest}",
        previous.get(..shared.parse::<usize>().ok()?)?
    ))
}

/// The root's and the nodes' deltas [`encode_deltas`] wrote; `None` when `s` is not one.
pub fn decode_deltas(s: &str) -> Option<(Counters, NodeCounters)> {
    let mut nodes = NodeCounters::new();
    let mut previous = String::new();
    for entry in s.split(';') {
        let (head, counters) = entry.split_once('=')?;
        let prefix = read_prefix(head, &previous)?;
        let mut parsed = Counters::new();
        for pair in counters.split(',').filter(|p| !p.is_empty()) {
            let (label, delta) = pair.split_once(':')?;
            parsed.insert(label.to_owned(), delta.parse().ok()?);
        }
        nodes.insert(prefix.clone(), parsed);
        previous = prefix;
    }
    let root = nodes.remove("")?;
    Some((root, nodes))
}
