//! The compact layout (3): paths that stop at the first child holding one key.
//!
//! Layout 2 counts every key along its whole path, and below a score's first digits nearly
//! every key has its path to itself: a change writes each node of its old path and of its new
//! one that hold that key alone. Here a node's entry carries, beside its child's count, the one
//! key under it when the count is 1 (its *rest*: the stored digits after the label), and a node
//! is kept only while two keys or more share its prefix (it is *live*). A path ends at the
//! first entry of one: a key alone below its score's first digits costs no node of its own.
//!
//! Where layout 2 adds deltas blind, an apply here needs the nodes it touches, as they stand:
//! whether an entry of 1 gains a key (its node is put, holding both) or a live node keeps one
//! (it is *cleared*, and that one key becomes its parent's entry's rest). So an apply reads the
//! live nodes on its changes' paths level by level ([`reads_needed`]), then [`plan`]s each
//! node's writes: the entries it changes ([`NodeOp::Update`]), a whole node put
//! ([`NodeOp::Put`]), or a clear ([`NodeOp::Clear`]). A cleared node is kept as an item
//! without entries (with the journal that cleared it), never deleted: a late write of an
//! older journal finds the newer one and does nothing, and a reader that meets a node without
//! entries where its parent counts two keys knows it read the two at different journals
//! ([`super::PathRead::unplaced`]).
//!
//! Every write is absolute (the entry's count and rest as they become), computed from nodes
//! read at the root's last journal; the journal's conditional begin fails when anything moved
//! since, so a plan is only ever written from the state it was made on.

use std::collections::{BTreeMap, BTreeSet};

use super::{CountedKey, LaneChange, Layout, NodeCounters};

mod encode;
pub use encode::{decode_plan, encode_plan};

/// The root's attribute naming its layout: 3 for this one (absent: layout 2).
pub const LAYOUT_ATTR: &str = "ly";

/// The layout number of this one.
pub const COMPACT_LAYOUT: u8 = 3;

/// The attribute of the rest of the one key under child `label` (beside its count).
pub fn rest_attr(label: &str) -> String {
    format!("r{label}")
}

/// A node's entry for one child label: how many keys are under it, and when that is one key
/// above the last level, its stored digits after the label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Keys under the label.
    pub count: i64,
    /// The one key's digits after the label, when `count` is 1 and the label is not a group.
    pub rest: Option<String>,
}

impl Entry {
    /// An entry of `count` keys and no rest.
    pub fn counted(count: i64) -> Entry {
        Entry { count, rest: None }
    }
}

/// A node's entries by child label.
pub type Entries = BTreeMap<String, Entry>;

/// Nodes by prefix (`""` the root).
pub type CompactNodes = BTreeMap<String, Entries>;

/// The net change of the index's keys by group (score and stored tiebreak digits): +1 for a
/// key that comes, -1 for one that goes. Zero changes are absent.
pub type GroupDeltas = BTreeMap<String, i64>;

/// The net change `changes` make, by group.
pub fn group_deltas<'a>(changes: impl IntoIterator<Item = &'a LaneChange>) -> GroupDeltas {
    let mut deltas = GroupDeltas::new();
    for change in changes {
        let keys = [(&change.old, -1), (&change.new, 1)];
        for (key, sign) in keys {
            if let Some(key) = key {
                *deltas.entry(key.group().to_owned()).or_insert(0) += sign;
            }
        }
    }
    deltas.retain(|_, d| *d != 0);
    deltas
}

/// What one node's write does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeOp {
    /// The entries it changes, as they become (`None`: removed).
    Update(BTreeMap<String, Option<Entry>>),
    /// The whole node, put: it becomes live.
    Put(Entries),
    /// No entries: it holds one key or none from now on.
    Clear,
}

/// A journal's writes: the root's changed entries and each other node's write.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// The root's entries it changes.
    pub root: BTreeMap<String, Option<Entry>>,
    /// The other nodes' writes, by prefix.
    pub nodes: BTreeMap<String, NodeOp>,
}

/// The nodes read do not agree with each other or with the changes: a count that would go
/// negative, an entry of one without its key, a live node not read. The index is damaged, or
/// the nodes were read while a journal was under way (whose begin then fails anyway).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damaged(pub String);

/// The nodes still to read before `deltas` can be planned, given those read so far (`read`
/// holds the root at `""`, and every node read, one missing or cleared as no entries): the
/// next node on each changed group's path below an entry of two keys or more.
pub fn reads_needed(layout: Layout, deltas: &GroupDeltas, read: &CompactNodes) -> BTreeSet<String> {
    let mut needed = BTreeSet::new();
    for group in deltas.keys() {
        for level in 0..layout.levels() {
            let prefix = layout.prefix(group, level);
            let Some(node) = read.get(prefix) else {
                needed.insert(prefix.to_owned());
                break;
            };
            let live_below = level + 1 < layout.levels()
                && node
                    .get(layout.label(group, level))
                    .is_some_and(|e| e.count >= 2);
            if !live_below {
                break;
            }
        }
    }
    needed
}

