//! The contract's `rankKey`: a board's entries read with `ScanIndexForward=false` come out in
//! rank order, because *descending byte order of the rank key is rank order*.
//!
//! - `desc` boards (higher is better): `<score padded to the board width>#<tiebreak>`
//! - `asc` boards (lower is better): `<(maxScore - score) padded to the board width>#<tiebreak>`
//!
//! where `tiebreak = (9999999999999 - attainedAtMillis)` padded to 13 digits, so of two equal
//! scores the earlier one has the larger key and ranks higher. The board width is the number of
//! digits of the board's `maxScore`. The Score item's sort key is `SCORE#<rankKey>#<playerId>`.
//!
//! A board with tiebreak columns ([`crate::columns`]) writes each column's value between the
//! score and the tiebreak, in the same way: `<score>#<column 1>#<column 2>#<tiebreak>`, each
//! column padded to the digits of its `max` and stored as `max - value` when it is `asc`.
//!
//! ```
//! use leaderboard_keys::rank::{Order, RankKeySpec};
//!
//! let desc = RankKeySpec::new(Order::Desc, 9_999_999_999).unwrap();
//! assert_eq!(desc.rank_key(9850, 1_719_100_800_000).unwrap(), "0000009850#8280899199999");
//! let asc = RankKeySpec::new(Order::Asc, 999_999).unwrap(); // a speed-run in ms
//! assert_eq!(asc.rank_key(61_250, 1_719_100_800_000).unwrap(), "938749#8280899199999");
//! assert!(desc.rank_key(10_000_000_000, 0).is_err()); // above maxScore
//! // points, then fewer moves: 9850 points in 42 of at most 999 moves
//! let moves: Vec<leaderboard_keys::columns::Column> =
//!     serde_json::from_str(r#"[{"name": "moves", "order": "asc", "max": 999}]"#).unwrap();
//! let puzzle = desc.with_columns(&moves).unwrap();
//! assert_eq!(
//!     puzzle.rank_key_with(9850, &[42], 1_719_100_800_000).unwrap(),
//!     "0000009850#957#8280899199999"
//! );
//! ```

use crate::KeyError;
use crate::columns::{Column, ColumnKey, MAX_COLUMNS};
use crate::entity::SCORE_PREFIX;
use crate::ids::PlayerId;
pub use crate::order::Order;
use crate::pad::{Width, pad_into, parse_digits};

/// Digits of the millisecond tiebreaker.
pub const TIEBREAK_DIGITS: u8 = 13;
/// The latest `attainedAt` the tiebreaker holds (year 2286).
pub const MAX_TIEBREAK_MILLIS: u64 = 9_999_999_999_999;
/// A board's `maxScore` when none is given: 10 digits.
pub const DEFAULT_MAX_SCORE: u64 = 9_999_999_999;
/// The largest `maxScore` a board may have (10^18 - 1, 18 digits).
pub const MAX_MAX_SCORE: u64 = 999_999_999_999_999_999;

const TIEBREAK_WIDTH: Width = Width::fixed(TIEBREAK_DIGITS);

/// How one board builds its rank keys: its order and `maxScore` (hence its width), and its
/// tiebreak columns'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RankKeySpec {
    order: Order,
    max_score: u64,
    width: Width,
    columns: [Option<ColumnKey>; MAX_COLUMNS],
}

/// A Score item's sort key, parsed back.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ScoreSortKey {
    /// The score.
    pub score: u64,
    /// Its tiebreak columns' values, in the board's column order (empty without columns).
    pub subscores: Vec<u64>,
    /// When it was attained, in epoch milliseconds.
    pub attained_at_ms: u64,
    /// Whose it is.
    pub player_id: PlayerId,
}

impl RankKeySpec {
    /// The spec of a board with this order and `maxScore` (at most [`MAX_MAX_SCORE`]).
    pub fn new(order: Order, max_score: u64) -> Result<Self, KeyError> {
        if max_score > MAX_MAX_SCORE {
            return Err(KeyError::Overflow {
                value: max_score,
                width: 18,
                max: MAX_MAX_SCORE,
            });
        }
        Ok(RankKeySpec {
            order,
            max_score,
            width: Width::for_max(max_score),
            columns: [None; MAX_COLUMNS],
        })
    }

