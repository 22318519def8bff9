//! The board's leader as the rank index follows it, the table's half (the pure half, and why
//! the root keeps it, is [`leaderboard_keys::rank_index::lead`]): each journal that moves the
//! leader carries its step (the root's new `lead`, and every change of hands to announce, in
//! order) on its journal item, so that whoever finishes the journal announces the same ones, and
//! the root takes the new leader in the same update as the journal's watermarks. The one read
//! it may add to an apply is the board's top entry, when a journal's changes moved the leader's
//! own entry down or removed it with nothing better added: one GetItem of the board (its write
//! shards) and one Query of one item per write shard.

use std::future::Future;

use leaderboard_keys::entity::{SCORE_PREFIX, SCORE_UPPER_BOUND};
use leaderboard_keys::erasure::{Pseudonym, pseudonymous_sort_key};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank_index::lead::{LEAD_ATTR, Lead, NextLead, Pass, walk_lead};
use leaderboard_keys::rank_index::{CountedKey, LaneChange};

use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt, n, s};
use crate::table::Table;
use crate::table::merge::Direction;

/// Rank 1 of a board changed hands: announced (`NewLeader`) before the index records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaderChange {
    /// The board.
    pub board: BoardId,
    /// The change of the board's lane log that made it (lane, number): the same on every
    /// announcement of this change of hands.
    pub cause: (u8, u64),
    /// The new leader.
    pub leader: String,
    /// Their score.
    pub score: u64,
    /// The leader before, or none on a board that had no entry.
    pub previous: Option<String>,
}

/// Who hears of a change of leader, before the index records it: an error fails the apply
/// (its batch is delivered again, and announces the same change again).
pub trait LeaderWatch: Sync {
    /// `change` happened.
    fn new_leader(&self, change: &LeaderChange) -> impl Future<Output = Result<(), String>> + Send;
}

/// No one: the leader is followed, and nothing announced.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unwatched;

impl LeaderWatch for Unwatched {
    async fn new_leader(&self, _: &LeaderChange) -> Result<(), String> {
        Ok(())
    }
}

/// What one journal does to the leader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LeadStep {
    /// The root's `lead` after it: the top key, or empty on a board without entries.
    pub lead: String,
    /// The changes of hands to announce, in the order they happened.
    pub announce: Vec<LeaderChange>,
}

/// The `lead` of a step that leaves the leader unknown: no key parses as it.
const UNKNOWN_LEAD: &str = "?";

impl LeadStep {
    /// A step that leaves the leader unknown (a `lead` no key parses as), announcing only
    /// the changes of hands known before.
    fn unknown(announce: Vec<LeaderChange>) -> LeadStep {
        LeadStep {
            lead: UNKNOWN_LEAD.to_owned(),
            announce,
        }
    }

    /// The leader the root records after this step.
    pub(crate) fn after(&self) -> Lead {
        Lead::of_root(Some(&self.lead), true)
    }
}

/// The journal item's attributes of its step: the lead after, and the announcement's change,
/// leader, score and previous leader.
const LEAD_KEY_ATTR: &str = "lk";
const CAUSE_LANE_ATTR: &str = "ll";
const CAUSE_SEQ_ATTR: &str = "lq";
const LEADER_ATTR: &str = "lp";
const SCORE_ATTR: &str = "ls";
const PREVIOUS_ATTR: &str = "lb";