/// The writes that take the nodes `read` (every one [`reads_needed`] asked for) to where
/// `deltas` puts them.
pub fn plan(layout: Layout, deltas: &GroupDeltas, read: &CompactNodes) -> Result<Plan, Damaged> {
    let mut planner = Planner {
        layout,
        deltas,
        read,
        nodes: BTreeMap::new(),
    };
    let root = planner.touched("", 0)?;
    Ok(Plan {
        root,
        nodes: planner.nodes,
    })
}

struct Planner<'a> {
    layout: Layout,
    deltas: &'a GroupDeltas,
    read: &'a CompactNodes,
    nodes: BTreeMap<String, NodeOp>,
}

/// The deltas of the groups under `prefix`.
fn under<'a>(deltas: &'a GroupDeltas, prefix: &str) -> impl Iterator<Item = (&'a String, &'a i64)> {
    let prefix = prefix.to_owned();
    deltas
        .range(prefix.clone()..)
        .take_while(move |(g, _)| g.starts_with(&prefix))
}

impl<'a> Planner<'a> {
    /// The live node at `prefix` (on `level`): the entries the deltas change, as they become,
    /// with the writes of the nodes below them.
    fn touched(
        &mut self,
        prefix: &str,
        level: usize,
    ) -> Result<BTreeMap<String, Option<Entry>>, Damaged> {
        let (read, layout) = (self.read, self.layout);
        let node = read
            .get(prefix)
            .ok_or_else(|| Damaged(format!("node {prefix:?} was not read")))?;
        let labels: BTreeSet<&str> = under(self.deltas, prefix)
            .map(|(g, _)| layout.label(g, level))
            .collect();
        let mut changed = BTreeMap::new();
        for label in labels {
            let after = self.entry(prefix, level, label, node.get(label))?;
            changed.insert(label.to_owned(), after);
        }
        Ok(changed)
    }

    /// Entry `label` of the node at `prefix` (on `level`), `before` as read: as it becomes.
    fn entry(
        &mut self,
        prefix: &str,
        level: usize,
        label: &str,
        before: Option<&Entry>,
    ) -> Result<Option<Entry>, Damaged> {
        let child = format!("{prefix}{label}");
        let count = before.map_or(0, |e| e.count);
        let after = count + under(self.deltas, &child).map(|(_, d)| d).sum::<i64>();
        if after < 0 {
            return Err(Damaged(format!("{child:?} would count {after}")));
        }
        if level + 1 == self.layout.levels() {
            // A group: a count, nothing below it.
            return Ok((after > 0).then(|| Entry::counted(after)));
        }
        if count >= 2 {
            return self.below_live(&child, level + 1, after);
        }
        // No node below: its keys are the one `before` holds, if any, and those that come.
        let mut keys = GroupDeltas::new();
        if count == 1 {
            let rest = before.and_then(|e| e.rest.as_ref()).ok_or_else(|| {
                Damaged(format!("{child:?} counts one key and does not say which"))
            })?;
            keys.insert(format!("{child}{rest}"), 1);
        }
        for (group, d) in under(self.deltas, &child) {
            *keys.entry(group.clone()).or_insert(0) += d;
        }
        keys.retain(|_, n| *n != 0);
        if keys.values().any(|n| *n < 0) {
            return Err(Damaged(format!(
                "a key under {child:?} goes that is not there"
            )));
        }
        let mut puts = CompactNodes::new();
        let entry = entry_of(self.layout, &child, level + 1, &keys, &mut puts);
        for (p, entries) in puts {
            self.nodes.insert(p, NodeOp::Put(entries));
        }
        Ok(entry)
    }

    /// The entry over the live node at `child` (on `level`), counting `after` keys once the
    /// deltas are in: the node updated, or cleared and its one key (if any) named.
    fn below_live(
        &mut self,
        child: &str,
        level: usize,
        after: i64,
    ) -> Result<Option<Entry>, Damaged> {
        let changed = self.touched(child, level)?;
        if after >= 2 {
            self.nodes.insert(child.to_owned(), NodeOp::Update(changed));
            return Ok(Some(Entry::counted(after)));
        }
        self.nodes.insert(child.to_owned(), NodeOp::Clear);
        if after == 0 {
            return Ok(None);
        }
        let read = self.read;
        let untouched = read[child]
            .iter()
            .filter(|(l, _)| !changed.contains_key(*l))
            .map(|(l, e)| (l.as_str(), e));
        let touched = changed
            .iter()
            .filter_map(|(l, e)| e.as_ref().map(|e| (l.as_str(), e)));
        let mut left = touched.chain(untouched);
        match (left.next(), left.next()) {
            (Some((label, e)), None) if e.count == 1 => Ok(Some(Entry {
                count: 1,
                rest: Some(format!("{label}{}", e.rest.as_deref().unwrap_or(""))),
            })),
            _ => Err(Damaged(format!(
                "{child:?} keeps one key and its entries do not say which"
            ))),
        }
    }
}

