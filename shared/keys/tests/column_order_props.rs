//! Property tests of tiebreak columns: on a board of any order with one or two columns, each
//! of any order and `max`, byte order of the Score sort keys is the order the contract ranks
//! by (score in the board's order, then each column in its own, then the earlier time), every
//! key parses back, and the rank index reads the same key the same way.

use std::cmp::Ordering;

use leaderboard_keys::columns::{Column, MAX_COLUMN_MAX};
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::rank::{Order, RankKeySpec};
use leaderboard_keys::rank_index::CountedKey;
use proptest::prelude::*;

fn order() -> impl Strategy<Value = Order> {
    prop_oneof![Just(Order::Desc), Just(Order::Asc)]
}

fn column_max() -> impl Strategy<Value = u64> {
    prop_oneof![
        1u64..=20,
        Just(9),
        Just(10),
        Just(99_999),
        Just(MAX_COLUMN_MAX)
    ]
}

/// A board: its order, `maxScore` and one or two columns.
fn board() -> impl Strategy<Value = (Order, u64, Vec<Column>)> {
    let column = (order(), column_max());
    (
        order(),
        prop_oneof![1u64..=20, Just(9_999_999_999)],
        prop::collection::vec(column, 1..=2),
    )
        .prop_map(|(order, max, cols)| {
            let columns = cols
                .into_iter()
                .enumerate()
                .map(|(i, (order, max))| Column::new(&format!("c{i}"), order, max).unwrap())
                .collect();
            (order, max, columns)
        })
}

/// An entry: score, subscores and time, small ranges so that ties happen at every level.
type Play = (u64, Vec<u64>, u64);

fn plays(max: u64, columns: &[Column]) -> impl Strategy<Value = Vec<Play>> + use<> {
    let subs: Vec<_> = columns
        .iter()
        .map(|c| prop_oneof![0..=c.max.min(3), Just(c.max)])
        .collect();
    let play = (
        prop_oneof![0..=max.min(3), Just(max)],
        subs,
        1_700_000_000_000u64..1_700_000_000_004,
    );
    prop::collection::vec(play, 2..12)
}

/// The contract's order: `Less` when `a` ranks above `b`.
fn model(order: Order, columns: &[Column], a: &Play, b: &Play) -> Ordering {
    let by = |o: Order, x: u64, y: u64| match o {
        Order::Desc => y.cmp(&x),
        Order::Asc => x.cmp(&y),
    };
    let mut ord = by(order, a.0, b.0);
    for (i, c) in columns.iter().enumerate() {
        ord = ord.then(by(c.order, a.1[i], b.1[i]));
    }
    ord.then(a.2.cmp(&b.2))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn sort_keys_rank_as_the_contract_says(
        (order, max, columns, plays) in board().prop_flat_map(|(o, m, c)| {
            let p = plays(m, &c);
            (Just(o), Just(m), Just(c), p)
        })
    ) {
        let spec = RankKeySpec::new(order, max).unwrap().with_columns(&columns).unwrap();
        let player = PlayerId::parse("p").unwrap();
        let keys: Vec<String> = plays
            .iter()
            .map(|(s, subs, at)| spec.score_sort_key_with(*s, subs, *at, &player).unwrap())
            .collect();
        for (i, a) in plays.iter().enumerate() {
            let back = spec.parse_score_sort_key(&keys[i]).unwrap();
            prop_assert_eq!((back.score, &back.subscores, back.attained_at_ms), (a.0, &a.1, a.2));
            let counted = CountedKey::parse(&keys[i]).unwrap();
            prop_assert_eq!(counted.layout().ranked_digits, spec.ranked_digits());
            prop_assert_eq!(counted.player(), "p");
            for (j, b) in plays.iter().enumerate() {
                // descending byte order is rank order
                prop_assert_eq!(keys[j].cmp(&keys[i]), model(order, &columns, a, b));
            }
        }
    }
}
