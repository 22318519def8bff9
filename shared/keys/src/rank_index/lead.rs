//! The board's leader as the index follows it, for `NewLeader`: the root keeps the sort key
//! of the board's top entry ([`LEAD_ATTR`]) as of its watermarks, and each journal that moves
//! it records the new one in the same write as its watermarks. What a journal's changes do to
//! it is decided here from the changes alone ([`walk_lead`]): walked in the order the plays
//! attained their keys, each key better than the leader's takes rank 1, and each that is
//! another player's is a change of hands ([`Pass`]) with the change that made it, so that two
//! plays of one batch (p1 takes rank 1, then p2 takes it from p1) are two announcements. When
//! the changes move the leader's own entry down or remove it and no later key passes its old
//! one, the board's top entry must be read (the only read, at most once a journal). A root
//! that never recorded a leader while it counts entries (a board indexed before the lead was
//! kept, or just rebuilt) learns it by that same read, and announces nothing: who led before
//! is not known.
//!
//! A removal records its old key under a pseudonym (an erasure or an admin's removal leaves
//! no player id in the lane log), so an entry is matched to the keys a journal removes by its
//! digits (score and tiebreak), which two entries share only at the same score in the same
//! millisecond; and a leader that left under a pseudonym is announced as no previous leader,
//! so that an erased player's id is not published after the erasure. So is a leader whose key
//! the erasure rewrote under the pseudonym in the root (a board the erased player led).

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

/// One change of hands the changes show on their own: `to` took rank 1 by the change `cause`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pass {
    /// The new top key.
    pub to: CountedKey,
    /// Its score, as the change recorded it.
    pub score: u64,
    /// The change that made it the top (lane, number).
    pub cause: (u8, u64),
    /// Who led before: none on a board without entries, and none for a leader who left under
    /// a pseudonym (an erased player's id is never announced).
    pub previous: Option<String>,
}

/// Where the leader ends after a journal's changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextLead {
    /// The leader's key is the same.
    Same,
    /// The top key is now this one.
    To(CountedKey),
    /// The leader's entry moved down or was removed (`cause`) and nothing after it passed its
    /// old key, or a change without its score took the top, or the root recorded no leader:
    /// the leader is whoever the board's top entry is now. Read the top, and announce it as
    /// taking rank 1 from `last` when that names someone else.
    ReadTop {
        /// The change that unseated the leader (or the latest change, on a root that recorded
        /// none).
        cause: (u8, u64),
        /// The leader last known: the top key before `cause` (`Unknown`: announce nothing).
        last: Lead,
        /// That leader left under a pseudonym: announce no previous leader.
        anonymous: bool,
    },
}

/// What a journal's changes do to the leader: every change of hands they show, in the order
/// the plays attained their scores, then where the leader ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeadWalk {
    /// The changes of hands, each with its own cause (so each is announced once, whoever
    /// finishes the journal).
    pub passes: Vec<Pass>,
    /// Where the leader ends.
    pub end: NextLead,
}

/// The changes in the order their plays attained their keys: each lane's in its own order,
/// the lanes interleaved by the time their next change's key was attained (a key's tiebreak is
/// the time inverted: the larger, the earlier); a removal, which attains nothing, as soon as
/// it is its lane's next.
fn attained_order<'a>(changes: &[&'a LaneChange]) -> Vec<&'a LaneChange> {
    let mut lanes: std::collections::BTreeMap<u8, Vec<&LaneChange>> = Default::default();
    for c in changes {
        lanes.entry(c.lane).or_default().push(c);
    }
    let mut lanes: Vec<std::collections::VecDeque<&LaneChange>> = lanes
        .into_values()
        .map(|mut l| {
            l.sort_by_key(|c| c.seq);
            l.into()
        })
        .collect();
    // A removal first, then the largest tiebreak (the earliest), then the lowest lane.
    let earliness = |c: &'a LaneChange| {
        let tiebreak = c.new.as_ref().map(CountedKey::tiebreak);
        (tiebreak.is_none(), tiebreak, std::cmp::Reverse(c.lane))
    };
    let mut out = Vec::with_capacity(changes.len());
    while let Some(lane) = lanes
        .iter_mut()
        .filter(|l| !l.is_empty())
        .max_by_key(|l| l.front().map(|c| earliness(c)))
    {
        out.extend(lane.pop_front());
    }
    out
}

