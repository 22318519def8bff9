//! The board's leader as the index follows it, for `NewLeader`: the root keeps the sort key
//! of the board's top entry ([`LEAD_ATTR`]) as of its watermarks, and each journal that moves
//! it records the new one in the same write as its watermarks. What a journal's changes do to
//! it is decided here from the changes alone ([`next_lead`]): the best of the keys they add
//! and the leader before, unless they moved the leader's own entry down or removed it with
//! nothing better added, in which case the board's top entry must be read (the only read,
//! at most once a journal). A root that never recorded a leader while it counts entries (a
//! board indexed before the lead was kept, or just rebuilt) learns it by that same read, and
//! announces nothing: who led before is not known.
//!
//! A removal records its old key under a pseudonym (an erasure or an admin's removal leaves
//! no player id in the lane log), so an entry is matched to the keys a journal removes by its
//! digits (score and tiebreak), which two entries share only at the same score in the same
//! millisecond; and a leader that left under a pseudonym is announced as no previous leader,
//! so that an erased player's id is not published after the erasure. So is a leader whose key
//! the erasure rewrote under the pseudonym in the root (a board the erased player led).

use std::collections::BTreeSet;

use super::{CountedKey, LaneChange};
use crate::erasure::Pseudonym;

/// The root's attribute holding the leader's sort key (empty: the board has no entry).
pub const LEAD_ATTR: &str = "lead";

/// The leader a root records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lead {
    /// Not recorded (a root counting entries without [`LEAD_ATTR`]).
    Unknown,
    /// The top entry's key, or none on a board without entries.
    Known(Option<CountedKey>),
}

impl Lead {
    /// The leader a root records: `attr` its [`LEAD_ATTR`], `counted` whether its counters
    /// hold any entry.
    pub fn of_root(attr: Option<&str>, counted: bool) -> Lead {
        match attr {
            Some("") => Lead::Known(None),
            Some(key) => CountedKey::parse(key)
                .map(|k| Lead::Known(Some(k)))
                .unwrap_or(Lead::Unknown),
            None if counted => Lead::Unknown,
            None => Lead::Known(None),
        }
    }
}

/// What a journal's changes do to the leader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextLead {
    /// The leader's key is the same.
    Same,
    /// The leader is now `key` (none: the board has no entry left), with `score` (as the
    /// change recorded it), made so by the change `cause` (lane, number).
    To {
        /// The new top key.
        key: Option<CountedKey>,
        /// Its score, when the change carried it.
        score: Option<u64>,
        /// The change that made it the top.
        cause: (u8, u64),
        /// The leader before left under a pseudonym: announce no previous leader.
        anonymous: bool,
    },
    /// The changes moved the leader's entry down or removed it (`cause`), and added nothing
    /// above it: the leader is whoever the board's top entry is now; or the root recorded no
    /// leader. Read the top.
    ReadTop {
        /// The change that unseated the leader (or the latest change, on a root that recorded
        /// none).
        cause: (u8, u64),
        /// The leader before left under a pseudonym: announce no previous leader.
        anonymous: bool,
    },
}

