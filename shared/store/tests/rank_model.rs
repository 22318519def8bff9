//! The rank freshness rules against a model, no table: many random histories of score changes
//! on a board, with the rank index holding back a random part of each player's changes (it
//! applies a player's changes in order, so it holds some earlier version of each entry). For
//! every player, asking the rank of their current entry, or of an older one they moved away
//! from, the answer built from the index's counters exactly as a lookup reads them must be
//! within its lag of the true rank, exact when it says so, and near enough the top to be
//! counted whenever the true rank is within the first `EXACT_TOP`.

use std::collections::BTreeSet;

use leaderboard_keys::rank_index::{CountedKey, NodeCounters, build, count_above};
use leaderboard_store::freshness::{EXACT_TOP, Estimate, IndexView};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A Score sort key of the default width.
fn sort_key(score: u64, millis: u64, player: &str) -> String {
    format!(
        "SCORE#{score:010}#{:013}#{player}",
        9_999_999_999_999 - millis
    )
}

/// One player's history: their keys, version 1 first.
struct Player {
    id: String,
    keys: Vec<String>,
    /// The version the index holds (0: none).
    applied: usize,
}

/// The index as a lookup reads it, from the keys it holds: the counters, and the keys of a
/// group (a score within 100 s), which a lookup counts with a Query.
struct Index {
    nodes: NodeCounters,
    held: Vec<CountedKey>,
}

impl Index {
    fn of(players: &[Player]) -> Index {
        let held: Vec<CountedKey> = players
            .iter()
            .filter(|p| p.applied > 0)
            .map(|p| CountedKey::parse(&p.keys[p.applied - 1]).unwrap())
            .collect();
        Index {
            nodes: build(&held),
            held,
        }
    }

    /// The entries the index holds above `key`: the counters' count, and its group's tail.
    fn above(&self, key: &CountedKey) -> i64 {
        let tail = self
            .held
            .iter()
            .filter(|k| k.group() == key.group() && k.sort_key > key.sort_key)
            .count();
        count_above(key, &self.nodes) + tail as i64
    }
}

/// A random board: few scores and moments so that ties are common.
fn history(rng: &mut StdRng) -> Vec<Player> {
    let players = rng.random_range(1..80);
    let scores = rng.random_range(1..20);
    (0..players)
        .map(|i| {
            let id = format!("p{}", rng.random_range(0..1_000) * 100 + i);
            let changes = rng.random_range(1..6);
            let keys: Vec<String> = (0..changes)
                .map(|_| sort_key(rng.random_range(0..scores), rng.random_range(0..4), &id))
                .collect();
            // The index holds any version from none to the latest.
            let applied = rng.random_range(0..=changes);
            Player { id, keys, applied }
        })
        .collect()
}

fn check(seed: u64) -> Result<(), TestCaseError> {
    let mut rng = StdRng::seed_from_u64(seed);
    let players = history(&mut rng);
    let index = Index::of(&players);
    let written: usize = players.iter().map(|p| p.keys.len()).sum();
    let applied: usize = players.iter().map(|p| p.applied).sum();
    let current: BTreeSet<&str> = players
        .iter()
        .map(|p| p.keys.last().unwrap().as_str())
        .collect();
    for p in &players {
        // The player's current entry, and an older key read before a later change moved it.
        let version = rng.random_range(1..=p.keys.len());
        for version in [p.keys.len(), version] {
            let target = &p.keys[version - 1];
            let key = CountedKey::parse(target).unwrap();
            let held = (p.applied > 0).then(|| p.keys[p.applied - 1].as_str());
            let own_above = held.is_some_and(|h| h > target.as_str());
            let view = IndexView {
                above: index.above(&key) - i64::from(own_above),
                entries: players.len() as i64,
                unapplied: (written - applied) as i64,
                own_unapplied: (version as u64).saturating_sub(p.applied as u64),
            };
            let estimate = Estimate::from_index(&view);
            // The truth: other players' current entries above the key.
            let mine = p.keys.last().unwrap();
            let truth = current
                .iter()
                .filter(|k| **k > target.as_str() && *k != mine)
                .count() as u64;
            let what = format!(
                "seed {seed}, {} v{version}: {estimate:?}, truth {truth}",
                p.id
            );
            prop_assert!(estimate.above.abs_diff(truth) <= estimate.lag, "{what}");
            prop_assert_eq!(estimate.exact, estimate.lag == 0, "{}", what);
            if estimate.exact {
                prop_assert_eq!(estimate.above, truth, "{}", what);
            }
            if truth < EXACT_TOP {
                prop_assert!(estimate.exact || estimate.worth_counting(), "{what}");
            }
            prop_assert_eq!(estimate.entries, players.len() as u64);
            prop_assert!(estimate.lag <= (written - applied) as u64, "{what}");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3_000))]

    #[test]
    fn every_answer_is_within_its_lag_of_the_true_rank(seed in any::<u64>()) {
        check(seed)?;
    }
}

#[test]
fn an_index_that_applied_everything_answers_exactly() {
    let mut rng = StdRng::seed_from_u64(7);
    for _ in 0..200 {
        let mut players = history(&mut rng);
        for p in &mut players {
            p.applied = p.keys.len();
        }
        let index = Index::of(&players);
        let current: Vec<&String> = players.iter().map(|p| p.keys.last().unwrap()).collect();
        for p in &players {
            let target = p.keys.last().unwrap();
            let key = CountedKey::parse(target).unwrap();
            let estimate = Estimate::from_index(&IndexView {
                above: index.above(&key),
                entries: players.len() as i64,
                unapplied: 0,
                own_unapplied: 0,
            });
            let truth = current.iter().filter(|k| **k > target).count() as u64;
            assert_eq!(estimate, Estimate::exact(truth, players.len() as u64));
        }
    }
}
