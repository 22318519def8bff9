//! The domain's entities as the table stores them (attribute names in camelCase, as the
//! contract lists them) and as the API shows them. Keys are not fields here: `items`
//! adds them from the key schema when an entity is written, and they are ignored when read.

use std::borrow::Cow;

use leaderboard_keys::columns::{self, Subscores};
use leaderboard_keys::ids::{BoardId, Email, GameId, PlayerId, SessionId, TierName};
use leaderboard_keys::time::Timestamp;
use leaderboard_keys::widen;
use serde::{Deserialize, Serialize};

use crate::ground::board::is_false;
pub use crate::ground::board::{
    Board, BoardStatus, MAX_DURATION_SEC, NewBoard, Operator, RankLayout, Recurrence, Writers,
};
use crate::ground::error::StoreError;
use crate::ground::freshness::Freshness;
use crate::ground::league::Movement;
pub use crate::ground::metadata::Metadata;
pub use crate::ground::names::MAX_NAME_LEN;

/// The largest `lifetimeScore`: the sum of a player's sessions stops here (it saturates; plays
/// are still accepted and counted in `gamesPlayed`). It is the largest signed 64-bit integer,
/// so every client language's 64-bit integer type holds it.
pub const LIFETIME_SCORE_CEILING: u64 = i64::MAX as u64;

/// Reads a stored total of any size or sign as `0..=LIFETIME_SCORE_CEILING`.
fn saturating_total<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    struct Total;
    impl serde::de::Visitor<'_> for Total {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a number")
        }
        fn visit_i64<E>(self, v: i64) -> Result<u64, E> {
            Ok(v.max(0).unsigned_abs().min(LIFETIME_SCORE_CEILING))
        }
        fn visit_u64<E>(self, v: u64) -> Result<u64, E> {
            Ok(v.min(LIFETIME_SCORE_CEILING))
        }
        fn visit_f64<E>(self, v: f64) -> Result<u64, E> {
            // `as` saturates (and maps NaN to 0), which is the rule.
            Ok((v as u64).min(LIFETIME_SCORE_CEILING))
        }
    }
    d.deserialize_any(Total)
}

/// A player's profile and lifetime totals (the Player item).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Player {
    /// The player (the JWT `sub`).
    pub player_id: PlayerId,
    /// Display name.
    #[serde(default)]
    pub name: String,
    /// Login email; never shown by a public route.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<Email>,
    /// Sum of the scores of every session (kept by the stream projector), saturating at
    /// [`LIFETIME_SCORE_CEILING`]. A stored value beyond it (or not a whole number) reads as the
    /// ceiling, so a profile never fails on what the table holds.
    #[serde(default, deserialize_with = "saturating_total")]
    pub lifetime_score: u64,
    /// Number of sessions (kept by the stream projector).
    #[serde(default)]
    pub games_played: u64,
    /// The newest session's time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_played_at: Option<Timestamp>,
    /// When the profile was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

/// What every stored form of an entry holds (a Score item, an entry pointer, a final standing,
/// a season result): whose entry on which board, its score and when it was attained, and the
/// name and metadata it shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// The board.
    #[serde(rename = "leaderboardId")]
    pub board_id: BoardId,
    /// The player.
    pub player_id: PlayerId,
    /// The entry's score.
    pub score: u64,
    /// When it was attained.
    pub attained_at: Timestamp,
    /// The player's display name when the entry last changed (absent on entries written
    /// before names were kept: they show the playerId).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The metadata of the play that last changed the entry, if it had any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// Its tiebreak columns' values, by column name (none on a board without columns).
    #[serde(default, skip_serializing_if = "Subscores::is_empty")]
    pub subscores: Subscores,
}

impl Entry {
    /// The entry at `rank`, as the read API shows it, with how fresh the rank is where that is
    /// shown (a player's own rank).
    pub fn ranked(self, rank: u64, freshness: Option<Freshness>) -> RankedEntry {
        RankedEntry {
            rank,
            name: shown_name(self.name, &self.player_id),
            player_id: self.player_id,
            score: self.score,
            attained_at: self.attained_at,
            metadata: self.metadata,
            subscores: self.subscores,
            freshness,
        }
    }
}

/// A player's current entry on a board (the Score item).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreEntry {
    /// Whose, where, what and when.
    #[serde(flatten)]
    pub entry: Entry,
    /// The session that set it.
    pub session_id: SessionId,
    /// An `increment` entry whose total was capped at the board's `maxScore` (present only
    /// when true).
    #[serde(default, skip_serializing_if = "is_false")]
    pub saturated: bool,
}

/// The name an entry shows: the one it was stored with, or else its player's id.
pub fn shown_name(name: Option<String>, player: &PlayerId) -> String {
    name.unwrap_or_else(|| player.to_string())
}

/// An entry with its rank on the board, as the read API shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RankedEntry {
    /// 1 = top.
    pub rank: u64,
    /// The player.
    pub player_id: PlayerId,
    /// The player's display name when the entry last changed (the playerId without one).
    pub name: String,
    /// The score.
    pub score: u64,
    /// When it was attained.
    pub attained_at: Timestamp,
    /// The metadata of the play that last changed the entry (absent when it had none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// Its tiebreak columns' values, by column name (absent on a board without columns).
    #[serde(default, skip_serializing_if = "Subscores::is_empty")]
    pub subscores: Subscores,
    /// How fresh the rank is, on answers of a player's own rank (absent on top-N pages, whose
    /// positional ranks are exact by construction).
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub freshness: Option<Freshness>,
}