/// What `changes` (one journal's, past the root's watermarks) do to the leader `before`.
pub fn next_lead(before: &Lead, changes: &[&LaneChange]) -> NextLead {
    let Some(latest) = changes.iter().map(|c| (c.lane, c.seq)).max() else {
        return NextLead::Same;
    };
    let removed: BTreeSet<&str> = changes
        .iter()
        .filter_map(|c| c.old.as_ref().map(CountedKey::digits))
        .collect();
    // The best key the changes leave in place (a key a later change replaced is gone).
    let best = changes
        .iter()
        .filter_map(|c| Some((c.new.as_ref()?, *c)))
        .filter(|(k, _)| !removed.contains(k.digits()))
        .max_by(|a, b| a.0.cmp(b.0));
    let to = |(key, change): (&CountedKey, &LaneChange), anonymous| match change.score {
        Some(score) => NextLead::To {
            key: Some(key.clone()),
            score: Some(score),
            cause: (change.lane, change.seq),
            anonymous,
        },
        // A change recorded before plays carried their score: the read gives it.
        None => NextLead::ReadTop {
            cause: (change.lane, change.seq),
            anonymous,
        },
    };
    match before {
        Lead::Unknown => NextLead::ReadTop {
            cause: latest,
            anonymous: false,
        },
        Lead::Known(None) => best.map(|b| to(b, false)).unwrap_or(NextLead::Same),
        Lead::Known(Some(lead)) => {
            let unseated = changes.iter().find_map(|c| {
                let old = c.old.as_ref().filter(|k| k.digits() == lead.digits())?;
                Some(((c.lane, c.seq), old.player() != lead.player()))
            });
            // A lead an erasure gave the pseudonym names no one either.
            let erased = Pseudonym::parse(lead.player()).is_ok();
            let anonymous = erased || unseated.is_some_and(|(_, anonymous)| anonymous);
            match (best, unseated) {
                (Some(b), _) if b.0 > lead => to(b, anonymous),
                (_, None) => NextLead::Same,
                (_, Some((cause, _))) => NextLead::ReadTop { cause, anonymous },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(score: u64, player: &str) -> CountedKey {
        CountedKey::parse(&format!("SCORE#{score:010}#8232774399999#{player}")).unwrap()
    }

    fn change(lane: u8, seq: u64, old: Option<CountedKey>, new: Option<(u64, &str)>) -> LaneChange {
        LaneChange {
            lane,
            seq,
            old,
            new: new.map(|(s, p)| key(s, p)),
            score: new.map(|(s, _)| s),
            ..LaneChange::default()
        }
    }

    fn next(before: &Lead, changes: &[LaneChange]) -> NextLead {
        next_lead(before, &changes.iter().collect::<Vec<_>>())
    }

    #[test]
    fn the_first_entry_leads_and_a_better_one_takes_over() {
        let first = [
            change(2, 1, None, Some((10, "a"))),
            change(5, 1, None, Some((7, "b"))),
        ];
        assert_eq!(
            next(&Lead::Known(None), &first),
            NextLead::To {
                key: Some(key(10, "a")),
                score: Some(10),
                cause: (2, 1),
                anonymous: false
            }
        );
        let lead = Lead::Known(Some(key(10, "a")));
        assert_eq!(
            next(&lead, &[change(5, 2, Some(key(7, "b")), Some((9, "b")))]),
            NextLead::Same
        );
        assert_eq!(
            next(&lead, &[change(5, 2, Some(key(7, "b")), Some((11, "b")))]),
            NextLead::To {
                key: Some(key(11, "b")),
                score: Some(11),
                cause: (5, 2),
                anonymous: false
            }
        );
        assert_eq!(next(&lead, &[]), NextLead::Same);
    }

    #[test]
    fn a_key_replaced_within_the_journal_is_not_a_candidate() {
        let lead = Lead::Known(Some(key(10, "a")));
        // b went to 12 then down to 8 (a moderation's correction): a still leads.
        let changes = [
            change(5, 2, Some(key(7, "b")), Some((12, "b"))),
            change(5, 3, Some(key(12, "b")), Some((8, "b"))),
        ];
        assert_eq!(next(&lead, &changes), NextLead::Same);
    }

    #[test]
    fn the_leader_improving_moves_the_key_and_the_leader_unseated_needs_the_top() {
        let lead = Lead::Known(Some(key(10, "a")));
        assert_eq!(
            next(&lead, &[change(2, 4, Some(key(10, "a")), Some((15, "a")))]),
            NextLead::To {
                key: Some(key(15, "a")),
                score: Some(15),
                cause: (2, 4),
                anonymous: false
            }
        );
        // Removed (or moved down) with nothing better added: who leads is the board's to say.
        assert_eq!(
            next(&lead, &[change(2, 4, Some(key(10, "a")), None)]),
            NextLead::ReadTop {
                cause: (2, 4),
                anonymous: false
            }
        );
        let down = [
            change(2, 4, Some(key(10, "a")), Some((3, "a"))),
            change(7, 1, None, Some((9, "c"))),
        ];
        assert_eq!(
            next(&lead, &down),
            NextLead::ReadTop {
                cause: (2, 4),
                anonymous: false
            }
        );
        // ...unless something better than the old leader came in the same journal.
        let passed = [
            change(2, 4, Some(key(10, "a")), None),
            change(7, 1, None, Some((11, "c"))),
        ];
        assert_eq!(
            next(&lead, &passed),
            NextLead::To {
                key: Some(key(11, "c")),
                score: Some(11),
                cause: (7, 1),
                anonymous: false
            }
        );
    }

    #[test]
    fn a_leader_removed_under_a_pseudonym_is_matched_by_digits_and_not_named() {
        let lead = Lead::Known(Some(key(10, "a")));
        let erased = CountedKey::parse("SCORE#0000000010#8232774399999#erased_1f").unwrap();
        assert_eq!(
            next(&lead, &[change(2, 4, Some(erased.clone()), None)]),
            NextLead::ReadTop {
                cause: (2, 4),
                anonymous: true
            }
        );
        let passed = [
            change(2, 4, Some(erased), None),
            change(7, 1, None, Some((11, "c"))),
        ];
        assert_eq!(
            next(&lead, &passed),
            NextLead::To {
                key: Some(key(11, "c")),
                score: Some(11),
                cause: (7, 1),
                anonymous: true
            }
        );
    }

    #[test]
    fn a_lead_recorded_under_a_pseudonym_is_announced_as_no_one() {
        let erased =
            CountedKey::parse("SCORE#0000000010#8232774399999#erased_0123456789abcdef").unwrap();
        let lead = Lead::Known(Some(erased.clone()));
        let passed = [change(7, 1, None, Some((11, "c")))];
        assert_eq!(
            next(&lead, &passed),
            NextLead::To {
                key: Some(key(11, "c")),
                score: Some(11),
                cause: (7, 1),
                anonymous: true
            }
        );
        assert_eq!(
            next(&lead, &[change(2, 4, Some(erased), None)]),
            NextLead::ReadTop {
                cause: (2, 4),
                anonymous: true
            }
        );
    }

    #[test]
    fn an_unrecorded_leader_or_score_is_read() {
        let changes = [
            change(1, 3, None, Some((5, "a"))),
            change(4, 9, None, Some((2, "b"))),
        ];
        assert_eq!(
            next(&Lead::Unknown, &changes),
            NextLead::ReadTop {
                cause: (4, 9),
                anonymous: false
            }
        );
        let mut old = change(1, 3, None, Some((5, "a")));
        old.score = None;
        assert_eq!(
            next(&Lead::Known(None), &[old]),
            NextLead::ReadTop {
                cause: (1, 3),
                anonymous: false
            }
        );
    }

    #[test]
    fn a_root_records_its_leader_or_says_it_has_none() {
        let k = key(10, "a");
        assert_eq!(Lead::of_root(Some(&k.sort_key), true), Lead::Known(Some(k)));
        assert_eq!(Lead::of_root(Some(""), false), Lead::Known(None));
        assert_eq!(Lead::of_root(None, false), Lead::Known(None));
        assert_eq!(Lead::of_root(None, true), Lead::Unknown);
        assert_eq!(Lead::of_root(Some("junk"), true), Lead::Unknown);
    }
}
