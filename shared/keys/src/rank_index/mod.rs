//! The rank index, the pure part: where a Score sort key is counted, what a batch of changes
//! does to the counters, and how a rank is read back from them. No I/O: the store writes what
//! [`fold`], [`chunk`] and [`journal`] say and reads what [`count_above`] and [`TailRange`]
//! need. Its items carry the layout's number, 2 (`rankLayout` on a board, `RANKV2#` in their
//! keys): boards stored before it are moved onto it by the store's migration.
//!
//! # Lanes and their change log
//! A board's written counts (`RANKSEQ#<board>#<lane>` / `#WRITTEN`, [`lanes_for`] of them, a player
//! always in the same one) are its *lanes*. The play that changes an entry already adds 1 to its
//! lane's `written`; on v2 it also sets the lane's `chg` to the change, `{o: old sort key, n: new
//! sort key}` (either absent for a first entry or a removal). DynamoDB Streams delivers one
//! item's records in order, and each record's new image carries `written` after the add, so a
//! lane's changes arrive numbered 1, 2, 3... ([`LaneChange`]). The index keeps, per lane, the
//! number of the last change it applied (its *watermark*, [`Watermarks`]): a change at or below
//! it was applied before, the next one is exactly one above, and a number further on is a *gap*
//! (a record lost or still to come) that stops the lane until it is filled. No per-player
//! marker, no read before the write.
//!
//! # One trie of counters per board
//! A sort key's *digits* are its ranked digits (its score, the board's width of 1 to 18
//! digits, then each tiebreak column's, [`crate::columns`]) and its 13 tiebreak digits
//! (inverted milliseconds). The trie stores the ranked digits and `STORED_TIME_DIGITS` of the
//! tiebreak: the node at a prefix holds one counter per child label (the next digits), sparse. The
//! score goes [`GROUP_DIGITS`] (2) digits a level, so a score node has at most 100 counters and
//! stays within one 1 KB write unit. The stored tiebreak goes [`TIME_LEVELS`] (4, 2, 2) digits a
//! level. Its first label is an 11.6-day window (10^9 ms): one score's entries fall in few of
//! those (a year holds at most 33), so that node stays small too, while a key whose
//! score no other entry has costs one node fewer on its path than at 2 digits a level (paths
//! below the score are mostly a key's own, and each of their nodes is an item write per change).
//! Keys that share every stored digit form a *group*: one score within one
//! 10^[`TAIL_TIME_DIGITS`] ms window (100 s). At the default width (10 digits) a path is 8
//! nodes; at the widest (18), 12 ([`Layout`]); each column adds its digits / 2 levels.
//!
//! The level-0 node is the *root* ([`root_key`]): besides its counters it holds the lanes'
//! watermarks and the index's *generation*; the other nodes are keyed by generation
//! ([`node_key`]), so a rebuild can write a fresh generation beside the one in service and
//! switch in one write of the root.
//!
//! # Reading a rank
//! The entries above a key are those whose stored digits are greater (the counters of the
//! greater labels at every node on the key's path, [`count_above`]) plus those of its own group
//! whose sort key is greater, counted at read time by a capped Query of [`TailRange::above`]
//! (or of [`TailRange::below`], subtracted from the group's size, when the player is nearer its
//! bottom). How far behind the counters are is the sum over lanes of `written - watermark`
//! ([`lag`]). The order of a lookup's reads, and how they combine into a count and its lag, is
//! [`settle`]'s.

pub mod caps;
pub mod change;
pub mod compact;
mod fold;
pub mod journal;
pub mod lead;
mod read;
pub mod stage;
mod tally;

pub use fold::{Chunk, Fold, Gap, LaneChange, Watermarks, absorb, chunk, fold, lag, lanes_of};
pub use read::{LanesRead, PathRead, Settled, TailCount, TailSide, settle};
pub use tally::{Tally, differences};

use std::collections::BTreeMap;

use crate::KeyError;
pub use crate::bucket::bucket_of;
use crate::entity::{Key, SCORE_PREFIX};
use crate::ids::BoardId;
use crate::rank::TIEBREAK_DIGITS;

