//! Widening a board (docs/widen.md), the pure part: what a larger `maxScore`, or a larger `max`
//! of a tiebreak column, asks of a board's keys, and one Score sort key moved to the new spec.
//! A widening whose every field keeps its key (a highest-first field of as many digits) only
//! raises the maxima; any other re-keys every entry (a lowest-first field stores `max - value`).

use crate::KeyError;
use crate::entity::SCORE_PREFIX;
use crate::pad::pad_into;
use crate::rank::{Order, RankKeySpec};

/// What a new `maxScore` (or column `max`) asks of a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Widening {
    /// The board already has those maxima: nothing to do (a second run of a finished one).
    AlreadyThere,
    /// The keys stay as they are: only the maxima are raised.
    RaiseOnly {
        /// The spec after.
        to: RankKeySpec,
    },
    /// Every Score item's sort key (and the rank index) moves to `to`.
    Rekey {
        /// The spec before.
        from: RankKeySpec,
        /// The spec after.
        to: RankKeySpec,
    },
}

/// Why a board cannot widen to a `maxScore` or a column's `max`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WidenError {
    /// A board only widens: its entries above the new `maxScore` would not fit.
    #[error("maxScore {to} is below the board's {from}: a board only widens")]
    Narrower {
        /// The board's `maxScore`.
        from: u64,
        /// The one asked for.
        to: u64,
    },
    /// A column only widens too.
    #[error("column {column}'s max {to} is below its {from}: a column only widens")]
    NarrowerColumn {
        /// The column's place (1 for the first).
        column: usize,
        /// Its `max`.
        from: u64,
        /// The one asked for.
        to: u64,
    },
    /// The new spec is another board's: another order, or other columns.
    #[error("a widening keeps the board's order and its columns' number and orders")]
    NotTheSameBoard,
    /// The new `maxScore` is out of range.
    #[error(transparent)]
    Key(#[from] KeyError),
}

/// What widening a board of spec `from` to `max_score` asks (its columns kept).
pub fn plan(from: RankKeySpec, max_score: u64) -> Result<Widening, WidenError> {
    if max_score < from.max_score() {
        return Err(WidenError::Narrower {
            from: from.max_score(),
            to: max_score,
        });
    }
    plan_to(from, from.widened(max_score)?)
}

/// What widening a board of spec `from` to spec `to` asks: `to` has the same order and
/// columns (in number and order), and no maximum below `from`'s.
pub fn plan_to(from: RankKeySpec, to: RankKeySpec) -> Result<Widening, WidenError> {
    let (a, b): (Vec<_>, Vec<_>) = (from.column_keys().collect(), to.column_keys().collect());
    if from.order() != to.order()
        || a.len() != b.len()
        || a.iter().zip(&b).any(|(x, y)| x.order() != y.order())
    {
        return Err(WidenError::NotTheSameBoard);
    }
    if to.max_score() < from.max_score() {
        return Err(WidenError::Narrower {
            from: from.max_score(),
            to: to.max_score(),
        });
    }
    if let Some((i, (x, y))) = (a.iter().zip(&b).enumerate()).find(|(_, (x, y))| y.max() < x.max())
    {
        return Err(WidenError::NarrowerColumn {
            column: i + 1,
            from: x.max(),
            to: y.max(),
        });
    }
    if from == to {
        return Ok(Widening::AlreadyThere);
    }
    // A field keeps its key when it is highest-first at as many digits.
    let keeps = |order: Order, from_width, to_width| order == Order::Desc && from_width == to_width;
    let score_kept = keeps(from.order(), from.width(), to.width());
    let columns_kept = a
        .iter()
        .zip(&b)
        .all(|(x, y)| x.max() == y.max() || keeps(x.order(), x.width(), y.width()));
    Ok(match score_kept && columns_kept {
        true => Widening::RaiseOnly { to },
        false => Widening::Rekey { from, to },
    })
}

