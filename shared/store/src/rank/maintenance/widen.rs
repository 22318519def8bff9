//! Widening a live board (docs/widen.md): what a new `maxScore`, or a tiebreak column's new
//! `max`, asks of a board and costs (the plan `lbctl widen --dry-run` prints), the raise of a
//! board whose keys stay as they are, and
//! the begin of a run that re-keys: the board item's `widening` and the lanes' fence, after
//! which every change of an entry writes both generations. The copy is `widen_copy.rs`.

use std::time::Duration;

use leaderboard_keys::columns::{self, Column};
use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank::RankKeySpec;
use leaderboard_keys::time::Timestamp;
use leaderboard_keys::widen::{self, Widening};

use crate::ground::board::groups_lanes;
use crate::ground::error::StoreError;
use crate::ground::items::{Item, item_key, key_item};
use crate::ground::model::{Board, BoardStatus};
use crate::ground::widening::{WideningCursor, WideningRun, WideningStep};
use crate::rank::Rank;
use crate::rank::lanes::{LaneKeys, lane_counts};
use crate::rank::maintenance::widen_switch::WIDEN_GRACE;
use crate::rank::second_layout::WIDENING_ATTR;
use crate::table::request::{Params, WithParams};
use crate::table::retry::Retry;

/// Write units of one entry's copy: its new item's put (under 1 KB) in a transaction, and the
/// check of its old item in the same one.
pub const COPY_UNITS: u64 = 4;

/// Where a widening takes a board: a larger `maxScore`, a larger `max` of some of its
/// tiebreak columns, or both. A `u64` is a new `maxScore` alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WidenTo {
    /// The new `maxScore` (the board's when absent).
    pub max_score: Option<u64>,
    /// New `max`es of tiebreak columns, by name (the others kept).
    pub columns: Vec<(String, u64)>,
}

impl From<u64> for WidenTo {
    fn from(max_score: u64) -> WidenTo {
        WidenTo {
            max_score: Some(max_score),
            columns: Vec::new(),
        }
    }
}

impl WidenTo {
    /// The `maxScore` and columns `board` would have: refused when a name is no column of it.
    fn target(&self, board: &Board) -> Result<(u64, Vec<Column>), StoreError> {
        let mut columns = board.columns.clone();
        for (name, max) in &self.columns {
            let column = columns
                .iter_mut()
                .find(|c| c.name.as_str() == name)
                .ok_or_else(|| {
                    StoreError::Invalid(format!(
                        "leaderboard {} has no column {name:?}",
                        board.board_id
                    ))
                })?;
            column.max = *max;
        }
        Ok((self.max_score.unwrap_or(board.max_score), columns))
    }
}

/// What widening a board asks (`lbctl widen --dry-run`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WidenPlan {
    /// The board as read.
    pub board: Board,
    /// The `maxScore` asked for (the board's when only columns widen).
    pub max_score: u64,
    /// The tiebreak columns asked for (the board's, with the `max`es asked for).
    pub columns: Vec<Column>,
    /// What it asks of the keys.
    pub widening: Widening,
    /// The board's entries (its lanes' count).
    pub entries: u64,
    /// Items the run writes: each entry's new item, and the delete of its old one.
    pub items_to_write: u64,
    /// Write units of the copy and the retirement (the index build's nodes come on top: about
    /// one a hundred entries).
    pub write_units: u64,
}

/// How [`Rank::widen_step`] goes about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WidenOptions {
    /// Entries a step of the copy or of the retirement handles.
    pub page: usize,
    /// How long the old generation stays after the switch ([`WIDEN_GRACE`]); a board that
    /// ends within it of `now` is refused a new run.
    pub grace: Duration,
    /// When the run is asked for.
    pub now: Timestamp,
}

impl Default for WidenOptions {
    fn default() -> Self {
        WidenOptions {
            page: 500,
            grace: WIDEN_GRACE,
            now: Timestamp::now(),
        }
    }
}

