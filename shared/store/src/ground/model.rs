//! The domain's entities as the table stores them (attribute names in camelCase, as the
//! contract lists them) and as the API shows them. Keys are not fields here: `items`
//! adds them from the key schema when an entity is written, and they are ignored when read.

use leaderboard_keys::ids::{BoardId, Email, GameId, PlayerId, SessionId};
use leaderboard_keys::rank::{MAX_MAX_SCORE, Order, RankKeySpec};
use leaderboard_keys::time::Timestamp;
use serde::{Deserialize, Serialize};

use crate::ground::error::StoreError;
use crate::ground::freshness::Freshness;
pub use crate::ground::metadata::Metadata;
pub use crate::ground::names::MAX_NAME_LEN;
use crate::ground::names::check_name;

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

/// How a new score combines with a player's current entry on a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Operator {
    /// Keep the better of old and new, by the board's order.
    #[default]
    Best,
    /// Keep the newest.
    Latest,
    /// Add the new score to the current one.
    Increment,
}

/// Whether and how a board is followed by a successor when it closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recurrence {
    /// A one-off board.
    #[default]
    None,
    /// A new board every day.
    Daily,
    /// A new board every week.
    Weekly,
    /// A new board of the same length, numbered.
    Season,
}

/// A board's life cycle: `open` -> `closing` -> `closed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BoardStatus {
    /// Accepting scores (within startsAt..endsAt).
    #[default]
    Open,
    /// Being snapshotted; scores are refused.
    Closing,
    /// Final standings written; scores are refused.
    Closed,
}

impl BoardStatus {
    /// The API spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            BoardStatus::Open => "open",
            BoardStatus::Closing => "closing",
            BoardStatus::Closed => "closed",
        }
    }
}

/// What an admin gives to create a board (`POST /leaderboards`). A field it does not know is
/// refused, naming it: a typo (`maxscore`) must not create a board without the guard it asked
/// for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewBoard {
    /// The board's id.
    #[serde(rename = "leaderboardId")]
    pub board_id: BoardId,
    /// Display name.
    pub name: String,
    /// `desc` (higher is better, default) or `asc`.
    #[serde(default)]
    pub order: Order,
    /// `best` (default), `latest` or `increment`.
    #[serde(default)]
    pub operator: Operator,
    /// The largest accepted score (default 9999999999); fixes the key width forever.
    #[serde(default = "default_max_score")]
    pub max_score: u64,
    /// The smallest accepted score (default 0).
    #[serde(default)]
    pub min_score: u64,
    /// The shortest play accepted, in seconds: a play that does not give its `durationSec`, or
    /// gives less, is refused (default: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_duration_sec: Option<u64>,
    /// When scores start being accepted (default: at creation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starts_at: Option<Timestamp>,
    /// When the board ends; season close snapshots it after this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends_at: Option<Timestamp>,
    /// `none` (default), `daily`, `weekly` or `season`.
    #[serde(default)]
    pub recurrence: Recurrence,
    /// The game the board belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_id: Option<GameId>,
    /// The rank index's layout: 2, the only one (the default).
    #[serde(default)]
    pub rank_layout: RankLayout,
}

/// How a board's rank index is laid out: `rankLayout` 2. A stored board without it (or with 1,
/// which nothing writes any more) is counted until the migration (`rank_migration`) moves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub enum RankLayout {
    /// Made before the current layout, not moved onto it yet.
    Legacy,
    /// The rank index: one trie of counters per board, applied a batch at a time from the
    /// lanes' change log.
    #[default]
    V2,
}

impl RankLayout {
    /// Whether the migration has still to move the board (left out of stored and shown boards).
    pub fn is_legacy(&self) -> bool {
        *self == RankLayout::Legacy
    }

    /// The layout of a stored board without `rankLayout`.
    fn stored_default() -> RankLayout {
        RankLayout::Legacy
    }
}

impl TryFrom<u8> for RankLayout {
    type Error = String;

    fn try_from(v: u8) -> Result<Self, Self::Error> {
        match v {
            1 => Ok(RankLayout::Legacy),
            2 => Ok(RankLayout::V2),
            other => Err(format!("rankLayout must be 2, not {other}")),
        }
    }
}

impl From<RankLayout> for u8 {
    fn from(l: RankLayout) -> u8 {
        match l {
            RankLayout::Legacy => 1,
            RankLayout::V2 => 2,
        }
    }
}

fn default_max_score() -> u64 {
    leaderboard_keys::rank::DEFAULT_MAX_SCORE
}

