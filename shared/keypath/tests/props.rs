//! Property tests for the StatelyDB key-path encoding in `leaderboard_keypath`.

use std::cmp::Ordering;

use leaderboard_keypath::{
    INT_MAX, INT_MIN, KeyPath, Segment, decode_int, decode_int_exact, encode_int,
};
use proptest::prelude::*;
use proptest::sample::{Index, select};

/// Values at and around every byte-length boundary: `±(2^(8k)) ± 1` for
/// `k = 0..=8`, plus 0, the i64 extremes and the range limits.
fn boundary_values() -> Vec<i128> {
    let mut values = vec![
        0,
        i128::from(i64::MIN),
        i128::from(i64::MAX),
        i128::from(u64::MAX),
        -i128::from(u64::MAX),
    ];
    for k in 0..=8 {
        let p: i128 = 1 << (8 * k);
        for v in [p - 1, p, p + 1] {
            values.push(v);
            values.push(-v);
        }
    }
    values.retain(|v| (INT_MIN..=INT_MAX).contains(v));
    values
}

/// Integers in the whole key-path range, weighted towards the interesting
/// ones: uniform, boundaries, boundaries nudged by a few, every byte length
/// with either sign, and small values (for ties).
fn int_value() -> impl Strategy<Value = i128> {
    prop_oneof![
        3 => INT_MIN..=INT_MAX,
        3 => select(boundary_values()),
        2 => (select(boundary_values()), -3i128..=3).prop_map(|(b, d)| {
            (b + d).clamp(INT_MIN, INT_MAX)
        }),
        3 => (0u32..=8, any::<u64>(), any::<bool>()).prop_map(|(bytes, raw, negative)| {
            let magnitude = if bytes == 8 { raw } else { raw & ((1u64 << (8 * bytes)) - 1) };
            let v = i128::from(magnitude);
            if negative { -v } else { v }
        }),
        1 => -3i128..=3,
    ]
}

/// Printable characters, no controls; ASCII, 2-, 3- and 4-byte UTF-8.
const ALPHABET: &[char] = &[
    ' ', '!', '/', '0', '9', 'a', 'b', 'z', '~', 'é', 'ß', 'ÿ', 'Ā', '日', '本', '\u{FFFD}', '😀',
    '𝄞',
];

fn string_segment() -> impl Strategy<Value = Segment> {
    prop::collection::vec(select(ALPHABET), 1..=6)
        .prop_map(|chars| Segment::string(String::from_iter(chars)).unwrap())
}

/// 16-byte binaries (UUID-like) whose first byte is >= 0x10, so they never
/// collide with an integer's sort byte; some are made of string-like bytes so
/// that strings and binaries share prefixes.
fn binary_segment() -> impl Strategy<Value = Segment> {
    prop_oneof![
        (0x10u8..=0xFF, prop::array::uniform15(any::<u8>())).prop_map(|(first, rest)| {
            let mut b = vec![first];
            b.extend(rest);
            b
        }),
        prop::collection::vec(select(&b"ab"[..]), 16),
        Just(vec![0xFF; 16]),
    ]
    .prop_map(|b| Segment::bytes(b).unwrap())
}

fn segment() -> impl Strategy<Value = Segment> {
    prop_oneof![
        3 => string_segment(),
        2 => binary_segment(),
        3 => int_value().prop_map(|v| Segment::int(v).unwrap()),
    ]
}

fn key_path() -> impl Strategy<Value = KeyPath> {
    prop::collection::vec(segment(), 1..=6).prop_map(|s| KeyPath::new(s).unwrap())
}

/// A pair of paths, often related: equal, sharing a prefix, or one segment
/// apart, so that ties and deep comparisons are common.
fn path_pair() -> impl Strategy<Value = (KeyPath, KeyPath)> {
    (key_path(), key_path(), 0u8..5, any::<Index>(), segment()).prop_map(
        |(a, other, mode, index, replacement)| {
            let segs = a.segments();
            let b = match mode {
                0 => a.clone(),
                1 => {
                    // A prefix of `a` (possibly all of it) plus other's tail.
                    let keep = index.index(segs.len()) + 1;
                    let mut s = segs[..keep].to_vec();
                    s.extend(other.segments().iter().skip(1).cloned());
                    KeyPath::new(s).unwrap()
                }
                2 => {
                    // `a` with one segment replaced.
                    let mut s = segs.to_vec();
                    let at = index.index(s.len());
                    s[at] = replacement;
                    KeyPath::new(s).unwrap()
                }
                3 => {
                    // A strict prefix or extension of `a`.
                    let keep = index.index(segs.len());
                    let s = if keep == 0 {
                        let mut s = segs.to_vec();
                        s.push(replacement);
                        s
                    } else {
                        segs[..keep].to_vec()
                    };
                    KeyPath::new(s).unwrap()
                }
                _ => other,
            };
            (a, b)
        },
    )
}

fn raw(s: &Segment) -> &[u8] {
    match s {
        Segment::Str(v) => v.as_bytes(),
        Segment::Bytes(v) => v,
        Segment::Int(_) => &[],
    }
}

