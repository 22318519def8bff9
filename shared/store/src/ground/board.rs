//! A leaderboard as the table stores it and the API shows it: its settings (order, operator,
//! score rules, writers, window, recurrence, rank layout), its life cycle, and the checks a new
//! board and a play's time and score must pass.

use leaderboard_keys::columns::{Column, check_columns};
use leaderboard_keys::entity::{self, MAX_WRITE_SHARDS};
use leaderboard_keys::ids::{BoardId, GameId, PlayerId, SeriesId, TierName};
use leaderboard_keys::rank::{MAX_MAX_SCORE, Order, RankKeySpec};
use leaderboard_keys::rank_index::{LANES, lanes_for};
use leaderboard_keys::time::Timestamp;
use serde::{Deserialize, Serialize};

use crate::ground::error::StoreError;
use crate::ground::league::{League, cohort_id};
use crate::ground::names::check_name;
pub(crate) use crate::ground::new_board::is_false;
use crate::ground::new_board::one_shard;
pub use crate::ground::new_board::{NewBoard, Operator, RankLayout, Writers};
pub use crate::ground::recurrence::Recurrence;
use crate::ground::rewards::{RewardBand, check_rewards};
use crate::ground::tournament::check_entry_rules;
use crate::ground::widening::{WideningRun, WideningStep};

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
    /// The end the board had before an admin ended it now (`POST .../close`), if one did: a
    /// season's successor lasts as long as it was scheduled to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduled_ends_at: Option<Timestamp>,
    /// How the board recurs.
    pub recurrence: Recurrence,
    /// Who may post plays (`players` on a board stored without it).
    #[serde(default)]
    pub writers: Writers,
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
    /// The series it belongs to (`seriesId`; a board stored without it is in its id's default
    /// series, [`Board::series`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series_id: Option<SeriesId>,
    /// Whether the board, stored before the rank index's current layout, is being moved onto it
    /// (`rankMigrating`): its plays record their changes on its lanes, and its index is being
    /// rebuilt; its ranks are counted until the migration switches it to `rankLayout` 2.
    #[serde(default, skip_serializing_if = "is_false")]
    pub rank_migrating: bool,
    /// Whether the board's lanes share one partition key (`lanesGrouped`, every board of one
    /// write shard made since): one consistent Query reads all ten for one read unit. A board
    /// made before keeps a partition key a lane until the layout sweep groups them; a board of
    /// more than one write shard keeps them apart for good, so that no one partition takes a
    /// write from every play (ten items read by key instead: ten read units).
    #[serde(default, skip_serializing_if = "is_false")]
    pub lanes_grouped: bool,
    /// How many lanes its plays write (`lanes`; [`LANES`] on a board stored without it): fixed
    /// when the board is made, [`lanes_for`] its write shards, so a hot board's lanes take no
    /// larger a share of its plays than its write shards.
    #[serde(default = "base_lanes", skip_serializing_if = "is_base_lanes")]
    pub lanes: u8,
    /// The partitions its Score items are spread over (`writeShards`; 1 on a board stored
    /// without it): a player's entry is in their shard's, `entity::score_pk`.
    #[serde(default = "one_shard")]
    pub write_shards: u8,
    /// The generation of entries in service (`entryGeneration`; 0, the board's own partitions,
    /// on a board never widened): a widening moves the entries to a new one.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub entry_generation: u64,
    /// The version of the settings a play decides by (`settingsVersion`; 0 on a board whose
    /// settings never changed since its creation). Every change of one (an admin's early end,
    /// a widening's new `maxScore`) adds one to it on the board item and on every lane in one
    /// transaction, and a play's lane update holds only at the version the play decided by:
    /// so a play may decide from a copy of the board read earlier, and never writes under
    /// settings the board no longer has (`rank::settings`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub settings_version: u64,
    /// The widening under way, if any (`widening`, docs/widen.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub widening: Option<WideningRun>,
    /// The league's settings: on a league board, and on each of its cohorts (the rules the
    /// cohort's close moves its players by).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub league: Option<League>,
    /// The league board a cohort belongs to (`cohortOf`): set on cohorts only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cohort_of: Option<BoardId>,
    /// A cohort's tier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<TierName>,
    /// Tiebreak columns, ranked after the score in the order listed (none on a board stored
    /// without them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<Column>,
    /// Whether plays count only after the player joined (`joinRequired`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub join_required: bool,
    /// The most distinct players the board takes (`maxEntrants`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_entrants: Option<u64>,
    /// The most accepted plays per player (`maxAttempts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u64>,
    /// What the close grants the final standings (`rewards`; a cohort has its league's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rewards: Vec<RewardBand>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn base_lanes() -> u8 {
    LANES
}

