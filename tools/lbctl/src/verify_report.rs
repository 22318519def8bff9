//! What `lbctl verify` found: each invariant broken ([`Violation`]) and the report of a run
//! ([`Report`]), which lists the first [`MAX_LISTED`] and counts the rest. Below the checks
//! (`verify`, `verify_index`, `verify_totals`), which all add to it.

use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::time::Timestamp;
use serde::Serialize;

/// One invariant broken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Violation {
    /// Which: `key_mismatch`, `no_pointer`, `not_the_players_entry`, `lost_entry`,
    /// `entry_count`, `index_count`, `watermark_behind`, `watermark_ahead`, `total_off`.
    pub kind: &'static str,
    /// The board it is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leaderboard_id: Option<String>,
    /// The item at fault: a Score item's sort key, an index item's `<pk> <sk>`, a Player
    /// item's partition key; empty when a count is.
    pub key: String,
    /// What differs.
    pub detail: String,
    /// What `--repair` did about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repaired: Option<String>,
}

impl Violation {
    /// A violation not repaired (yet).
    pub fn new(kind: &'static str, key: String, detail: String) -> Violation {
        Violation {
            kind,
            leaderboard_id: None,
            key,
            detail,
            repaired: None,
        }
    }
}

/// Problems listed at most; past them they are counted (the memory a check holds stays
/// bounded on a board of any size, however broken).
pub const MAX_LISTED: usize = 1_000;

/// What a check found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Boards checked.
    pub boards: u64,
    /// Score items read.
    pub entries: u64,
    /// Players whose totals were checked.
    pub players: u64,
    /// What is wrong (and, repaired, what was done): the first [`MAX_LISTED`].
    pub violations: Vec<Violation>,
    /// Problems found past those listed.
    pub unlisted: u64,
    /// Of those, the ones not repaired.
    #[serde(skip)]
    unlisted_left: u64,
    /// What was not checked, and why.
    pub notes: Vec<String>,
    /// Players who played too recently for an exact check of their totals, and when the last
    /// of them can be checked.
    #[serde(skip)]
    busy: Option<(u64, String, Timestamp)>,
}

impl Report {
    /// Adds a problem found; one listed already (a player's totals, met on a second board)
    /// is not listed twice.
    pub fn add(&mut self, v: Violation) {
        let listed = |w: &Violation| {
            (w.kind, &w.key, &w.leaderboard_id) == (v.kind, &v.key, &v.leaderboard_id)
        };
        if self.violations.iter().any(listed) {
            return;
        }
        if self.violations.len() < MAX_LISTED {
            self.violations.push(v);
        } else {
            self.unlisted += 1;
            self.unlisted_left += u64::from(v.repaired.is_none());
        }
    }

    /// Problems found.
    pub fn problems(&self) -> u64 {
        self.violations.len() as u64 + self.unlisted
    }

    /// Problems not repaired.
    pub fn left(&self) -> u64 {
        let listed = self.violations.iter().filter(|v| v.repaired.is_none());
        listed.count() as u64 + self.unlisted_left
    }

    /// Notes a player who played too recently for an exact check of their totals, until
    /// `after`.
    pub fn busy(&mut self, player: &PlayerId, after: Timestamp) {
        match &mut self.busy {
            Some((n, _, last)) => {
                *n += 1;
                *last = (*last).max(after);
            }
            None => self.busy = Some((1, player.to_string(), after)),
        }
    }

    /// The busy players as one note.
    pub(crate) fn close(&mut self) {
        if let Some((n, first, after)) = self.busy.take() {
            let who = match n {
                1 => first,
                n => format!("{n} players (the first: {first})"),
            };
            self.notes.push(format!(
                "{who} played too recently for an exact check of their totals; ask again after {after}"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_listed_problems_they_are_counted_and_busy_players_are_one_note() {
        let mut report = Report::default();
        for i in 0..MAX_LISTED + 5 {
            let mut v = Violation::new("no_pointer", format!("SCORE#{i}"), String::new());
            if i % 2 == 0 {
                v.repaired = Some("re-pointed".into());
            }
            report.add(v);
        }
        assert_eq!(report.violations.len(), MAX_LISTED);
        assert_eq!(
            (report.problems(), report.unlisted),
            (MAX_LISTED as u64 + 5, 5)
        );
        // Half the listed ones and 2 of the 5 past them (odd i) are left.
        assert_eq!(report.left(), MAX_LISTED as u64 / 2 + 2);
        let t = |ms| Timestamp::from_millis(ms).unwrap();
        for (p, at) in [("p_a", t(2_000)), ("p_b", t(5_000)), ("p_c", t(3_000))] {
            report.busy(&PlayerId::parse(p).unwrap(), at);
        }
        report.close();
        assert_eq!(
            report.notes,
            [format!(
                "3 players (the first: p_a) played too recently for an exact check of their totals; ask again after {}",
                t(5_000)
            )]
        );
    }
}