/// Score digits per trie level: a score node has at most 100 child labels.
pub const GROUP_DIGITS: usize = 2;
/// Tiebreak digits the trie does not store: a group spans 10^5 ms = 100 s of one score.
pub const TAIL_TIME_DIGITS: usize = 5;
/// Tiebreak digits the trie stores.
pub const STORED_TIME_DIGITS: usize = TIEBREAK_DIGITS as usize - TAIL_TIME_DIGITS;
/// The stored tiebreak digits' levels, by label width: an 11.6-day window, then 2.8 hours,
/// then 100 s.
pub const TIME_LEVELS: [usize; 3] = [4, 2, 2];
const _: () = assert!(TIME_LEVELS[0] + TIME_LEVELS[1] + TIME_LEVELS[2] == STORED_TIME_DIGITS);
/// Lanes of a board (its written counts) unless its write shards ask for more: every board
/// made before the count was kept on the board has this many ([`lanes_for`]).
pub const LANES: u8 = 10;
/// The most lanes a board has: one a write shard on a board of the most write shards, so no
/// lane of a hot board takes more of its plays than a write shard does.
pub const MAX_LANES: u8 = crate::entity::MAX_WRITE_SHARDS;
const _: () = assert!(
    MAX_LANES >= LANES && MAX_LANES < 100,
    "lane keys have two digits"
);
/// The attribute of a lane counting the changes made on it: its change numbers.
pub const WRITTEN_ATTR: &str = "written";
/// The attribute of a lane counting the entries created (a player's first entry on the board)
/// less those removed: summed over the board's lanes it is the board's number of entries,
/// exactly, whatever the index has applied.
pub const CREATED_ATTR: &str = "created";

/// The lanes a board of `write_shards` is made with: [`LANES`], or one a write shard past
/// that. A play writes its player's lane (2 write units in its transaction, where its entry's
/// Score items take 4 on one write shard), so a hot board's busiest lane takes no larger a share
/// of its plays than its busiest write shard.
pub fn lanes_for(write_shards: u8) -> u8 {
    write_shards.clamp(LANES, MAX_LANES)
}

/// The lane (`0..lanes`) of a player's written counts on every board of `lanes` lanes.
pub fn lane_of(player: &str, lanes: u8) -> u8 {
    bucket_of(player, lanes)
}

/// The most keys a tail count reads before it gives up on being exact.
pub const TAIL_CAP: u64 = 1_000;

/// Counter deltas (or counts) of one node, by child label. Labels without one are absent.
pub type Counters = BTreeMap<String, i64>;

/// Counter deltas (or counts) of many nodes, by node prefix (`""` is the root).
pub type NodeCounters = BTreeMap<String, Counters>;

/// How a board's trie is laid out, from its ranked digits alone (writers and readers agree).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Ranked digits of the board: its score's and its tiebreak columns'
    /// ([`crate::rank::RankKeySpec::ranked_digits`]).
    pub ranked_digits: usize,
}

impl Layout {
    /// The layout of a board whose keys have `ranked_digits` digits before the tiebreak.
    pub fn new(ranked_digits: usize) -> Layout {
        Layout { ranked_digits }
    }

    /// Digits the trie stores: the ranked digits and [`STORED_TIME_DIGITS`] of the tiebreak.
    pub fn stored_digits(&self) -> usize {
        self.ranked_digits + STORED_TIME_DIGITS
    }

    /// Levels of the ranked digits: 5 at the default width without columns (the last one a
    /// single digit when their count is odd).
    fn ranked_levels(&self) -> usize {
        self.ranked_digits.div_ceil(GROUP_DIGITS)
    }

    /// Nodes on one path, the root included: 8 at the default width, 12 at the widest.
    pub fn levels(&self) -> usize {
        self.ranked_levels() + TIME_LEVELS.len()
    }

    /// Where the label of `level` starts in the digits (its node's prefix length); `levels()`
    /// gives the end of the stored digits.
    fn start(&self, level: usize) -> usize {
        let ranked_levels = self.ranked_levels();
        if level <= ranked_levels {
            return (level * GROUP_DIGITS).min(self.ranked_digits);
        }
        let time_levels = (level - ranked_levels).min(TIME_LEVELS.len());
        self.ranked_digits + TIME_LEVELS[..time_levels].iter().sum::<usize>()
    }

