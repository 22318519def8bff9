//! A play's change on one board: the entry the board's operator and order make of the
//! player's current one and the play's score, and what the play answers for the board.

use leaderboard_keys::columns;
use leaderboard_keys::time::Timestamp;

use crate::features::plays::rules::check_rules;
use crate::features::plays::{BoardPlan, Play};
use crate::ground::error::StoreError;
use crate::ground::model::{Board, BoardOutcome, Entry, EntryPointer, Operator};
use crate::rank::index_copy::RootBefore;

/// The new entry of `board` after a play of `score` at `now`, given the current one.
pub(super) fn plan_board(
    (board, root): (Board, RootBefore),
    old: Option<EntryPointer>,
    play: &Play,
    name: &str,
    now: Timestamp,
) -> Result<BoardPlan, StoreError> {
    let spec = board.spec()?;
    let subscores = check_rules(&board, play)?;
    let old = old.map(|p| p.on_board(&board)).transpose()?;
    // The rules do not depend on the order in which concurrent plays commit (a play's `now` is
    // fixed before its retries): `best` keeps the entry whose whole (score, columns..., earlier
    // time) ranks higher, which is the greater sort key; `latest` keeps the play with the
    // greatest (time, session id);
    // `increment` adds every play once and its time never goes backwards; its total saturates
    // at `maxScore` (the play's other boards go on), and an entry at `maxScore` takes no more.
    let capped = board.operator == Operator::Increment
        && old
            .as_ref()
            .is_some_and(|cur| cur.entry.score.saturating_add(play.score) > board.max_score);
    let played =
        spec.score_sort_key_with(play.score, &subscores, now.as_millis(), &play.player_id)?;
    let new_entry: Option<(u64, Timestamp)> = match (&old, board.operator) {
        (None, _) => Some((play.score, now)),
        (Some(cur), Operator::Best) => (played > cur.score_sk).then_some((play.score, now)),
        (Some(cur), Operator::Latest) => ((now, &play.session_id)
            > (cur.entry.attained_at, &cur.session_id))
            .then_some((play.score, now)),
        (Some(cur), Operator::Increment)
            if play.score == 0 || cur.entry.score >= board.max_score =>
        {
            None
        }
        (Some(cur), Operator::Increment) => {
            let total = cur
                .entry
                .score
                .saturating_add(play.score)
                .min(board.max_score);
            Some((total, now.max(cur.entry.attained_at)))
        }
    };
    let new = match new_entry {
        None => None,
        Some((score, attained_at)) => Some(EntryPointer {
            entry: Entry {
                board_id: board.board_id.clone(),
                player_id: play.player_id.clone(),
                score,
                attained_at,
                name: Some(name.to_owned()),
                metadata: play.metadata.clone(),
                subscores: columns::named(&board.columns, &subscores),
            },
            session_id: play.session_id.clone(),
            score_sk: spec.score_sort_key_with(
                score,
                &subscores,
                attained_at.as_millis(),
                &play.player_id,
            )?,
            version: old.as_ref().map_or(1, |o| o.version + 1),
            saturated: capped || old.as_ref().is_some_and(|o| o.saturated),
        }),
    };
    let best = new
        .as_ref()
        .or(old.as_ref())
        .map_or(play.score, |e| e.entry.score);
    // Improved: the entry is new, or now ranks higher than before.
    let improved = match (&old, &new) {
        (None, _) => true,
        (Some(o), Some(n)) => n.score_sk > o.score_sk,
        (Some(_), None) => false,
    };
    Ok(BoardPlan {
        outcome: BoardOutcome {
            board_id: board.board_id.clone(),
            best,
            improved,
            saturated: capped,
            rank: 0,
            freshness: None,
            cohort_id: None,
            tier: None,
        },
        board,
        root,
        old,
        new,
    })
}
