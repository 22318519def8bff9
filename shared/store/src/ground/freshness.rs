//! How fresh an own rank is (contract §4), and the pure rules that turn what the rank index
//! says into an answer: the count above the player, the lag (changes committed on the board
//! but not yet applied to the index), and when the capped count of the top makes it exact.
//!
//! Every change not yet applied moves one entry, so it can change the number of entries above
//! any key by at most one: the index's count is within `lag` of the truth. The player's own
//! pending changes are left out of the lag, because the rank is read for a key of the player's
//! and the player's entry as the index holds it is never counted above it.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Ranks within this many entries of the top are made exact by one capped count of the keys
/// above the player (a `Select=COUNT` Query with this `Limit`: at most this many keys read,
/// about 24 KB of Score items: 6 read units). A count reads every key above the player, so
/// the top it covers is what a lookup pays for; the rest of the board is the index's, exact
/// when the board is quiet and within `rankLag` while it is not.
pub const EXACT_TOP: u64 = 100;

/// `100 × rank / playerCount`, kept in hundredths and rounded up (the best of 1,000,000 is in
/// the top 0.01 %, not 0 %); shown as a number with at most two decimals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct TopPercent(u64);

impl TopPercent {
    /// The share of the board at or above `rank`, of `player_count` entries (at least `rank`).
    pub fn of(rank: u64, player_count: u64) -> TopPercent {
        let count = u128::from(player_count.max(rank).max(1));
        let hundredths = (u128::from(rank) * 10_000).div_ceil(count);
        TopPercent(hundredths.min(10_000) as u64)
    }

    /// In hundredths of a percent (50 is 0.5 %).
    pub fn hundredths(self) -> u64 {
        self.0
    }

    /// As a number of percent.
    pub fn percent(self) -> f64 {
        self.0 as f64 / 100.0
    }
}

/// A whole percent is written as an integer (`100`, not `100.0`), as every route answers it:
/// the final standings and results read theirs back from the table, where a number has no
/// trailing `.0`.
impl Serialize for TopPercent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_multiple_of(100) {
            s.serialize_u64(self.0 / 100)
        } else {
            s.serialize_f64(self.percent())
        }
    }
}

impl<'de> Deserialize<'de> for TopPercent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TopPercent, D::Error> {
        let percent = f64::deserialize(d)?;
        Ok(TopPercent(
            (percent.clamp(0.0, 100.0) * 100.0).round() as u64
        ))
    }
}

/// How fresh an own rank is: carried beside the rank wherever a player's own rank is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Freshness {
    /// The rank counts every change committed on the board before the read.
    pub rank_exact: bool,
    /// Changes committed but not counted: the true rank is within `rank ± rank_lag`.
    pub rank_lag: u64,
    /// Entries on the board, as fresh as the rank (never below the rank).
    pub player_count: u64,
    /// `100 × rank / player_count`.
    pub top_percent: TopPercent,
}

impl Freshness {
    /// Of these answered ranks, how many count every committed change, and how many are
    /// within the index's lag (for the functions' metrics).
    pub fn tally(answers: impl IntoIterator<Item = Freshness>) -> (u64, u64) {
        answers.into_iter().fold((0, 0), |(exact, within), f| {
            if f.rank_exact {
                (exact + 1, within)
            } else {
                (exact, within + 1)
            }
        })
    }

    /// An exact rank on a board of `player_count` entries (closed boards, caught-up indexes).
    pub fn exact(rank: u64, player_count: u64) -> Freshness {
        Freshness::of(rank, &Estimate::exact(rank.saturating_sub(1), player_count))
    }

    /// The freshness of `rank` as `estimate` gives it.
    pub fn of(rank: u64, estimate: &Estimate) -> Freshness {
        let player_count = estimate.entries.max(rank);
        Freshness {
            rank_exact: estimate.exact,
            rank_lag: estimate.lag,
            player_count,
            top_percent: TopPercent::of(rank, player_count),
        }
    }

    /// The same freshness for another rank of the same read (an around window's neighbours).
    pub fn for_rank(&self, rank: u64) -> Freshness {
        let player_count = self.player_count.max(rank);
        Freshness {
            player_count,
            top_percent: TopPercent::of(rank, player_count),
            ..*self
        }
    }
}

/// What one read of the rank index says about a key of the player's, before any adjustment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexView {
    /// Entries of other players the index counts above the key (the player's own entry, as the
    /// index holds it, already left out).
    pub above: i64,
    /// Entries on the board: the created counts' sum (or, on a board whose counts predate
    /// them, the entries the index counts, the player's included whether it has it or not).
    pub entries: i64,
    /// Σ written − Σ applied over the board's counters: changes committed but not applied.
    pub unapplied: i64,
    /// Of those, the player's own (versions after the one the index applied, up to the key's).
    pub own_unapplied: u64,
}

/// A rank's count above and how far it can be off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Estimate {
    /// Entries above the key.
    pub above: u64,
    /// How many entries the count above may be off by (0 when exact).
    pub lag: u64,
    /// The count is exact.
    pub exact: bool,
    /// Entries on the board, as fresh as the count.
    pub entries: u64,
}

impl Estimate {
    /// An exact count.
    pub fn exact(above: u64, entries: u64) -> Estimate {
        Estimate {
            above,
            lag: 0,
            exact: true,
            entries,
        }
    }

