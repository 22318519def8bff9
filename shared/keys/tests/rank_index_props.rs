//! The rank index's arithmetic against models: folding a batch = applying its changes one by
//! one = building from the final keys; redelivery changes nothing; a gap stops its lane; chunks
//! carry every change once with chained watermarks; counters plus the group's tail give
//! exactly the number of sort keys above a key; a lookup settled from an index behind its
//! lanes is within its lag of the truth, exact when the lag is 0. The journal's protocol is
//! `rank_journal_props.rs`'s.

use std::collections::{BTreeMap, BTreeSet};

use crate::common;

use common::{history, index_at, lane_of, lookup, scrambled, sort_key, spec, true_above};
use leaderboard_keys::rank_index::{
    CountedKey, LANES, LaneChange, NodeCounters, TailRange, Watermarks, add_counters, build, chunk,
    count_above, fold, group_size, lag,
};
use proptest::prelude::*;

/// Applies a fold's deltas to `index` and returns the new watermarks.
fn apply(index: &mut NodeCounters, at: &Watermarks, batch: &[LaneChange]) -> Watermarks {
    let f = fold(at, batch);
    add_counters(index, &f.deltas);
    f.watermarks
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3_000))]

    #[test]
    fn one_fold_equals_one_by_one_equals_building_from_the_final_keys(h in history(), seed in any::<u64>()) {
        let built = build(h.last.values());
        // the whole batch, in any order
        let whole = fold(&Watermarks::default(), &scrambled(&h.changes, seed));
        prop_assert_eq!(&whole.deltas, &built);
        prop_assert!(whole.gaps.is_empty());
        prop_assert_eq!(whole.already_applied, 0);
        prop_assert_eq!(&whole.watermarks.0, &h.written);
        prop_assert_eq!(lag(&whole.watermarks, &h.written), 0);
        // one change at a time
        let mut index = NodeCounters::new();
        let mut at = Watermarks::default();
        for c in &h.changes {
            at = apply(&mut index, &at, std::slice::from_ref(c));
        }
        prop_assert_eq!(&index, &built);
        prop_assert_eq!(&at, &whole.watermarks);
    }

    #[test]
    fn redelivering_any_prefix_suffix_or_the_whole_batch_changes_nothing(
        h in history(), cut in any::<prop::sample::Index>(), back in any::<prop::sample::Index>()
    ) {
        let n = h.changes.len();
        let cut = if n == 0 { 0 } else { cut.index(n + 1) };
        let from = if cut == 0 { 0 } else { back.index(cut + 1) };
        let mut index = NodeCounters::new();
        // the first part, then a redelivery that starts anywhere before the cut
        let at = apply(&mut index, &Watermarks::default(), &h.changes[..cut]);
        prop_assert_eq!(lag(&at, &h.written), (n - cut) as u64);
        let second = fold(&at, &h.changes[from..]);
        prop_assert_eq!(second.already_applied, cut - from);
        add_counters(&mut index, &second.deltas);
        prop_assert_eq!(&index, &build(h.last.values()));
        // and everything again, whole or any prefix or suffix: nothing
        for again in [&h.changes[..], &h.changes[..cut], &h.changes[from..]] {
            let f = fold(&second.watermarks, again);
            prop_assert!(f.deltas.is_empty() && f.applied.is_empty());
            prop_assert_eq!(f.already_applied, again.len());
            prop_assert_eq!(&f.watermarks, &second.watermarks);
        }
    }

    #[test]
    fn a_gap_stops_its_lane_and_nothing_after_it_is_applied(h in history(), pick in any::<prop::sample::Index>()) {
        prop_assume!(!h.changes.is_empty());
        let missing = h.changes[pick.index(h.changes.len())].clone();
        let batch: Vec<_> = h.changes.iter().filter(|c| **c != missing).cloned().collect();
        let f = fold(&Watermarks::default(), &batch);
        // the lane stops right before the missing change...
        prop_assert_eq!(f.watermarks.get(missing.lane), missing.seq - 1);
        prop_assert!(f.applied.iter().all(|c| c.lane != missing.lane || c.seq < missing.seq));
        let later = h.changes.iter().any(|c| c.lane == missing.lane && c.seq > missing.seq);
        prop_assert_eq!(f.gaps.len(), usize::from(later));
        if let Some(g) = f.gaps.first() {
            prop_assert_eq!((g.lane, g.expected, g.found), (missing.lane, missing.seq, missing.seq + 1));
        }
        // ...the other lanes go to the end, and the deltas are exactly the applied changes'
        for (lane, count) in &h.written {
            if *lane != missing.lane {
                prop_assert_eq!(f.watermarks.get(*lane), *count);
            }
        }
        let mut one_by_one = NodeCounters::new();
        let mut at = Watermarks::default();
        for c in &f.applied {
            at = apply(&mut one_by_one, &at, std::slice::from_ref(c));
        }
        prop_assert_eq!(&one_by_one, &f.deltas);
        // and once the missing change comes (with everything after it again), all is exact
        let mut index = f.deltas.clone();
        let rest = fold(&f.watermarks, &h.changes);
        add_counters(&mut index, &rest.deltas);
        prop_assert_eq!(&index, &build(h.last.values()));
    }

    #[test]
    fn chunks_carry_every_change_once_with_chained_watermarks(
        h in history(),
        cut in any::<prop::sample::Index>(),
        max_nodes in 1usize..120,
    ) {
        // start part-way, so chunks chain from a watermark that is not zero
        let n = h.changes.len();
        let cut = if n == 0 { 0 } else { cut.index(n + 1) };
        let start = fold(&Watermarks::default(), &h.changes[..cut]).watermarks;
        let f = fold(&start, &h.changes);
        let chunks = chunk(&start, &f.applied, max_nodes);
        let mut sum = NodeCounters::new();
        let mut at = start.clone();
        let mut carried = 0;
        for c in &chunks {
            prop_assert!(c.nodes_below_root() <= max_nodes || c.changes == 1);
            prop_assert!(c.changes > 0);
            for (lane, (from, to)) in &c.advances {
                prop_assert_eq!(*from, at.get(*lane), "chunk starts where the last one ended");
                prop_assert!(to > from);
                at.0.insert(*lane, *to);
            }
            carried += c.changes;
            add_counters(&mut sum, &c.deltas);
        }
        prop_assert_eq!(carried, f.applied.len());
        prop_assert_eq!(&at, &f.watermarks);
        prop_assert_eq!(&sum, &f.deltas);
        // each chunk's advance covers exactly its changes: the lane's applied seqs in order
        let mut it = f.applied.iter();
        for c in &chunks {
            let mine: Vec<_> = it.by_ref().take(c.changes).collect();
            let mut lanes: BTreeMap<u8, (u64, u64)> = BTreeMap::new();
            for ch in &mine {
                match lanes.get_mut(&ch.lane) {
                    None => {
                        lanes.insert(ch.lane, (ch.seq - 1, ch.seq));
                    }
                    Some(run) => {
                        prop_assert_eq!(run.1 + 1, ch.seq, "a lane's changes in a chunk are consecutive");
                        run.1 = ch.seq;
                    }
                }
            }
            prop_assert_eq!(&lanes, &c.advances);
        }
    }

    #[test]
    fn counters_and_the_tail_give_exactly_the_keys_above(
        spec in spec(),
        entries in prop::collection::vec(any::<u64>(), 1..200),
    ) {
        let max = spec.max_score();
        let keys: BTreeSet<CountedKey> = entries
            .iter()
            .enumerate()
            .map(|(p, seed)| {
                // few scores and times, so that groups and exact ties are frequent
                let score = (seed % 5).min(max);
                let ms = 1_767_225_600_000 + (seed >> 8) % 3 * 40_000 + (seed >> 16) % 2;
                sort_key(&spec, p % 50, (score, ms))
            })
            .collect();
        let index = build(&keys);
        let sorted: Vec<&str> = keys.iter().map(|k| k.sort_key.as_str()).collect();
        for key in &keys {
            let model_above = sorted.iter().filter(|s| **s > key.sort_key.as_str()).count() as i64;
            let in_group = |s: &&&str| CountedKey::parse(s).unwrap().group() == key.group();
            let group: Vec<&&str> = sorted.iter().filter(in_group).collect();
            let tail_above = group.iter().filter(|s| ***s > key.sort_key.as_str()).count() as i64;
            prop_assert_eq!(count_above(key, &index) + tail_above, model_above);
            prop_assert_eq!(group_size(key, &index), group.len() as i64);
            // the tail ranges hold exactly the group's keys on either side, the key included
            let t = TailRange::of(key);
            let within = |(lo, hi): &(String, String)| {
                sorted.iter().filter(|s| lo.as_str() <= **s && **s <= hi.as_str()).count() as i64
            };
            prop_assert_eq!(within(&t.above), tail_above + 1);
            prop_assert_eq!(within(&t.below), group.len() as i64 - tail_above);
        }
    }

    #[test]
    fn a_lookup_behind_its_lanes_is_within_its_lag_and_exact_when_caught_up(
        h in history(),
        // mostly caught up, so that what the tail leaves unplaced is not hidden by the lanes
        behind in prop::collection::vec(prop_oneof![4 => Just(0u64), 1 => 1u64..4], LANES as usize),
        pick in any::<prop::sample::Index>(),
        cap in 1u64..4,
        just_played in any::<bool>(),
    ) {
        prop_assume!(!h.last.is_empty());
        // Each lane applied up to a few changes short of its written count.
        let at = Watermarks(
            h.written.iter().map(|(l, w)| (*l, w.saturating_sub(behind[*l as usize]))).collect(),
        );
        let player = **pick.get(&h.last.keys().collect::<Vec<_>>());
        let s = lookup(&h, &at, player, cap, just_played);
        let truth = true_above(&h, player);
        prop_assert!(!s.negative);
        prop_assert!(s.above.abs_diff(truth) <= s.lag, "{:?} against {}", s, truth);
        if behind.iter().all(|b| *b == 0) && s.lag > 0 {
            // caught up: only a group the tail could not place leaves a lag
            prop_assert!(group_size(&h.last[&player], &index_at(&h, &at)) >= 2);
        }
    }

    #[test]
    fn the_players_own_pending_change_is_no_lag_and_its_old_key_not_above(
        h in history(),
        pick in any::<prop::sample::Index>(),
    ) {
        // Every lane caught up but the player's, whose latest change is the player's own.
        let lasts: Vec<usize> = h
            .last
            .keys()
            .copied()
            .filter(|p| h.changes.iter().rev().find(|c| c.lane == lane_of(*p)).is_some_and(|c| c.new.as_ref() == h.last.get(p)))
            .collect();
        prop_assume!(!lasts.is_empty());
        let player = *pick.get(&lasts);
        let mut at = Watermarks(h.written.clone());
        at.0.insert(lane_of(player), h.written[&lane_of(player)] - 1);
        let s = lookup(&h, &at, player, 1_000, true);
        let truth = true_above(&h, player);
        prop_assert_eq!(s.above, truth);
        prop_assert_eq!(s.lag, 0);
        prop_assert!(s.exact());
    }
}