    /// This spec with the board's tiebreak `columns` (at most [`MAX_COLUMNS`]), ranked after the
    /// score in the order given.
    pub fn with_columns(mut self, columns: &[Column]) -> Result<Self, KeyError> {
        if columns.len() > MAX_COLUMNS {
            return Err(KeyError::Subscores {
                given: columns.len(),
                columns: MAX_COLUMNS,
            });
        }
        self.columns = [None; MAX_COLUMNS];
        for (slot, column) in self.columns.iter_mut().zip(columns) {
            *slot = Some(ColumnKey::of(column)?);
        }
        Ok(self)
    }

    /// The same board at a larger `max_score` (its order and columns kept).
    pub fn widened(&self, max_score: u64) -> Result<Self, KeyError> {
        Ok(RankKeySpec {
            columns: self.columns,
            ..RankKeySpec::new(self.order, max_score)?
        })
    }

    /// The tiebreak columns' key fields, in rank order.
    pub fn column_keys(&self) -> impl Iterator<Item = &ColumnKey> {
        self.columns.iter().flatten()
    }

    /// How many tiebreak columns the board has.
    pub fn column_count(&self) -> usize {
        self.column_keys().count()
    }

    /// The digits of a rank key before its tiebreak: the score's and every column's. The rank
    /// index counts them all ([`crate::rank_index::Layout`]).
    pub fn ranked_digits(&self) -> usize {
        self.column_keys()
            .map(|c| usize::from(c.width().digits()))
            .sum::<usize>()
            + usize::from(self.width.digits())
    }

    /// The board's order.
    pub fn order(&self) -> Order {
        self.order
    }

    /// The board's `maxScore`.
    pub fn max_score(&self) -> u64 {
        self.max_score
    }

    /// The board's width in digits.
    pub fn width(&self) -> Width {
        self.width
    }

    /// Checks a score against the board's range `0..=maxScore`.
    pub fn check_score(&self, score: u64) -> Result<(), KeyError> {
        if score > self.max_score {
            Err(KeyError::ScoreOutOfRange {
                score,
                max_score: self.max_score,
            })
        } else {
            Ok(())
        }
    }

    /// The number padded into the first segment: the score, or `maxScore - score` on `asc`
    /// boards.
    pub(crate) fn ordered_value(&self, score: u64) -> Result<u64, KeyError> {
        self.check_score(score)?;
        Ok(match self.order {
            Order::Desc => score,
            Order::Asc => self.max_score - score,
        })
    }

    /// Appends the rank key of `score` with its tiebreak columns' values `subscores` (one per
    /// column, in column order) attained at `attained_at_ms` to `out`.
    pub fn write_rank_key_with(
        &self,
        score: u64,
        subscores: &[u64],
        attained_at_ms: u64,
        out: &mut String,
    ) -> Result<(), KeyError> {
        if subscores.len() != self.column_count() {
            return Err(KeyError::Subscores {
                given: subscores.len(),
                columns: self.column_count(),
            });
        }
        let value = self.ordered_value(score)?;
        let tiebreak = MAX_TIEBREAK_MILLIS
            .checked_sub(attained_at_ms)
            .ok_or(KeyError::TimeOutOfRange(attained_at_ms))?;
        pad_into(value, self.width, out)?;
        for (column, sub) in self.column_keys().zip(subscores) {
            out.push('#');
            pad_into(column.ordered_value(*sub)?, column.width(), out)?;
        }
        out.push('#');
        pad_into(tiebreak, TIEBREAK_WIDTH, out)
    }

    /// [`RankKeySpec::write_rank_key_with`] on a board without tiebreak columns.
    pub fn write_rank_key(
        &self,
        score: u64,
        attained_at_ms: u64,
        out: &mut String,
    ) -> Result<(), KeyError> {
        self.write_rank_key_with(score, &[], attained_at_ms, out)
    }

    /// The rank key of `score` and `subscores` attained at `attained_at_ms`.
    pub fn rank_key_with(
        &self,
        score: u64,
        subscores: &[u64],
        attained_at_ms: u64,
    ) -> Result<String, KeyError> {
        let mut out = String::with_capacity(self.rank_key_len());
        self.write_rank_key_with(score, subscores, attained_at_ms, &mut out)?;
        Ok(out)
    }