fn is_base_lanes(n: &u8) -> bool {
    *n == LANES
}

/// Whether a board of `write_shards` groups its lanes under one partition key: a board of one,
/// whose entries take twice the writes its lanes do; not a hot board, whose entries are spread
/// (its ten lanes, one partition key each, take a tenth of its plays each).
pub(crate) fn groups_lanes(write_shards: u8) -> bool {
    write_shards <= 1
}

/// The rules of `league` on a new board besides its own (`League::check`): the board recurs
/// (each period's end moves the tiers) and keeps its entries in one partition (a cohort is a
/// hundred players at most).
fn check_league(league: &League, new: &NewBoard) -> Result<(), StoreError> {
    if new.recurrence == Recurrence::None {
        return Err(StoreError::Invalid(
            "a league needs a recurring board (recurrence daily, weekly or season): its \
             tiers move when a period ends"
                .into(),
        ));
    }
    if new.write_shards != 1 {
        return Err(StoreError::Invalid(
            "a league takes writeShards 1: its cohorts hold at most 100 players each".into(),
        ));
    }
    league.check(&new.board_id)
}

/// A new board's end: the one given, or for a calendar recurrence (`monthly`, a cron schedule)
/// the first its recurrence gives after `starts_at`. A recurrence by a fixed period needs one
/// given; a cron schedule must parse and match.
fn first_end(new: &NewBoard, starts_at: Timestamp) -> Result<Option<Timestamp>, StoreError> {
    new.recurrence
        .check(starts_at)
        .map_err(StoreError::Invalid)?;
    match (&new.recurrence, new.ends_at) {
        (_, Some(ends_at)) => Ok(Some(ends_at)),
        (Recurrence::None, None) => Ok(None),
        (Recurrence::Monthly | Recurrence::Cron(_), None) => new
            .recurrence
            .next_end(0, starts_at)
            .map_err(StoreError::Invalid),
        (fixed, None) => Err(StoreError::Invalid(format!(
            "a recurring board (recurrence {fixed}) needs endsAt: it closes and its successor \
             opens then, so without one it would never roll over"
        ))),
    }
}

/// The longest play a `durationSec` may describe: a year (and so the largest `minDurationSec`
/// a board may ask, or no play could meet it).
pub const MAX_DURATION_SEC: u64 = 365 * 24 * 3600;