impl Table {
    /// What `changes` (one journal's) do to the leader `before` of `board` (`None` when its
    /// key stays and no one passed anyone), and the requests it read: the board's top entry
    /// when the changes alone cannot tell ([`NextLead::ReadTop`]), none otherwise.
    pub(crate) async fn lead_step(
        &self,
        board: &BoardId,
        before: &Lead,
        changes: &[&LaneChange],
    ) -> Result<(Option<LeadStep>, u32), StoreError> {
        let walk = walk_lead(before, changes);
        let mut announce: Vec<LeaderChange> = walk
            .passes
            .iter()
            .map(|p: &Pass| LeaderChange {
                board: board.clone(),
                cause: p.cause,
                leader: p.to.player().to_owned(),
                score: p.score,
                previous: p.previous.clone(),
            })
            .collect();
        let (lead, reads) = match walk.end {
            NextLead::Same => return Ok((None, 0)),
            NextLead::To(key) => (key.sort_key, 0),
            NextLead::ReadTop {
                cause,
                last,
                anonymous,
            } => {
                let (item, reads) = self.top_item(board).await?;
                let top = match item.as_ref().map(top_of).transpose() {
                    Ok(top) => top,
                    // A top Score item that cannot be read must not stop the board's index:
                    // the journal goes on with the leader unknown (the next one that needs
                    // the top reads it again), and the item is left for `lbctl verify`.
                    Err(e) => {
                        tracing::error!(%board, error = %e, "the board's top entry cannot be read; its leader is left unknown");
                        return Ok((Some(LeadStep::unknown(announce)), reads));
                    }
                };
                if let (Lead::Known(now), Some((key, score))) = (&last, &top)
                    && now.as_ref().map(CountedKey::player) != Some(key.player())
                {
                    announce.push(LeaderChange {
                        board: board.clone(),
                        cause,
                        leader: key.player().to_owned(),
                        score: *score,
                        previous: now
                            .as_ref()
                            .filter(|_| !anonymous)
                            .map(|k| k.player().to_owned()),
                    });
                }
                // The leader's own entry moved, or who led before is not known: nothing more
                // to say.
                let after = top.map(|(k, _)| k.sort_key).unwrap_or_default();
                if announce.is_empty()
                    && let Lead::Known(now) = before
                    && now
                        .as_ref()
                        .map(|k| k.sort_key.as_str())
                        .unwrap_or_default()
                        == after
                {
                    return Ok((None, reads));
                }
                (after, reads)
            }
        };
        Ok((Some(LeadStep { lead, announce }), reads))
    }

    /// The board's top Score item now (none when it has no entry, or no longer exists), and
    /// the requests read: one GetItem of the board and one Query of one item per write shard.
    async fn top_item(&self, board: &BoardId) -> Result<(Option<Item>, u32), StoreError> {
        let Some(stored) = self.board(board).await? else {
            return Ok((None, 1));
        };
        let range = (SCORE_PREFIX, SCORE_UPPER_BOUND);
        let partitions = stored.score_pks();
        let reads = 1 + partitions.len() as u32;
        let top = self
            .read_merged(&partitions, range, Direction::Down, None, 1)
            .await?;
        Ok((top.into_iter().next(), reads))
    }
}

/// The key and score of a board's top Score item.
fn top_of(item: &Item) -> Result<(CountedKey, u64), StoreError> {
    let sk = item.string("sk").unwrap_or_default();
    let key = CountedKey::parse(sk).map_err(|e| StoreError::corrupt(sk, e))?;
    let score = item
        .number("score")
        .ok_or_else(|| StoreError::corrupt(sk, "a Score item without a score"))?;
    Ok((key, score))
}

/// The attribute `attr` of a journal's `i`-th announcement: the first's bare (as journals
/// written with one announcement at most hold it), the others' suffixed with their number.
fn nth(attr: &str, i: usize) -> String {
    if i == 0 {
        attr.to_owned()
    } else {
        format!("{attr}{i}")
    }
}

/// Adds `step` to a journal item.
pub(crate) fn put_step(item: &mut Item, step: &LeadStep) {
    item.insert(LEAD_KEY_ATTR.into(), s(&step.lead));
    for (i, a) in step.announce.iter().enumerate() {
        item.insert(nth(CAUSE_LANE_ATTR, i), n(a.cause.0));
        item.insert(nth(CAUSE_SEQ_ATTR, i), n(a.cause.1));
        item.insert(nth(LEADER_ATTR, i), s(&a.leader));
        item.insert(nth(SCORE_ATTR, i), n(a.score));
        if let Some(previous) = &a.previous {
            item.insert(nth(PREVIOUS_ATTR, i), s(previous));
        }
    }
}

