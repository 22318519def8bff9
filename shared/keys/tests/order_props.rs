//! Property tests: byte order of padded, inverted and rank keys equals the order they stand
//! for, over the whole value range, with ties and boundaries; and every key parses back.

use std::cmp::Ordering;

use leaderboard_keys::KeyError;
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::pad::{Width, invert, pad, pad_signed, parse_padded};
use leaderboard_keys::rank::{MAX_MAX_SCORE, MAX_TIEBREAK_MILLIS, Order, RankKeySpec};
use proptest::prelude::*;

/// A value in `0..=max`, biased towards the edges where padding bugs live.
fn value_upto(max: u64) -> impl Strategy<Value = u64> {
    prop_oneof![
        2 => 0..=max,
        1 => Just(0),
        1 => Just(max),
        1 => 0..=max.min(20),
        1 => max.saturating_sub(20)..=max,
        // Powers of ten and their neighbours: where the digit count changes.
        1 => (0u32..19).prop_flat_map(move |e| {
            let p = 10u64.pow(e);
            prop_oneof![Just(p - 1), Just(p), Just(p.saturating_add(1))]
                .prop_map(move |v| v.min(max))
        }),
    ]
}

fn width() -> impl Strategy<Value = Width> {
    (1u8..=19).prop_map(|d| Width::new(d).unwrap())
}

fn width_and_two_values() -> impl Strategy<Value = (Width, u64, u64)> {
    width().prop_flat_map(|w| {
        (
            Just(w),
            value_upto(w.max_value()),
            value_upto(w.max_value()),
        )
    })
}

fn player() -> impl Strategy<Value = PlayerId> {
    // A small alphabet so that equal ids (full ties) happen too.
    prop_oneof![
        3 => "[a-c]{1,3}",
        1 => "[A-Za-z0-9_.-]{1,64}",
    ]
    .prop_map(|s| PlayerId::parse(&s).unwrap())
}

fn millis() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => 1_600_000_000_000u64..1_600_000_000_010,
        1 => 0..=MAX_TIEBREAK_MILLIS,
        1 => Just(0),
        1 => Just(MAX_TIEBREAK_MILLIS),
    ]
}

fn spec() -> impl Strategy<Value = RankKeySpec> {
    let max = prop_oneof![
        Just(9_999_999_999u64),
        Just(MAX_MAX_SCORE),
        Just(0u64),
        Just(1u64),
        Just(9u64),
        Just(10u64),
        0..=MAX_MAX_SCORE,
    ];
    (prop_oneof![Just(Order::Desc), Just(Order::Asc)], max)
        .prop_map(|(o, m)| RankKeySpec::new(o, m).unwrap())
}

/// An entry on a board: (score, attainedAt ms, player).
fn entry(spec: RankKeySpec) -> impl Strategy<Value = (u64, u64, PlayerId)> {
    let max = spec.max_score();
    let score = prop_oneof![
        3 => 0..=max.min(3), // many ties
        2 => value_upto(max),
    ];
    (score, millis(), player())
}

/// The rank order the contract defines, as `Ordering::Greater` = ranks higher: the better score,
/// then the earlier attainedAt, then (a full tie) the greater playerId bytes, which is where a
/// descending read puts it.
fn ranks_higher(order: Order, a: &(u64, u64, PlayerId), b: &(u64, u64, PlayerId)) -> Ordering {
    let by_score = match order {
        Order::Desc => a.0.cmp(&b.0),
        Order::Asc => b.0.cmp(&a.0),
    };
    by_score
        .then(b.1.cmp(&a.1))
        .then(a.2.as_str().cmp(b.2.as_str()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn padded_byte_order_is_numeric_order((w, a, b) in width_and_two_values()) {
        let (ka, kb) = (pad(a, w).unwrap(), pad(b, w).unwrap());
        prop_assert_eq!(ka.len(), w.digits() as usize);
        prop_assert_eq!(ka.cmp(&kb), a.cmp(&b));
        prop_assert_eq!(parse_padded(&ka, w).unwrap(), a);
    }

    #[test]
    fn inverted_byte_order_is_reverse_order((w, a, b) in width_and_two_values()) {
        let max = w.max_value();
        let ka = pad(invert(a, max).unwrap(), w).unwrap();
        let kb = pad(invert(b, max).unwrap(), w).unwrap();
        prop_assert_eq!(ka.cmp(&kb), b.cmp(&a));
    }

    #[test]
    fn overflow_is_always_an_error(w in width(), extra in prop_oneof![Just(1u64), 1..=u64::MAX]) {
        let v = w.max_value().saturating_add(extra);
        prop_assume!(v > w.max_value());
        let is_overflow = matches!(pad(v, w), Err(KeyError::Overflow { .. }));
        prop_assert!(is_overflow);
    }

    #[test]
    fn signed_values(v in prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(-1i64), Just(0i64), any::<i64>()]) {
        let w = Width::new(19).unwrap();
        match pad_signed(v, w) {
            Ok(k) => { prop_assert!(v >= 0); prop_assert_eq!(parse_padded(&k, w).unwrap(), v as u64); }
            Err(e) => { prop_assert!(v < 0); prop_assert_eq!(e, KeyError::Negative(v)); }
        }
    }

    #[test]
    fn score_sort_key_descending_bytes_are_rank_order(
        (spec, a, b) in spec().prop_flat_map(|s| (Just(s), entry(s), entry(s)))
    ) {
        let ka = spec.score_sort_key(a.0, a.1, &a.2).unwrap();
        let kb = spec.score_sort_key(b.0, b.1, &b.2).unwrap();
        prop_assert_eq!(ka.cmp(&kb), ranks_higher(spec.order(), &a, &b), "{} vs {}", ka, kb);
        // Every rank key of a board has the same length.
        prop_assert_eq!(
            spec.rank_key(a.0, a.1).unwrap().len(),
            spec.rank_key(b.0, b.1).unwrap().len()
        );
    }

    #[test]
    fn score_sort_key_round_trips((spec, e) in spec().prop_flat_map(|s| (Just(s), entry(s)))) {
        let sk = spec.score_sort_key(e.0, e.1, &e.2).unwrap();
        let back = spec.parse_score_sort_key(&sk).unwrap();
        prop_assert_eq!((back.score, back.attained_at_ms, back.player_id), e);
    }

    #[test]
    fn scores_above_max_are_rejected(spec in spec(), extra in 1..=u64::MAX, ms in millis()) {
        let score = spec.max_score().saturating_add(extra);
        prop_assume!(score > spec.max_score());
        let is_out_of_range = matches!(spec.rank_key(score, ms), Err(KeyError::ScoreOutOfRange { .. }));
        prop_assert!(is_out_of_range);
    }

    #[test]
    fn times_past_the_tiebreak_width_are_rejected(spec in spec(), ms in (MAX_TIEBREAK_MILLIS + 1)..=u64::MAX) {
        prop_assert_eq!(spec.rank_key(0, ms), Err(KeyError::TimeOutOfRange(ms)));
    }
}
