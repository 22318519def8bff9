//! The true ranking of a board under load, as the benchmark knows it, and the check of every
//! rank the stack answered against it (contract §4: the true rank is within `rank ± rankLag`
//! of the answer, and equal to it when `rankExact`).
//!
//! The benchmark loads the board itself and makes every play, so it knows every entry's score
//! at every moment but one: when, between a play's request and its answer, the play committed.
//! Scores only ever rise (`best`, every play higher than its player's best; `increment`, every
//! play adding to it), so the number of entries above a fixed score only grows with time. A
//! rank read at some instant of a request's window `[sent, answered]` is therefore, for the
//! true rank `t` at that instant:
//! - `t ≥ lo`, where `lo` counts the entries above the score with only the plays answered
//!   before the window opened, and
//! - `t ≤ hi`, where `hi` counts those at or above it (a tie breaks by a time the benchmark
//!   does not follow) with every play sent before the window closed;
//!
//! and an answer `rank ± lag` is wrong (a violation) exactly when `[rank − lag, rank + lag]`
//! misses `[lo, hi]`. The check can only pass a wrong answer by the plays in flight at the
//! window's edges (`hi − lo`, reported as the check's slack), never fail a right one.

use std::collections::HashMap;
use std::time::Instant;

/// One accepted play: its player's new best, and its window.
#[derive(Debug, Clone)]
pub struct Play {
    /// The player (an index into the board's initial scores).
    pub player: usize,
    /// The new best.
    pub score: u64,
    /// When the request was sent.
    pub sent: Instant,
    /// When the answer arrived.
    pub answered: Instant,
}

/// One rank the stack answered.
#[derive(Debug, Clone, Copy)]
pub struct Answer {
    /// The player ranked (an index into the board's initial scores).
    pub player: usize,
    /// The player's score as the answer's request left it (their own play's, for a play).
    pub score: u64,
    /// The rank answered.
    pub rank: u64,
    /// `rankLag` answered.
    pub lag: u64,
    /// `rankExact` answered.
    pub exact: bool,
    /// When the request was sent.
    pub sent: Instant,
    /// When the answer arrived.
    pub answered: Instant,
}

/// What checking one answer found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// The least true rank in the window.
    pub lo: u64,
    /// The greatest true rank in the window.
    pub hi: u64,
    /// The answer cannot be right.
    pub violation: bool,
}

/// A board's true ranking over time.
pub struct Truth {
    /// Initial scores, sorted descending (ranks by binary search).
    sorted: Vec<u64>,
    /// Each player's initial score.
    initial: Vec<u64>,
    /// Each played player's plays, in the order made (one at a time per player).
    plays: HashMap<usize, Vec<Play>>,
}

impl Truth {
    /// The board as loaded: `initial[i]` is player `i`'s score (0 for a player without an
    /// entry yet, below every score answered).
    pub fn new(initial: Vec<u64>) -> Truth {
        let mut sorted = initial.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        Truth {
            sorted,
            initial,
            plays: HashMap::new(),
        }
    }

    /// Adds the plays made (each player's in the order made).
    pub fn record(&mut self, plays: impl IntoIterator<Item = Play>) {
        for play in plays {
            self.plays.entry(play.player).or_default().push(play);
        }
        for list in self.plays.values_mut() {
            list.sort_by_key(|p| p.sent);
        }
    }

    /// Entries other than `player`'s above `score` (or at it too, with `ties`) once the plays
    /// `counted` selects count.
    fn above(&self, player: usize, score: u64, ties: bool, counted: impl Fn(&Play) -> bool) -> u64 {
        let over = |s: u64| s > score || (ties && s == score);
        let mut above = self.sorted.partition_point(|&s| over(s)) as u64;
        if over(self.initial[player]) {
            above -= 1;
        }
        for (&other, plays) in &self.plays {
            if other == player {
                continue;
            }
            let before = over(self.initial[other]);
            // A player's plays only raise their score: the last one counted is theirs.
            let best = plays
                .iter()
                .take_while(|p| counted(p))
                .last()
                .map_or(self.initial[other], |p| p.score);
            match (before, over(best)) {
                (false, true) => above += 1,
                (true, false) => above -= 1,
                _ => {}
            }
        }
        above
    }

