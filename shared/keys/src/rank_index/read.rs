//! Reading a rank from a v2 index, the pure part: what a snapshot of the root and a key's path,
//! the capped count of the key's group and the lanes say together about the entries above the
//! key, and how far that can be off. No I/O: the store reads, in this order,
//!
//! 1. the player's entry pointer and the root (the key, the generation of its nodes and the
//!    watermarks the answer starts from);
//! 2. the **snapshot**: the nodes on the key's path, read after the root, so each holds at
//!    least the changes up to the root's watermarks, and may hold later ones ([`PathRead`]);
//! 3. the **tail**, only when the snapshot's group holds other players' entries as far as it
//!    can tell ([`TailSide::for_key`]): a capped count of the group's keys above the key, or
//!    below it;
//! 4. the **lanes** (written counts and each lane's latest change), after the other reads: read
//!    last they include every change the snapshot or the tail can have missed or held past the
//!    root's watermarks.
//!
//! [`settle`] then gives the count above and the lag. Each change the snapshot misses moves one
//! entry, so it moves the count by at most one: the lag is Σ over lanes of `written -
//! watermark`, plus what the tail left uncounted. The player's own change is left out of the
//! lag when it is the only one its lane has pending: the lane's latest change then *is* it, so
//! the key the index still holds for the player (its old key) is known and taken out of the
//! count exactly, unless a path node is ahead of the root (a journal under way may have moved
//! it already). A player who already played again is in the lag like anyone else.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::compact::CompactNodes;
use super::{CountedKey, LaneChange, NodeCounters, TAIL_TIME_DIGITS, Watermarks, count_above};

/// What the snapshot's path says about a key: entries counted in the groups above its group,
/// and in its group (the player's own entry included if the index holds it there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathRead {
    /// Entries counted in greater groups.
    pub above: i64,
    /// Entries counted in the key's group.
    pub group: i64,
    /// A node on the path took a journal the root has not finished ([`super::journal`]): the
    /// counters may hold changes the watermarks do not, the player's own among them.
    pub ahead: bool,
    /// On the compact layout, a node on the path had no entries where its parent counts two
    /// keys or more: the two were read at different journals, and the node holds one key or
    /// none that the path cannot place (above the key or not, in its group or not).
    pub unplaced: bool,
}

impl PathRead {
    /// The counts of `key`'s path in `nodes` (the snapshot's root and path nodes).
    pub fn of(key: &CountedKey, nodes: &NodeCounters) -> PathRead {
        PathRead {
            above: count_above(key, nodes),
            group: super::group_size(key, nodes),
            ahead: false,
            unplaced: false,
        }
    }

    /// The counts of `key`'s path in the nodes of a compact index (`nodes`: the snapshot's
    /// root at `""` and the path's nodes as read, a missing one as no entries). The path ends
    /// at the first entry of one key (above the key, in its group or below it, by its rest), or
    /// of none.
    pub fn of_compact(key: &CountedKey, nodes: &CompactNodes) -> PathRead {
        let layout = key.layout();
        let digits = key.group();
        let mut path = PathRead {
            above: 0,
            group: 0,
            ahead: false,
            unplaced: false,
        };
        for level in 0..layout.levels() {
            let entries = nodes.get(layout.prefix(digits, level));
            let Some(entries) = entries.filter(|e| level == 0 || !e.is_empty()) else {
                path.unplaced = true;
                break;
            };
            let label = layout.label(digits, level);
            use std::ops::Bound::{Excluded, Unbounded};
            for (_, e) in entries.range::<str, _>((Excluded(label), Unbounded)) {
                path.above = path.above.saturating_add(e.count);
            }
            let Some(entry) = entries.get(label) else {
                break;
            };
            if level + 1 == layout.levels() {
                path.group = entry.count;
            } else if entry.count == 1 {
                let rest = &digits[layout.prefix(digits, level + 1).len()..];
                match entry.rest.as_deref().map(|r| r.cmp(rest)) {
                    Some(Ordering::Greater) => path.above += 1,
                    Some(Ordering::Equal) => path.group = 1,
                    Some(Ordering::Less) => {}
                    // An entry of one that does not say which: not placed.
                    None => path.unplaced = true,
                }
            } else if entry.count >= 2 {
                continue;
            }
            break;
        }
        path
    }
}

/// Which side of the key a tail count reads ([`super::TailRange`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailSide {
    /// From the key to the top of its group: the count is the group's entries above the key.
    Above,
    /// From the bottom of its group to the key: the count is subtracted from the group.
    Below,
}