    /// The rank key of `score` attained at `attained_at_ms` on a board without columns.
    pub fn rank_key(&self, score: u64, attained_at_ms: u64) -> Result<String, KeyError> {
        self.rank_key_with(score, &[], attained_at_ms)
    }

    /// The length in bytes of every rank key of this board.
    pub fn rank_key_len(&self) -> usize {
        self.ranked_digits() + self.column_count() + 1 + TIEBREAK_DIGITS as usize
    }

    /// The Score item's sort key, `SCORE#<rankKey>#<playerId>`.
    pub fn score_sort_key_with(
        &self,
        score: u64,
        subscores: &[u64],
        attained_at_ms: u64,
        player: &PlayerId,
    ) -> Result<String, KeyError> {
        let mut out = String::with_capacity(
            SCORE_PREFIX.len() + self.rank_key_len() + 1 + player.as_str().len(),
        );
        out.push_str(SCORE_PREFIX);
        self.write_rank_key_with(score, subscores, attained_at_ms, &mut out)?;
        out.push('#');
        out.push_str(player.as_str());
        Ok(out)
    }

    /// [`RankKeySpec::score_sort_key_with`] on a board without tiebreak columns.
    pub fn score_sort_key(
        &self,
        score: u64,
        attained_at_ms: u64,
        player: &PlayerId,
    ) -> Result<String, KeyError> {
        self.score_sort_key_with(score, &[], attained_at_ms, player)
    }

    /// The rank key whose digits, delimiters left out, are `digits` (the ranked digits, then
    /// the tiebreak's, as [`crate::rank_index::CountedKey::digits`] gives them): `None` when
    /// they are not as many as this board's keys have, or not all decimal digits.
    pub fn delimit(&self, digits: &str) -> Option<String> {
        if digits.len() != self.ranked_digits() + TIEBREAK_DIGITS as usize
            || !digits.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let mut out = String::with_capacity(self.rank_key_len());
        let widths = std::iter::once(self.width).chain(self.column_keys().map(|c| c.width()));
        let mut at = 0;
        for width in widths {
            let end = at + usize::from(width.digits());
            out.push_str(&digits[at..end]);
            out.push('#');
            at = end;
        }
        out.push_str(&digits[at..]);
        Some(out)
    }

    /// Parses a rank key of this board back to `(score, attained_at_ms)`.
    pub fn parse_rank_key(&self, rank_key: &str) -> Result<(u64, u64), KeyError> {
        let (score, _, at) = self.parse_rank_tuple(rank_key)?;
        Ok((score, at))
    }

    /// Parses a rank key of this board back to `(score, subscores, attained_at_ms)`.
    pub fn parse_rank_tuple(&self, rank_key: &str) -> Result<(u64, Vec<u64>, u64), KeyError> {
        let b = rank_key.as_bytes();
        let w = self.width.digits() as usize;
        if b.len() != self.rank_key_len() || b[w] != b'#' {
            return Err(KeyError::malformed(
                rank_key,
                "not a rank key of this board",
            ));
        }
        let value = parse_digits(&b[..w])
            .ok_or_else(|| KeyError::malformed(rank_key, "score is not a decimal number"))?;
        if value > self.max_score {
            return Err(KeyError::malformed(
                rank_key,
                "score is above the board's maxScore",
            ));
        }
        let mut at = w + 1;
        let mut subscores = Vec::with_capacity(self.column_count());
        for column in self.column_keys() {
            let end = at + usize::from(column.width().digits());
            let sub = (b[end] == b'#')
                .then(|| parse_digits(&b[at..end]))
                .flatten()
                .and_then(|written| column.value_of(written))
                .ok_or_else(|| KeyError::malformed(rank_key, "not a column of this board"))?;
            subscores.push(sub);
            at = end + 1;
        }
        let tiebreak = parse_digits(&b[at..])
            .ok_or_else(|| KeyError::malformed(rank_key, "time is not a decimal number"))?;
        let score = match self.order {
            Order::Desc => value,
            Order::Asc => self.max_score - value,
        };
        Ok((score, subscores, MAX_TIEBREAK_MILLIS - tiebreak))
    }