/// What one call of [`Rank::widen_step`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WidenProgress {
    /// The board is at the maxima asked for (it was, it was raised, or the run switched
    /// and retired the old generation).
    Done(Box<Board>),
    /// The run is under way at `step`; call again.
    Running {
        /// Where the run now is.
        step: WideningStep,
        /// Entries copied by this call.
        copied: u64,
    },
}

impl Rank<'_> {
    /// The plan of widening `id` `to` a new `maxScore` or column `max`, refused as the run
    /// itself would refuse it: 1 board read and the lanes' (1 Query).
    pub async fn widen_plan(
        self,
        id: &BoardId,
        to: impl Into<WidenTo>,
        now: Timestamp,
    ) -> Result<WidenPlan, StoreError> {
        let to = to.into();
        let (board, widening, (max_score, columns)) =
            self.widening_board(id, &to, now, WIDEN_GRACE).await?;
        let items = self.table.lane_items(LaneKeys::of(&board)).await?;
        let entries = lane_counts(&items).1.max(0) as u64;
        let (items_to_write, write_units) = match widening {
            Widening::Rekey { .. } => (2 * entries, (COPY_UNITS + 1) * entries),
            _ => (1, 1),
        };
        Ok(WidenPlan {
            board,
            max_score,
            columns,
            widening,
            entries,
            items_to_write,
            write_units,
        })
    }

    /// The board `id` as a widening `to` finds it: refused when missing, not open (a run under
    /// way too), ending within `grace` of `now` (a new run), not on the rank index, with lanes
    /// the layout sweep has still to group, or widening to other maxima; and the new maxima
    /// when one is narrower or out of range, or names no column. With what they ask of it,
    /// and the `maxScore` and columns they make.
    async fn widening_board(
        self,
        id: &BoardId,
        to: &WidenTo,
        now: Timestamp,
        grace: Duration,
    ) -> Result<(Board, Widening, (u64, Vec<Column>)), StoreError> {
        let board = self.stored_board(id).await?;
        let (max_score, columns) = to.target(&board)?;
        let from = board.spec()?;
        let widening = RankKeySpec::new(board.order, max_score)
            .and_then(|spec| spec.with_columns(&columns))
            .map_err(widen::WidenError::from)
            .and_then(|to| widen::plan_to(from, to))
            .map_err(invalid);
        let target = (max_score, columns);
        // A run cut off by the board's close is the close's to clear (its other generation
        // deleted with the rest of the board's entries), never taken further.
        if board.status != BoardStatus::Open {
            return Err(StoreError::BoardClosed {
                board: id.clone(),
                why: board.status.as_str(),
            });
        }
        if let Some(run) = &board.widening {
            if run.max_score != target.0 || run.columns_of(&board.columns) != target.1 {
                return Err(StoreError::Invalid(format!(
                    "leaderboard {id} is widening to maxScore {} already{}",
                    run.max_score,
                    match run.columns.is_empty() {
                        true => String::new(),
                        false => format!(" and columns {}", columns::listed(&run.columns)),
                    }
                )));
            }
            return Ok((board, widening?, target));
        }
        let until = now.plus_millis(grace.as_millis() as u64);
        if let Some(end) = board.ends_at.filter(|end| *end <= until) {
            return Err(StoreError::Invalid(format!(
                "leaderboard {id} ends at {end}, within the widening's grace of {} s: a run \
                 would not switch before the board closes",
                grace.as_secs()
            )));
        }
        if !board.indexed() || board.rank_migrating {
            return Err(StoreError::Invalid(format!(
                "leaderboard {id} is not on the rank index yet: migrate it first"
            )));
        }
        if !board.lanes_grouped && groups_lanes(board.write_shards) {
            return Err(StoreError::Invalid(format!(
                "leaderboard {id}'s lanes are not grouped yet: run the layout sweep first"
            )));
        }
        Ok((board, widening?, target))
    }

    /// Takes the widening of `id` `to` a new `maxScore` or column `max` one bounded step further (resuming where a
    /// run left it, or beginning one): the raise of a board whose keys stay; the begin; one
    /// page of the copy; the index's build and the switch; one page of the old generation's
    /// deletion (after the grace period). Safe to call again after any failure.
    pub async fn widen_step(
        self,
        id: &BoardId,
        to: impl Into<WidenTo>,
        options: &WidenOptions,
    ) -> Result<WidenProgress, StoreError> {
        let (board, widening, target) = self
            .widening_board(id, &to.into(), options.now, options.grace)
            .await?;
        let Some(run) = board.widening.clone() else {
            return match widening {
                Widening::AlreadyThere => Ok(WidenProgress::Done(Box::new(board))),
                Widening::RaiseOnly { .. } => self.raise_max_score(board, target).await,
                Widening::Rekey { .. } => self.begin_widening(board, target).await,
            };
        };
        match run.step {
            WideningStep::Copy => {
                // The fence again: a run that stopped after its board item was written may
                // not have fenced every lane (each write is idempotent).
                self.fence_lanes(&board, run.generation).await?;
                let (copied, step) = self.copy_page(&board, &run, options.page).await?;
                Ok(WidenProgress::Running { step, copied })
            }
            WideningStep::Index => {
                self.widen_index(&board, &run).await?;
                Ok(WidenProgress::Running {
                    step: WideningStep::Retire,
                    copied: 0,
                })
            }
            WideningStep::Retire => {
                if self
                    .widen_retire(&board, &run, options.page, options.grace)
                    .await?
                {
                    let done = self.stored_board(id).await?;
                    return Ok(WidenProgress::Done(Box::new(done)));
                }
                Ok(WidenProgress::Running {
                    step: WideningStep::Retire,
                    copied: 0,
                })
            }
        }
    }

    /// Raises the `maxScore` (and columns' `max`es) of a board whose keys stay as they are:
    /// one conditional UpdateItem (see [`Rank::update_board_as_read`]).
    async fn raise_max_score(
        self,
        board: Board,
        (max_score, columns): (u64, Vec<Column>),
    ) -> Result<WidenProgress, StoreError> {
        let (update, params) = match columns.is_empty() {
            true => ("SET #max = :to", Params::new()),
            false => (
                "SET #max = :to, #cols = :cols",
                Params::new()
                    .name("#cols", "columns")
                    .value(":cols", &columns),
            ),
        };
        self.update_board_as_read(
            &board,
            update,
            params.value(":to", max_score),
            "UpdateItem(raise maxScore)",
        )
        .await?;
        let raised = Board {
            max_score,
            columns,
            ..board
        };
        Ok(WidenProgress::Done(Box::new(raised)))
    }

    /// The begin: the board item's `widening` (generation = the one in service + 1, step
    /// `copy`; see [`Rank::update_board_as_read`]), then the lanes' fence. 1 UpdateItem and 10.
    async fn begin_widening(
        self,
        board: Board,
        (max_score, columns): (u64, Vec<Column>),
    ) -> Result<WidenProgress, StoreError> {
        let run = WideningRun {
            generation: board.entry_generation + 1,
            max_score,
            columns,
            step: WideningStep::Copy,
            cursor: None,
            started_at: Timestamp::now(),
            switched_at: None,
        };
        self.update_board_as_read(
            &board,
            "SET #wid = :run",
            Params::new().value(":run", &run),
            "UpdateItem(begin widening)",
        )
        .await?;
        self.fence_lanes(&board, run.generation).await?;
        Ok(WidenProgress::Running {
            step: WideningStep::Copy,
            copied: 0,
        })
    }

    /// Updates the board item by `update` (`params` its values, `#max` and `#wid` named), on
    /// condition that the board is as read: open, not widening, at the `maxScore` read. A
    /// board that moved since (a close began, another run began or raised it first) is
    /// refused: the run is started again.
    async fn update_board_as_read(
        self,
        board: &Board,
        update: &str,
        params: Params,
        what: &'static str,
    ) -> Result<(), StoreError> {
        let sent = self
            .table
            .update_request(&entity::board(&board.board_id), update)
            .condition_expression("#status = :open AND #max = :from AND attribute_not_exists(#wid)")
            .params(
                params
                    .name("#max", "maxScore")
                    .name("#status", "status")
                    .name("#wid", WIDENING_ATTR)
                    .value(":from", board.max_score)
                    .value(":open", BoardStatus::Open),
            )?
            .send()
            .await;
        match sent.map_err(|e| StoreError::sdk(what, e)) {
            Err(e) if e.is_conditional_check_failed() => Err(StoreError::Invalid(format!(
                "leaderboard {} changed while the widening began: run it again",
                board.board_id
            ))),
            done => done.map(|_| ()),
        }
    }

    /// Sets every lane's `widening` to `generation` (creating lanes never written): from then
    /// on a change holds only if it read the board's `widening` (see `Table::written_update`).
    /// An UpdateItem a lane, each idempotent.
    async fn fence_lanes(self, board: &Board, generation: u64) -> Result<(), StoreError> {
        let lanes = LaneKeys::of(board);
        futures::future::try_join_all(lanes.lanes().map(|lane| {
            let key = lanes.key(lane);
            Retry::ITEM_UPDATE.run("fencing a lane", move || {
                let key = key.clone();
                async move {
                    self.table
                        .update_request(&key, "SET #wid = :g")
                        .params(
                            Params::new()
                                .name("#wid", WIDENING_ATTR)
                                .value(":g", generation),
                        )?
                        .send()
                        .await
                        .map(|_| ())
                        .map_err(|e| StoreError::sdk("UpdateItem(fence lane)", e))
                }
            })
        }))
        .await?;
        Ok(())
    }
}