    /// The prefix of the node at `level` on the path of `digits`.
    pub fn prefix<'a>(&self, digits: &'a str, level: usize) -> &'a str {
        &digits[..self.start(level)]
    }

    /// The child label of `digits` in its node at `level`.
    pub fn label<'a>(&self, digits: &'a str, level: usize) -> &'a str {
        &digits[self.start(level)..self.start(level + 1)]
    }

    /// The (prefix, label) pairs of a key's path, root first.
    pub fn path<'a>(&self, digits: &'a str) -> impl Iterator<Item = (&'a str, &'a str)> + use<'a> {
        let layout = *self;
        (0..layout.levels()).map(move |l| (layout.prefix(digits, l), layout.label(digits, l)))
    }
}

/// A Score sort key as the index counts it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CountedKey {
    /// The whole sort key, `SCORE#<score>[#<column>...]#<tiebreak>#<playerId>`.
    pub sort_key: String,
    digits: String,
    /// Where the tiebreak starts in the sort key.
    tiebreak_at: usize,
}

/// The most digits of a tiebreak column's field (a `max` of 10^12).
const COLUMN_DIGITS: usize = 13;

impl CountedKey {
    /// Parses a Score sort key `SCORE#<score, 1 to 18 digits>#<13 digits>#<playerId>`, or one
    /// with up to [`crate::columns::MAX_COLUMNS`] tiebreak columns of 1 to 13 digits each
    /// between the score and the tiebreak. The score and the columns are its ranked digits:
    /// the index counts them alike.
    pub fn parse(sort_key: &str) -> Result<CountedKey, KeyError> {
        let bad = |why| KeyError::malformed(sort_key, why);
        let rest = sort_key
            .strip_prefix(SCORE_PREFIX)
            .ok_or_else(|| bad("not a Score sort key"))?;
        let (ranked, player) = rest
            .rsplit_once('#')
            .ok_or_else(|| bad("a Score sort key has three parts"))?;
        let (ranked, tie) = ranked
            .rsplit_once('#')
            .ok_or_else(|| bad("a Score sort key has three parts"))?;
        let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let mut digits = String::with_capacity(ranked.len() + tie.len());
        for (i, field) in ranked.split('#').enumerate() {
            if i > crate::columns::MAX_COLUMNS {
                return Err(bad("a Score sort key has at most two tiebreak columns"));
            }
            let most = if i == 0 { 18 } else { COLUMN_DIGITS };
            if !all_digits(field) || field.len() > most {
                return Err(bad(
                    "the score part must be 1 to 18 digits, a column's 1 to 13",
                ));
            }
            digits.push_str(field);
        }
        if !all_digits(tie) || tie.len() != TIEBREAK_DIGITS as usize {
            return Err(bad("the tiebreak part must be 13 digits"));
        }
        if player.is_empty() {
            return Err(bad("no player id"));
        }
        digits.push_str(tie);
        Ok(CountedKey {
            sort_key: sort_key.to_owned(),
            digits,
            tiebreak_at: SCORE_PREFIX.len() + ranked.len() + 1,
        })
    }

    /// The player whose entry it is (what follows the score and the tiebreak).
    pub fn player(&self) -> &str {
        &self.sort_key[self.tiebreak_at + TIEBREAK_DIGITS as usize + 1..]
    }

    /// The ranked digits (the score's and any columns') and the tiebreak's, without
    /// delimiters.
    pub fn digits(&self) -> &str {
        &self.digits
    }

    /// The tiebreak digits: when the score was attained, inverted (the larger, the earlier).
    pub fn tiebreak(&self) -> &str {
        &self.digits[self.digits.len() - TIEBREAK_DIGITS as usize..]
    }

    /// The layout of its board.
    pub fn layout(&self) -> Layout {
        Layout::new(self.digits.len() - TIEBREAK_DIGITS as usize)
    }

    /// The digits the trie stores: the key's group.
    pub fn group(&self) -> &str {
        &self.digits[..self.layout().stored_digits()]
    }

    /// The lane of its player on a board of `lanes` lanes: the written count whose change
    /// numbers order the player's changes.
    pub fn lane(&self, lanes: u8) -> u8 {
        lane_of(self.player(), lanes)
    }
}