/// The entry over `prefix` (a node's prefix on `level`, or a group when `level` is the last)
/// holding `keys` (groups under it, with their counts): puts the live nodes it needs into
/// `puts`. `None` for no keys.
fn entry_of(
    layout: Layout,
    prefix: &str,
    level: usize,
    keys: &GroupDeltas,
    puts: &mut CompactNodes,
) -> Option<Entry> {
    let count: i64 = keys.values().sum();
    if count <= 0 {
        return None;
    }
    if level == layout.levels() {
        return Some(Entry::counted(count));
    }
    if count == 1 {
        let (group, _) = keys.iter().next()?;
        return Some(Entry {
            count,
            rest: Some(group[prefix.len()..].to_owned()),
        });
    }
    let entries = entries_of(layout, level, keys, puts);
    puts.insert(prefix.to_owned(), entries);
    Some(Entry::counted(count))
}

/// The entries of the live node on `level` holding `keys`, the nodes below it put into `puts`.
fn entries_of(
    layout: Layout,
    level: usize,
    keys: &GroupDeltas,
    puts: &mut CompactNodes,
) -> Entries {
    let mut by_label: BTreeMap<&str, GroupDeltas> = BTreeMap::new();
    for (group, n) in keys {
        by_label
            .entry(layout.label(group, level))
            .or_default()
            .insert(group.clone(), *n);
    }
    let mut entries = Entries::new();
    for (label, under) in by_label {
        let first = under.keys().next().map(String::as_str).unwrap_or_default();
        let child = layout.prefix(first, level + 1);
        if let Some(e) = entry_of(layout, child, level + 1, &under, puts) {
            entries.insert(label.to_owned(), e);
        }
    }
    entries
}

/// The live nodes of an index holding `keys`, the root (always there) at `""`.
pub fn build<'a>(keys: impl IntoIterator<Item = &'a CountedKey>) -> CompactNodes {
    let mut groups = GroupDeltas::new();
    let mut layout = None;
    for key in keys {
        layout.get_or_insert(key.layout());
        *groups.entry(key.group().to_owned()).or_insert(0) += 1;
    }
    let mut nodes = CompactNodes::new();
    let root = layout.map_or_else(Entries::new, |l| entries_of(l, 0, &groups, &mut nodes));
    nodes.insert(String::new(), root);
    nodes
}

/// Applies one node's write to its entries.
pub fn apply_op(entries: &mut Entries, op: &NodeOp) {
    match op {
        NodeOp::Update(changed) => update(entries, changed),
        NodeOp::Put(whole) => *entries = whole.clone(),
        NodeOp::Clear => entries.clear(),
    }
}

/// Sets each changed entry as it becomes (removing those that become `None`).
pub fn update(entries: &mut Entries, changed: &BTreeMap<String, Option<Entry>>) {
    for (label, after) in changed {
        match after {
            Some(e) => entries.insert(label.clone(), e.clone()),
            None => entries.remove(label),
        };
    }
}

/// Applies a whole plan to `nodes` (a model of the stored index: cleared nodes stay, without
/// entries).
pub fn apply(nodes: &mut CompactNodes, plan: &Plan) {
    update(nodes.entry(String::new()).or_default(), &plan.root);
    for (prefix, op) in &plan.nodes {
        apply_op(nodes.entry(prefix.clone()).or_default(), op);
    }
}

/// The live nodes of a stored index (`stored` may hold cleared ones, and nodes put by
/// journals a later one cleared): those an entry of two keys or more leads to from the root.
pub fn live(layout: Layout, stored: &CompactNodes) -> CompactNodes {
    let mut out = CompactNodes::new();
    let mut next = vec![(String::new(), 0usize)];
    while let Some((prefix, level)) = next.pop() {
        let entries = stored.get(&prefix).cloned().unwrap_or_default();
        if level + 1 < layout.levels() {
            for (label, e) in &entries {
                if e.count >= 2 {
                    next.push((format!("{prefix}{label}"), level + 1));
                }
            }
        }
        out.insert(prefix, entries);
    }
    out
}

/// The counters layout 2 keeps for the same keys: each live node's counts, and below each
/// entry of one the whole path of its key. For checks against the entries, which count by
/// layout 2's nodes.
pub fn expand(layout: Layout, live: &CompactNodes) -> NodeCounters {
    let mut full = NodeCounters::new();
    for (prefix, entries) in live {
        let Some(level) = (0..layout.levels()).find(|l| layout.start(*l) == prefix.len()) else {
            continue;
        };
        for (label, e) in entries {
            if e.count == 0 {
                continue;
            }
            full.entry(prefix.clone())
                .or_default()
                .insert(label.clone(), e.count);
            let Some(rest) = e.rest.as_deref().filter(|_| e.count == 1) else {
                continue;
            };
            let group = format!("{prefix}{label}{rest}");
            if group.len() != layout.stored_digits() {
                continue;
            }
            for below in level + 1..layout.levels() {
                *full
                    .entry(layout.prefix(&group, below).to_owned())
                    .or_default()
                    .entry(layout.label(&group, below).to_owned())
                    .or_insert(0) += 1;
            }
        }
    }
    full
}

#[cfg(test)]
mod tests;
