//! The rank index's pure part: how a Score sort key maps onto the counters that give its exact
//! rank without counting the entries above it.
//!
//! # The structure
//! A Score sort key is `SCORE#<score digits>#<13 tiebreak digits>#<playerId>`, and rank order
//! is descending byte order. Drop the two `#` and the key's *digits* (10 + 13 = 23 on a board of
//! the default width) are a fixed-width decimal number. The index is a trie over those digits,
//! [`GROUP_DIGITS`] (3) at a level, so a node has up to 1,000 children:
//!
//! - the node at `level` whose path is `prefix` (the first `3 * level` digits) holds one counter
//!   per child: `c<label>` = how many entries have digits starting with `prefix + label`;
//! - the last level's node also holds, per child, the set of player ids with exactly those
//!   digits (`t<label>`): ties to the millisecond, which rank by player id.
//!
//! The entries above a key are then: at every level, the entries under a sibling with a greater
//! label, plus the tied players with a greater id. That is one node per level
//! ([`Layout::levels`], 8 at the default width), never the entries themselves.
//!
//! # Write sharding
//! Every score change writes the root, so a busy board would have one hot item. The trie is
//! therefore split into [`Layout::node_shards`] independent tries (10 at the default width),
//! a player always in the same one ([`shard_of`]); a lookup reads the path in every shard and
//! sums. At 10,000 score changes per second no node item takes more than 1,000 writes per
//! second, however skewed the scores.
//!
//! # Knowing the index is exact
//! The submit path adds 1 to a *written* counter (one of [`WRITTEN_SHARDS`], by player) in the
//! same transaction as each entry change; the index adds the versions it applied to an
//! `applied` counter on the root node, in the same transaction as the node counters. When a
//! consistent snapshot (one `TransactGetItems`) shows the sums equal, every committed change is
//! in the counters read, and the rank is exact; otherwise the index is behind and the caller
//! counts. See [`Layout::lookup_items`] for what one lookup reads.

use std::collections::{BTreeMap, BTreeSet};

use crate::KeyError;
use crate::entity::SCORE_PREFIX;
use crate::rank::TIEBREAK_DIGITS;

/// Digits per trie level: a node has up to 10^3 children.
pub const GROUP_DIGITS: usize = 3;
/// How many counters the submit path's written count is spread over.
pub const WRITTEN_SHARDS: u8 = 10;
/// The most tries a board's index is split into.
pub const MAX_NODE_SHARDS: u8 = 10;
/// The most items one lookup may read: `TransactGetItems` takes at most 100.
pub const MAX_LOOKUP_ITEMS: usize = 100;
/// The counter attribute on a root node that sums the entry versions the index applied.
pub const APPLIED_ATTR: &str = "applied";
/// The counter attribute on a written-count item.
pub const WRITTEN_ATTR: &str = "written";
/// The counter of entries created (a player's first entry on the board) on a written-count
/// item: summed over the board's written counts it is the board's number of entries, exactly,
/// whatever the index has applied.
pub const CREATED_ATTR: &str = "created";

/// A Score sort key as the index sees it: its digits and its player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedKey {
    digits: String,
    score_digits: usize,
    player: String,
}

impl IndexedKey {
    /// Parses a Score sort key `SCORE#<score>#<13 digits>#<playerId>`.
    pub fn parse(score_sk: &str) -> Result<IndexedKey, KeyError> {
        let bad = |why| KeyError::malformed(score_sk, why);
        let rest = score_sk
            .strip_prefix(SCORE_PREFIX)
            .ok_or_else(|| bad("not a Score sort key"))?;
        let mut parts = rest.splitn(3, '#');
        let (Some(score), Some(tie), Some(player)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(bad("a Score sort key has three parts"));
        };
        let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !all_digits(score) || score.len() > 18 {
            return Err(bad("the score part must be 1 to 18 digits"));
        }
        if !all_digits(tie) || tie.len() != TIEBREAK_DIGITS as usize {
            return Err(bad("the tiebreak part must be 13 digits"));
        }
        if player.is_empty() {
            return Err(bad("no player id"));
        }
        let mut digits = String::with_capacity(score.len() + tie.len());
        digits.push_str(score);
        digits.push_str(tie);
        Ok(IndexedKey {
            digits,
            score_digits: score.len(),
            player: player.to_owned(),
        })
    }

    /// The digits: score and tiebreak, without the delimiters.
    pub fn digits(&self) -> &str {
        &self.digits
    }

    /// The player id.
    pub fn player(&self) -> &str {
        &self.player
    }

    /// The index layout of this key's board.
    pub fn layout(&self) -> Layout {
        Layout::for_score_digits(self.score_digits)
    }

