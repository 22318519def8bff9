//! `lbctl stats`: a board's shape (entries, score percentiles, the score distribution as a
//! terminal histogram) read from the rank index's upper levels ([`Rank::score_buckets`](leaderboard_store::Rank::score_buckets)) in a
//! bounded number of requests: never a scan of the board, whatever its size.

use std::io::Write;

use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank::Order;
use leaderboard_store::model::Board;
use leaderboard_store::{ScoreBuckets, Store};
use serde::Serialize;

use crate::error::{CtlError, CtlResult};
use crate::render;

/// The percentiles shown.
pub const PERCENTILES: [u32; 7] = [1, 10, 25, 50, 75, 90, 99];

/// Prefixes the read aims for before it stops descending.
const WANT_BUCKETS: usize = 20;

/// Entries whose scores fall in `low..=high`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Bucket {
    /// The lowest score of the range.
    pub low: u64,
    /// The highest.
    pub high: u64,
    /// Entries counted there.
    pub count: i64,
}

/// The score below or at which `p` percent of the counted entries fall (nearest rank, scores
/// ascending): somewhere in `low..=high`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Percentile {
    /// The percent.
    pub p: u32,
    /// The lowest score it can be.
    pub low: u64,
    /// The highest.
    pub high: u64,
}

/// What `stats` shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    /// The board.
    pub leaderboard_id: BoardId,
    /// Its entries, exactly.
    pub entries: i64,
    /// The entries the index counts (`entries` less what it has still to apply).
    pub counted: i64,
    /// Changes the index had not applied.
    pub lag: u64,
    /// Requests the index read took.
    pub requests: u32,
    /// Score percentiles.
    pub percentiles: Vec<Percentile>,
    /// The distribution, scores ascending, as read (every range one prefix of the stored digits).
    pub buckets: Vec<Bucket>,
}

/// Reads `board`'s shape.
pub async fn stats(store: &Store, board: &BoardId) -> CtlResult<(Board, Stats)> {
    let found = store
        .boards()
        .get_board(board)
        .await?
        .ok_or_else(|| CtlError::NotFound(format!("no board {board}")))?;
    let read = store.rank().score_buckets(&found, WANT_BUCKETS).await?;
    let buckets = score_ranges(&read, found.order, found.max_score);
    let stats = Stats {
        leaderboard_id: board.clone(),
        entries: read.entries,
        counted: buckets.iter().map(|b| b.count).sum(),
        lag: read.lag,
        requests: read.requests,
        percentiles: percentiles(&buckets),
        buckets,
    };
    Ok((found, stats))
}

/// The score range of each prefix bucket, scores ascending. A prefix of `k` of the `W` stored
/// digits covers stored values `prefix * 10^(W-k)` on, `10^(W-k)` of them (up to maxScore);
/// on an `asc` board the stored value is `maxScore - score`.
pub fn score_ranges(read: &ScoreBuckets, order: Order, max_score: u64) -> Vec<Bucket> {
    let mut out: Vec<Bucket> = read
        .buckets
        .iter()
        .filter_map(|(prefix, count)| {
            let rest = read.score_digits.checked_sub(prefix.len())? as u32;
            let span = 10u64.checked_pow(rest)?;
            let lo = prefix.parse::<u64>().ok()?.checked_mul(span)?;
            let hi = lo.saturating_add(span - 1).min(max_score);
            let (low, high) = match order {
                Order::Desc => (lo, hi),
                Order::Asc => (max_score.saturating_sub(hi), max_score.saturating_sub(lo)),
            };
            Some(Bucket {
                low,
                high,
                count: *count,
            })
        })
        .collect();
    out.sort_by_key(|b| b.low);
    out
}

/// The [`PERCENTILES`] of the counted entries, each as the range of the bucket it falls in.
pub fn percentiles(buckets: &[Bucket]) -> Vec<Percentile> {
    let total: i64 = buckets.iter().map(|b| b.count).sum();
    if total <= 0 {
        return Vec::new();
    }
    PERCENTILES
        .iter()
        .filter_map(|&p| {
            // Nearest rank: the ceil(p% of n)-th score ascending, at least the first.
            let target = ((i128::from(p) * i128::from(total) + 99) / 100).max(1);
            let mut seen = 0i128;
            let b = buckets.iter().find(|b| {
                seen += i128::from(b.count);
                seen >= target
            })?;
            Some(Percentile {
                p,
                low: b.low,
                high: b.high,
            })
        })
        .collect()
}

