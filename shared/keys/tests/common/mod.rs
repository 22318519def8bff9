//! What the rank index's property tests share: histories of plays on boards of every shape,
//! and the models they are checked against (the index holding a prefix of the log, the true
//! count above a player, a lookup settled from an index).

#![allow(dead_code)]

use std::collections::BTreeMap;

use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::rank::{MAX_TIEBREAK_MILLIS, Order, RankKeySpec};
use leaderboard_keys::rank_index::{
    CountedKey, LANES, LaneChange, LanesRead, NodeCounters, PathRead, Settled, TailCount, TailSide,
    Watermarks, fold, settle,
};
use proptest::prelude::*;

/// Boards of every shape: the widest (18 digits), the default, a narrow one; either order.
pub fn spec() -> impl Strategy<Value = RankKeySpec> {
    (
        prop_oneof![Just(Order::Desc), Just(Order::Asc)],
        prop_oneof![
            Just(9u64),
            Just(9_999_999_999),
            Just(999_999_999_999_999_999)
        ],
    )
        .prop_map(|(order, max)| RankKeySpec::new(order, max).unwrap())
}

/// A score and a time drawn so that ties (same score, same millisecond) and shared groups
/// (same score, same 100 s) are common, with some spread over the whole range.
pub fn score_and_time(max: u64) -> impl Strategy<Value = (u64, u64)> {
    let base = 1_767_225_600_000u64;
    (
        prop_oneof![3 => 0u64..4, 1 => 0..=max],
        prop_oneof![
            2 => (0u64..3).prop_map(move |t| base + t),
            2 => (0u64..400_000).prop_map(move |t| base + t),
            1 => 0..=MAX_TIEBREAK_MILLIS,
        ],
    )
        .prop_map(move |(s, t)| (s.min(max), t))
}

pub fn sort_key(spec: &RankKeySpec, player: usize, (score, ms): (u64, u64)) -> CountedKey {
    let p = PlayerId::parse(&format!("p{player}")).unwrap();
    CountedKey::parse(&spec.score_sort_key(score, ms, &p).unwrap()).unwrap()
}

/// A history of plays: each is a player and their new entry (`None`: the entry is removed).
#[derive(Debug, Clone)]
pub struct History {
    /// The changes, in the order they were written.
    pub changes: Vec<LaneChange>,
    /// Each player's entry at the end.
    pub last: BTreeMap<usize, CountedKey>,
    /// `written` of each lane at the end.
    pub written: BTreeMap<u8, u64>,
}

pub fn history() -> impl Strategy<Value = History> {
    spec().prop_flat_map(|spec| {
        let max = spec.max_score();
        prop::collection::vec(
            (0usize..24, prop::option::weighted(0.9, score_and_time(max))),
            0..160,
        )
        .prop_map(move |plays| {
            let mut last: BTreeMap<usize, CountedKey> = BTreeMap::new();
            let mut written: BTreeMap<u8, u64> = BTreeMap::new();
            let mut changes = Vec::new();
            for (player, entry) in plays {
                let new = entry.map(|e| sort_key(&spec, player, e));
                let old = last.get(&player).cloned();
                if old == new || (old.is_none() && new.is_none()) {
                    continue; // not a change of the entry: the play writes no lane
                }
                let lane = (player % LANES as usize) as u8;
                let seq = written.entry(lane).or_insert(0);
                *seq += 1;
                changes.push(LaneChange {
                    lane,
                    seq: *seq,
                    old: old.clone(),
                    new: new.clone(),
                    score: None,
                    ..LaneChange::default()
                });
                match new {
                    Some(k) => last.insert(player, k),
                    None => last.remove(&player),
                };
            }
            History {
                changes,
                last,
                written,
            }
        })
    })
}

/// A shuffle that keeps nothing in order: the stream's batches need not be sorted.
pub fn scrambled(changes: &[LaneChange], seed: u64) -> Vec<LaneChange> {
    let mut v = changes.to_vec();
    let n = v.len();
    for i in 0..n {
        let mixed = seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let j = (mixed.wrapping_mul(0x2545_f491_4f6c_dd1d) % n as u64) as usize;
        v.swap(i, j);
    }
    v
}

pub fn lane_of(player: usize) -> u8 {
    (player % LANES as usize) as u8
}

/// The index holding exactly the changes at or below `at`.
pub fn index_at(h: &History, at: &Watermarks) -> NodeCounters {
    let applied: Vec<LaneChange> = h
        .changes
        .iter()
        .filter(|c| c.seq <= at.get(c.lane))
        .cloned()
        .collect();
    fold(&Watermarks::default(), &applied).deltas
}

/// Other players' entries above `player`'s, in the history's final entries.
pub fn true_above(h: &History, player: usize) -> u64 {
    let key = &h.last[&player];
    h.last
        .iter()
        .filter(|(p, k)| **p != player && *k > key)
        .count() as u64
}

/// A lookup of `player` on the index at `at`: its path, the tail (capped at `cap`) read from
/// the final entries, the lanes at their written counts.
pub fn lookup(h: &History, at: &Watermarks, player: usize, cap: u64, just_played: bool) -> Settled {
    let path = PathRead::of(&h.last[&player], &index_at(h, at));
    lookup_on(h, path, at, player, cap, just_played)
}

/// A lookup of `player` whose snapshot read `path` under a root at `at`, settled as
/// [`lookup`] settles it.
pub fn lookup_on(
    h: &History,
    path: PathRead,
    at: &Watermarks,
    player: usize,
    cap: u64,
    just_played: bool,
) -> Settled {
    let key = &h.last[&player];
    let tail = TailSide::for_key(key, &path, just_played).map(|side| {
        let n = h
            .last
            .iter()
            .filter(|(p, k)| **p != player && k.group() == key.group())
            .filter(|(_, k)| match side {
                TailSide::Above => *k > key,
                TailSide::Below => *k < key,
            })
            .count() as u64;
        TailCount {
            side,
            counted: n.min(cap),
            complete: n <= cap,
        }
    });
    let lanes = LanesRead {
        written: h.written.clone(),
        own_lane: lane_of(player),
        own_latest: h
            .changes
            .iter()
            .rev()
            .find(|c| c.lane == lane_of(player))
            .cloned(),
    };
    settle(key, &path, at, tail.as_ref(), &lanes)
}