/// A refused widening as the API shows it.
fn invalid(e: widen::WidenError) -> StoreError {
    StoreError::Invalid(e.to_string())
}

impl Rank<'_> {
    /// One page (at most `page` items, 1 MB) of the Score items in the partitions `pks` (a
    /// generation's, one a write shard) from `at` (`projection`: the attributes read, all when
    /// `None`), strongly consistent, and where the next page starts (a shard past the last
    /// when this one was the last): 1 Query (none past the last shard).
    pub(super) async fn entries_page(
        self,
        pks: &[String],
        at: &WideningCursor,
        page: usize,
        projection: Option<&str>,
        what: &'static str,
    ) -> Result<(Vec<Item>, WideningCursor), StoreError> {
        let mut next = WideningCursor {
            shard: at.shard + 1,
            after: None,
        };
        let Some(pk) = pks.get(usize::from(at.shard)) else {
            return Ok((Vec::new(), next));
        };
        let start = at.after.as_ref().map(|sk| key_item(&Key::new(pk, sk)));
        let out = self
            .scores_query(pk)?
            .set_projection_expression(projection.map(str::to_owned))
            .limit(page.clamp(1, 1_000) as i32)
            .set_exclusive_start_key(start)
            .send()
            .await
            .map_err(|e| StoreError::sdk(what, e))?;
        if let Some(last) = &out.last_evaluated_key {
            next = WideningCursor {
                shard: at.shard,
                after: Some(item_key(last).sk),
            };
        }
        Ok((out.items.unwrap_or_default(), next))
    }
}

impl Rank<'_> {
    /// The board `id` as stored (1 consistent GetItem); not found when there is none.
    async fn stored_board(self, id: &BoardId) -> Result<Board, StoreError> {
        self.table
            .board(id)
            .await?
            .ok_or_else(|| StoreError::NotFound {
                what: "leaderboard",
                id: id.to_string(),
            })
    }
}