    /// The estimate a read of the index gives. A negative count or lag cannot happen with a
    /// consistent index; if one does it is logged as an error and the answer is not exact.
    pub fn from_index(view: &IndexView) -> Estimate {
        let lag = view
            .unapplied
            .saturating_sub(view.own_unapplied.min(i64::MAX as u64) as i64);
        let broken = view.above < 0 || lag < 0 || view.entries < 0;
        if broken {
            tracing::error!(
                above = view.above,
                lag,
                entries = view.entries,
                "rank index read gave a negative count: the index disagrees with its written \
                 counts; answering as not exact"
            );
        }
        let lag = lag.max(0) as u64;
        Estimate {
            above: view.above.max(0) as u64,
            lag,
            exact: lag == 0 && !broken,
            entries: view.entries.max(0) as u64,
        }
    }

    /// The 1-based rank.
    pub fn rank(&self) -> u64 {
        self.above.saturating_add(1)
    }

    /// Whether the player may be within the first [`EXACT_TOP`] entries although the estimate
    /// is not exact: then a capped count of the keys above makes it exact.
    pub fn worth_counting(&self) -> bool {
        !self.exact && self.above < EXACT_TOP.saturating_add(self.lag)
    }

    /// The estimate after a capped count of the keys above found `counted` of them and reached
    /// the end (`complete`); an incomplete count changes nothing.
    pub fn with_count(self, counted: u64, complete: bool) -> Estimate {
        if !complete {
            return self;
        }
        Estimate {
            above: counted,
            lag: 0,
            exact: true,
            entries: self.entries.max(counted.saturating_add(1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_at_the_limits_of_their_types_neither_wrap_nor_panic() {
        let worst = [
            IndexView {
                above: i64::MAX,
                entries: i64::MAX,
                unapplied: i64::MIN,
                own_unapplied: u64::MAX,
            },
            IndexView {
                above: i64::MIN,
                entries: i64::MIN,
                unapplied: i64::MAX,
                own_unapplied: 0,
            },
            IndexView {
                above: i64::MAX,
                entries: 1,
                unapplied: i64::MAX,
                own_unapplied: u64::MAX,
            },
        ];
        for view in worst {
            let e = Estimate::from_index(&view);
            assert!(e.rank() >= 1);
            assert!(!e.exact || e.lag == 0);
            let _ = e.worth_counting();
            let counted = e.with_count(u64::MAX, true);
            assert_eq!(counted.rank(), u64::MAX);
            let f = Freshness::of(e.rank(), &e);
            assert!(f.top_percent.hundredths() <= 10_000);
        }
    }

    #[test]
    fn a_whole_percent_is_written_as_an_integer() {
        let json = |rank, count| serde_json::to_string(&TopPercent::of(rank, count)).unwrap();
        assert_eq!(json(200, 200), "100");
        assert_eq!(json(100, 200), "50");
        assert_eq!(json(1, 200), "0.5");
        assert_eq!(json(105, 200), "52.5");
        assert_eq!(json(1, 3), "33.34");
        let back: TopPercent = serde_json::from_str("100").unwrap();
        assert_eq!(back, TopPercent::of(7, 7));
    }

    #[test]
    fn top_percent_is_rounded_up_to_hundredths() {
        assert_eq!(TopPercent::of(1, 200).percent(), 0.5);
        assert_eq!(TopPercent::of(1, 1_000_000).hundredths(), 1);
        assert_eq!(TopPercent::of(200, 200).percent(), 100.0);
        assert_eq!(TopPercent::of(1, 3).hundredths(), 3_334);
        // Never above 100, never a division by zero.
        assert_eq!(TopPercent::of(5, 3).percent(), 100.0);
        assert_eq!(TopPercent::of(1, 0).percent(), 100.0);
        let json = serde_json::to_string(&Freshness::exact(1, 200)).unwrap();
        assert_eq!(
            json,
            r#"{"rankExact":true,"rankLag":0,"playerCount":200,"topPercent":0.5}"#
        );
        let back: Freshness = serde_json::from_str(&json).unwrap();
        assert_eq!(back, Freshness::exact(1, 200));
    }

    #[test]
    fn own_pending_changes_are_not_lag() {
        let e = Estimate::from_index(&IndexView {
            above: 10,
            entries: 50,
            unapplied: 3,
            own_unapplied: 3,
        });
        assert_eq!(e, Estimate::exact(10, 50));
        let e = Estimate::from_index(&IndexView {
            above: 10,
            entries: 50,
            unapplied: 5,
            own_unapplied: 1,
        });
        assert_eq!((e.lag, e.exact, e.rank()), (4, false, 11));
    }

    #[test]
    fn a_negative_count_is_not_exact() {
        for view in [
            IndexView {
                above: -1,
                entries: 5,
                unapplied: 0,
                own_unapplied: 0,
            },
            IndexView {
                above: 1,
                entries: 5,
                unapplied: 0,
                own_unapplied: 2,
            },
        ] {
            let e = Estimate::from_index(&view);
            assert!(!e.exact, "{view:?}");
            assert!(e.worth_counting());
        }
    }

    #[test]
    fn counting_is_worth_it_only_near_the_top() {
        let at = |above, lag| Estimate {
            above,
            lag,
            exact: lag == 0,
            entries: 1_000_000,
        };
        assert!(!at(5, 0).worth_counting(), "exact already");
        assert!(at(EXACT_TOP - 1, 1).worth_counting());
        assert!(at(EXACT_TOP + 200, 300).worth_counting());
        assert!(!at(EXACT_TOP + 300, 300).worth_counting());
        let counted = at(EXACT_TOP + 200, 300).with_count(EXACT_TOP - 50, true);
        assert_eq!(counted, Estimate::exact(EXACT_TOP - 50, 1_000_000));
        let far = at(EXACT_TOP + 200, 300);
        assert_eq!(far.with_count(EXACT_TOP, false), far);
        // A count can't make the board smaller than the rank.
        assert_eq!(
            Estimate {
                entries: 3,
                ..at(1, 4)
            }
            .with_count(7, true)
            .entries,
            8
        );
    }
}