impl Board {
    /// A new, open board from an admin's request, checked: a name of 1 to 128 characters,
    /// `maxScore` at most 10^18-1, `minDurationSec` at most [`MAX_DURATION_SEC`], and `endsAt`
    /// after `startsAt`.
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
        if new.min_duration_sec.is_some_and(|d| d > MAX_DURATION_SEC) {
            return Err(StoreError::Invalid(format!(
                "minDurationSec must be at most {MAX_DURATION_SEC} (a year, the longest durationSec)"
            )));
        }
        if !(1..=MAX_WRITE_SHARDS).contains(&new.write_shards) {
            return Err(StoreError::Invalid(format!(
                "writeShards must be 1 to {MAX_WRITE_SHARDS}"
            )));
        }
        if new.rank_layout != RankLayout::V2 {
            return Err(StoreError::Invalid(
                "rankLayout must be 2, the rank index's only layout (or left out)".into(),
            ));
        }
        if let Some(league) = &new.league {
            check_league(league, &new)?;
        }
        check_columns(&new.columns).map_err(StoreError::Invalid)?;
        check_entry_rules(&new).map_err(StoreError::Invalid)?;
        check_rewards(&new.rewards).map_err(StoreError::Invalid)?;
        if !new.columns.is_empty() && new.operator == Operator::Increment {
            return Err(StoreError::Invalid(
                "an increment board takes no columns: its entry is a running total, with no \
                 play's values to break its ties by"
                    .into(),
            ));
        }
        let starts_at = new.starts_at.unwrap_or(now);
        let ends_at = first_end(&new, starts_at)?;
        if let Some(ends_at) = ends_at
            && ends_at <= starts_at
        {
            return Err(StoreError::Invalid("endsAt must be after startsAt".into()));
        }
        let series = new
            .series_id
            .unwrap_or_else(|| crate::ground::rollover::series_of(&new.board_id));
        Ok(Board {
            board_id: new.board_id,
            name: name.to_owned(),
            order: new.order,
            operator: new.operator,
            max_score: new.max_score,
            min_score: new.min_score,
            min_duration_sec: new.min_duration_sec,
            starts_at,
            ends_at,
            scheduled_ends_at: None,
            recurrence: new.recurrence,
            writers: new.writers,
            game_id: new.game_id,
            status: BoardStatus::Open,
            created_at: now,
            closed_at: None,
            player_count: None,
            next_board_id: None,
            rollover_error: None,
            rank_index: true,
            rank_layout: new.rank_layout,
            series_id: Some(series),
            rank_migrating: false,
            lanes_grouped: groups_lanes(new.write_shards),
            lanes: lanes_for(new.write_shards),
            settings_version: 0,
            write_shards: new.write_shards,
            entry_generation: 0,
            widening: None,
            league: new.league,
            cohort_of: None,
            tier: None,
            columns: new.columns,
            join_required: new.join_required,
            max_entrants: new.max_entrants,
            max_attempts: new.max_attempts,
            rewards: new.rewards,
        })
    }

    /// Cohort `number` of `tier` of this league board, opened `now`: an ordinary board with
    /// the league's settings and window, that does not recur (the league does) and is closed
    /// by the league's close.
    pub fn cohort(
        &self,
        tier: &TierName,
        number: u32,
        now: Timestamp,
    ) -> Result<Board, StoreError> {
        Ok(Board {
            board_id: cohort_id(&self.board_id, tier, number)?,
            recurrence: Recurrence::None,
            status: BoardStatus::Open,
            created_at: now,
            closed_at: None,
            player_count: None,
            next_board_id: None,
            rollover_error: None,
            widening: None,
            // A new board: its lanes hold no version yet.
            settings_version: 0,
            cohort_of: Some(self.board_id.clone()),
            tier: Some(tier.clone()),
            ..self.clone()
        })
    }

    /// Whether plays naming this board are placed in a cohort (a league board, not a cohort).
    pub fn is_league(&self) -> bool {
        self.league.is_some() && self.cohort_of.is_none()
    }

    /// The partition of `player`'s Score item on this board (of its generation in service).
    pub fn score_pk(&self, player: &PlayerId) -> String {
        self.generation_score_pk(self.entry_generation, player)
    }

    /// Every partition holding this board's Score items (of its generation in service), in
    /// shard order.
    pub fn score_pks(&self) -> Vec<String> {
        self.generation_score_pks(self.entry_generation)
    }

    /// [`Board::score_pk`] of the entries of `generation`.
    pub fn generation_score_pk(&self, generation: u64, player: &PlayerId) -> String {
        entity::generation_score_pk(&self.board_id, generation, self.write_shards, player)
    }

    /// [`Board::score_pks`] of the entries of `generation`.
    pub fn generation_score_pks(&self, generation: u64) -> Vec<String> {
        entity::generation_score_pks(&self.board_id, generation, self.write_shards)
    }

    /// Whether the board's ranks are read from the rank index: on the current layout, and not
    /// one the migration has still to move (whose ranks are counted).
    pub fn indexed(&self) -> bool {
        self.rank_layout == RankLayout::V2
    }

    /// The board's series: the one stored, or its id's default.
    pub fn series(&self) -> SeriesId {
        self.series_id
            .clone()
            .unwrap_or_else(|| crate::ground::rollover::series_of(&self.board_id))
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

    /// The board's rank key spec (order and width, and its columns').
    pub fn spec(&self) -> Result<RankKeySpec, StoreError> {
        Ok(RankKeySpec::new(self.order, self.max_score)?.with_columns(&self.columns)?)
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

    /// [`Board::accepts_at`] as a play's refusal ([`StoreError::BoardClosed`]).
    pub fn check_open_at(&self, at: Timestamp) -> Result<(), StoreError> {
        self.accepts_at(at).map_err(|why| StoreError::BoardClosed {
            board: self.board_id.clone(),
            why,
        })
    }

    /// The generation of entries plays write besides the one in service, and its key spec:
    /// while a widening run copies and indexes, and until it switches.
    pub fn second_layout(&self) -> Result<Option<(u64, RankKeySpec)>, StoreError> {
        match &self.widening {
            Some(run) if run.step != WideningStep::Retire => {
                let columns = run.columns_of(&self.columns);
                let spec = RankKeySpec::new(self.order, run.max_score)?.with_columns(columns)?;
                Ok(Some((run.generation, spec)))
            }
            _ => Ok(None),
        }
    }
}
