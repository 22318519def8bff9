//! Counting a board's keys node by node as they stream past in key order, for a check of the
//! stored index against the entries: what each node's counters should be. A node's keys are
//! contiguous in key order, so a node's count is complete once a key leaves its prefix; only
//! the nodes on the current key's path are held (at most [`Layout::levels`] of them, each with
//! at most 100 counters), whatever the board's size.

use super::{CountedKey, Counters, Layout};

/// The counts of the nodes on the path of the last key counted.
#[derive(Debug, Clone)]
pub struct Tally {
    layout: Layout,
    /// (prefix, counts by child label), root first.
    path: Vec<(String, Counters)>,
}

impl Tally {
    /// A tally of keys laid out as `layout`.
    pub fn new(layout: Layout) -> Tally {
        Tally {
            layout,
            path: vec![(String::new(), Counters::new())],
        }
    }

    /// Counts `key`, the next in key order (either direction): the nodes it completes, as
    /// (prefix, counts). A key of another layout is not counted (`None`): its digits have no
    /// place in this trie.
    pub fn add(&mut self, key: &CountedKey) -> Option<Vec<(String, Counters)>> {
        if key.layout() != self.layout {
            return None;
        }
        let digits = key.digits();
        let levels = self.layout.levels();
        let shared = (0..self.path.len())
            .take_while(|&l| self.path[l].0 == self.layout.prefix(digits, l))
            .count();
        let done = self.path.split_off(shared.max(1));
        for level in self.path.len()..levels {
            let prefix = self.layout.prefix(digits, level).to_owned();
            self.path.push((prefix, Counters::new()));
        }
        for (level, (_, counts)) in self.path.iter_mut().enumerate() {
            let label = self.layout.label(digits, level).to_owned();
            *counts.entry(label).or_default() += 1;
        }
        Some(done.into_iter().rev().collect())
    }

    /// Every node still open, the root last: the counts once the last key is in.
    pub fn finish(self) -> Vec<(String, Counters)> {
        self.path.into_iter().rev().collect()
    }
}

/// The child labels whose stored count differs from the count of keys under them, as (label,
/// stored, counted); a zero stored count is no count.
pub fn differences(stored: &Counters, counted: &Counters) -> Vec<(String, i64, i64)> {
    let mut labels: Vec<&String> = stored.keys().chain(counted.keys()).collect();
    labels.sort();
    labels.dedup();
    labels
        .into_iter()
        .filter_map(|label| {
            let s = stored.get(label).copied().unwrap_or(0);
            let c = counted.get(label).copied().unwrap_or(0);
            (s != c).then(|| (label.clone(), s, c))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank_index::build;

    fn key(score: u64, tie: u64, player: &str) -> CountedKey {
        CountedKey::parse(&format!("SCORE#{score:010}#{tie:013}#{player}")).unwrap()
    }

    #[test]
    fn the_nodes_completed_while_streaming_are_the_built_trie() {
        let mut keys: Vec<CountedKey> = (0..500u64)
            .map(|i| {
                key(
                    i * 7919 % 1_000,
                    8_000_000_000_000 + i * 37_000,
                    &format!("p{i}"),
                )
            })
            .collect();
        keys.sort();
        keys.reverse();
        let mut tally = Tally::new(keys[0].layout());
        let mut seen = crate::rank_index::NodeCounters::new();
        for k in &keys {
            for (prefix, counts) in tally.add(k).unwrap() {
                assert!(
                    seen.insert(prefix, counts).is_none(),
                    "a node completed twice"
                );
            }
        }
        for (prefix, counts) in tally.finish() {
            assert!(seen.insert(prefix, counts).is_none());
        }
        assert_eq!(seen, build(&keys));
    }

    #[test]
    fn a_count_off_by_one_is_a_difference() {
        let stored = Counters::from([("01".into(), 3), ("02".into(), 0)]);
        let counted = Counters::from([("01".into(), 2), ("03".into(), 1)]);
        assert_eq!(
            differences(&stored, &counted),
            [("01".to_owned(), 3, 2), ("03".to_owned(), 0, 1)]
        );
        let other = CountedKey::parse("SCORE#12#0000000000000#p").unwrap();
        assert!(Tally::new(Layout::new(10)).add(&other).is_none());
    }
}