/// True when one of the three documented caveats applies to `a` and `b`
/// (see the module docs): then byte order may legitimately differ from the
/// logical order.
fn caveat_applies(a: &KeyPath, b: &KeyPath) -> bool {
    let Some((x, y)) = a.segments().iter().zip(b.segments()).find(|(x, y)| x != y) else {
        return false;
    };
    match (x, y) {
        (Segment::Int(_), Segment::Int(_)) => false,
        (Segment::Int(_), other) | (other, Segment::Int(_)) => {
            matches!(other, Segment::Bytes(v) if v[0] <= 0x0F)
        }
        _ => {
            let (rx, ry) = (raw(x), raw(y));
            if rx == ry {
                return true; // caveat 3: same bytes, different kinds
            }
            let (short, long) = if rx.len() < ry.len() {
                (rx, ry)
            } else {
                (ry, rx)
            };
            long.starts_with(short) && long[short.len()] <= 0x01 // caveat 2
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// Byte order of encoded integers is numeric order.
    #[test]
    fn int_byte_order_is_numeric_order(a in int_value(), b in int_value()) {
        let (ea, eb) = (encode_int(a).unwrap(), encode_int(b).unwrap());
        prop_assert_eq!(ea.cmp(&eb), a.cmp(&b), "{} {:02x?} vs {} {:02x?}", a, ea, b, eb);
        // Also inside a key path, with more segments after the integer.
        let pa = KeyPath::new(vec![Segment::int(a).unwrap(), Segment::string("x").unwrap()])
            .unwrap();
        let pb = KeyPath::new(vec![Segment::int(b).unwrap()]).unwrap();
        let expected = a.cmp(&b).then(Ordering::Greater);
        prop_assert_eq!(pa.encode().cmp(&pb.encode()), expected);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// Integers round-trip, consuming exactly their encoding, and ignore what
    /// follows.
    #[test]
    fn int_round_trip(v in int_value(), tail in prop::collection::vec(any::<u8>(), 0..4)) {
        let mut bytes = encode_int(v).unwrap();
        let len = bytes.len();
        prop_assert!((2..=9).contains(&len));
        prop_assert_eq!(decode_int_exact(&bytes).unwrap(), v);
        bytes.extend(&tail);
        prop_assert_eq!(decode_int(&bytes).unwrap(), (v, len));
        // Out-of-range values are refused.
        prop_assert!(encode_int(INT_MAX + 1 + v.unsigned_abs() as i128 % 1000).is_err());
        prop_assert!(encode_int(INT_MIN - 1 - v.unsigned_abs() as i128 % 1000).is_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// For mixed key paths, encoded order is logical order (outside the
    /// documented caveats, which this generator makes rare), equal paths
    /// encode identically and different paths differently.
    #[test]
    fn mixed_path_byte_order_is_logical_order((a, b) in path_pair()) {
        let (ea, eb) = (a.encode(), b.encode());
        if a == b {
            prop_assert_eq!(&ea, &eb);
        } else {
            prop_assert_ne!(&ea, &eb);
        }
        if !caveat_applies(&a, &b) {
            prop_assert_eq!(ea.cmp(&eb), a.cmp(&b), "{} vs {}", a, b);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// Key paths round-trip through their encoding.
    #[test]
    fn key_path_round_trip(p in key_path()) {
        let bytes = p.encode();
        prop_assert_eq!(bytes.len(), p.encoded_len());
        prop_assert_eq!(KeyPath::decode(&bytes).unwrap(), p);
    }
}

/// Bytes that are mostly close to a valid encoding: a valid one with a few
/// bytes changed, inserted, removed or cut off, or a byte padded the way a
/// non-canonical varint would be (continuation bit set, 0x00 after it).
fn near_valid_bytes() -> impl Strategy<Value = Vec<u8>> {
    (
        key_path(),
        prop::collection::vec((0u8..5, any::<Index>(), any::<u8>()), 1..4),
    )
        .prop_map(|(p, edits)| {
            let mut bytes = p.encode();
            for (kind, at, byte) in edits {
                if bytes.is_empty() {
                    bytes.push(byte);
                    continue;
                }
                let i = at.index(bytes.len());
                match kind {
                    0 => bytes[i] = byte,
                    1 => bytes.insert(i, byte),
                    2 => {
                        bytes.remove(i);
                    }
                    3 => bytes.truncate(i),
                    _ => {
                        bytes[i] |= 0x80;
                        bytes.insert(i + 1, 0x00);
                    }
                }
            }
            bytes
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// Decoding arbitrary bytes never panics, and whatever it accepts
    /// re-encodes to exactly the same bytes.
    #[test]
    fn decode_arbitrary_bytes_never_panics(
        bytes in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..=64),
            near_valid_bytes(),
        ]
    ) {
        if let Ok(p) = KeyPath::decode(&bytes) {
            prop_assert!(!p.segments().is_empty());
            prop_assert_eq!(p.encode(), bytes.clone());
        }
        if let Ok((v, used)) = decode_int(&bytes) {
            prop_assert_eq!(encode_int(v).unwrap(), bytes[..used].to_vec());
        }
    }
}
