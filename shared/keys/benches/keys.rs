//! The hot key operations, each next to a naive `format!`/`split`-based baseline measured in the
//! same run: Score sort key build and parse, and StatelyDB integer and key-path encode/decode.
//!
//! Run with `cargo bench -p leaderboard-keys --bench keys`. With `BENCH_OUT` set (scripts/bench)
//! it also writes its table to `$BENCH_OUT/50-keys.md` and the rank key targets to
//! `$BENCH_OUT/targets.tsv`.

#[path = "../../../bench/src/fragment.rs"]
mod fragment;

use std::hint::black_box;

use criterion::Criterion;
use leaderboard_keypath::{KeyPath, Segment, decode_int, encode_int};
use leaderboard_keys::ids::PlayerId;
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
    g.bench_function("rank_key_build/ours", |b| {
        b.iter(|| spec.rank_key(black_box(score), black_box(ms)).unwrap())
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

/// The table of this run's results, and the rank key targets (issue 9: build and parse each
/// under 100 ns).
fn report() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let results = fragment::criterion_results(
        &fragment::criterion_dir(&root),
        &["score_sort_key", "binary_int", "key_path"],
    );
    let median = |id: &str| results.iter().find(|r| r.id == id).map(|r| r.median);
    let mut md = String::from("## Key codec\n\n");
    md.push_str(
        "`cargo bench -p leaderboard-keys --bench keys` (criterion, bench profile). Each \"ours\" row has \
         its naive baseline in the same run (`format!` and `splitn` + `str::parse`; a fixed 9-byte integer \
         form; a string key path). `binary_int` rows run 9 values per iteration: divide by 9 for one. \
         `rank_key_build` returns a fresh `String`; `rank_key_into_reused_buffer` writes into one.\n\n",
    );
    md.push_str(&fragment::criterion_table(&results));
    for (target, id) in [
        (
            "rankKey build < 100 ns",
            "score_sort_key/rank_key_build_ours",
        ),
        (
            "rankKey parse < 100 ns",
            "score_sort_key/rank_key_parse_ours",
        ),
    ] {
        if let Some(ns) = median(id) {
            fragment::target(target, &format!("{ns:.1} ns ({id})"), ns < 100.0);
        }
    }
    println!("{md}");
    fragment::write("50-keys.md", &md);
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
    report();
}
