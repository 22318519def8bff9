//! Reading a rank index back from the table (layout 2, or 3 counted as layout 2 counts), for the tests of the store and of the
//! stream projector (included by path, so that both check the index the same way): the lanes as
//! stored, the counters and watermarks as stored, what they must be, built from the board's
//! entries, and the lanes' change log as the stream would carry it.
#![allow(dead_code)]

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use leaderboard_devkit::testing::{RawItem, TestTable};
use leaderboard_keys::entity;
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank_index::compact::{self, Entry};
use leaderboard_keys::rank_index::{self as rank_index, MAX_LANES};
use leaderboard_keys::rank_index::{
    CHANGE_ATTR, CountedKey, GENERATION_ATTR, LaneChange, Layout, NodeCounters, Watermarks, build,
};
use leaderboard_store::Store;

fn bid(s: &str) -> BoardId {
    BoardId::parse(s).unwrap()
}

fn pid(s: &str) -> PlayerId {
    PlayerId::parse(s).unwrap()
}

/// A lane's `written` and `chg` as stored: its item in the board's group, or else the one it
/// has apart (a board made before grouped lanes, not grouped since).
pub async fn lane(
    table: &TestTable,
    board: &str,
    lane: u8,
) -> (u64, Option<HashMap<String, AttributeValue>>) {
    let grouped = entity::grouped_lane(&bid(board), lane);
    let apart = entity::lane(&bid(board), lane);
    let item = match table.raw(&grouped.pk, &grouped.sk).await {
        Some(item) => item,
        None => table.raw(&apart.pk, &apart.sk).await.unwrap_or_default(),
    };
    let written = item
        .get("written")
        .map_or(0, |v| v.as_n().unwrap().parse().unwrap());
    let chg = item.get(CHANGE_ATTR).map(|v| v.as_m().unwrap().clone());
    (written, chg)
}

/// The index's counters and watermarks as stored: the root and the nodes of the generation it
/// names (`RANKV2#<board>#<generation>#<partition>` / `<prefix>`; zero counters left out, as
/// [`build`] does).
pub async fn stored_index(table: &TestTable, board: &str) -> (NodeCounters, Watermarks) {
    index_in(&table.dump().await, board)
}

/// [`stored_index`] in a dump of the table.
pub fn index_in(items: &[RawItem], board: &str) -> (NodeCounters, Watermarks) {
    // The root's partition also holds the journal items: the root is its `#ROOT` item.
    let root = rank_index::root_key(&bid(board));
    let root_pk = root.pk.clone();
    let is_root = |item: &RawItem| {
        *item["pk"].as_s().unwrap() == root.pk && *item["sk"].as_s().unwrap() == root.sk
    };
    let generation = items
        .iter()
        .find(|item| is_root(item))
        .and_then(|root| root.get(GENERATION_ATTR))
        .map_or("0", |g| g.as_n().unwrap().as_str())
        .to_owned();
    let node_pk = format!("{root_pk}#{generation}#");
    let compact = items
        .iter()
        .find(|item| is_root(item))
        .and_then(|root| root.get(compact::LAYOUT_ATTR))
        .is_some_and(|ly| ly.as_n().unwrap() == "3");
    let mut entries = compact::CompactNodes::new();
    let mut nodes = NodeCounters::new();
    let mut watermarks = Watermarks::default();
    for item in items {
        let pk = item["pk"].as_s().unwrap();
        let prefix = if is_root(item) {
            String::new()
        } else if pk.starts_with(&node_pk) {
            item["sk"].as_s().unwrap().clone()
        } else {
            continue;
        };
        for (attr, v) in item {
            let n = || v.as_n().unwrap().parse::<i64>().unwrap();
            if let (Some(label), true) = (attr.strip_prefix('r'), compact) {
                let rest = v.as_s().unwrap().clone();
                entries
                    .entry(prefix.clone())
                    .or_default()
                    .entry(label.to_owned())
                    .or_insert(Entry::counted(1))
                    .rest = Some(rest);
            } else if let (Some(label), true) = (attr.strip_prefix('c'), compact) {
                let e = entries
                    .entry(prefix.clone())
                    .or_default()
                    .entry(label.to_owned())
                    .or_insert(Entry::counted(0));
                e.count = n();
            } else if let Some(label) = attr.strip_prefix('c') {
                if n() != 0 {
                    nodes
                        .entry(prefix.clone())
                        .or_default()
                        .insert(label.to_owned(), n());
                }
            } else if let Some(lane) = attr.strip_prefix('w') {
                watermarks.0.insert(lane.parse().unwrap(), n() as u64);
            }
        }
    }
    if compact {
        // Layout 3: the live nodes, counted as layout 2 counts them.
        // The width of the entries it counts: a widening board has entries of two.
        // (A widened board's entries are in its generation's partitions: then every width is
        // tried, the rests naming the stored digits.)
        let layout = score_keys_in(items, board)
            .iter()
            .map(|sk| CountedKey::parse(sk).unwrap().layout())
            .chain((1..=18).map(Layout::new))
            .find(|l| fits(*l, &entries))
            .unwrap_or(Layout::new(10));
        entries.entry(String::new()).or_default();
        nodes = compact::expand(layout, &compact::live(layout, &entries));
    }
    (nodes, watermarks)
}

