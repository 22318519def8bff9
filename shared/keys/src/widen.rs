//! Widening a board (docs/widen.md), the pure part: what a larger `maxScore` asks of a board's
//! keys, and one Score sort key moved to the new spec. A board ranked highest-first whose new
//! `maxScore` has as many digits keeps every key and only raises its `maxScore`; any other
//! widening re-keys every entry (a lowest-first board stores `maxScore - score`).

use crate::KeyError;
use crate::entity::SCORE_PREFIX;
use crate::pad::pad_into;
use crate::rank::{Order, RankKeySpec};

/// What a new `maxScore` asks of a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Widening {
    /// The board already has that `maxScore`: nothing to do (a second run of a finished one).
    AlreadyThere,
    /// The keys stay as they are: only `maxScore` is raised.
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

/// Why a board cannot widen to a `maxScore`.
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
    /// The new `maxScore` is out of range.
    #[error(transparent)]
    Key(#[from] KeyError),
}

/// What widening a board of spec `from` to `max_score` asks.
pub fn plan(from: RankKeySpec, max_score: u64) -> Result<Widening, WidenError> {
    if max_score == from.max_score() {
        return Ok(Widening::AlreadyThere);
    }
    if max_score < from.max_score() {
        return Err(WidenError::Narrower {
            from: from.max_score(),
            to: max_score,
        });
    }
    let to = from.widened(max_score)?;
    Ok(match from.order() {
        Order::Desc if to.width() == from.width() => Widening::RaiseOnly { to },
        _ => Widening::Rekey { from, to },
    })
}

/// A Score item's sort key of a board of spec `from`, as a board of spec `to` keys the same
/// entry (score, time, and player or the pseudonym of an erased one).
pub fn rekey(from: &RankKeySpec, to: &RankKeySpec, sort_key: &str) -> Result<String, KeyError> {
    let not_from = || KeyError::malformed(sort_key, "not a Score sort key of this board");
    let rest = sort_key.strip_prefix(SCORE_PREFIX).ok_or_else(not_from)?;
    let n = from.rank_key_len();
    if rest.len() <= n + 1 || !rest.is_char_boundary(n) || rest.as_bytes()[n] != b'#' {
        return Err(not_from());
    }
    let (score, _) = from.parse_rank_key(&rest[..n])?;
    entry_key(to, sort_key, score)
}

/// The sort key under `to` of the entry of `score` whose Score sort key is `sort_key`, a key of
/// any width: its score segment is written again, its time and player (or pseudonym) segments
/// kept. What an entry pointer, which keeps the key it was written with, names on a board
/// widened since.
pub fn entry_key(to: &RankKeySpec, sort_key: &str, score: u64) -> Result<String, KeyError> {
    let rest = sort_key
        .strip_prefix(SCORE_PREFIX)
        .ok_or_else(|| KeyError::malformed(sort_key, "not a Score sort key"))?;
    let (_, tail) = rest
        .split_once('#')
        .filter(|(d, t)| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) && !t.is_empty())
        .ok_or_else(|| KeyError::malformed(sort_key, "not a Score sort key"))?;
    let mut out = String::with_capacity(sort_key.len() + to.width().digits() as usize);
    out.push_str(SCORE_PREFIX);
    pad_into(to.ordered_value(score)?, to.width(), &mut out)?;
    out.push('#');
    out.push_str(tail);
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
                assert_eq!(entry_key(&to, old, *score).unwrap(), *new);
                assert_eq!(entry_key(&to, new, *score).unwrap(), *new);
                assert_eq!(entry_key(&from, new, *score).unwrap(), *old);
            }
            // A pseudonym in place of the player is kept as it is.
            let erased = format!("{}#x:9f2c", old_prefix(&keys[0].0));
            assert!(
                entry_key(&to, &erased, keys[0].1)
                    .unwrap()
                    .ends_with("#x:9f2c")
            );
            assert_eq!(
                rekey(&from, &to, &erased).unwrap(),
                entry_key(&to, &erased, keys[0].1).unwrap()
            );
            assert!(entry_key(&to, "SCORE#12x#1#p", 1).is_err());
            assert!(entry_key(&to, "FINAL#0000000001", 1).is_err());
            assert!(entry_key(&to, &keys[0].0, to.max_score() + 1).is_err());
        }
    }

    /// A Score sort key without its player segment.
    fn old_prefix(sk: &str) -> &str {
        &sk[..sk.rfind('#').unwrap()]
    }
}