/// The root of a board's index: `RANKV2#<boardId>` / `#ROOT` (2 is the layout's number).
pub fn root_key(board: &BoardId) -> Key {
    Key::new(format!("RANKV2#{board}"), "#ROOT")
}

/// How many partitions one generation's nodes are spread over, by a hash of their prefix: enough
/// that a busy board's index writes are spread (no partition takes more than its share), few
/// enough that a retired generation is listed by that many Queries ([`node_partition_pk`]).
pub const NODE_PARTITIONS: u8 = 100;

/// A node below the root: `RANKV2#<boardId>#<generation>#<partition 00-99>` / `<prefix>`.
pub fn node_key(board: &BoardId, generation: u64, prefix: &str) -> Key {
    let partition = bucket_of(prefix, NODE_PARTITIONS);
    Key::new(node_partition_pk(board, generation, partition), prefix)
}

/// The partition key of one of a generation's [`NODE_PARTITIONS`] node partitions.
pub fn node_partition_pk(board: &BoardId, generation: u64, partition: u8) -> String {
    format!("RANKV2#{board}#{generation}#{partition:02}")
}

/// A board's repair request: `RANKREPAIR` / `<boardId>`, written when a batch finds one of its
/// lanes stopped at a missing change, and read by the repair run (one partition, so that it
/// lists by Query; gaps are rare, so it takes few writes).
pub fn repair_key(board: &BoardId) -> Key {
    Key::new(REPAIR_PK, board.as_str())
}

/// The partition of the repair requests (a prefix of no other key: not `RANKV2#`, whose
/// partitions a board id names).
pub const REPAIR_PK: &str = "RANKREPAIR";

/// The attribute of a lane (a written count item) holding its latest change, `{o, n}`: the old
/// and new sort key, either absent (and `g`, the generation of entries they are keys of, when
/// not 0).
pub const CHANGE_ATTR: &str = "chg";

/// The attribute of a lane holding its latest change at a widening board's new width too
/// (`{o, n, g}` as [`CHANGE_ATTR`], of the generation the widening builds).
pub const WIDE_CHANGE_ATTR: &str = "chgw";

/// The root's attribute holding the generation of entries its counters count (absent: 0): a
/// widening's switch moves it with the board's, and a change is applied as keyed in it.
pub const ENTRY_GENERATION_ATTR: &str = "eg";

/// The attribute of a lane holding, while a live rebuild holds that lane's plays back, the
/// time (epoch milliseconds) at which the hold ends whatever happens to the rebuild.
pub const PAUSE_ATTR: &str = "pause";

/// The attribute set on a lane once its board's plays record their changes (`chg`). The
/// migration of a board stored before this layout sets it in the transaction that starts it,
/// and a play that read the board before then writes its lane on condition that it is absent,
/// so no play commits an unrecorded change after the start.
pub const LOGGED_ATTR: &str = "log";

/// The attribute of the root of a board being moved onto this layout: it counts nothing yet,
/// its watermarks only follow the lanes ([`absorb`]), until the rebuild's switch replaces it.
pub const MIGRATING_ATTR: &str = "mig";

/// The root's attribute holding the generation of the nodes below it.
pub const GENERATION_ATTR: &str = "g";

/// The attribute of a lane holding the generation the last rebuild's switch put in service,
/// written in the switch's transaction with the root. A rank read reads the root, then the
/// nodes of its generation, then the lanes; lanes holding a newer generation than that root's
/// say that a switch committed after the root was read, so that the deletion of the nodes'
/// generation may have started before they were read (the read starts again); lanes holding
/// that generation or an older one (or none) say that no switch committed between the root's
/// read and theirs, so that the nodes, read in between, were whole (a retired generation is
/// deleted only after its switch).
pub const LANE_GENERATION_ATTR: &str = "lg";

/// The root's attribute counting the generations builds have reserved: a build writes its
/// nodes under a generation no other build (finished, failed or running) ever used.
pub const RESERVED_ATTR: &str = "gn";

/// The counter attribute of child `label`.
pub fn count_attr(label: &str) -> String {
    format!("c{label}")
}

/// The watermark attribute of `lane` on the root.
pub fn watermark_attr(lane: u8) -> String {
    format!("w{lane}")
}

