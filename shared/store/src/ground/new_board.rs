//! What an admin gives to create a board (`POST /leaderboards`): every setting with its
//! default, as the API takes it (`Board::create` checks it), and the settings' kinds: its
//! operator, writers and rank layout.

use leaderboard_keys::columns::Column;
use leaderboard_keys::ids::{BoardId, GameId, SeriesId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use serde::{Deserialize, Serialize};

use crate::ground::league::League;
use crate::ground::recurrence::Recurrence;
use crate::ground::rewards::RewardBand;

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
    /// The largest accepted score (default 9999999999); fixes the key width (until a widening,
    /// `lbctl widen`, moves the board to a larger one).
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
    /// Who may post plays: `players` (default) or `servers`.
    #[serde(default)]
    pub writers: Writers,
    /// The game the board belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_id: Option<GameId>,
    /// The rank index's layout: 2, the only one (the default).
    #[serde(default)]
    pub rank_layout: RankLayout,
    /// The series the board and its successors belong to (default: the id without its
    /// trailing date, week or number, [`crate::rollover::series_of`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_id: Option<SeriesId>,
    /// The partitions its Score items are spread over (1 to 32, default 1): fixed at creation,
    /// since every entry's key names its shard.
    #[serde(default = "one_shard")]
    pub write_shards: u8,
    /// A league (on a recurring board): the board holds no entries itself, its players are
    /// placed in cohorts by tier (`crate::ground::league`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub league: Option<League>,
    /// Tiebreak columns (at most 2, on `best` and `latest` boards): values ranked after the
    /// score, each in its own order, before earlier attainment; every play gives them all in
    /// its `subscores`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<Column>,
    /// Whether a player's plays count only after they joined (`POST .../join`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub join_required: bool,
    /// The most distinct players the board takes: joiners, or without `joinRequired`, players
    /// with an accepted play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_entrants: Option<u64>,
    /// The most accepted plays a player may make on the board (a repeated `sessionId` is not
    /// one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u64>,
    /// What the close grants the final standings, by rank range or top percent (the first
    /// band that matches a standing wins, `crate::ground::rewards`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rewards: Vec<RewardBand>,
}

impl NewBoard {
    /// A board of id `board_id` and display name `name` with every other setting at its
    /// default: `desc`, `best`, the default `maxScore`, open from its creation with no end, one
    /// write shard, no columns. Set the others with struct update syntax.
    pub fn named(board_id: BoardId, name: String) -> NewBoard {
        NewBoard {
            board_id,
            name,
            order: Order::default(),
            operator: Operator::default(),
            max_score: default_max_score(),
            min_score: 0,
            min_duration_sec: None,
            starts_at: None,
            ends_at: None,
            recurrence: Recurrence::default(),
            writers: Writers::default(),
            game_id: None,
            rank_layout: RankLayout::default(),
            series_id: None,
            write_shards: one_shard(),
            league: None,
            columns: Vec::new(),
            join_required: false,
            max_entrants: None,
            max_attempts: None,
            rewards: Vec::new(),
        }
    }
}

pub(crate) fn one_shard() -> u8 {
    1
}

fn default_max_score() -> u64 {
    leaderboard_keys::rank::DEFAULT_MAX_SCORE
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

/// Who may post plays to a board: its players, each with their own token (the default), or
/// only game servers (`server` in `cognito:groups`), which name the player of each play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Writers {
    /// Players post their own plays.
    #[default]
    Players,
    /// Only game servers post, for a player they name.
    Servers,
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
    pub(crate) fn stored_default() -> RankLayout {
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

pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}