    /// The path of the node at `level`: the first `3 * level` digits.
    pub fn prefix(&self, level: usize) -> &str {
        &self.digits[..(level * GROUP_DIGITS).min(self.digits.len())]
    }

    /// This key's child label in the node at `level`.
    pub fn label(&self, level: usize) -> &str {
        let lo = (level * GROUP_DIGITS).min(self.digits.len());
        let hi = (lo + GROUP_DIGITS).min(self.digits.len());
        &self.digits[lo..hi]
    }
}

/// How a board's index is laid out, from its width alone (writers and readers agree).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Trie levels: nodes on one path.
    pub levels: usize,
    /// Independent tries (write shards).
    pub node_shards: u8,
}

impl Layout {
    /// The layout of a board whose scores have `score_digits` digits.
    pub fn for_score_digits(score_digits: usize) -> Layout {
        let digits = score_digits + TIEBREAK_DIGITS as usize;
        let levels = digits.div_ceil(GROUP_DIGITS);
        // One lookup reads the pointer, the written counters and every path node of every
        // shard: keep that within one TransactGetItems.
        let room = MAX_LOOKUP_ITEMS - 1 - WRITTEN_SHARDS as usize;
        let node_shards = (room / levels).clamp(1, MAX_NODE_SHARDS as usize) as u8;
        Layout {
            levels,
            node_shards,
        }
    }

    /// Items one lookup reads: the entry pointer, the written counters, and the path in every
    /// shard (91 at the default width).
    pub fn lookup_items(&self) -> usize {
        1 + WRITTEN_SHARDS as usize + self.levels * self.node_shards as usize
    }
}

/// The shard (`0..shards`) a player's entries are counted in: FNV-1a of the id.
pub fn shard_of(player: &str, shards: u8) -> u8 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in player.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (h % u64::from(shards.max(1))) as u8
}

/// The counter attribute of child `label`.
pub fn count_attr(label: &str) -> String {
    format!("c{label}")
}

/// The tie-set attribute of child `label` (last level only).
pub fn ties_attr(label: &str) -> String {
    format!("t{label}")
}

/// A node's counters and tie sets, as read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeCounts {
    /// Entries per child label.
    pub counts: BTreeMap<String, i64>,
    /// Player ids per child label (last level).
    pub ties: BTreeMap<String, BTreeSet<String>>,
}

impl NodeCounts {
    /// Entries under children with a label greater than `label`.
    pub fn above(&self, label: &str) -> i64 {
        use std::ops::Bound::{Excluded, Unbounded};
        self.counts
            .range::<str, _>((Excluded(label), Unbounded))
            .fold(0, |sum, (_, c)| sum.saturating_add(*c))
    }

    /// Tied players of child `label` whose id is greater than `player`.
    pub fn ties_above(&self, label: &str, player: &str) -> i64 {
        use std::ops::Bound::{Excluded, Unbounded};
        self.ties.get(label).map_or(0, |set| {
            set.range::<str, _>((Excluded(player), Unbounded)).count() as i64
        })
    }
}

/// How many indexed entries rank above `key`, given the nodes on its path: `path[level]` holds
/// that level's node of every shard (missing nodes are empty).
pub fn count_above(key: &IndexedKey, path: &[Vec<NodeCounts>]) -> i64 {
    let last = path.len().saturating_sub(1);
    let mut above = 0i64;
    for (level, shards) in path.iter().enumerate() {
        let label = key.label(level);
        for node in shards {
            // Saturating: counters come from stored items, which a hand edit can make anything.
            above = node.above(label).saturating_add(above);
            if level == last {
                above = node.ties_above(label, key.player()).saturating_add(above);
            }
        }
    }
    above
}

/// What one score change does to one node: counter deltas per label, and tie-set changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeDelta {
    /// The node's level.
    pub level: usize,
    /// The node's path.
    pub prefix: String,
    /// Counter changes, by label (never zero).
    pub counts: BTreeMap<String, i64>,
    /// The label whose tie set gains the player.
    pub tie_add: Option<String>,
    /// The label whose tie set loses the player.
    pub tie_remove: Option<String>,
}