impl TailSide {
    /// The side to count for `key`, or `None` when the count would place no one. On a lookup
    /// the group's one entry is most likely the player's own, so a group of one is not counted
    /// (were it another player's, [`settle`] puts it in the lag). Right after the player's play
    /// (`just_played`) the index most likely does not hold the key yet, so a group of one is
    /// another player and is counted. The side is the one nearer the key, judged from the
    /// tiebreak digits the trie does not store: a key late in its 100 s window sorts near the
    /// group's bottom.
    pub fn for_key(key: &CountedKey, path: &PathRead, just_played: bool) -> Option<TailSide> {
        if path.group < 2 - i64::from(just_played) {
            return None;
        }
        let digits = key.digits();
        let unstored = &digits[key.layout().stored_digits()..];
        // The unstored tiebreak digits: larger sorts higher within the group.
        let half = 10u64.pow(TAIL_TIME_DIGITS as u32) / 2;
        match unstored.parse::<u64>().unwrap_or(0).cmp(&half) {
            Ordering::Less => Some(TailSide::Below),
            _ => Some(TailSide::Above),
        }
    }
}

/// A tail count: the other players' entries on one side of the key within its group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TailCount {
    /// The side counted.
    pub side: TailSide,
    /// Entries counted (the player's own left out).
    pub counted: u64,
    /// The count reached the group's end (it was not capped).
    pub complete: bool,
}

/// The lanes as read after the snapshot and the tail.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LanesRead {
    /// Each lane's written count.
    pub written: BTreeMap<u8, u64>,
    /// The player's lane.
    pub own_lane: u8,
    /// The latest change of the player's lane (its `chg`, numbered by its written count).
    pub own_latest: Option<LaneChange>,
}

/// A rank's count as a v2 index answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settled {
    /// Entries of other players above the key (never negative: see `negative`).
    pub above: u64,
    /// How far `above` may be off: changes committed before the lanes' read that the snapshot
    /// does not hold (the player's own left out when known), plus the group's entries the tail
    /// did not place.
    pub lag: u64,
    /// A counter read negative: the index is damaged, the answer is not exact whatever the lag.
    pub negative: bool,
}

impl Settled {
    /// The count is exact.
    pub fn exact(&self) -> bool {
        self.lag == 0 && !self.negative
    }
}

/// Where the player's own entry stands in the snapshot.
enum Own {
    /// Every change of the player's lane is applied: the index holds the key itself.
    Applied,
    /// The lane's one pending change is the player's, to the key: the index holds its old key.
    Pending(Option<CountedKey>),
    /// Not known: the player's lane has more than one change pending (all in the lag).
    Unknown,
}

/// The count above `key` (the player's current entry) and its lag, from the snapshot (`path`,
/// `watermarks`), the tail count if one was made, and the lanes read last.
pub fn settle(
    key: &CountedKey,
    path: &PathRead,
    watermarks: &Watermarks,
    tail: Option<&TailCount>,
    lanes: &LanesRead,
) -> Settled {
    let written = |lane: u8| lanes.written.get(&lane).copied().unwrap_or(0);
    let pending = written(lanes.own_lane).saturating_sub(watermarks.get(lanes.own_lane));
    let own = match &lanes.own_latest {
        _ if pending == 0 => Own::Applied,
        // A node ahead of the root may hold the new key already: the old one is not known to
        // be counted, so the change stays in the lag.
        Some(c)
            if pending == 1
                && !path.ahead
                && !path.unplaced
                && c.seq == written(lanes.own_lane)
                && c.new.as_ref() == Some(key) =>
        {
            Own::Pending(c.old.clone())
        }
        _ => Own::Unknown,
    };
    let mut lag = super::lag(watermarks, &lanes.written);
    let mut above = path.above;
    let mut group = path.group;
    if path.unplaced {
        match &own {
            // The node without entries is on the key's path and holds one key or none, while
            // the index holds the player's key at every journal from the root's on: that one
            // key is the player's.
            Own::Applied => group += 1,
            _ => lag = lag.saturating_add(1),
        }
    }
    // Whether the snapshot counts the player in the key's group.
    let own_in_group = match &own {
        Own::Applied => true,
        Own::Pending(old) => {
            lag = lag.saturating_sub(1);
            match old.as_ref().map(|o| o.group().cmp(key.group())) {
                // The old key is counted above the key's group: it is the player's.
                Some(Ordering::Greater) => {
                    above -= 1;
                    false
                }
                Some(Ordering::Equal) => true,
                _ => false,
            }
        }
        // Within the lag either way (the player's own change is in it).
        Own::Unknown => group > 0,
    };
    let others = group - i64::from(own_in_group);
    let negative = above < 0 || others < 0;
    let others = others.max(0) as u64;
    // The group's entries above the key, and how many of the group it left unplaced.
    let (in_group, unplaced) = match tail {
        None => (0, others),
        Some(t) => {
            let counted = match t.side {
                TailSide::Above => t.counted,
                TailSide::Below => others.saturating_sub(t.counted),
            };
            let unplaced = match (t.complete, t.side) {
                (true, _) => 0,
                // More than `counted` are above: at most the rest of the group.
                (false, TailSide::Above) => others.saturating_sub(t.counted),
                // More than `counted` are below: anywhere from none to `counted` above.
                (false, TailSide::Below) => counted,
            };
            (counted, unplaced)
        }
    };
    lag = lag.saturating_add(unplaced);
    Settled {
        above: (above.max(0) as u64).saturating_add(in_group),
        lag,
        negative,
    }
}
