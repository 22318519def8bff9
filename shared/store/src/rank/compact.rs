//! The compact layout (3) in the table ([`leaderboard_keys::rank_index::compact`] for the
//! layout and why its plans are exact): a node's entries as attributes (`c<label>` its count,
//! `r<label>` the rest of its one key), the apply's consistent reads of the live nodes its
//! changes touch, level by level, and a plan's node writes, each on condition that the node's
//! last journal is older, [`NODES_IN_FLIGHT`] at a time.

use aws_sdk_dynamodb::types::AttributeValue;
use futures::StreamExt;
use leaderboard_keys::entity::Key;
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank_index::compact::{
    self, COMPACT_LAYOUT, CompactNodes, Entries, Entry, GroupDeltas, LAYOUT_ATTR, NodeOp, Plan,
    reads_needed, rest_attr,
};
use leaderboard_keys::rank_index::journal::{NODE_JOURNAL_ATTR, ROOT_JOURNAL_ATTR};
use leaderboard_keys::rank_index::{
    CountedKey, GENERATION_ATTR, Layout, MIGRATING_ATTR, NodeCounters, count_attr, node_key,
};

use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt, key_item, n, s};
use crate::table::Table;
use crate::table::request::{Params, WithParams};

/// Node writes of one journal in flight at once (either layout): a journal's nodes are written
/// in `ceil(nodes / NODES_IN_FLIGHT)` round trips, whatever their number.
pub(crate) const NODES_IN_FLIGHT: usize = 32;

/// Whether `root` (as read; empty when there is none) is on the compact layout: it says so,
/// or it is fresh (no generation, no counters, no journal, not migrating), and a fresh index
/// starts on it. A root a rebuild switched in without saying so is on layout 2.
pub(crate) fn is_compact(root: &Item) -> bool {
    match root.number::<u64>(LAYOUT_ATTR) {
        Some(layout) => layout == u64::from(COMPACT_LAYOUT),
        None => {
            !root.contains_key(GENERATION_ATTR)
                && !root.contains_key(ROOT_JOURNAL_ATTR)
                && !root.contains_key(MIGRATING_ATTR)
                && item_entries(root).is_empty()
        }
    }
}

/// A node's (or the root's) entries as stored.
pub(crate) fn item_entries(item: &Item) -> Entries {
    let mut entries = Entries::new();
    for (name, value) in item {
        let Some(label) = name.strip_prefix('c') else {
            continue;
        };
        let (false, AttributeValue::N(count)) = (label.is_empty(), value) else {
            continue;
        };
        if !label.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let rest = item.string(&rest_attr(label)).map(str::to_owned);
        let count = count.parse().unwrap_or_default();
        entries.insert(label.to_owned(), Entry { count, rest });
    }
    entries
}

/// `item` with the attributes of `entries`.
pub(crate) fn with_entries(mut item: Item, entries: &Entries) -> Item {
    for (label, e) in entries {
        item.insert(count_attr(label), n(e.count));
        if let Some(rest) = &e.rest {
            item.insert(rest_attr(label), s(rest.clone()));
        }
    }
    item
}

/// The update of changed entries: `SET` of each count (and rest), `REMOVE` of each entry gone
/// and each rest no longer there, placeholders from `#e<i>`/`:e<i>`.
pub(crate) fn entry_updates(
    changed: &std::collections::BTreeMap<String, Option<Entry>>,
    mut params: Params,
) -> (Vec<String>, Vec<String>, Params) {
    let (mut sets, mut removes) = (Vec::new(), Vec::new());
    for (i, (label, after)) in changed.iter().enumerate() {
        params = params
            .name(format!("#ec{i}"), count_attr(label))
            .name(format!("#er{i}"), rest_attr(label));
        match after {
            None => removes.extend([format!("#ec{i}"), format!("#er{i}")]),
            Some(e) => {
                sets.push(format!("#ec{i} = :ec{i}"));
                params = params.value(format!(":ec{i}"), e.count);
                match &e.rest {
                    Some(rest) => {
                        sets.push(format!("#er{i} = :er{i}"));
                        params = params.value(format!(":er{i}"), rest.as_str());
                    }
                    None => removes.push(format!("#er{i}")),
                }
            }
        }
    }
    (sets, removes, params)
}

/// `SET a, b REMOVE c, d` of the parts there are.
pub(crate) fn update_expression(sets: &[String], removes: &[String]) -> String {
    let mut out = String::new();
    if !sets.is_empty() {
        out.push_str(&format!("SET {}", sets.join(", ")));
    }
    if !removes.is_empty() {
        out.push_str(&format!(" REMOVE {}", removes.join(", ")));
    }
    out.trim_start().to_owned()
}

