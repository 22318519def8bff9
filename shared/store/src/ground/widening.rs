//! A board's widening (docs/widen.md) as its board item records it: the run under way
//! (`widening`: the entries' generation it builds, the `maxScore` and columns it moves to, its
//! step and its copy's cursor) and which generation of entries is in service (`entryGeneration`).

use leaderboard_keys::columns::Column;
use leaderboard_keys::time::Timestamp;
use serde::{Deserialize, Serialize};

/// Where a widening run is (the board item's `widening.step`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WideningStep {
    /// Begun: plays write both generations; the entries before are being copied.
    Copy,
    /// Copied: the rank index is being built at the new width.
    Index,
    /// Switched: the board is at its new `maxScore` on the new generation; the old one is
    /// being deleted.
    Retire,
}

/// A widening run (the board item's `widening`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WideningRun {
    /// The generation of entries the run builds (the board's `entryGeneration` + 1).
    pub generation: u64,
    /// The `maxScore` it moves the board to.
    pub max_score: u64,
    /// The tiebreak columns it moves the board to (their `max`es; none on a board without
    /// columns, and on a run stored before columns were kept, which keeps the board's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<Column>,
    /// Where it is.
    pub step: WideningStep,
    /// Where the copy (or the retirement) goes on, once it has begun.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<WideningCursor>,
    /// When it began.
    pub started_at: Timestamp,
    /// When it switched the board to the new generation (at the step `retire`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switched_at: Option<Timestamp>,
}

impl WideningRun {
    /// The tiebreak columns the run moves a board of `board_columns` to: its own, or the
    /// board's when it keeps them (a board without columns, a run stored before columns).
    pub fn columns_of<'a>(&'a self, board_columns: &'a [Column]) -> &'a [Column] {
        match self.columns.is_empty() {
            true => board_columns,
            false => &self.columns,
        }
    }
}

/// Where a widening's copy, or its retirement, goes on: the write shard it is in (an index into
/// the board's partitions of the generation it reads) and the last sort key it did there.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WideningCursor {
    /// The shard.
    pub shard: u8,
    /// The last sort key copied in it (none: from its start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}
