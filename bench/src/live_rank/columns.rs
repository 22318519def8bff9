//! The live-rank benchmark's tiebreak columns (issue 91): the largest board again with one
//! column (a run's time, 7 digits) and with two (then kills, 3 digits), side by side with none
//! under the same load: how deep their keys go in the rank index, and what a lookup of each
//! costs. Their answers are checked against the true ranking with every other board's.

use std::fmt::Write;

use leaderboard_keys::rank::{DEFAULT_MAX_SCORE, Order, RankKeySpec};
use leaderboard_keys::rank_index::Layout;

use super::phases::{Lookup, When};
use super::units::Units;
use super::{BoardRun, tiebreak_columns};
use crate::fragment;

/// The most read units a lookup on a board of two columns may take (mean of the busy phase).
const TWO_COLUMN_READ_UNITS: f64 = 15.0;

/// The summed cost of `board`'s lookups of phase `when`, and how many there were.
fn summed(lookups: &[Lookup], board: usize, when: When) -> (Units, f64) {
    let mut sum = Units::default();
    let mut n = 0usize;
    for l in lookups
        .iter()
        .filter(|l| l.board == board && l.when == when)
    {
        sum += l.units;
        n += 1;
    }
    (sum, n as f64)
}

/// The section and its target, when the run has boards with columns.
pub(super) fn section(md: &mut String, boards: &[BoardRun], lookups: &[Lookup]) {
    let Some(largest) = boards.iter().map(|b| b.initial.len()).max() else {
        return;
    };
    let compared: Vec<(usize, &BoardRun)> = boards
        .iter()
        .enumerate()
        .filter(|(_, b)| b.initial.len() == largest)
        .collect();
    if compared.iter().all(|(_, b)| b.columns == 0) {
        return;
    }
    let _ = writeln!(
        md,
        "\n**Tiebreak columns** (issue 91): the {largest}-entry board with none, one (`time`, asc, \
         7 digits) and two (then `kills`, desc, 3 digits); the same scores, the same load. A \
         key's ranked digits are its score's and its columns'; the rank index has a level per \
         two of them and three for the time. On the compact layout a lookup reads the first 7 \
         nodes of its path and, in a second request, the rest only where the path is still \
         shared there.\n\n\
         | columns | ranked digits | path levels | lookups (quiet, busy) | items by key, busy | \
         read units, quiet | read units, busy |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    let mut two = None;
    for (b, board) in &compared {
        let spec = RankKeySpec::new(Order::Desc, DEFAULT_MAX_SCORE)
            .and_then(|s| s.with_columns(&tiebreak_columns(board.columns).unwrap_or_default()));
        let digits = spec.map_or(0, |s| s.ranked_digits());
        let (quiet, nq) = summed(lookups, *b, When::Quiet);
        let (busy, nb) = summed(lookups, *b, When::Busy);
        let per = |total: f64, n: f64| total / n.max(1.0);
        let _ = writeln!(
            md,
            "| {} | {digits} | {} | {nq}, {nb} | {:.2} | {:.2} | {:.2} |",
            board.columns,
            Layout::new(digits).levels(),
            per(busy.items_by_key as f64, nb),
            per(quiet.read, nq),
            per(busy.read, nb),
        );
        if board.columns == 2 && nb > 0.0 {
            two = Some(per(busy.read, nb));
        }
    }
    fragment::target(
        "Tiebreak columns (issue 91): a lookup with two columns at most 15 read units (busy, mean)",
        &two.map_or("no busy lookup of the two-column board".into(), |r| {
            format!("{r:.2} read units")
        }),
        two.is_some_and(|r| r <= TWO_COLUMN_READ_UNITS),
    );
}