    /// Checks one answer against the true ranks of its window.
    pub fn check(&self, a: &Answer) -> Verdict {
        let lo = 1 + self.above(a.player, a.score, false, |p| p.answered <= a.sent);
        let hi = 1 + self.above(a.player, a.score, true, |p| p.sent <= a.answered);
        let lag = if a.exact { 0 } else { a.lag };
        let violation = a.rank.saturating_add(lag) < lo || a.rank.saturating_sub(lag) > hi;
        Verdict { lo, hi, violation }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(t0: Instant, ms: u64) -> Instant {
        t0 + Duration::from_millis(ms)
    }

    /// Players 0..5 with scores 50, 40, 30, 20, 10: ranks 1..5.
    fn board() -> Truth {
        Truth::new(vec![50, 40, 30, 20, 10])
    }

    fn answer(
        t0: Instant,
        player: usize,
        score: u64,
        rank: u64,
        lag: u64,
        window: (u64, u64),
    ) -> Answer {
        Answer {
            player,
            score,
            rank,
            lag,
            exact: lag == 0,
            sent: at(t0, window.0),
            answered: at(t0, window.1),
        }
    }

    #[test]
    fn a_quiet_board_is_checked_exactly() {
        let t0 = Instant::now();
        let truth = board();
        let v = truth.check(&answer(t0, 2, 30, 3, 0, (10, 20)));
        assert_eq!(
            v,
            Verdict {
                lo: 3,
                hi: 3,
                violation: false
            }
        );
        assert!(truth.check(&answer(t0, 2, 30, 2, 0, (10, 20))).violation);
        assert!(truth.check(&answer(t0, 2, 30, 4, 0, (10, 20))).violation);
        // A lag of 1 covers a rank one off; not two off.
        assert!(!truth.check(&answer(t0, 2, 30, 4, 1, (10, 20))).violation);
        assert!(truth.check(&answer(t0, 2, 30, 5, 1, (10, 20))).violation);
    }

    #[test]
    fn a_play_counts_once_answered_and_may_count_while_in_flight() {
        let t0 = Instant::now();
        let mut truth = board();
        // Player 4 (10) passes player 2 (30) with 35, in flight from 100 to 200 ms.
        truth.record([Play {
            player: 4,
            score: 35,
            sent: at(t0, 100),
            answered: at(t0, 200),
        }]);
        // Before: rank 3 only.
        assert_eq!(truth.check(&answer(t0, 2, 30, 3, 0, (10, 90))).hi, 3);
        // Overlapping: 3 or 4 are both right, 5 is not.
        let v = truth.check(&answer(t0, 2, 30, 4, 0, (150, 160)));
        assert_eq!((v.lo, v.hi, v.violation), (3, 4, false));
        assert!(!truth.check(&answer(t0, 2, 30, 3, 0, (150, 160))).violation);
        assert!(truth.check(&answer(t0, 2, 30, 5, 0, (150, 160))).violation);
        // After: rank 4 only, and the player who played is ranked at their new score.
        assert!(truth.check(&answer(t0, 2, 30, 3, 0, (300, 310))).violation);
        assert!(!truth.check(&answer(t0, 4, 35, 3, 0, (300, 310))).violation);
    }

    #[test]
    fn only_the_last_play_counted_is_a_players_best() {
        let t0 = Instant::now();
        let mut truth = board();
        let play = |score, sent, answered| Play {
            player: 4,
            score,
            sent: at(t0, sent),
            answered: at(t0, answered),
        };
        truth.record([play(25, 100, 110), play(45, 200, 210)]);
        // Player 3 (20): passed by the first play, so rank 5 from 110 ms on.
        assert!(!truth.check(&answer(t0, 3, 20, 5, 0, (150, 160))).violation);
        assert!(truth.check(&answer(t0, 3, 20, 4, 0, (150, 160))).violation);
        // Player 1 (40): passed only by the second.
        assert!(!truth.check(&answer(t0, 1, 40, 2, 0, (150, 160))).violation);
        assert!(!truth.check(&answer(t0, 1, 40, 3, 0, (300, 310))).violation);
        assert!(truth.check(&answer(t0, 1, 40, 2, 0, (300, 310))).violation);
    }

    #[test]
    fn a_tie_may_rank_either_way() {
        let t0 = Instant::now();
        // Player 3 (20) rises to 30 before the window, tying player 2.
        let mut truth = board();
        truth.record([Play {
            player: 3,
            score: 30,
            sent: at(t0, 0),
            answered: at(t0, 10),
        }]);
        let v = truth.check(&answer(t0, 2, 30, 3, 0, (20, 30)));
        assert_eq!((v.lo, v.hi, v.violation), (3, 4, false));
        assert!(!truth.check(&answer(t0, 2, 30, 4, 0, (20, 30))).violation);
        assert!(truth.check(&answer(t0, 2, 30, 2, 0, (20, 30))).violation);
        assert!(truth.check(&answer(t0, 2, 30, 5, 0, (20, 30))).violation);
        assert!(!truth.check(&answer(t0, 2, 30, 5, 1, (20, 30))).violation);
    }
}
