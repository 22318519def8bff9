//! A board's shape as an operator sees it (`lbctl stats`, the console's board page through
//! `GET /admin/leaderboards/{boardId}/stats`): its entries, score percentiles, the score
//! distribution and each lane's lag, from the rank index's upper levels
//! ([`Rank::score_buckets`]) in a bounded number of requests, never a scan of the board.

use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank::Order;
use serde::Serialize;

use crate::ground::error::StoreError;
use crate::ground::model::Board;
use crate::rank::Rank;
use crate::rank::inspect::{LaneLag, ScoreBuckets};

/// The percentiles shown.
pub const PERCENTILES: [u32; 7] = [1, 10, 25, 50, 75, 90, 99];

/// Score ranges the read aims for before it stops descending.
pub const WANT_BUCKETS: usize = 20;

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

/// A board's shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BoardStats {
    /// The board.
    pub leaderboard_id: BoardId,
    /// Its write shards (1 when unsharded).
    pub write_shards: u8,
    /// Its entries, exactly.
    pub entries: i64,
    /// The entries the index counts (`entries` less what it has still to apply).
    pub counted: i64,
    /// Changes the index had not applied.
    pub lag: u64,
    /// Each lane's written and applied changes.
    pub lanes: Vec<LaneLag>,
    /// Requests the index read took.
    pub requests: u32,
    /// Score percentiles.
    pub percentiles: Vec<Percentile>,
    /// The distribution, scores ascending, as read (every range one prefix of the stored digits).
    pub buckets: Vec<Bucket>,
}

impl Rank<'_> {
    /// `board`'s shape, read as [`Rank::score_buckets`] reads (at most 6 requests at the default
    /// width; again from the root, at most twice more, when a rebuild switched generations).
    pub async fn board_stats(self, board: &Board) -> Result<BoardStats, StoreError> {
        let read = self.score_buckets(board, WANT_BUCKETS).await?;
        let buckets = score_ranges(&read, board.order, board.max_score);
        Ok(BoardStats {
            leaderboard_id: board.board_id.clone(),
            write_shards: board.write_shards,
            entries: read.entries,
            counted: buckets.iter().map(|b| b.count).sum(),
            lag: read.lag,
            lanes: read.lanes,
            requests: read.requests,
            percentiles: percentiles(&buckets),
            buckets,
        })
    }
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
    }
}