impl Table {
    /// The live nodes `deltas` touch below `root` (its entries) in `generation`, read level by
    /// level: each round one consistent `BatchGetItem` per 100 nodes of the next level (at most
    /// one round a level). A node not stored reads as no entries. With the requests sent.
    pub(crate) async fn read_for_plan(
        &self,
        board: &BoardId,
        generation: u64,
        layout: Layout,
        root: Entries,
        deltas: &GroupDeltas,
    ) -> Result<(CompactNodes, u32), StoreError> {
        let mut read = CompactNodes::new();
        read.insert(String::new(), root);
        let mut requests = 0;
        loop {
            let needed = reads_needed(layout, deltas, &read);
            if needed.is_empty() {
                return Ok((read, requests));
            }
            let keys: Vec<Key> = needed
                .iter()
                .map(|p| node_key(board, generation, p))
                .collect();
            requests += keys.len().div_ceil(100) as u32;
            let mut found = self
                .batch_get_all(&keys, "BatchGetItem(rank index nodes to plan)")
                .await?;
            for (prefix, key) in needed.into_iter().zip(&keys) {
                let entries = found.take(key).map(|i| item_entries(&i));
                read.insert(prefix, entries.unwrap_or_default());
            }
        }
    }

    /// Each node write of journal `id`'s `plan`, once: an update of the entries it changes, or
    /// the node put whole (a put, or a clear: no entries), on condition that the node's last
    /// journal is older. A node that took it before is left as it is. The writes sent.
    pub(crate) async fn take_plan(
        &self,
        board: &BoardId,
        generation: u64,
        id: u64,
        plan: &Plan,
    ) -> Result<usize, StoreError> {
        let condition = "attribute_not_exists(#j) OR #j < :id";
        let writes = plan
            .nodes
            .iter()
            .filter(|(prefix, _)| !prefix.is_empty())
            .map(|(prefix, op)| {
                let key = node_key(board, generation, prefix);
                let params = Params::new().name("#j", NODE_JOURNAL_ATTR).value(":id", id);
                async move {
                    let sent = match op {
                        NodeOp::Update(changed) => {
                            let (mut sets, removes, params) = entry_updates(changed, params);
                            sets.push("#j = :id".to_owned());
                            self.update_request(&key, update_expression(&sets, &removes))
                                .condition_expression(condition)
                                .params(params)?
                                .send()
                                .await
                                .map(|_| ())
                                .map_err(|e| StoreError::sdk("UpdateItem(rank index node)", e))
                        }
                        NodeOp::Put(_) | NodeOp::Clear => {
                            let entries = match op {
                                NodeOp::Put(entries) => entries.clone(),
                                _ => Entries::new(),
                            };
                            let mut item = with_entries(key_item(&key), &entries);
                            item.insert(NODE_JOURNAL_ATTR.into(), n(id));
                            self.put_request(item)
                                .condition_expression(condition)
                                .params(params)?
                                .send()
                                .await
                                .map(|_| ())
                                .map_err(|e| StoreError::sdk("PutItem(rank index node)", e))
                        }
                    };
                    match sent {
                        Ok(()) => Ok(()),
                        // Taken before: by a crashed try of this journal, or another applier.
                        Err(StoreError::ConditionalCheckFailed) => Ok(()),
                        Err(e) => Err(e),
                    }
                }
            })
            .collect::<Vec<_>>();
        all_answered(writes).await
    }
}

/// Sends a journal's node writes, [`NODES_IN_FLIGHT`] at once: how many were sent. Every write
/// runs to its answer before a failure is reported, so that the retry has only the failed ones
/// left to write and a node write is never cut off in flight.
pub(crate) async fn all_answered(
    writes: Vec<impl Future<Output = Result<(), StoreError>>>,
) -> Result<usize, StoreError> {
    let sent = writes.len();
    let answers: Vec<Result<(), StoreError>> = futures::stream::iter(writes)
        .buffer_unordered(NODES_IN_FLIGHT)
        .collect()
        .await;
    answers.into_iter().collect::<Result<Vec<()>, _>>()?;
    Ok(sent)
}

/// Layout 2's counters as entries (counts without rests): what a layout-2 build puts.
pub(crate) fn layout_2_entries(nodes: NodeCounters) -> CompactNodes {
    nodes
        .into_iter()
        .map(|(prefix, counters)| {
            let entries = counters
                .into_iter()
                .map(|(label, count)| (label, Entry::counted(count)))
                .collect();
            (prefix, entries)
        })
        .collect()
}

/// The nodes a build of `keys` puts, the root's included: the compact layout's, or layout 2's.
pub(crate) fn built_nodes<'a>(
    keys: impl IntoIterator<Item = &'a CountedKey>,
    compact: bool,
) -> CompactNodes {
    match compact {
        true => compact::build(keys),
        false => layout_2_entries(leaderboard_keys::rank_index::build(keys)),
    }
}

/// The root's layout attribute for a compact root's finish: `SET #ly = :ly`.
pub(crate) fn layout_set(params: Params) -> (String, Params) {
    (
        "#ly = :ly".to_owned(),
        params
            .name("#ly", LAYOUT_ATTR)
            .value(":ly", u64::from(COMPACT_LAYOUT)),
    )
}