    /// Parses a Score item's sort key (`SCORE#<rankKey>#<playerId>`) of this board.
    pub fn parse_score_sort_key(&self, sk: &str) -> Result<ScoreSortKey, KeyError> {
        let rest = sk
            .strip_prefix(SCORE_PREFIX)
            .ok_or_else(|| KeyError::malformed(sk, "not a Score sort key"))?;
        let n = self.rank_key_len();
        if rest.len() <= n + 1 || !rest.is_char_boundary(n) || rest.as_bytes()[n] != b'#' {
            return Err(KeyError::malformed(
                sk,
                "not a Score sort key of this board",
            ));
        }
        let (score, subscores, attained_at_ms) = self.parse_rank_tuple(&rest[..n])?;
        let player_id = PlayerId::parse(&rest[n + 1..])?;
        Ok(ScoreSortKey {
            score,
            subscores,
            attained_at_ms,
            player_id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bob() -> PlayerId {
        PlayerId::parse("p_bob").unwrap()
    }

    #[test]
    fn contract_example() {
        let spec = RankKeySpec::new(Order::Desc, DEFAULT_MAX_SCORE).unwrap();
        let sk = spec
            .score_sort_key(9850, 1_719_100_800_000, &bob())
            .unwrap();
        assert_eq!(sk, "SCORE#0000009850#8280899199999#p_bob");
        let back = spec.parse_score_sort_key(&sk).unwrap();
        assert_eq!(
            back,
            ScoreSortKey {
                score: 9850,
                subscores: vec![],
                attained_at_ms: 1_719_100_800_000,
                player_id: bob()
            }
        );
    }

    #[test]
    fn seed_002_sample_data_orders_descending() {
        // Seed 002's sample rows: bob 9850, alice 8420, carol 5100 read newest-best-first.
        let spec = RankKeySpec::new(Order::Desc, DEFAULT_MAX_SCORE).unwrap();
        let t = 1_719_100_800_000;
        let mut keys: Vec<String> = [(5100, "p_carol"), (9850, "p_bob"), (8420, "p_alice")]
            .iter()
            .map(|&(s, p)| {
                spec.score_sort_key(s, t, &PlayerId::parse(p).unwrap())
                    .unwrap()
            })
            .collect();
        keys.sort_by(|a, b| b.cmp(a)); // ScanIndexForward=false
        let players: Vec<_> = keys
            .iter()
            .map(|k| spec.parse_score_sort_key(k).unwrap().player_id.to_string())
            .collect();
        assert_eq!(players, ["p_bob", "p_alice", "p_carol"]);
    }

    #[test]
    fn ties_earlier_first_and_asc_lower_first() {
        let desc = RankKeySpec::new(Order::Desc, 999).unwrap();
        assert!(desc.rank_key(500, 1000).unwrap() > desc.rank_key(500, 1001).unwrap());
        assert!(desc.rank_key(501, 5000).unwrap() > desc.rank_key(500, 1000).unwrap());
        let asc = RankKeySpec::new(Order::Asc, 999).unwrap();
        assert!(asc.rank_key(10, 5000).unwrap() > asc.rank_key(11, 1000).unwrap());
        assert!(asc.rank_key(10, 1000).unwrap() > asc.rank_key(10, 1001).unwrap());
        assert_eq!(asc.rank_key(0, 0).unwrap(), "999#9999999999999");
        assert_eq!(
            asc.rank_key(999, MAX_TIEBREAK_MILLIS).unwrap(),
            "000#0000000000000"
        );
    }

    #[test]
    fn out_of_range_is_an_error() {
        let spec = RankKeySpec::new(Order::Desc, 1000).unwrap();
        assert_eq!(spec.width().digits(), 4);
        assert_eq!(
            spec.rank_key(1001, 0),
            Err(KeyError::ScoreOutOfRange {
                score: 1001,
                max_score: 1000
            })
        );
        assert_eq!(
            spec.rank_key(1, MAX_TIEBREAK_MILLIS + 1),
            Err(KeyError::TimeOutOfRange(MAX_TIEBREAK_MILLIS + 1))
        );
        assert!(RankKeySpec::new(Order::Desc, MAX_MAX_SCORE).is_ok());
        assert!(RankKeySpec::new(Order::Desc, MAX_MAX_SCORE + 1).is_err());
        let widest = RankKeySpec::new(Order::Asc, MAX_MAX_SCORE).unwrap();
        let rk = widest.rank_key(MAX_MAX_SCORE, 0).unwrap();
        assert_eq!(rk, "000000000000000000#9999999999999");
        assert_eq!(widest.parse_rank_key(&rk).unwrap(), (MAX_MAX_SCORE, 0));
    }

    #[test]
    fn malformed_sort_keys_are_rejected() {
        let spec = RankKeySpec::new(Order::Desc, DEFAULT_MAX_SCORE).unwrap();
        for bad in [
            "",
            "SCORE#",
            "SCORE#0000009850#8280899199999",
            "SCORE#0000009850#8280899199999#",
            "SCORE#000009850#8280899199999#p_bob",
            "SCORE#0000009850-8280899199999#p_bob",
            "SCORE#00000098x0#8280899199999#p_bob",
            "SCORE#0000009850#8280899199999#p#bob",
            "SCORE#0000009850#8280899199999Xp_bob",
            "FINAL#0000009850#8280899199999#p_bob",
            "SCORE#0000009850#828089919999é#p_bob",
        ] {
            assert!(spec.parse_score_sort_key(bad).is_err(), "{bad:?}");
        }
        // A key of an asc board whose value exceeds maxScore cannot be a real key.
        let asc = RankKeySpec::new(Order::Asc, 500).unwrap();
        assert!(asc.parse_rank_key("501#0000000000000").is_err());
    }

    #[test]
    fn columns_rank_after_the_score_each_in_its_order_before_the_time() {
        let columns: Vec<Column> = serde_json::from_str(
            r#"[{"name": "kills", "order": "desc", "max": 99},
                {"name": "deaths", "order": "asc", "max": 999}]"#,
        )
        .unwrap();
        let spec = RankKeySpec::new(Order::Asc, 9_999)
            .unwrap()
            .with_columns(&columns)
            .unwrap();
        assert_eq!((spec.ranked_digits(), spec.rank_key_len()), (9, 25));
        let key = |score, subs: &[u64], at| spec.rank_key_with(score, subs, at).unwrap();
        assert_eq!(key(5, &[3, 10], 0), "9994#03#989#9999999999999");
        assert_eq!(
            spec.delimit("9994039899999999999999").as_deref(),
            Some("9994#03#989#9999999999999")
        );
        assert_eq!(spec.delimit("999403989999999999999"), None);
        // the score first (asc), then more kills, then fewer deaths, then the earlier time
        assert!(key(5, &[0, 999], 9) > key(6, &[99, 0], 0));
        assert!(key(5, &[4, 999], 9) > key(5, &[3, 0], 0));
        assert!(key(5, &[3, 9], 9) > key(5, &[3, 10], 0));
        assert!(key(5, &[3, 10], 0) > key(5, &[3, 10], 1));
        let player = PlayerId::parse("p").unwrap();
        let sk = spec.score_sort_key_with(5, &[3, 10], 77, &player).unwrap();
        let back = spec.parse_score_sort_key(&sk).unwrap();
        assert_eq!(
            (back.score, back.subscores, back.attained_at_ms),
            (5, vec![3, 10], 77)
        );
        // the count must match and every value fit its column
        assert!(spec.rank_key_with(5, &[3], 0).is_err());
        assert!(spec.rank_key(5, 0).is_err());
        assert!(spec.rank_key_with(5, &[100, 0], 0).is_err());
        // a key of the board without its columns is not one of this board, nor the reverse
        let plain = RankKeySpec::new(Order::Asc, 9_999).unwrap();
        let plain_sk = plain.score_sort_key(5, 77, &player).unwrap();
        assert!(spec.parse_score_sort_key(&plain_sk).is_err());
        assert!(plain.parse_score_sort_key(&sk).is_err());
        // a widened spec keeps its columns
        let wide = spec.widened(99_999).unwrap();
        assert_eq!((wide.ranked_digits(), wide.column_count()), (10, 2));
    }
}
