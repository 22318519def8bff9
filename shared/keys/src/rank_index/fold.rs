//! A batch of lane changes folded into net counter deltas, and cut into journals.
//!
//! [`fold`] keeps, lane by lane, the changes right after the lane's watermark (skipping those
//! at or below it, stopping at a gap), and nets them: -1 along the old key's path, +1 along the
//! new one's. A player who played five times in the batch, or two players who swapped places,
//! cost only the counters that really changed; the upper levels, shared by most paths, usually
//! net to little. [`chunk`] cuts the same changes into groups of a bounded number of touched
//! nodes, only between changes, each with the watermark advance of exactly the changes it
//! carries, so that each can be applied as one journal ([`super::journal`]) starting from the
//! watermarks the one before ended at.

use std::collections::{BTreeMap, BTreeSet};

use super::{CountedKey, NodeCounters, add_counters};

/// One change of a lane's log: the lane's `written` after the change (`seq`) and the entry's
/// sort key before and after (absent for a first entry, or a removed one).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaneChange {
    /// The lane (`0..LANES`).
    pub lane: u8,
    /// The change's number in its lane: 1, 2, 3...
    pub seq: u64,
    /// The entry's key before, if it had one.
    pub old: Option<CountedKey>,
    /// The entry's key after, unless it was removed.
    pub new: Option<CountedKey>,
    /// The entry's score after, when the play recorded it (`chg.s`; a change recorded before
    /// plays carried it has none): what `NewLeader` says without a read.
    pub score: Option<u64>,
    /// The generation of entries `old` and `new` are keys of (0 on a board never widened).
    pub generation: u64,
    /// On a widening board, the same change keyed at the new width, in generation
    /// `generation + 1`: its old key and its new one.
    pub wide: Option<(Option<CountedKey>, Option<CountedKey>)>,
}

impl LaneChange {
    /// The change as keyed in entry generation `generation` (what an index counting that
    /// generation applies): itself, or its keys at the new width; `None` when it has no keys
    /// of that generation.
    pub fn in_generation(&self, generation: u64) -> Option<LaneChange> {
        let (old, new) = if generation == self.generation {
            (self.old.clone(), self.new.clone())
        } else if Some(generation) == self.generation.checked_add(1) {
            self.wide.clone()?
        } else {
            return None;
        };
        Some(LaneChange {
            old,
            new,
            generation,
            wide: None,
            ..*self
        })
    }
}

/// The number of the last change applied, per lane (a lane never applied is at 0).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Watermarks(pub BTreeMap<u8, u64>);

impl Watermarks {
    /// The watermark of `lane`.
    pub fn get(&self, lane: u8) -> u64 {
        self.0.get(&lane).copied().unwrap_or(0)
    }

    fn set(&mut self, lane: u8, seq: u64) {
        self.0.insert(lane, seq);
    }
}

/// A lane stopped at a missing change: `expected` never came, `found` (the next one) did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    /// The lane.
    pub lane: u8,
    /// The change that is missing.
    pub expected: u64,
    /// The smallest change after it that the batch has.
    pub found: u64,
}

/// What a batch does to the index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fold {
    /// Net counter deltas, by node prefix (`""` the root); zero deltas are absent.
    pub deltas: NodeCounters,
    /// The watermarks once the deltas are written.
    pub watermarks: Watermarks,
    /// The changes that make the deltas, lane by lane in order.
    pub applied: Vec<LaneChange>,
    /// Changes at or below their lane's watermark (delivered again), or repeated in the batch.
    pub already_applied: usize,
    /// Lanes stopped at a gap; their changes after it are left for a later batch.
    pub gaps: Vec<Gap>,
}

/// Adds `sign` to the counter of `key`'s label at every node on its path.
pub(super) fn count_path(nodes: &mut NodeCounters, key: &CountedKey, sign: i64) {
    let mut delta = NodeCounters::new();
    for (prefix, label) in key.layout().path(key.digits()) {
        delta
            .entry(prefix.to_owned())
            .or_default()
            .insert(label.to_owned(), sign);
    }
    add_counters(nodes, &delta);
}