/// At most `rows` rows: runs of neighbouring buckets merged.
pub fn merged(buckets: &[Bucket], rows: usize) -> Vec<Bucket> {
    let per = buckets.len().div_ceil(rows.max(1)).max(1);
    buckets
        .chunks(per)
        .map(|run| Bucket {
            low: run[0].low,
            high: run[run.len() - 1].high,
            count: run.iter().map(|b| b.count).sum(),
        })
        .collect()
}

fn range(low: u64, high: u64) -> String {
    if low == high {
        low.to_string()
    } else {
        format!("{low} to {high}")
    }
}

/// Writes the stats: a summary, the percentiles and a histogram of at most `rows` bars, or
/// one JSON document.
pub fn write(out: &mut dyn Write, board: &Board, s: &Stats, rows: usize, json: bool) -> CtlResult {
    if json {
        return render::json_doc(out, s, true);
    }
    writeln!(
        out,
        "{}: {} entries; the rank index counts {} (lag {}), read in {} requests",
        render::board_heading(board),
        s.entries,
        s.counted,
        s.lag,
        s.requests
    )?;
    if s.buckets.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    let cells: Vec<Vec<String>> = s
        .percentiles
        .iter()
        .map(|p| vec![format!("p{}", p.p), range(p.low, p.high)])
        .collect();
    render::table(out, &["PERCENTILE", "SCORE"], &cells, &[true, false])?;
    writeln!(out)?;
    let bars = merged(&s.buckets, rows);
    let most = bars.iter().map(|b| b.count).max().unwrap_or(1).max(1);
    let cells: Vec<Vec<String>> = bars
        .iter()
        .map(|b| {
            let width = (b.count.max(0) as u64 * 40).div_ceil(most as u64) as usize;
            vec![range(b.low, b.high), b.count.to_string(), "█".repeat(width)]
        })
        .collect();
    render::table(out, &["SCORE", "ENTRIES", ""], &cells, &[true, true, false])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(digits: usize, buckets: &[(&str, i64)]) -> ScoreBuckets {
        ScoreBuckets {
            score_digits: digits,
            buckets: buckets.iter().map(|(p, c)| (p.to_string(), *c)).collect(),
            ..ScoreBuckets::default()
        }
    }

    #[test]
    fn prefixes_become_score_ranges_on_both_orders() {
        let r = read(4, &[("00", 5), ("12", 3), ("99", 1)]);
        let desc = score_ranges(&r, Order::Desc, 9_999);
        assert_eq!(
            desc,
            [
                Bucket {
                    low: 0,
                    high: 99,
                    count: 5
                },
                Bucket {
                    low: 1200,
                    high: 1299,
                    count: 3
                },
                Bucket {
                    low: 9900,
                    high: 9999,
                    count: 1
                },
            ]
        );
        // asc, maxScore 5000: stored 0..99 is score 4901..5000; stored 9900.. is beyond.
        let asc = score_ranges(&read(4, &[("00", 5), ("12", 3)]), Order::Asc, 5_000);
        assert_eq!(
            asc,
            [
                Bucket {
                    low: 3701,
                    high: 3800,
                    count: 3
                },
                Bucket {
                    low: 4901,
                    high: 5000,
                    count: 5
                },
            ]
        );
        // A whole score: one value.
        let exact = score_ranges(&read(2, &[("42", 2)]), Order::Desc, 99);
        assert_eq!(
            exact,
            [Bucket {
                low: 42,
                high: 42,
                count: 2
            }]
        );
    }

    #[test]
    fn percentiles_fall_in_the_bucket_of_their_nearest_rank() {
        let b = [
            Bucket {
                low: 0,
                high: 9,
                count: 10,
            },
            Bucket {
                low: 10,
                high: 19,
                count: 80,
            },
            Bucket {
                low: 20,
                high: 29,
                count: 10,
            },
        ];
        let p: Vec<(u32, u64)> = percentiles(&b).iter().map(|p| (p.p, p.low)).collect();
        assert_eq!(
            p,
            [
                (1, 0),
                (10, 0),
                (25, 10),
                (50, 10),
                (75, 10),
                (90, 10),
                (99, 20)
            ]
        );
        assert!(percentiles(&[]).is_empty());
        assert_eq!(
            merged(&b, 2),
            [
                Bucket {
                    low: 0,
                    high: 19,
                    count: 90
                },
                Bucket {
                    low: 20,
                    high: 29,
                    count: 10
                },
            ]
        );
    }
}