/// A player's pointer to their current Score item on a board (this project's addition to the
/// layout): the submit path reads it with one strongly consistent read, and its `version`
/// serialises concurrent writers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryPointer {
    /// Whose, where, what and when.
    #[serde(flatten)]
    pub entry: Entry,
    /// The session that set it.
    pub session_id: SessionId,
    /// The Score item's sort key, `SCORE#<rankKey>#<playerId>`.
    pub score_sk: String,
    /// Bumped by every change; the condition of the next change.
    pub version: u64,
    /// An `increment` entry whose total was capped at the board's `maxScore`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub saturated: bool,
}

impl EntryPointer {
    /// The Score entry this pointer points at.
    pub fn score_entry(&self) -> ScoreEntry {
        ScoreEntry {
            entry: self.entry.clone(),
            session_id: self.session_id.clone(),
            saturated: self.saturated,
        }
    }
}

/// Whether a rank is unread (0: ranks start at 1).
fn is_unread(rank: &u64) -> bool {
    *rank == 0
}

/// What one play did on one board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BoardOutcome {
    /// The board.
    #[serde(rename = "leaderboardId")]
    pub board_id: BoardId,
    /// The player's entry on the board after the play.
    pub best: u64,
    /// Whether the entry got better (or was created).
    pub improved: bool,
    /// On an `increment` board: the play's score would have taken the entry past `maxScore`,
    /// so the entry stopped there (present only when true).
    #[serde(default, skip_serializing_if = "is_false")]
    pub saturated: bool,
    /// The player's rank on the board after the play (1 = top); 0 while it has not been read
    /// (the play committed and its rank read failed or ran out of time), and then left out.
    #[serde(default, skip_serializing_if = "is_unread")]
    pub rank: u64,
    /// How fresh that rank is (absent on sessions recorded before ranks carried it).
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub freshness: Option<Freshness>,
    /// On a league board: the cohort the play counted on (its entry and rank are there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cohort_id: Option<BoardId>,
    /// On a league board: the player's tier in the period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<TierName>,
}

impl BoardOutcome {
    /// The board the play's entry is on: the cohort of a league board, else the board.
    pub fn counted_on(&self) -> &BoardId {
        self.cohort_id.as_ref().unwrap_or(&self.board_id)
    }
}

/// One play (the Session item): immutable once written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// The player.
    pub player_id: PlayerId,
    /// The session (a ULID).
    pub session_id: SessionId,
    /// The boards the play counted on, in the order asked.
    #[serde(rename = "leaderboardIds")]
    pub board_ids: Vec<BoardId>,
    /// The game.
    pub game_id: GameId,
    /// The play's score.
    pub score: u64,
    /// How long the play took, if the game said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_sec: Option<u64>,
    /// When the play was recorded.
    pub attained_at: Timestamp,
    /// What the game attached to the play, if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// The play's tiebreak column values, by column name, if its boards have columns.
    #[serde(default, skip_serializing_if = "Subscores::is_empty")]
    pub subscores: Subscores,
    /// The outcome on each board, in the order of `board_ids`, so that a repeated request
    /// gets the first answer.
    pub outcomes: Vec<BoardOutcome>,
}

/// A final standing of a closed board (the Final standing item).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FinalStanding {
    /// Whose, where, what and when (copied from the Score item at close).
    #[serde(flatten)]
    pub entry: Entry,
    /// The final rank.
    pub rank: u64,
}

/// A player's result on a closed board (the Season result item).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeasonResult {
    /// Whose, where, what and when (the final score).
    #[serde(flatten)]
    pub entry: Entry,
    /// The final rank.
    pub rank: u64,
    /// How many players the board had.
    pub player_count: u64,
    /// On a league's cohort: its league board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cohort_of: Option<BoardId>,
    /// On a league's cohort: the player's tier in the period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<TierName>,
    /// On a league's cohort: where the period's end moved the player.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub movement: Option<Movement>,
}

impl SeasonResult {
    /// The result as the read API shows a player's ranked entry: [`Entry::ranked`] at the
    /// final rank, exact of `player_count` entries.
    pub fn into_ranked(self) -> RankedEntry {
        let freshness = Freshness::exact(self.rank, self.player_count);
        self.entry.ranked(self.rank, Some(freshness))
    }
}

/// One page of a listing, with the opaque cursor of the next page (`None` at the end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    /// The items, in listing order.
    pub items: Vec<T>,
    /// The cursor to pass for the next page, or `None` if this was the last.
    pub next_cursor: Option<String>,
}

impl<T> Page<T> {
    /// The same page with each item mapped by `f`.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            next_cursor: self.next_cursor,
        }
    }
}

impl EntryPointer {
    /// The sort key of the Score item this pointer names on `board`: the one it keeps, written
    /// when the entry last changed, on a board never widened; the same entry's key at the
    /// board's widths on one widened since (pointers are not rewritten by a widening).
    pub fn score_sk_on(&self, board: &Board) -> Result<Cow<'_, str>, StoreError> {
        if board.entry_generation == 0 {
            return Ok(Cow::Borrowed(&self.score_sk));
        }
        let subscores = columns::ordered(&board.columns, &self.entry.subscores)
            .map_err(|e| StoreError::corrupt(&self.score_sk, e))?;
        Ok(Cow::Owned(widen::entry_key(
            &board.spec()?,
            &self.score_sk,
            self.entry.score,
            &subscores,
        )?))
    }

    /// This pointer naming its Score item's key on `board` ([`EntryPointer::score_sk_on`]).
    pub fn on_board(mut self, board: &Board) -> Result<EntryPointer, StoreError> {
        if let Cow::Owned(sk) = self.score_sk_on(board)? {
            self.score_sk = sk;
        }
        Ok(self)
    }
}
