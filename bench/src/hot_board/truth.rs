//! Whether the hot-board benchmark's answers were within their `rankLag` of the true rank,
//! from the plays alone. Every player's plays come one after another (one connection plays for
//! a player), so a player's entry is fixed while its play is answered; every other entry only
//! rises (an `increment` board, every play adding at least 1), and each play commits within its
//! request. So while a play was answered, the player truly ranked below at least the other
//! entries already above it when the request began (as their last play answered before then
//! left them) and at most those at or above it by the last play each had begun before the
//! answer came (a tie may break either way), under every imported entry (all above). An answer
//! whose `rank ± rankLag` misses that whole range is off beyond its lag.

use std::collections::HashMap;
use std::time::Instant;

/// One play's answer, as a connection saw it.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The player.
    pub player: String,
    /// When the request was sent.
    pub sent: Instant,
    /// When the answer came.
    pub came: Instant,
    /// The entry's score after the play (`best`).
    pub best: u64,
    /// The rank answered.
    pub rank: u64,
    /// The `rankLag` answered.
    pub lag: u64,
}

/// A player's plays in the order they were sent (each after the one before was answered).
type History<'a> = Vec<&'a Answer>;

/// Of `answers` (a board's measured plays), how many were off beyond their lag, given every
/// play the board took (`all`, the measured ones among them) and `above` imported entries above
/// every player's.
pub fn off_beyond_lag(answers: &[Answer], all: &[Answer], above: u64) -> usize {
    let mut by_player: HashMap<&str, History<'_>> = HashMap::new();
    for a in all {
        by_player.entry(&a.player).or_default().push(a);
    }
    for plays in by_player.values_mut() {
        plays.sort_by_key(|a| a.sent);
    }
    answers
        .iter()
        .filter(|a| {
            let (mut surely, mut maybe) = (above, above);
            for (player, plays) in &by_player {
                if *player == a.player {
                    continue;
                }
                // Its score when the request was sent: its last play answered by then.
                let settled = plays.iter().rev().find(|p| p.came <= a.sent);
                if settled.is_some_and(|p| p.best > a.best) {
                    surely += 1;
                }
                // Its highest score before the answer came: its last play sent by then.
                let begun = plays.iter().rev().find(|p| p.sent < a.came);
                if begun.is_some_and(|p| p.best >= a.best) {
                    maybe += 1;
                }
            }
            let (lowest, highest) = (surely + 1, maybe + 1);
            a.rank.saturating_add(a.lag) < lowest || a.rank.saturating_sub(a.lag) > highest
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn answer(player: &str, t0: Instant, (sent, came): (u64, u64), best: u64) -> Answer {
        Answer {
            player: player.into(),
            sent: t0 + Duration::from_millis(sent),
            came: t0 + Duration::from_millis(came),
            best,
            rank: 0,
            lag: 0,
        }
    }

    #[test]
    fn an_answer_is_off_only_when_its_range_misses_every_rank_the_player_had() {
        let t0 = Instant::now();
        // b settled at 50 before a's play; c's play raising it to 30 overlaps a's answer.
        let b = answer("b", t0, (0, 10), 50);
        let c0 = answer("c", t0, (0, 10), 5);
        let c1 = answer("c", t0, (15, 40), 30);
        let a = answer("a", t0, (20, 30), 20);
        let all = vec![b, c0, c1, a.clone()];
        // With 100 imported above: truly 102 (b above) or 103 (c too, if it committed first).
        let with = |rank, lag| Answer {
            rank,
            lag,
            ..a.clone()
        };
        for (rank, lag, off) in [
            (102, 0, false),
            (103, 0, false),
            (101, 0, true),
            (104, 0, true),
            (101, 1, false),
            (105, 2, false),
            (106, 2, true),
        ] {
            let got = off_beyond_lag(&[with(rank, lag)], &all, 100);
            assert_eq!(got, usize::from(off), "rank {rank} ± {lag}");
        }
    }
}
