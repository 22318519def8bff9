//! `lbctl stats`: a board's shape (entries, score percentiles, the score distribution as a
//! terminal histogram, each lane's lag) read from the rank index's upper levels
//! ([`Rank::board_stats`](leaderboard_store::Rank::board_stats)) in a bounded number of
//! requests: never a scan of the board, whatever its size.

use std::io::Write;

use leaderboard_keys::ids::BoardId;
use leaderboard_store::Store;
use leaderboard_store::model::Board;
pub use leaderboard_store::{BoardStats as Stats, Bucket, PERCENTILES};

use crate::error::{CtlError, CtlResult};
use crate::render;

/// Reads `board`'s shape.
pub async fn stats(store: &Store, board: &BoardId) -> CtlResult<(Board, Stats)> {
    let found = store
        .boards()
        .get_board(board)
        .await?
        .ok_or_else(|| CtlError::NotFound(format!("no board {board}")))?;
    let stats = store.rank().board_stats(&found).await?;
    Ok((found, stats))
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

    #[test]
    fn neighbouring_buckets_merge_into_at_most_the_rows_asked() {
        let b = [(0, 9, 10), (10, 19, 80), (20, 29, 10)].map(|(low, high, count)| Bucket {
            low,
            high,
            count,
        });
        let rows: Vec<(u64, u64, i64)> = merged(&b, 2)
            .iter()
            .map(|b| (b.low, b.high, b.count))
            .collect();
        assert_eq!(rows, [(0, 19, 90), (20, 29, 10)]);
        assert_eq!(merged(&b, 5).len(), 3);
    }
}