/// How many counted entries have stored digits greater than `key`'s, given the counters of the
/// nodes on its path (`nodes[prefix]`; a missing node counts nothing). Saturating: the counters
/// are stored numbers.
pub fn count_above(key: &CountedKey, nodes: &NodeCounters) -> i64 {
    use std::ops::Bound::{Excluded, Unbounded};
    let mut above = 0i64;
    for (prefix, label) in key.layout().path(key.digits()) {
        if let Some(counters) = nodes.get(prefix) {
            for (_, c) in counters.range::<str, _>((Excluded(label), Unbounded)) {
                above = above.saturating_add(*c);
            }
        }
    }
    above
}

/// How many counted entries share `key`'s group: the last node's counter of its label.
pub fn group_size(key: &CountedKey, nodes: &NodeCounters) -> i64 {
    let layout = key.layout();
    let last = layout.levels() - 1;
    let digits = key.digits();
    nodes
        .get(layout.prefix(digits, last))
        .and_then(|c| c.get(layout.label(digits, last)))
        .copied()
        .unwrap_or(0)
}

/// The sort-key ranges a tail count reads: the key's group, split at the key. Both ranges are
/// inclusive and contain the key itself, whose own item the count leaves out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TailRange {
    /// From the key to the top of its group: the group's entries ranked above it.
    pub above: (String, String),
    /// From the bottom of its group to the key: the group's entries ranked below it.
    pub below: (String, String),
}

impl TailRange {
    /// The ranges of `key`.
    pub fn of(key: &CountedKey) -> TailRange {
        // `SCORE#<score>[#<column>...]#<stored tiebreak digits>`: every key of the group
        // starts with it and goes on with a digit, so the prefix itself is below them all and
        // the prefix + ':' (the byte after '9') above them all.
        let group_prefix = &key.sort_key[..key.tiebreak_at + STORED_TIME_DIGITS];
        TailRange {
            above: (key.sort_key.clone(), format!("{group_prefix}:")),
            below: (group_prefix.to_owned(), key.sort_key.clone()),
        }
    }
}

/// Adds `delta` to every counter of `into`, dropping counters that reach zero.
pub fn add_counters(into: &mut NodeCounters, delta: &NodeCounters) {
    for (prefix, counters) in delta {
        let node = into.entry(prefix.clone()).or_default();
        add_node_counters(node, counters);
        if node.is_empty() {
            into.remove(prefix);
        }
    }
}

/// Adds `delta` to one node's `counters`, dropping counters that reach zero.
pub fn add_node_counters(counters: &mut Counters, delta: &Counters) {
    for (label, d) in delta {
        let c = counters.entry(label.clone()).or_insert(0);
        *c = c.saturating_add(*d);
        if *c == 0 {
            counters.remove(label);
        }
    }
}