/// What `changes` (one journal's, past the root's watermarks) do to the leader `before`:
/// walked in the order the plays attained their keys, each key better than the leader's takes
/// rank 1 (a change of hands when it is another player's), the leader's own entry improving
/// moves its key, and the leader's entry moving down or leaving makes the leader unknown
/// until a key better than its old one comes (else the top is read).
pub fn walk_lead(before: &Lead, changes: &[&LaneChange]) -> LeadWalk {
    let same = LeadWalk {
        passes: Vec::new(),
        end: NextLead::Same,
    };
    let Some(latest) = changes.iter().map(|c| (c.lane, c.seq)).max() else {
        return same;
    };
    let Lead::Known(start) = before else {
        return LeadWalk {
            passes: Vec::new(),
            end: NextLead::ReadTop {
                cause: latest,
                last: Lead::Unknown,
                anonymous: false,
            },
        };
    };
    let mut lead = start.clone();
    // A lead an erasure gave the pseudonym names no one.
    let mut anonymous = lead
        .as_ref()
        .is_some_and(|k| Pseudonym::parse(k.player()).is_ok());
    // Set when the leader's entry moved down or left: the top is unknown until a key passes
    // `lead`, which stays the old key.
    let mut unseated: Option<(u8, u64)> = None;
    let mut passes = Vec::new();
    for c in attained_order(changes) {
        let cause = (c.lane, c.seq);
        if let (Some(l), Some(old)) = (&lead, &c.old)
            && unseated.is_none()
            && old.digits() == l.digits()
        {
            // The leader's own entry (matched by digits: a removal's key is pseudonymous).
            anonymous |= old.player() != l.player();
            match &c.new {
                Some(new) if new > l && !anonymous => lead = Some(new.clone()),
                _ => unseated = Some(cause),
            }
            continue;
        }
        let Some(new) = c
            .new
            .as_ref()
            .filter(|n| lead.as_ref().is_none_or(|l| *n > l))
        else {
            continue;
        };
        // The leader's own entry passing its old key after it moved down is no change of hands.
        let same_player = !anonymous && lead.as_ref().is_some_and(|l| l.player() == new.player());
        if !same_player {
            let Some(score) = c.score else {
                // A change recorded before plays carried their score: the read gives it.
                return LeadWalk {
                    passes,
                    end: NextLead::ReadTop {
                        cause,
                        last: Lead::Known(lead),
                        anonymous,
                    },
                };
            };
            passes.push(Pass {
                to: new.clone(),
                score,
                cause,
                previous: lead
                    .as_ref()
                    .filter(|_| !anonymous)
                    .map(|k| k.player().to_owned()),
            });
        }
        lead = Some(new.clone());
        (anonymous, unseated) = (false, None);
    }
    let end = match unseated {
        Some(cause) => NextLead::ReadTop {
            cause,
            last: Lead::Known(lead),
            anonymous,
        },
        None if lead == *start => NextLead::Same,
        None => lead.map_or(NextLead::Same, NextLead::To),
    };
    LeadWalk { passes, end }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key attained at `t` milliseconds (a later time, a smaller tiebreak).
    fn key_at(score: u64, player: &str, t: u64) -> CountedKey {
        let tie = 9_999_999_999_999 - t;
        CountedKey::parse(&format!("SCORE#{score:010}#{tie:013}#{player}")).unwrap()
    }

    fn key(score: u64, player: &str) -> CountedKey {
        key_at(score, player, 1_767_225_600_000)
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

    /// A play of `player` attaining `score` at `t`, the change `(lane, seq)`.
    fn play_at(lane: u8, seq: u64, player: &str, score: u64, t: u64) -> LaneChange {
        LaneChange {
            lane,
            seq,
            old: None,
            new: Some(key_at(score, player, t)),
            score: Some(score),
            ..LaneChange::default()
        }
    }

    fn next(before: &Lead, changes: &[LaneChange]) -> LeadWalk {
        walk_lead(before, &changes.iter().collect::<Vec<_>>())
    }

    fn pass(to: CountedKey, cause: (u8, u64), previous: Option<&str>) -> Pass {
        let score = to.digits()[..10].parse().unwrap();
        Pass {
            to,
            score,
            cause,
            previous: previous.map(str::to_owned),
        }
    }

    fn ends(end: NextLead) -> LeadWalk {
        LeadWalk {
            passes: Vec::new(),
            end,
        }
    }

    fn read_top(cause: (u8, u64), last: Option<CountedKey>, anonymous: bool) -> NextLead {
        NextLead::ReadTop {
            cause,
            last: Lead::Known(last),
            anonymous,
        }
    }

    #[test]
    fn the_first_entry_leads_and_a_better_one_takes_over() {
        let first = [
            change(2, 1, None, Some((10, "a"))),
            change(5, 1, None, Some((7, "b"))),
        ];
        assert_eq!(
            next(&Lead::Known(None), &first),
            LeadWalk {
                passes: vec![pass(key(10, "a"), (2, 1), None)],
                end: NextLead::To(key(10, "a")),
            }
        );
        let lead = Lead::Known(Some(key(10, "a")));
        assert_eq!(
            next(&lead, &[change(5, 2, Some(key(7, "b")), Some((9, "b")))]),
            ends(NextLead::Same)
        );
        assert_eq!(
            next(&lead, &[change(5, 2, Some(key(7, "b")), Some((11, "b")))]),
            LeadWalk {
                passes: vec![pass(key(11, "b"), (5, 2), Some("a"))],
                end: NextLead::To(key(11, "b")),
            }
        );
        assert_eq!(next(&lead, &[]), ends(NextLead::Same));
    }

    #[test]
    fn every_change_of_hands_in_one_journal_is_a_pass_in_the_order_the_scores_were_attained() {
        let lead = Lead::Known(Some(key_at(10, "a", 100)));
        // b passed a at t=200, then c passed b at t=300: two changes of hands, though c's
        // lane comes first.
        let two = [play_at(3, 1, "b", 11, 200), play_at(1, 7, "c", 12, 300)];
        assert_eq!(
            next(&lead, &two),
            LeadWalk {
                passes: vec![
                    pass(key_at(11, "b", 200), (3, 1), Some("a")),
                    pass(key_at(12, "c", 300), (1, 7), Some("b")),
                ],
                end: NextLead::To(key_at(12, "c", 300)),
            }
        );
        // Attained the other way round, b's 11 never led: one change of hands.
        let one = [play_at(3, 1, "b", 11, 300), play_at(1, 7, "c", 12, 200)];
        assert_eq!(
            next(&lead, &one),
            LeadWalk {
                passes: vec![pass(key_at(12, "c", 200), (1, 7), Some("a"))],
                end: NextLead::To(key_at(12, "c", 200)),
            }
        );
        // Five changes of hands in lanes that do not follow the times.
        let players = ["p", "q", "r", "s", "t"];
        let five: Vec<LaneChange> = players
            .iter()
            .enumerate()
            .map(|(i, p)| play_at(9 - i as u8 * 2, 1, p, 20 + i as u64, 200 + i as u64))
            .collect();
        let walk = next(&lead, &five);
        let got: Vec<(String, Option<String>)> = walk
            .passes
            .iter()
            .map(|p| (p.to.player().to_owned(), p.previous.clone()))
            .collect();
        let expected: Vec<(String, Option<String>)> = ["a", "p", "q", "r", "s"]
            .iter()
            .zip(players)
            .map(|(from, to)| (to.to_owned(), Some(from.to_string())))
            .collect();
        assert_eq!(got, expected);
        assert_eq!(walk.end, NextLead::To(key_at(24, "t", 204)));
    }

    #[test]
    fn a_leader_passed_then_corrected_down_is_a_pass_and_a_read() {
        let lead = Lead::Known(Some(key(10, "a")));
        // b went to 12 (taking rank 1) then down to 8 (a moderation's correction): the top,
        // read, says who leads after b.
        let changes = [
            change(5, 2, Some(key(7, "b")), Some((12, "b"))),
            change(5, 3, Some(key(12, "b")), Some((8, "b"))),
        ];
        assert_eq!(
            next(&lead, &changes),
            LeadWalk {
                passes: vec![pass(key(12, "b"), (5, 2), Some("a"))],
                end: read_top((5, 3), Some(key(12, "b")), false),
            }
        );
    }

    #[test]
    fn the_leader_improving_moves_the_key_and_the_leader_unseated_needs_the_top() {
        let lead = Lead::Known(Some(key(10, "a")));
        assert_eq!(
            next(&lead, &[change(2, 4, Some(key(10, "a")), Some((15, "a")))]),
            ends(NextLead::To(key(15, "a")))
        );
        // Removed (or moved down) with nothing better added: who leads is the board's to say.
        assert_eq!(
            next(&lead, &[change(2, 4, Some(key(10, "a")), None)]),
            ends(read_top((2, 4), Some(key(10, "a")), false))
        );
        let down = [
            change(2, 4, Some(key(10, "a")), Some((3, "a"))),
            change(7, 1, None, Some((9, "c"))),
        ];
        assert_eq!(
            next(&lead, &down),
            ends(read_top((2, 4), Some(key(10, "a")), false))
        );
        // ...unless something better than the old leader came in the same journal.
        let passed = [
            change(2, 4, Some(key(10, "a")), None),
            change(7, 1, None, Some((11, "c"))),
        ];
        assert_eq!(
            next(&lead, &passed),
            LeadWalk {
                passes: vec![pass(key(11, "c"), (7, 1), Some("a"))],
                end: NextLead::To(key(11, "c")),
            }
        );
    }

    #[test]
    fn a_leader_removed_under_a_pseudonym_is_matched_by_digits_and_not_named() {
        let lead = Lead::Known(Some(key(10, "a")));
        let erased = CountedKey::parse("SCORE#0000000010#8232774399999#erased_1f").unwrap();
        assert_eq!(
            next(&lead, &[change(2, 4, Some(erased.clone()), None)]),
            ends(read_top((2, 4), Some(key(10, "a")), true))
        );
        let passed = [
            change(2, 4, Some(erased), None),
            change(7, 1, None, Some((11, "c"))),
        ];
        assert_eq!(
            next(&lead, &passed),
            LeadWalk {
                passes: vec![pass(key(11, "c"), (7, 1), None)],
                end: NextLead::To(key(11, "c")),
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
            LeadWalk {
                passes: vec![pass(key(11, "c"), (7, 1), None)],
                end: NextLead::To(key(11, "c")),
            }
        );
        assert_eq!(
            next(&lead, &[change(2, 4, Some(erased.clone()), None)]),
            ends(read_top((2, 4), Some(erased), true))
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
            ends(NextLead::ReadTop {
                cause: (4, 9),
                last: Lead::Unknown,
                anonymous: false
            })
        );
        let mut old = change(1, 3, None, Some((5, "a")));
        old.score = None;
        assert_eq!(
            next(&Lead::Known(None), &[old]),
            ends(read_top((1, 3), None, false))
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
