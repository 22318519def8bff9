//! A play's own rule (the boards it names, checked before any read), and a board's rules for
//! it, checked with the play's reads before anything is written: who may post to it (its
//! `writers`), the score range, the tiebreak columns' values, the shortest play, the board's
//! game; the game of a play that names none; and whether the play goes into its game's feed.

use leaderboard_keys::columns::{self, SubscoreError};
use leaderboard_keys::ids::GameId;

use crate::features::plays::{BoardPlan, MAX_BOARDS_PER_PLAY, Play};
use crate::ground::error::StoreError;
use crate::ground::model::{Board, Session, Writers};

impl Play {
    /// The play's own rule: it names 1 to [`MAX_BOARDS_PER_PLAY`] boards, each once.
    pub(super) fn check(&self) -> Result<(), StoreError> {
        let ids = &self.board_ids;
        if ids.is_empty() || ids.len() > MAX_BOARDS_PER_PLAY {
            return Err(StoreError::Invalid(format!(
                "leaderboardIds must list 1 to {MAX_BOARDS_PER_PLAY} boards"
            )));
        }
        for (i, id) in ids.iter().enumerate() {
            if ids[..i].contains(id) {
                return Err(StoreError::Invalid(format!(
                    "leaderboardIds lists {id} twice"
                )));
            }
        }
        Ok(())
    }
}

/// Whether `by` may post to the board: its players their own plays, or only game servers.
pub(super) fn check_writers(board: &Board, by: Writers) -> Result<(), StoreError> {
    let id = &board.board_id;
    match (board.writers, by) {
        (Writers::Servers, Writers::Players) => Err(StoreError::Forbidden(format!(
            "leaderboard {id} takes plays only from game servers"
        ))),
        (Writers::Players, Writers::Servers) => Err(StoreError::Forbidden(format!(
            "leaderboard {id} takes its players' own plays, not a game server's"
        ))),
        _ => Ok(()),
    }
}

/// The board's rules for a play, beside its open time: the score in `minScore..=maxScore`,
/// `subscores` giving every column of the board and no other, each within its `max`, a
/// `durationSec` of at least `minDurationSec`, and the board's game, if it names one. The
/// play's column values in the board's column order.
pub(super) fn check_rules(board: &Board, play: &Play) -> Result<Vec<u64>, StoreError> {
    board.check_score(play.score)?;
    let id = &board.board_id;
    let subscores = columns::ordered(&board.columns, &play.subscores).map_err(|e| match e {
        SubscoreError::OutOfRange { name, value, max } => StoreError::SubscoreOutOfRange {
            board: id.clone(),
            column: name,
            value,
            max,
        },
        other => StoreError::Invalid(format!("leaderboard {id}: {other}")),
    })?;
    if let Some(min) = board.min_duration_sec
        && play.duration_sec.is_none_or(|d| d < min)
    {
        return Err(StoreError::Invalid(format!(
            "leaderboard {id} takes plays of at least {min} s: durationSec must say so"
        )));
    }
    if let (Some(want), Some(got)) = (&board.game_id, &play.game_id)
        && want != got
    {
        return Err(StoreError::Invalid(format!(
            "leaderboard {id} takes plays of game {want}, not {got}"
        )));
    }
    Ok(subscores)
}

/// The game of a play that names none: its boards', when those that have one agree.
pub(super) fn boards_game(plans: &[BoardPlan]) -> Result<GameId, StoreError> {
    let mut games = plans.iter().filter_map(|p| p.board.game_id.as_ref());
    let first = games.next().ok_or_else(|| {
        StoreError::Invalid("gameId is required: no board of the play names its game".into())
    })?;
    match games.find(|g| *g != first) {
        Some(other) => Err(StoreError::Invalid(format!(
            "gameId is required: the play's boards belong to games {first} and {other}"
        ))),
        None => Ok(first.clone()),
    }
}

/// Where `session` goes in its game's feed (`GET /games/{g}/sessions`): over how many shards,
/// or `None` to keep it out. A game that some board names (`claimed`: the boards of a game
/// record its feed item) lists only plays one of its boards took, so that a play on boards of
/// no game cannot post into any game's feed; a game no board names lists every play that names
/// it. The shards are the most write shards of the play's boards of its game (their creation
/// recorded that many in the feed item, which the listing reads), else 1 (`GAME#<gameId>`).
pub(super) fn feed_of(session: &Session, plans: &[BoardPlan], claimed: bool) -> Option<u8> {
    let ours = plans
        .iter()
        .map(|plan| &plan.board)
        .filter(|board| board.game_id.as_ref() == Some(&session.game_id));
    match ours.map(|board| board.write_shards).max() {
        Some(shards) => Some(shards),
        None if claimed => None,
        None => Some(1),
    }
}
