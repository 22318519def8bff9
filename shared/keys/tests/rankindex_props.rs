//! The rank index's arithmetic against brute force: apply random entry changes as node deltas to
//! an in-memory copy of the index, and every key's count of entries above must equal the number
//! of stored sort keys greater than it (ties, shards and every level included).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::rank::{Order, RankKeySpec};
use leaderboard_keys::rankindex::{IndexedKey, NodeCounts, count_above, deltas, shard_of};
use proptest::prelude::*;

/// The index in memory: (shard, level, prefix) -> node.
#[derive(Default)]
struct Model {
    nodes: HashMap<(u8, usize, String), NodeCounts>,
}

impl Model {
    fn apply(&mut self, old: Option<&IndexedKey>, new: Option<&IndexedKey>) {
        let k = new.or(old).unwrap();
        let shard = shard_of(k.player(), k.layout().node_shards);
        for d in deltas(old, new).unwrap() {
            let node = self.nodes.entry((shard, d.level, d.prefix)).or_default();
            for (label, delta) in d.counts {
                *node.counts.entry(label).or_default() += delta;
            }
            if let Some(label) = d.tie_remove {
                assert!(node.ties.entry(label).or_default().remove(k.player()));
            }
            if let Some(label) = d.tie_add {
                assert!(
                    node.ties
                        .entry(label)
                        .or_default()
                        .insert(k.player().into())
                );
            }
        }
    }

    fn above(&self, key: &IndexedKey) -> i64 {
        let layout = key.layout();
        let path: Vec<Vec<NodeCounts>> = (0..layout.levels)
            .map(|level| {
                (0..layout.node_shards)
                    .map(|s| {
                        self.nodes
                            .get(&(s, level, key.prefix(level).to_owned()))
                            .cloned()
                            .unwrap_or_default()
                    })
                    .collect()
            })
            .collect();
        count_above(key, &path)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn counts_equal_brute_force(
        max_score in prop_oneof![Just(99u64), Just(9_999u64), Just(9_999_999_999u64)],
        asc in any::<bool>(),
        // (player, score, time): few scores and times so that ties of both kinds are common.
        plays in prop::collection::vec((0u8..40, 0u64..20, 0u64..6), 1..200),
    ) {
        let order = if asc { Order::Asc } else { Order::Desc };
        let spec = RankKeySpec::new(order, max_score).unwrap();
        let mut model = Model::default();
        let mut current: BTreeMap<String, String> = BTreeMap::new(); // player -> sort key
        for (p, score, t) in plays {
            let player = PlayerId::parse(&format!("p{p}")).unwrap();
            let score = score * (max_score / 20);
            let sk = spec.score_sort_key(score, 1_700_000_000_000 + t, &player).unwrap();
            let new = IndexedKey::parse(&sk).unwrap();
            let old = current.get(player.as_str()).map(|s| IndexedKey::parse(s).unwrap());
            if old.as_ref() == Some(&new) { continue; }
            model.apply(old.as_ref(), Some(&new));
            current.insert(player.to_string(), sk);
        }
        // Remove a few entries too.
        let gone: Vec<String> = current.keys().step_by(5).cloned().collect();
        for p in gone {
            let sk = current.remove(&p).unwrap();
            model.apply(Some(&IndexedKey::parse(&sk).unwrap()), None);
        }
        let all: BTreeSet<&String> = current.values().collect();
        for sk in current.values() {
            let truth = all.iter().filter(|o| **o > sk).count() as i64;
            prop_assert_eq!(model.above(&IndexedKey::parse(sk).unwrap()), truth, "{}", sk);
        }
    }
}