/// Adds what `change` does (-1 along the old path, +1 along the new) to `nodes`, times `sign`.
fn count_change(nodes: &mut NodeCounters, change: &LaneChange, sign: i64) {
    if let Some(old) = &change.old {
        count_path(nodes, old, -sign);
    }
    if let Some(new) = &change.new {
        count_path(nodes, new, sign);
    }
}

/// Folds `batch` (any order, repeats allowed) onto an index at `watermarks`.
pub fn fold(watermarks: &Watermarks, batch: &[LaneChange]) -> Fold {
    let mut lanes: BTreeMap<u8, BTreeMap<u64, &LaneChange>> = BTreeMap::new();
    let mut out = Fold {
        watermarks: watermarks.clone(),
        ..Fold::default()
    };
    for change in batch {
        let lane = lanes.entry(change.lane).or_default();
        if change.seq <= watermarks.get(change.lane) || lane.contains_key(&change.seq) {
            out.already_applied += 1;
        } else {
            lane.insert(change.seq, change);
        }
    }
    for (lane, changes) in lanes {
        let first = watermarks.get(lane).saturating_add(1);
        for (next, (seq, change)) in (first..).zip(changes) {
            if seq != next {
                out.gaps.push(Gap {
                    lane,
                    expected: next,
                    found: seq,
                });
                break;
            }
            count_change(&mut out.deltas, change, 1);
            out.applied.push(change.clone());
            out.watermarks.set(lane, seq);
        }
    }
    out
}

/// One journal's worth of a fold: its deltas (the root's included, under `""`), and the
/// watermark of every lane it advances, from (the condition) and to (the new value).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chunk {
    /// Net counter deltas, by node prefix.
    pub deltas: NodeCounters,
    /// Lane -> (watermark before, watermark after).
    pub advances: BTreeMap<u8, (u64, u64)>,
    /// How many changes it carries.
    pub changes: usize,
}

impl Chunk {
    /// Nodes it writes besides the root.
    pub fn nodes_below_root(&self) -> usize {
        self.deltas.keys().filter(|p| !p.is_empty()).count()
    }
}

/// Cuts `applied` (a fold's changes, lane by lane in order, starting right after `start`) into
/// chunks of at most `max_nodes` nodes below the root (more only for a single change, whose two
/// paths are never cut), cutting only between changes.
pub fn chunk(start: &Watermarks, applied: &[LaneChange], max_nodes: usize) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut at = start.clone();
    let mut current = Chunk::default();
    for change in applied {
        count_change(&mut current.deltas, change, 1);
        if current.nodes_below_root() > max_nodes && current.changes > 0 {
            count_change(&mut current.deltas, change, -1);
            chunks.push(std::mem::take(&mut current));
            count_change(&mut current.deltas, change, 1);
        }
        let from = at.get(change.lane);
        current
            .advances
            .entry(change.lane)
            .or_insert((from, from))
            .1 = change.seq;
        at.set(change.lane, change.seq);
        current.changes += 1;
    }
    if current.changes > 0 {
        chunks.push(current);
    }
    chunks
}

/// A batch onto the root of a board being moved onto this layout ([`super::MIGRATING_ATTR`]),
/// which counts nothing until its rebuild switches: each lane's watermark only follows its
/// latest change (a missing one included: no counter can be wrong), so that the switch knows
/// which changes the scan it settled on has not seen. One chunk, without deltas; `None` when
/// no change is after its lane's watermark.
pub fn absorb(watermarks: &Watermarks, batch: &[LaneChange]) -> Option<Chunk> {
    let mut out = Chunk::default();
    for change in batch {
        let from = watermarks.get(change.lane);
        if change.seq > from {
            let advance = out.advances.entry(change.lane).or_insert((from, from));
            advance.1 = advance.1.max(change.seq);
            out.changes += 1;
        }
    }
    (out.changes > 0).then_some(out)
}

/// How many changes the index has not applied: per lane, its `written` count beyond its
/// watermark.
pub fn lag(watermarks: &Watermarks, written: &BTreeMap<u8, u64>) -> u64 {
    written
        .iter()
        .map(|(lane, count)| count.saturating_sub(watermarks.get(*lane)))
        .fold(0, u64::saturating_add)
}

/// The lanes a batch touches (for reading their watermarks).
pub fn lanes_of(batch: &[LaneChange]) -> BTreeSet<u8> {
    batch.iter().map(|c| c.lane).collect()
}