/// The `i`-th announcement a journal item of `board` carries, if it has one.
fn announcement(board: &BoardId, item: &Item, i: usize) -> Option<LeaderChange> {
    Some(LeaderChange {
        board: board.clone(),
        cause: (
            item.number(&nth(CAUSE_LANE_ATTR, i))?,
            item.number(&nth(CAUSE_SEQ_ATTR, i))?,
        ),
        leader: item.string(&nth(LEADER_ATTR, i))?.to_owned(),
        score: item.number(&nth(SCORE_ATTR, i))?,
        previous: item.string(&nth(PREVIOUS_ATTR, i)).map(str::to_owned),
    })
}

/// The step a journal item of `board` carries, if any.
pub(crate) fn step_of(board: &BoardId, item: &Item) -> Option<LeadStep> {
    let lead = item.string(LEAD_KEY_ATTR)?.to_owned();
    let announce = (0..).map_while(|i| announcement(board, item, i)).collect();
    Some(LeadStep { lead, announce })
}

/// The attributes of a rank index root or journal item that name `player` (the root's leader,
/// a step's lead, and each announcement's leader and previous leader), each with its value and
/// the value that names `pseudonym` instead: what an erasure rewrites on a board the player
/// led. A lead key keeps its digits, so the index still matches it to the entry's removal.
pub(crate) fn naming(
    item: &Item,
    player: &PlayerId,
    pseudonym: &Pseudonym,
) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for attr in [LEAD_ATTR, LEAD_KEY_ATTR] {
        if let Some(old) = item.string(attr)
            && let Some(new) = pseudonymous_sort_key(old, player, pseudonym)
        {
            out.push((attr.to_owned(), old.to_owned(), new));
        }
    }
    for i in (0..).take_while(|i| item.contains_key(&nth(LEADER_ATTR, *i))) {
        for attr in [nth(LEADER_ATTR, i), nth(PREVIOUS_ATTR, i)] {
            if item.string(&attr) == Some(player.as_str()) {
                out.push((attr, player.as_str().to_owned(), pseudonym.to_string()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(seq: u64, leader: &str, previous: Option<&str>) -> LeaderChange {
        LeaderChange {
            board: BoardId::parse("b").unwrap(),
            cause: (3, seq),
            leader: leader.to_owned(),
            score: 10 + seq,
            previous: previous.map(str::to_owned),
        }
    }

    #[test]
    fn a_journal_keeps_every_announcement_and_an_erasure_finds_each_naming() {
        let step = LeadStep {
            lead: "SCORE#0000000012#8232774399999#p_c".to_owned(),
            announce: vec![change(1, "p_b", Some("p_a")), change(2, "p_c", Some("p_b"))],
        };
        let mut item = Item::new();
        put_step(&mut item, &step);
        let board = BoardId::parse("b").unwrap();
        assert_eq!(step_of(&board, &item), Some(step));
        // p_b is named by the first's leader and the second's previous leader.
        let player = PlayerId::parse("p_b").unwrap();
        let pseudonym = Pseudonym::of(b"secret", &player);
        let attrs: Vec<String> = naming(&item, &player, &pseudonym)
            .into_iter()
            .map(|(attr, old, new)| {
                assert_eq!((old.as_str(), new.as_str()), ("p_b", pseudonym.as_str()));
                attr
            })
            .collect();
        assert_eq!(attrs, [LEADER_ATTR.to_owned(), format!("{PREVIOUS_ATTR}1")]);
        // A journal written with one announcement at most reads as before.
        let mut one = Item::new();
        put_step(
            &mut one,
            &LeadStep {
                lead: String::new(),
                announce: vec![change(7, "p_a", None)],
            },
        );
        assert!(one.contains_key(LEADER_ATTR) && !one.contains_key(&format!("{LEADER_ATTR}1")));
    }
}