/// Whether compact `nodes` can be of keys laid out as `layout`: each node's prefix ends a
/// level, each label is that level's width and each rest ends the stored digits.
fn fits(layout: Layout, nodes: &compact::CompactNodes) -> bool {
    let starts: Vec<usize> = (0..=layout.levels())
        .map(|l| {
            let digits = "0".repeat(layout.stored_digits());
            if l == layout.levels() {
                digits.len()
            } else {
                layout.prefix(&digits, l).len()
            }
        })
        .collect();
    nodes.iter().all(|(prefix, entries)| {
        let Some(level) = starts.iter().position(|s| *s == prefix.len()) else {
            return false;
        };
        entries.iter().all(|(label, e)| {
            prefix.len() + label.len() == starts.get(level + 1).copied().unwrap_or(0)
                && e.rest
                    .as_ref()
                    .is_none_or(|r| prefix.len() + label.len() + r.len() == layout.stored_digits())
        })
    })
}

/// The counters built from the board's entries, and each lane's written count.
pub async fn expected_index(
    table: &TestTable,
    store: &Store,
    board: &str,
    players: &[String],
) -> (NodeCounters, Watermarks) {
    let mut keys = Vec::new();
    for p in players {
        if let Some(ptr) = store
            .listings()
            .entry_pointer(&bid(board), &pid(p))
            .await
            .unwrap()
        {
            keys.push(CountedKey::parse(&ptr.score_sk).unwrap());
        }
    }
    let mut written = Watermarks::default();
    for l in 0..MAX_LANES {
        let (w, _) = lane(table, board, l).await;
        if w > 0 {
            written.0.insert(l, w);
        }
    }
    (build(&keys), written)
}

/// [`expected_index`] from a dump of the table: the board's Score items and lanes as dumped
/// (for a board too large to read entry by entry).
pub fn expected_in(items: &[RawItem], board: &str) -> (NodeCounters, Watermarks) {
    let keys: Vec<CountedKey> = score_keys_in(items, board)
        .iter()
        .map(|sk| CountedKey::parse(sk).unwrap())
        .collect();
    let mut written = Watermarks::default();
    for l in 0..MAX_LANES {
        let find = |key: entity::Key| {
            items.iter().find(move |item| {
                *item["pk"].as_s().unwrap() == key.pk && *item["sk"].as_s().unwrap() == key.sk
            })
        };
        let lane = find(entity::grouped_lane(&bid(board), l))
            .or_else(|| find(entity::lane(&bid(board), l)));
        let w: u64 = lane
            .and_then(|item| item.get("written"))
            .map_or(0, |v| v.as_n().unwrap().parse().unwrap());
        if w > 0 {
            written.0.insert(l, w);
        }
    }
    (build(&keys), written)
}

/// The board's Score sort keys in a dump of the table.
pub fn score_keys_in(items: &[RawItem], board: &str) -> Vec<String> {
    let board_pk = entity::board_pk(&bid(board));
    items
        .iter()
        .filter(|item| *item["pk"].as_s().unwrap() == board_pk)
        .map(|item| item["sk"].as_s().unwrap().clone())
        .filter(|sk| sk.starts_with(entity::SCORE_PREFIX))
        .collect()
}

/// The Score sort keys in a dump of the table of a board of `shards` write shards, on every
/// shard.
pub fn sharded_score_keys_in(items: &[RawItem], board: &str, shards: u8) -> Vec<String> {
    let pks = entity::score_pks(&bid(board), shards);
    items
        .iter()
        .filter(|item| item["pk"].as_s().is_ok_and(|pk| pks.contains(pk)))
        .filter_map(|item| item["sk"].as_s().ok())
        .filter(|sk| sk.starts_with(entity::SCORE_PREFIX))
        .cloned()
        .collect()
}

/// The lanes' changes of a board, as their stream records carry them: read back from each lane
/// after every play (plays here are sequential, so each play's record is the lane as it left it).
#[derive(Default)]
pub struct ChangeLog {
    /// The changes, in the order the plays made them.
    pub changes: Vec<LaneChange>,
    seen: HashMap<u8, u64>,
}

impl ChangeLog {
    /// Logs the change the last play made on `lane_of_player`, if it made one.
    pub async fn after_play(&mut self, table: &TestTable, board: &str, lane_of_player: u8) {
        let (written, chg) = lane(table, board, lane_of_player).await;
        if written == self.seen.get(&lane_of_player).copied().unwrap_or(0) {
            return;
        }
        let chg = chg.expect("a v2 lane records its change");
        let key = |k: &str| {
            chg.get(k)
                .map(|v| CountedKey::parse(v.as_s().unwrap()).unwrap())
        };
        self.changes.push(LaneChange {
            lane: lane_of_player,
            seq: written,
            old: key("o"),
            new: key("n"),
            score: None,
            ..LaneChange::default()
        });
        self.seen.insert(lane_of_player, written);
    }
}

/// How many node items each generation of `board` has in the table.
pub async fn nodes_by_generation(
    table: &TestTable,
    board: &str,
) -> std::collections::BTreeMap<u64, usize> {
    let mut out = std::collections::BTreeMap::new();
    let nodes = format!("RANKV2#{board}#");
    for item in table.dump().await {
        if let Some(rest) = item["pk"].as_s().unwrap().strip_prefix(&nodes) {
            // A staged rebuild's scans (`STAGE`) are no generation's.
            if let Ok(generation) = rest.split('#').next().unwrap().parse() {
                *out.entry(generation).or_default() += 1;
            }
        }
    }
    out
}
