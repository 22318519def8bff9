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
//! ```
//! use leaderboard_keys::rank::{Order, RankKeySpec};
//!
//! let desc = RankKeySpec::new(Order::Desc, 9_999_999_999).unwrap();
//! assert_eq!(desc.rank_key(9850, 1_719_100_800_000).unwrap(), "0000009850#8280899199999");
//! let asc = RankKeySpec::new(Order::Asc, 999_999).unwrap(); // a speed-run in ms
//! assert_eq!(asc.rank_key(61_250, 1_719_100_800_000).unwrap(), "938749#8280899199999");
//! assert!(desc.rank_key(10_000_000_000, 0).is_err()); // above maxScore
//! ```

use std::fmt;
use std::str::FromStr;

use crate::KeyError;
use crate::entity::SCORE_PREFIX;
use crate::ids::PlayerId;
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

/// Which scores rank higher on a board.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Higher is better (points).
    #[default]
    Desc,
    /// Lower is better (times, strokes).
    Asc,
}

impl Order {
    /// The API spelling, `desc` or `asc`.
    pub fn as_str(self) -> &'static str {
        match self {
            Order::Desc => "desc",
            Order::Asc => "asc",
        }
    }

    /// Whether `a` is a strictly better score than `b` on a board of this order.
    pub fn is_better(self, a: u64, b: u64) -> bool {
        match self {
            Order::Desc => a > b,
            Order::Asc => a < b,
        }
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Order {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "desc" => Ok(Order::Desc),
            "asc" => Ok(Order::Asc),
            _ => Err(()),
        }
    }
}

/// How one board builds its rank keys: its order and `maxScore` (hence its width).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RankKeySpec {
    order: Order,
    max_score: u64,
    width: Width,
}

/// A Score item's sort key, parsed back.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ScoreSortKey {
    /// The score.
    pub score: u64,
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
        })
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

    /// Appends the rank key of `score` attained at `attained_at_ms` to `out`.
    pub fn write_rank_key(
        &self,
        score: u64,
        attained_at_ms: u64,
        out: &mut String,
    ) -> Result<(), KeyError> {
        let value = self.ordered_value(score)?;
        let tiebreak = MAX_TIEBREAK_MILLIS
            .checked_sub(attained_at_ms)
            .ok_or(KeyError::TimeOutOfRange(attained_at_ms))?;
        pad_into(value, self.width, out)?;
        out.push('#');
        pad_into(tiebreak, TIEBREAK_WIDTH, out)
    }

    /// The rank key of `score` attained at `attained_at_ms`.
    pub fn rank_key(&self, score: u64, attained_at_ms: u64) -> Result<String, KeyError> {
        let mut out = String::with_capacity(self.rank_key_len());
        self.write_rank_key(score, attained_at_ms, &mut out)?;
        Ok(out)
    }

    /// The length in bytes of every rank key of this board.
    pub fn rank_key_len(&self) -> usize {
        self.width.digits() as usize + 1 + TIEBREAK_DIGITS as usize
    }

    /// The Score item's sort key, `SCORE#<rankKey>#<playerId>`.
    pub fn score_sort_key(
        &self,
        score: u64,
        attained_at_ms: u64,
        player: &PlayerId,
    ) -> Result<String, KeyError> {
        let mut out = String::with_capacity(
            SCORE_PREFIX.len() + self.rank_key_len() + 1 + player.as_str().len(),
        );
        out.push_str(SCORE_PREFIX);
        self.write_rank_key(score, attained_at_ms, &mut out)?;
        out.push('#');
        out.push_str(player.as_str());
        Ok(out)
    }

    /// Parses a rank key of this board back to `(score, attained_at_ms)`.
    pub fn parse_rank_key(&self, rank_key: &str) -> Result<(u64, u64), KeyError> {
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
        let tiebreak = parse_digits(&b[w + 1..])
            .ok_or_else(|| KeyError::malformed(rank_key, "time is not a decimal number"))?;
        if value > self.max_score {
            return Err(KeyError::malformed(
                rank_key,
                "score is above the board's maxScore",
            ));
        }
        let score = match self.order {
            Order::Desc => value,
            Order::Asc => self.max_score - value,
        };
        Ok((score, MAX_TIEBREAK_MILLIS - tiebreak))
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
        let (score, attained_at_ms) = self.parse_rank_key(&rest[..n])?;
        let player_id = PlayerId::parse(&rest[n + 1..])?;
        Ok(ScoreSortKey {
            score,
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
}