/// The counters of an index built from `keys` (each counted once along its path).
pub fn build<'a>(keys: impl IntoIterator<Item = &'a CountedKey>) -> NodeCounters {
    let mut nodes = NodeCounters::new();
    for key in keys {
        fold::count_path(&mut nodes, key, 1);
    }
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(sk: &str) -> CountedKey {
        CountedKey::parse(sk).unwrap()
    }

    #[test]
    fn a_migrating_root_follows_each_lanes_latest_change_past_any_gap() {
        let change = |lane, seq| LaneChange {
            lane,
            seq,
            old: None,
            new: Some(key("SCORE#0000000010#8280899199999#p")),
            score: Some(10),
            ..LaneChange::default()
        };
        let at = Watermarks([(1, 4)].into_iter().collect());
        // lane 1: 3 and 4 are behind it, 7 is past a gap; lane 2: from nothing to 2
        let batch = [
            change(1, 3),
            change(1, 7),
            change(2, 2),
            change(1, 4),
            change(2, 1),
        ];
        let chunk = absorb(&at, &batch).unwrap();
        assert_eq!(
            chunk.advances,
            [(1, (4, 7)), (2, (0, 2))].into_iter().collect()
        );
        assert_eq!((chunk.changes, chunk.deltas.len()), (3, 0));
        assert_eq!(absorb(&at, &[change(1, 2), change(1, 4)]), None);
    }

    #[test]
    fn the_default_width_has_eight_levels_and_a_100_second_group() {
        let k = key("SCORE#0000009850#8280899199999#p_bob");
        let layout = k.layout();
        assert_eq!((layout.ranked_digits, layout.levels()), (10, 8));
        assert_eq!(k.group(), "000000985082808991");
        let path: Vec<_> = layout.path(k.digits()).collect();
        assert_eq!(path[0], ("", "00"));
        assert_eq!(path[4], ("00000098", "50"));
        // the tiebreak: an 11.6-day window, then 2.8 hours, then 100 s
        assert_eq!(path[5], ("0000009850", "8280"));
        assert_eq!(path[6], ("00000098508280", "89"));
        assert_eq!(path[7], ("0000009850828089", "91"));
        assert_eq!(Layout::new(18).levels(), 12);
        assert_eq!(Layout::new(1).levels(), 4);
        // an odd width ends its score in a one-digit label; the tiebreak levels are unchanged
        let odd = key("SCORE#123#8280899199999#p");
        let path: Vec<_> = odd.layout().path(odd.digits()).collect();
        assert_eq!(
            path,
            [
                ("", "12"),
                ("12", "3"),
                ("123", "8280"),
                ("1238280", "89"),
                ("123828089", "91")
            ]
        );
        // the labels of a path spell the group
        assert_eq!(
            path.iter().map(|(_, l)| *l).collect::<String>(),
            odd.group()
        );
    }

    #[test]
    fn tail_ranges_bound_the_group() {
        let k = key("SCORE#0000009850#8280899199999#p_bob");
        let t = TailRange::of(&k);
        assert_eq!(t.above.1, "SCORE#0000009850#82808991:");
        assert_eq!(t.below.0, "SCORE#0000009850#82808991");
        for other in [
            "SCORE#0000009850#8280899100000#a",
            "SCORE#0000009850#8280899199999#zz",
        ] {
            assert!(t.below.0.as_str() < other && other < t.above.1.as_str());
        }
        for outside in [
            "SCORE#0000009850#8280899200000#a",
            "SCORE#0000009850#8280899099999#a",
        ] {
            assert!(!(t.below.0.as_str() <= outside && outside <= t.above.1.as_str()));
        }
    }

    #[test]
    fn a_key_with_columns_counts_them_as_ranked_digits() {
        let k = key("SCORE#0000009850#957#00042#8280899199999#p_bob");
        assert_eq!(k.player(), "p_bob");
        assert_eq!(k.lane(LANES), lane_of("p_bob", LANES));
        assert_eq!(k.tiebreak(), "8280899199999");
        assert_eq!(k.layout().ranked_digits, 18);
        assert_eq!(k.layout().levels(), 12);
        assert_eq!(k.group(), "00000098509570004282808991");
        let t = TailRange::of(&k);
        assert_eq!(t.below.0, "SCORE#0000009850#957#00042#82808991");
        assert_eq!(t.above.1, "SCORE#0000009850#957#00042#82808991:");
        // another column value is another group, on the side its digits say
        let worse = "SCORE#0000009850#957#00041#8280899199999#p_a";
        assert!(worse < t.below.0.as_str());
        for bad in [
            "SCORE#0000009850#957#00042#1#8280899199999#p",
            "SCORE#0000009850#95x#8280899199999#p",
            "SCORE#0000009850##8280899199999#p",
            "SCORE#0000009850#12345678901234#8280899199999#p",
        ] {
            assert!(CountedKey::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn node_keys_carry_the_generation_and_spread_over_its_partitions() {
        let b = BoardId::parse("b1").unwrap();
        assert_eq!(root_key(&b), Key::new("RANKV2#b1", "#ROOT"));
        let key = node_key(&b, 3, "0012");
        assert_eq!(key.sk, "0012");
        let partition = bucket_of("0012", NODE_PARTITIONS);
        assert_eq!(key.pk, format!("RANKV2#b1#3#{partition:02}"));
        assert_eq!(key.pk, node_partition_pk(&b, 3, partition));
        // the prefixes of a level spread over (nearly) every partition
        let used: std::collections::BTreeSet<String> = (0..10_000)
            .map(|i| node_key(&b, 3, &format!("{i:04}")).pk)
            .collect();
        assert!(used.len() >= 95, "{}", used.len());
    }
}
