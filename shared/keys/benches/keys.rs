//! The hot key operations, each next to a naive `format!`/`split`-based baseline measured in the
//! same run: Score sort key build and parse, and StatelyDB integer and key-path encode/decode.
//!
//! Run with `cargo bench -p leaderboard-keys --bench keys`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::keypath::{KeyPath, Segment, decode_int, encode_int};
use leaderboard_keys::rank::{MAX_TIEBREAK_MILLIS, Order, RankKeySpec};

/// The obvious way to write it: `format!` with width specifiers.
fn naive_score_sort_key(
    order: Order,
    max: u64,
    width: usize,
    score: u64,
    ms: u64,
    player: &str,
) -> String {
    let v = match order {
        Order::Desc => score,
        Order::Asc => max - score,
    };
    format!(
        "SCORE#{v:0width$}#{:013}#{player}",
        MAX_TIEBREAK_MILLIS - ms
    )
}

/// The obvious parse: split on `#` and `str::parse`.
fn naive_parse(order: Order, max: u64, sk: &str) -> Option<(u64, u64, String)> {
    let mut it = sk.splitn(4, '#');
    if it.next()? != "SCORE" {
        return None;
    }
    let v: u64 = it.next()?.parse().ok()?;
    let t: u64 = it.next()?.parse().ok()?;
    let p = it.next()?.to_string();
    let score = match order {
        Order::Desc => v,
        Order::Asc => max - v,
    };
    Some((score, MAX_TIEBREAK_MILLIS - t, p))
}

/// The obvious integer encoding that sorts: a fixed 9-byte offset big-endian form.
fn naive_int(v: i128) -> Vec<u8> {
    let shifted = (v + (u64::MAX as i128)) as u128;
    shifted.to_be_bytes()[7..].to_vec()
}

fn bench(c: &mut Criterion) {
    let spec = RankKeySpec::new(Order::Desc, 9_999_999_999).unwrap();
    let player = PlayerId::parse("p_8842").unwrap();
    let (score, ms) = (9850u64, 1_719_100_800_000u64);
    let sk = spec.score_sort_key(score, ms, &player).unwrap();
    assert_eq!(
        sk,
        naive_score_sort_key(Order::Desc, 9_999_999_999, 10, score, ms, "p_8842")
    );

    let mut g = c.benchmark_group("score_sort_key");
    g.bench_function("build/ours", |b| {
        b.iter(|| {
            spec.score_sort_key(black_box(score), black_box(ms), black_box(&player))
                .unwrap()
        })
    });
    g.bench_function("build/naive_format", |b| {
        b.iter(|| {
            naive_score_sort_key(
                Order::Desc,
                9_999_999_999,
                10,
                black_box(score),
                black_box(ms),
                black_box("p_8842"),
            )
        })
    });
    let mut buf = String::with_capacity(64);
    g.bench_function("rank_key_into_reused_buffer/ours", |b| {
        b.iter(|| {
            buf.clear();
            spec.write_rank_key(black_box(score), black_box(ms), &mut buf)
                .unwrap();
        })
    });
    g.bench_function("parse/ours", |b| {
        b.iter(|| spec.parse_score_sort_key(black_box(&sk)).unwrap())
    });
    g.bench_function("parse/naive_split", |b| {
        b.iter(|| naive_parse(Order::Desc, 9_999_999_999, black_box(&sk)).unwrap())
    });
    let rk = spec.rank_key(score, ms).unwrap();
    g.bench_function("rank_key_parse/ours", |b| {
        b.iter(|| spec.parse_rank_key(black_box(&rk)).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group("binary_int");
    let values: Vec<i128> = vec![0, 1, -1, 255, 256, 1234, -257, 1_678_901_234, 1 << 56];
    g.bench_function("encode/ours", |b| {
        b.iter(|| {
            for &v in &values {
                black_box(encode_int(black_box(v)).unwrap());
            }
        })
    });
    g.bench_function("encode/naive_fixed9", |b| {
        b.iter(|| {
            for &v in &values {
                black_box(naive_int(black_box(v)));
            }
        })
    });
    let encoded: Vec<Vec<u8>> = values.iter().map(|&v| encode_int(v).unwrap()).collect();
    g.bench_function("decode/ours", |b| {
        b.iter(|| {
            for e in &encoded {
                black_box(decode_int(black_box(e)).unwrap());
            }
        })
    });
    g.finish();

    let mut g = c.benchmark_group("key_path");
    let path = KeyPath::new(vec![
        Segment::string("user").unwrap(),
        Segment::bytes(
            [
                0x4c, 0x9d, 0x36, 0xe5, 0x6b, 0x19, 0x4e, 0x6a, 0x82, 0x8c, 0x22, 0x6e, 0xd6, 0x67,
                0x45, 0x8a,
            ]
            .to_vec(),
        )
        .unwrap(),
        Segment::string("post").unwrap(),
        Segment::int(1234).unwrap(),
        Segment::string("comment").unwrap(),
        Segment::int(1_678_901_234).unwrap(),
        Segment::string("react").unwrap(),
        Segment::int(42).unwrap(),
    ])
    .unwrap();
    let bytes = path.encode();
    g.bench_function("encode/ours", |b| b.iter(|| black_box(&path).encode()));
    g.bench_function("encode/naive_string_path", |b| {
        b.iter(|| {
            format!(
                "/user-{}/post-{}/comment-{}/react-{}",
                "4c9d36e5-6b19-4e6a-828c-226ed667458a",
                black_box(1234),
                black_box(1_678_901_234u64),
                black_box(42)
            )
        })
    });
    g.bench_function("decode/ours", |b| {
        b.iter(|| KeyPath::decode(black_box(&bytes)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
