//! Unit tests of the key path encoding: known encodings, rejected inputs, order.

use super::*;

const P56: i128 = 1 << 56;
const P64: i128 = 1 << 64;

fn s(v: &str) -> Segment {
    Segment::string(v).unwrap()
}

fn i(v: i128) -> Segment {
    Segment::int(v).unwrap()
}

fn path(segments: Vec<Segment>) -> KeyPath {
    KeyPath::new(segments).unwrap()
}

/// Every row of the seed's byte table, in the seed's order (28 rows).
/// Rows marked ERRATUM print bytes in the seed that contradict its own
/// rule; they carry the corrected bytes (see the erratum tests below).
#[rustfmt::skip]
const SEED_TABLE: &[(i128, &[u8])] = &[
    (-(P64 - 1), &[0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
    (-(P64 - 2), &[0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01]),
    (-(P56 + 1), &[0x00, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE]),
    (-P56, &[0x00, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
    // ERRATUM: the seed prints sort byte 1 followed by EIGHT 0x00 bytes.
    // 2^56 - 1 needs 7 bytes (sort byte 8 - 7 = 1), so it is 7 zeros.
    (-(P56 - 1), &[0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
    (-((1 << 48) - 1), &[0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
    (-((1 << 40) - 1), &[0x03, 0x00, 0x00, 0x00, 0x00, 0x00]),
    (-((1 << 32) - 1), &[0x04, 0x00, 0x00, 0x00, 0x00]),
    // ERRATUM: the seed prints 0xFE 0xFF, which is -256. 257 = 0x01 0x01,
    // inverted 0xFE 0xFE.
    (-257, &[0x06, 0xFE, 0xFE]),
    (-17, &[0x07, 0xEE]),
    (-16, &[0x07, 0xEF]),
    (-2, &[0x07, 0xFD]),
    (-1, &[0x07, 0xFE]),
    (0, &[0x07, 0xFF]),
    (1, &[0x08, 0x01]),
    (2, &[0x08, 0x02]),
    (3, &[0x08, 0x03]),
    (16, &[0x08, 0x10]),
    (17, &[0x08, 0x11]),
    (256, &[0x09, 0x01, 0x00]),
    ((1 << 32) - 1, &[0x0B, 0xFF, 0xFF, 0xFF, 0xFF]),
    ((1 << 40) - 1, &[0x0C, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
    ((1 << 48) - 1, &[0x0D, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
    (P56 - 1, &[0x0E, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
    (P56, &[0x0F, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
    (P56 + 1, &[0x0F, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01]),
    (P64 - 2, &[0x0F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE]),
    (P64 - 1, &[0x0F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
];

#[test]
fn seed_table_every_row() {
    assert_eq!(SEED_TABLE.len(), 28);
    for &(v, bytes) in SEED_TABLE {
        assert_eq!(encode_int(v).unwrap(), bytes, "encode {v}");
        assert_eq!(decode_int(bytes).unwrap(), (v, bytes.len()), "decode {v}");
        assert_eq!(decode_int_exact(bytes).unwrap(), v);
        // As a lone key-path segment, too.
        let kp = path(vec![i(v)]);
        let enc = kp.encode();
        assert_eq!(&enc[..bytes.len()], bytes);
        assert_eq!(KeyPath::decode(&enc).unwrap(), kp);
    }
    // The table is in ascending order, and so are its encodings.
    for w in SEED_TABLE.windows(2) {
        assert!(w[0].0 < w[1].0);
        assert!(w[0].1 < w[1].1, "{} vs {}", w[0].0, w[1].0);
    }
}

#[test]
fn seed_erratum_minus_257() {
    // The seed prints -257 as 06 FE FF; those bytes are -256.
    let printed = [0x06, 0xFE, 0xFF];
    assert_eq!(decode_int(&printed).unwrap(), (-256, 3));
    assert_eq!(encode_int(-256).unwrap(), printed);
    let corrected = encode_int(-257).unwrap();
    assert_eq!(corrected, [0x06, 0xFE, 0xFE]);
    // Sorts between its numeric neighbours and its table neighbours.
    assert!(encode_int(-258).unwrap() < corrected);
    assert!(corrected < encode_int(-256).unwrap());
    assert!(encode_int(-((1 << 32) - 1)).unwrap() < corrected);
    assert!(corrected < encode_int(-17).unwrap());
}

#[test]
fn seed_erratum_minus_2_pow_56_plus_1() {
    // The seed prints -(2^56 - 1) as sort byte 1 + eight 0x00 bytes. Sort
    // byte 1 announces 7 bytes, so the 8th is not part of the integer.
    let printed = [0x01, 0, 0, 0, 0, 0, 0, 0, 0];
    assert_eq!(decode_int(&printed).unwrap(), (-(P56 - 1), 8));
    assert_eq!(
        decode_int_exact(&printed),
        Err(KeyPathError::TrailingBytes(1))
    );
    // As an integer segment declared 9 bytes long it is rejected too.
    let mut kp = printed.to_vec();
    kp.push(TERMINATOR);
    kp.push((9 << 3) | TYPE_INT);
    assert_eq!(
        KeyPath::decode(&kp),
        Err(KeyPathError::IntegerLengthMismatch {
            declared: 9,
            actual: 8
        })
    );
    let corrected = encode_int(-(P56 - 1)).unwrap();
    assert_eq!(corrected, [0x01, 0, 0, 0, 0, 0, 0, 0]);
    assert!(encode_int(-P56).unwrap() < corrected);
    assert!(corrected < encode_int(-(P56 - 2)).unwrap());
    assert!(corrected < encode_int(-((1 << 48) - 1)).unwrap());
}

#[test]
fn seed_range_table_boundaries() {
    // Sort byte 0: -(2^64-1)..=-2^56; sort byte 1: -(2^56-1)..=-2^48 (the
    // seed's range table writes this row as "-2^48 to -2^56-1").
    let sort = |v| encode_int(v).unwrap()[0];
    assert_eq!(sort(-(P64 - 1)), 0);
    assert_eq!(sort(-P56), 0);
    assert_eq!(sort(-(P56 - 1)), 1);
    assert_eq!(sort(-(1 << 48)), 1);
    assert_eq!(sort(-((1 << 48) - 1)), 2);
    assert_eq!(sort(-255), 7);
    assert_eq!(sort(0), 7);
    assert_eq!(sort(1), 8);
    assert_eq!(sort(255), 8);
    assert_eq!(sort(256), 9);
    assert_eq!(sort(65535), 9);
    assert_eq!(sort(P56), 15);
    assert_eq!(sort(P64 - 1), 15);
}

#[test]
fn seed_simple_examples() {
    let cases: &[(i128, &[u8])] = &[
        (1, &[0x08, 0x01]),
        (6, &[0x08, 0x06]),
        (255, &[0x08, 0xFF]),
        (256, &[0x09, 0x01, 0x00]),
        (1234, &[0x09, 0x04, 0xD2]),
        (-1, &[0x07, 0xFE]),
        (-2, &[0x07, 0xFD]),
        (0, &[0x07, 0xFF]),
        (-255, &[0x07, 0x00]),
        (1_678_901_234, &[0x0B, 0x64, 0x11, 0xFF, 0xF2]),
        (42, &[0x08, 0x2A]),
    ];
    for &(v, bytes) in cases {
        assert_eq!(encode_int(v).unwrap(), bytes, "{v}");
        assert_eq!(decode_int_exact(bytes).unwrap(), v);
    }
}

fn seed_full_path() -> KeyPath {
    let uuid = [
        0x4c, 0x9d, 0x36, 0xe5, 0x6b, 0x19, 0x4e, 0x6a, 0x82, 0x8c, 0x22, 0x6e, 0xd6, 0x67, 0x45,
        0x8a,
    ];
    path(vec![
        s("user"),
        Segment::from(uuid),
        s("post"),
        i(1234),
        s("comment"),
        i(1_678_901_234),
        s("react"),
        i(42),
    ])
}

#[test]
fn seed_full_example_is_63_bytes() {
    let kp = seed_full_path();
    #[rustfmt::skip]
    let expected: &[u8] = &[
        0x75, 0x73, 0x65, 0x72, // "user"
        0x01,
        0x4c, 0x9d, 0x36, 0xe5, 0x6b, 0x19, 0x4e, 0x6a,
        0x82, 0x8c, 0x22, 0x6e, 0xd6, 0x67, 0x45, 0x8a, // uuid
        0x01,
        0x70, 0x6f, 0x73, 0x74, // "post"
        0x01,
        0x09, 0x04, 0xd2, // 1234
        0x01,
        0x63, 0x6f, 0x6d, 0x6d, 0x65, 0x6e, 0x74, // "comment"
        0x01,
        0x0b, 0x64, 0x11, 0xff, 0xf2, // 1678901234
        0x01,
        0x72, 0x65, 0x61, 0x63, 0x74, // "react"
        0x01,
        0x08, 0x2a, // 42
        0x00,
        0x20,       // (4 << 3) | string
        0x81, 0x01, // (16 << 3) | binary = 129, two varint bytes
        0x20,       // (4 << 3) | string
        0x1a,       // (3 << 3) | int
        0x38,       // (7 << 3) | string
        0x2a,       // (5 << 3) | int
        0x28,       // (5 << 3) | string
        0x12,       // (2 << 3) | int
    ];
    let enc = kp.encode();
    assert_eq!(enc, expected);
    assert_eq!(enc.len(), 63);
    assert_eq!(kp.encoded_len(), 63);
    assert_eq!(KeyPath::decode(&enc).unwrap(), kp);
    assert_eq!(
        kp.to_string(),
        "/user/0x4c9d36e56b194e6a828c226ed667458a/post/1234/comment/1678901234/react/42"
    );
}

#[test]
fn seed_ordering_claims() {
    let post = |n: i128| path(vec![s("post"), i(n)]).encode();
    assert!(post(9) < post(42));
    assert!(post(42) < post(100));
    assert!(post(2) < post(10));
    assert!(post(-17) < post(0));
    // A path sorts before its children; integers before strings.
    let parent = path(vec![s("post"), i(1234)]).encode();
    let child = path(vec![s("post"), i(1234), s("comment"), i(1)]).encode();
    assert!(parent < child);
    assert!(path(vec![i(INT_MAX)]).encode() < path(vec![s(" ")]).encode());
    // "b" before "aaa" is not allowed to happen: lengths live in metadata.
    assert!(path(vec![s("aaa")]).encode() < path(vec![s("b")]).encode());
}

#[test]
fn integer_range_limits() {
    assert!(Segment::int(INT_MAX).is_ok());
    assert!(Segment::int(INT_MIN).is_ok());
    assert_eq!(
        Segment::int(INT_MAX + 1),
        Err(KeyPathError::IntegerOutOfRange(INT_MAX + 1))
    );
    assert!(Segment::int(INT_MIN - 1).is_err());
    assert!(encode_int(i128::MAX).is_err());
    assert!(encode_int(i128::MIN).is_err());
    let mut out = vec![0xAA];
    assert!(encode_int_into(1 << 64, &mut out).is_err());
    assert_eq!(out, [0xAA], "untouched on error");
    encode_int_into(1, &mut out).unwrap();
    assert_eq!(out, [0xAA, 0x08, 0x01]);
    assert_eq!(Segment::from(u64::MAX), Segment::Int(INT_MAX));
    assert_eq!(Segment::from(i64::MIN), Segment::Int(i128::from(i64::MIN)));
    assert!(KeyPath::new(vec![Segment::Int(INT_MIN - 1)]).is_err());
}

#[test]
fn malformed_integers_rejected() {
    use KeyPathError::*;
    assert_eq!(decode_int(&[]), Err(EmptyInput));
    assert_eq!(decode_int(&[0x10, 0x01]), Err(InvalidSortByte(0x10)));
    assert_eq!(decode_int(&[0x75]), Err(InvalidSortByte(0x75)));
    assert_eq!(
        decode_int(&[0x09, 0x01]),
        Err(TruncatedInteger {
            needed: 2,
            available: 1
        })
    );
    assert_eq!(
        decode_int(&[0x00]),
        Err(TruncatedInteger {
            needed: 8,
            available: 0
        })
    );
    // Positive with a leading zero byte; positive zero.
    assert_eq!(decode_int(&[0x09, 0x00, 0x05]), Err(NonMinimalInteger));
    assert_eq!(decode_int(&[0x08, 0x00]), Err(NonMinimalInteger));
    // Negative whose magnitude has a leading zero byte (-5 in 2 bytes).
    assert_eq!(decode_int(&[0x06, 0xFF, 0xFA]), Err(NonMinimalInteger));
    // Too many bytes for the sort byte.
    assert_eq!(decode_int_exact(&[0x08, 0x01, 0x02]), Err(TrailingBytes(1)));
}

#[test]
fn malformed_key_paths_rejected() {
    use KeyPathError::*;
    let good = path(vec![s("ab"), i(300), Segment::bytes(vec![0, 1]).unwrap()]).encode();
    assert_eq!(KeyPath::decode(&good).unwrap().segments().len(), 3);

    assert_eq!(KeyPath::decode(&[]), Err(EmptyInput));
    assert_eq!(KeyPath::decode(&[0x00]), Err(EmptySegment));
    // Truncations and extensions never decode.
    for n in 0..good.len() {
        assert!(KeyPath::decode(&good[..n]).is_err(), "prefix {n}");
        assert!(KeyPath::decode(&good[n + 1..]).is_err(), "suffix {n}");
    }
    let mut trailing = good.clone();
    trailing.push(0x05);
    assert!(KeyPath::decode(&trailing).is_err());
    let mut trailing = good.clone();
    trailing.push(0x80);
    assert_eq!(KeyPath::decode(&trailing), Err(UnterminatedVarint));

    // Truncated integer inside a path: "a", int declared 2 bytes but sort
    // byte 0x09 announces 3.
    assert_eq!(
        KeyPath::decode(&[b'a', 0x01, 0x09, 0x01, 0x00, 0x08, 0x12]),
        Err(TruncatedInteger {
            needed: 2,
            available: 1
        })
    );
    // Non-minimal integer segment: 09 00 05 declared 3 bytes.
    assert_eq!(
        KeyPath::decode(&[0x09, 0x00, 0x05, 0x00, 0x1A]),
        Err(NonMinimalInteger)
    );
    // Bad varints: non-canonical (0x88 0x00 is 8 = (1 << 3) | 0 padded),
    // overflow, unknown type code.
    assert_eq!(
        KeyPath::decode(&[b'a', 0x00, 0x88, 0x00]),
        Err(NonCanonicalVarint { offset: 2 })
    );
    let mut overflow = vec![b'a', 0x00];
    overflow.extend([0xFF; 10]);
    overflow.push(0x01);
    assert_eq!(
        KeyPath::decode(&overflow),
        Err(VarintOverflow { offset: 2 })
    );
    assert_eq!(
        KeyPath::decode(&[b'a', 0x00, 0x0B]),
        Err(UnknownSegmentType(3))
    );
    // Lengths that cannot add up.
    assert_eq!(
        KeyPath::decode(&[b'a', b'b', 0x00, 0x18]),
        Err(InconsistentLayout)
    );
    // Wrong terminator and separator bytes.
    assert_eq!(
        KeyPath::decode(&[b'a', 0x02, 0x08]),
        Err(MissingTerminator {
            offset: 1,
            found: 0x02
        })
    );
    assert_eq!(
        KeyPath::decode(&[b'a', 0x02, b'b', 0x00, 0x08, 0x08]),
        Err(BadSeparator {
            offset: 1,
            found: 0x02
        })
    );
    // Strings: control character, invalid UTF-8.
    assert_eq!(
        KeyPath::decode(&[b'a', 0x07, 0x00, 0x10]),
        Err(ControlCharacter { code: 7, offset: 1 })
    );
    assert_eq!(
        KeyPath::decode(&[b'a', 0x01, 0xFF, 0xFE, 0x00, 0x08, 0x10]),
        Err(InvalidUtf8 { offset: 2 })
    );
}

#[test]
fn segment_validation() {
    use KeyPathError::*;
    assert_eq!(Segment::string(""), Err(EmptySegment));
    assert_eq!(
        Segment::string("ab\ncd"),
        Err(ControlCharacter {
            code: 0x0A,
            offset: 2
        })
    );
    assert_eq!(
        Segment::string("é\u{7F}"),
        Err(ControlCharacter {
            code: 0x7F,
            offset: 2
        })
    );
    assert!(Segment::string("\u{0}").is_err());
    assert!(Segment::string("ok 日本 😀 ~").is_ok());
    assert_eq!(Segment::bytes(Vec::new()), Err(EmptySegment));
    assert!(Segment::bytes([0u8, 1]).is_ok());
    assert_eq!(KeyPath::new(vec![]), Err(NoSegments));
    assert_eq!(
        KeyPath::new(vec![Segment::Str("a\u{1}".into())]),
        Err(ControlCharacter { code: 1, offset: 1 })
    );
    assert_eq!(
        KeyPath::new(vec![Segment::Bytes(vec![])]),
        Err(EmptySegment)
    );
    // Display of errors is readable.
    assert_eq!(
        ControlCharacter { code: 7, offset: 3 }.to_string(),
        "string segment contains control character U+0007 at byte 3"
    );
}

#[test]
fn round_trips_with_awkward_bytes() {
    let paths = [
        path(vec![Segment::bytes([0x00]).unwrap()]),
        path(vec![Segment::bytes([0x01, 0x00, 0x01]).unwrap(), i(0)]),
        path(vec![Segment::bytes(vec![0x80; 200]).unwrap(), i(INT_MIN)]),
        path(vec![i(INT_MIN), i(INT_MAX), i(0), i(-1)]),
        path(vec![
            s("日本"),
            Segment::bytes(vec![0; 5000]).unwrap(),
            s("😀"),
        ]),
        path((0..300).map(|n| i(n - 150)).collect()),
    ];
    for kp in paths {
        let enc = kp.encode();
        assert_eq!(enc.len(), kp.encoded_len());
        assert_eq!(KeyPath::decode(&enc).unwrap(), kp);
        let mut buf = vec![0xEE];
        kp.encode_into(&mut buf);
        assert_eq!(buf[1..], enc[..]);
    }
}

#[test]
fn logical_order_caveats() {
    let b = |v: &[u8]| Segment::bytes(v).unwrap();
    // Caveat 1: binary starting <= 0x0F against an integer.
    let (x, y) = (path(vec![i(5)]), path(vec![b(&[0x03])]));
    assert!(x < y);
    assert!(x.encode() > y.encode());
    // Caveat 2: a proper prefix continued by 0x00 against a longer path.
    let (x, y) = (path(vec![b(b"ab"), s("z")]), path(vec![b(b"ab\x00")]));
    assert!(x < y);
    assert!(x.encode() > y.encode());
    // Caveat 3: string and binary with identical bytes.
    let (x, y) = (path(vec![s("ab"), i(2)]), path(vec![b(b"ab"), i(1)]));
    assert!(x < y);
    assert!(x.encode() > y.encode());
    // Without caveats, mixed kinds agree.
    let (x, y) = (path(vec![i(INT_MAX)]), path(vec![b(&[0x10])]));
    assert!(x < y && x.encode() < y.encode());
    let (x, y) = (path(vec![s("ab")]), path(vec![b(b"ab\x02")]));
    assert!(x < y && x.encode() < y.encode());
}