/// A Score item's sort key of a board of spec `from`, as a board of spec `to` keys the same
/// entry (score, columns, time, and player or the pseudonym of an erased one).
pub fn rekey(from: &RankKeySpec, to: &RankKeySpec, sort_key: &str) -> Result<String, KeyError> {
    let not_from = || KeyError::malformed(sort_key, "not a Score sort key of this board");
    let rest = sort_key.strip_prefix(SCORE_PREFIX).ok_or_else(not_from)?;
    let n = from.rank_key_len();
    if rest.len() <= n + 1 || !rest.is_char_boundary(n) || rest.as_bytes()[n] != b'#' {
        return Err(not_from());
    }
    let (score, subscores, at) = from.parse_rank_tuple(&rest[..n])?;
    let mut out = String::with_capacity(sort_key.len() + 8);
    out.push_str(SCORE_PREFIX);
    to.write_rank_key_with(score, &subscores, at, &mut out)?;
    out.push_str(&rest[n..]);
    Ok(out)
}

/// The sort key under `to` of the entry of `score` and `subscores` (in `to`'s column order)
/// whose Score sort key is `sort_key`, a key of any widths: its score and column segments are
/// written again, its time and player (or pseudonym) segments kept. What an entry pointer,
/// which keeps the key it was written with, names on a board widened since.
pub fn entry_key(
    to: &RankKeySpec,
    sort_key: &str,
    score: u64,
    subscores: &[u64],
) -> Result<String, KeyError> {
    let bad = || KeyError::malformed(sort_key, "not a Score sort key");
    let rest = sort_key.strip_prefix(SCORE_PREFIX).ok_or_else(bad)?;
    // `<score>[#<column>...]#<time>#<player>`: the player holds no '#', the time 13 digits.
    let (head, player) = rest.rsplit_once('#').ok_or_else(bad)?;
    let (ranked, time) = head.rsplit_once('#').ok_or_else(bad)?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if player.is_empty() || !digits(time) || !ranked.split('#').all(digits) {
        return Err(bad());
    }
    if subscores.len() != to.column_count() {
        return Err(KeyError::Subscores {
            given: subscores.len(),
            columns: to.column_count(),
        });
    }
    let mut out = String::with_capacity(sort_key.len() + 8);
    out.push_str(SCORE_PREFIX);
    pad_into(to.ordered_value(score)?, to.width(), &mut out)?;
    for (column, value) in to.column_keys().zip(subscores) {
        out.push('#');
        pad_into(column.ordered_value(*value)?, column.width(), &mut out)?;
    }
    out.push('#');
    out.push_str(time);
    out.push('#');
    out.push_str(player);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::PlayerId;

    fn spec(order: Order, max: u64) -> RankKeySpec {
        RankKeySpec::new(order, max).unwrap()
    }

    #[test]
    fn a_wider_max_re_keys_unless_the_keys_stay_the_same() {
        let desc = spec(Order::Desc, 5_000);
        assert_eq!(plan(desc, 5_000), Ok(Widening::AlreadyThere));
        assert_eq!(
            plan(desc, 9_999),
            Ok(Widening::RaiseOnly {
                to: spec(Order::Desc, 9_999)
            })
        );
        assert_eq!(
            plan(desc, 10_000),
            Ok(Widening::Rekey {
                from: desc,
                to: spec(Order::Desc, 10_000)
            })
        );
        // Lowest first stores maxScore - score: any new maxScore moves every key.
        let asc = spec(Order::Asc, 5_000);
        assert!(matches!(plan(asc, 6_000), Ok(Widening::Rekey { .. })));
        assert_eq!(
            plan(desc, 4_999),
            Err(WidenError::Narrower {
                from: 5_000,
                to: 4_999
            })
        );
        assert!(matches!(plan(desc, u64::MAX), Err(WidenError::Key(_))));
    }

    #[test]
    fn re_keyed_entries_keep_their_values_and_their_order() {
        for order in [Order::Desc, Order::Asc] {
            let (from, to) = (spec(order, 9_999), spec(order, 1_000_000));
            let mut keys: Vec<(String, u64)> = [(0, "a"), (17, "b"), (17, "c"), (9_999, "d")]
                .iter()
                .enumerate()
                .map(|(i, (score, p))| {
                    let player = PlayerId::parse(p).unwrap();
                    let sk = from
                        .score_sort_key(*score, 1_000 + i as u64, &player)
                        .unwrap();
                    (sk, *score)
                })
                .collect();
            keys.sort();
            let moved: Vec<String> = keys
                .iter()
                .map(|(sk, _)| rekey(&from, &to, sk).unwrap())
                .collect();
            let mut sorted = moved.clone();
            sorted.sort();
            assert_eq!(moved, sorted, "{order:?}: the order is kept");
            for ((_, score), sk) in keys.iter().zip(&moved) {
                assert_eq!(to.parse_score_sort_key(sk).unwrap().score, *score);
            }
            // A key of another width is not this board's.
            assert!(rekey(&from, &to, &moved[0]).is_err());
            // An entry's key from its score, whatever the width its key was written at.
            for ((old, score), new) in keys.iter().zip(&moved) {
                assert_eq!(entry_key(&to, old, *score, &[]).unwrap(), *new);
                assert_eq!(entry_key(&to, new, *score, &[]).unwrap(), *new);
                assert_eq!(entry_key(&from, new, *score, &[]).unwrap(), *old);
            }
            // A pseudonym in place of the player is kept as it is.
            let erased = format!("{}#x:9f2c", old_prefix(&keys[0].0));
            assert!(
                entry_key(&to, &erased, keys[0].1, &[])
                    .unwrap()
                    .ends_with("#x:9f2c")
            );
            assert_eq!(
                rekey(&from, &to, &erased).unwrap(),
                entry_key(&to, &erased, keys[0].1, &[]).unwrap()
            );
            assert!(entry_key(&to, "SCORE#12x#1#p", 1, &[]).is_err());
            assert!(entry_key(&to, "FINAL#0000000001", 1, &[]).is_err());
            assert!(entry_key(&to, &keys[0].0, to.max_score() + 1, &[]).is_err());
        }
    }

    #[test]
    fn a_column_widens_like_the_score_and_its_entries_keep_their_order() {
        use crate::columns::Column;
        let with = |time_max: u64, kills_max: u64| {
            let cols: Vec<Column> = serde_json::from_value(serde_json::json!([
                {"name": "time", "order": "asc", "max": time_max},
                {"name": "kills", "order": "desc", "max": kills_max}
            ]))
            .unwrap();
            spec(Order::Desc, 999).with_columns(&cols).unwrap()
        };
        let from = with(9_999, 50);
        assert_eq!(plan_to(from, from), Ok(Widening::AlreadyThere));
        // kills is desc: 50 -> 99 keeps its two digits; 50 -> 100 takes a third
        assert_eq!(
            plan_to(from, with(9_999, 99)),
            Ok(Widening::RaiseOnly {
                to: with(9_999, 99)
            })
        );
        assert!(matches!(
            plan_to(from, with(9_999, 100)),
            Ok(Widening::Rekey { .. })
        ));
        // time is asc: any new max moves every key
        assert!(matches!(
            plan_to(from, with(10_000, 50)),
            Ok(Widening::Rekey { .. })
        ));
        assert_eq!(
            plan_to(from, with(9_999, 49)),
            Err(WidenError::NarrowerColumn {
                column: 2,
                from: 50,
                to: 49
            })
        );
        assert_eq!(
            plan_to(from, spec(Order::Desc, 999)),
            Err(WidenError::NotTheSameBoard)
        );
        // the maxScore alone keeps the columns
        assert!(
            matches!(plan(from, 9_999), Ok(Widening::Rekey { to, .. }) if to.column_count() == 2)
        );
        let to = with(1_000_000, 100);
        let p = PlayerId::parse("p").unwrap();
        let entries = [
            (5, [10, 3], 1),
            (5, [10, 4], 2),
            (5, [11, 50], 0),
            (6, [9_999, 0], 3),
        ];
        let mut keys: Vec<String> = entries
            .iter()
            .map(|(score, subs, at)| from.score_sort_key_with(*score, subs, *at, &p).unwrap())
            .collect();
        keys.sort();
        let moved: Vec<String> = keys.iter().map(|k| rekey(&from, &to, k).unwrap()).collect();
        let mut sorted = moved.clone();
        sorted.sort();
        assert_eq!(moved, sorted);
        for (old, new) in keys.iter().zip(&moved) {
            let e = from.parse_score_sort_key(old).unwrap();
            let back = to.parse_score_sort_key(new).unwrap();
            assert_eq!((back.score, &back.subscores), (e.score, &e.subscores));
            assert_eq!(entry_key(&to, old, e.score, &e.subscores).unwrap(), *new);
            assert!(entry_key(&to, old, e.score, &[]).is_err());
        }
    }

    /// A Score sort key without its player segment.
    fn old_prefix(sk: &str) -> &str {
        &sk[..sk.rfind('#').unwrap()]
    }
}