/// A leaderboard's metadata (the Leaderboard item).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Board {
    /// The board's id.
    #[serde(rename = "leaderboardId")]
    pub board_id: BoardId,
    /// Display name.
    pub name: String,
    /// `desc` or `asc`.
    pub order: Order,
    /// `best`, `latest` or `increment`.
    pub operator: Operator,
    /// The largest accepted score.
    pub max_score: u64,
    /// The smallest accepted score (0 on a board stored without it).
    #[serde(default)]
    pub min_score: u64,
    /// The shortest play accepted, in seconds, if the board sets one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_duration_sec: Option<u64>,
    /// When scores start being accepted.
    pub starts_at: Timestamp,
    /// When the board ends, if it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends_at: Option<Timestamp>,
    /// How the board recurs.
    pub recurrence: Recurrence,
    /// The game, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_id: Option<GameId>,
    /// `open`, `closing` or `closed`.
    pub status: BoardStatus,
    /// When it was created.
    pub created_at: Timestamp,
    /// When the close finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed_at: Option<Timestamp>,
    /// How many players have an entry (known after close).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_count: Option<u64>,
    /// The successor board, after rollover.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "nextLeaderboardId")]
    pub next_board_id: Option<BoardId>,
    /// Why a recurring board closed without a successor (its id could not be continued).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollover_error: Option<String>,
    /// Whether the rank index has counted this board's entries since its creation (`rankIndex`;
    /// boards made before any index existed have none until the migration).
    #[serde(default, skip_serializing_if = "is_false")]
    pub rank_index: bool,
    /// The rank index's layout (`rankLayout`; absent on a board made before it).
    #[serde(
        default = "RankLayout::stored_default",
        skip_serializing_if = "RankLayout::is_legacy"
    )]
    pub rank_layout: RankLayout,
    /// Whether the board, stored before the rank index's current layout, is being moved onto it
    /// (`rankMigrating`): its plays record their changes on its lanes, and its index is being
    /// rebuilt; its ranks are counted until the migration switches it to `rankLayout` 2.
    #[serde(default, skip_serializing_if = "is_false")]
    pub rank_migrating: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Board {
    /// A new, open board from an admin's request, checked: a name of 1 to 128 characters,
    /// `maxScore` at most 10^18-1, and `endsAt` after `startsAt`.
    pub fn create(new: NewBoard, now: Timestamp) -> Result<Board, StoreError> {
        let name = check_name(&new.name)?;
        if new.max_score > MAX_MAX_SCORE {
            return Err(StoreError::Invalid(format!(
                "maxScore must be at most {MAX_MAX_SCORE}"
            )));
        }
        if new.min_score > new.max_score {
            return Err(StoreError::Invalid(format!(
                "minScore {} must be at most maxScore {}",
                new.min_score, new.max_score
            )));
        }
        if new.rank_layout != RankLayout::V2 {
            return Err(StoreError::Invalid(
                "rankLayout must be 2, the rank index's only layout (or left out)".into(),
            ));
        }
        let starts_at = new.starts_at.unwrap_or(now);
        if let Some(ends_at) = new.ends_at
            && ends_at <= starts_at
        {
            return Err(StoreError::Invalid("endsAt must be after startsAt".into()));
        }
        Ok(Board {
            board_id: new.board_id,
            name: name.to_owned(),
            order: new.order,
            operator: new.operator,
            max_score: new.max_score,
            min_score: new.min_score,
            min_duration_sec: new.min_duration_sec,
            starts_at,
            ends_at: new.ends_at,
            recurrence: new.recurrence,
            game_id: new.game_id,
            status: BoardStatus::Open,
            created_at: now,
            closed_at: None,
            player_count: None,
            next_board_id: None,
            rollover_error: None,
            rank_index: true,
            rank_layout: new.rank_layout,
            rank_migrating: false,
        })
    }

    /// Whether the board's ranks are read from the rank index: on the current layout, and not
    /// one the migration has still to move (whose ranks are counted).
    pub fn indexed(&self) -> bool {
        self.rank_layout == RankLayout::V2
    }

    /// Checks a score against the board's range `minScore..=maxScore`.
    pub fn check_score(&self, score: u64) -> Result<(), StoreError> {
        if (self.min_score..=self.max_score).contains(&score) {
            return Ok(());
        }
        Err(StoreError::ScoreOutOfRange {
            board: self.board_id.clone(),
            score,
            min_score: self.min_score,
            max_score: self.max_score,
        })
    }

    /// The board's rank key spec (order and width).
    pub fn spec(&self) -> Result<RankKeySpec, StoreError> {
        Ok(RankKeySpec::new(self.order, self.max_score)?)
    }

    /// Whether the board accepts a score at `at`, and if not, why.
    pub fn accepts_at(&self, at: Timestamp) -> Result<(), &'static str> {
        match self.status {
            BoardStatus::Closing => return Err("closing"),
            BoardStatus::Closed => return Err("closed"),
            BoardStatus::Open => {}
        }
        if at < self.starts_at {
            return Err("not started");
        }
        if self.ends_at.is_some_and(|end| at >= end) {
            return Err("ended");
        }
        Ok(())
    }
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