/// The node changes of replacing `old` (if any) by `new` (if any), both the same player's keys
/// on one board. Levels above the point where the two paths part are untouched (their counts
/// do not change); the result is ordered by level, old path before new.
pub fn deltas(
    old: Option<&IndexedKey>,
    new: Option<&IndexedKey>,
) -> Result<Vec<NodeDelta>, KeyError> {
    let layout = match (old, new) {
        (Some(o), Some(n)) => {
            if o.layout() != n.layout() || o.player != n.player {
                return Err(KeyError::malformed(
                    &n.digits,
                    "old and new entry are of different boards or players",
                ));
            }
            n.layout()
        }
        (Some(k), None) | (None, Some(k)) => k.layout(),
        (None, None) => return Ok(Vec::new()),
    };
    let last = layout.levels - 1;
    let mut nodes: BTreeMap<(usize, String), NodeDelta> = BTreeMap::new();
    for (key, sign) in [(old, -1i64), (new, 1i64)] {
        let Some(key) = key else { continue };
        for level in 0..layout.levels {
            let prefix = key.prefix(level).to_owned();
            let node = nodes
                .entry((level, prefix.clone()))
                .or_insert_with(|| NodeDelta {
                    level,
                    prefix,
                    ..NodeDelta::default()
                });
            let label = key.label(level).to_owned();
            *node.counts.entry(label.clone()).or_default() += sign;
            if level == last {
                if sign < 0 {
                    node.tie_remove = Some(label);
                } else {
                    node.tie_add = Some(label);
                }
            }
        }
    }
    Ok(nodes
        .into_values()
        .filter_map(|mut node| {
            node.counts.retain(|_, d| *d != 0);
            if node.tie_add.is_some() && node.tie_add == node.tie_remove {
                node.tie_add = None;
                node.tie_remove = None;
            }
            let empty =
                node.counts.is_empty() && node.tie_add.is_none() && node.tie_remove.is_none();
            (!empty).then_some(node)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(sk: &str) -> IndexedKey {
        IndexedKey::parse(sk).unwrap()
    }

    #[test]
    fn counts_from_hand_edited_items_saturate_instead_of_wrapping() {
        let k = key("SCORE#0000000005#8280899199999#p1");
        let huge = NodeCounts {
            counts: [("9".to_owned(), i64::MAX), ("8".to_owned(), i64::MAX)].into(),
            ties: BTreeMap::new(),
        };
        let path = vec![vec![huge.clone(), huge]; 3];
        assert_eq!(count_above(&k, &path), i64::MAX);
    }

    #[test]
    fn parses_the_contract_example() {
        let k = key("SCORE#0000009850#8280899199999#p_bob");
        assert_eq!(k.digits(), "00000098508280899199999");
        assert_eq!(k.player(), "p_bob");
        let layout = k.layout();
        assert_eq!(layout.levels, 8);
        assert_eq!(layout.node_shards, 10);
        assert_eq!(layout.lookup_items(), 91);
        assert_eq!(k.prefix(0), "");
        assert_eq!(k.label(0), "000");
        assert_eq!(k.prefix(3), "000000985");
        assert_eq!(k.label(7), "99");
    }

    #[test]
    fn lookups_fit_one_transact_get_at_every_width() {
        for w in 1..=18 {
            let l = Layout::for_score_digits(w);
            assert!(l.lookup_items() <= MAX_LOOKUP_ITEMS, "width {w}: {l:?}");
            assert!(l.node_shards >= 7, "width {w}: {l:?}");
        }
    }

    #[test]
    fn refuses_what_is_not_a_score_key() {
        for sk in [
            "FINAL#0000000001",
            "SCORE#1234567890123456789#8280899199999#p",
            "SCORE#0000009850#828089919999#p",
            "SCORE#00000x9850#8280899199999#p",
            "SCORE#0000009850#8280899199999#",
            "SCORE#0000009850#8280899199999",
        ] {
            assert!(IndexedKey::parse(sk).is_err(), "{sk}");
        }
    }

    #[test]
    fn a_change_within_one_subtree_leaves_the_levels_above() {
        let old = key("SCORE#0000009850#8280899199999#p_bob");
        let new = key("SCORE#0000009851#8280899100000#p_bob");
        let d = deltas(Some(&old), Some(&new)).unwrap();
        // The paths part at level 3 (digits 9..12: "0899" vs "1899"... label "082" vs "182").
        assert_eq!(d[0].level, 3);
        assert_eq!(d[0].counts.len(), 2);
        assert!(d.iter().all(|n| n.level >= 3));
        let first = deltas(None, Some(&new)).unwrap();
        assert_eq!(first.len(), 8);
        assert_eq!(first[7].tie_add.as_deref(), Some("00"));
    }

    #[test]
    fn shards_are_stable_and_in_range() {
        assert_eq!(shard_of("p_bob", 10), shard_of("p_bob", 10));
        let mut seen = BTreeSet::new();
        for i in 0..1000 {
            let s = shard_of(&format!("player-{i}"), 10);
            assert!(s < 10);
            seen.insert(s);
        }
        assert_eq!(seen.len(), 10);
    }
}
