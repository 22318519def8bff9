//! A widening's last steps (docs/widen.md, steps 3 to 5): the rank index built over the new
//! generation's entries at the new width and switched in with them in one transaction (the
//! board item's `maxScore` and `entryGeneration`, the root, the lanes' fence lifted), then, a
//! grace period later, the old generation's entries deleted a page at a time and the run's
//! record removed from the board item.

use std::time::Duration;

use aws_sdk_dynamodb::types::TransactWriteItem;
use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::time::Timestamp;

use crate::ground::error::StoreError;
use crate::ground::items::item_key;
use crate::ground::model::{Board, BoardStatus};
use crate::ground::widening::{WideningRun, WideningStep};
use crate::rank::Rank;
use crate::rank::maintenance::lane_holds::SwitchTarget;
use crate::rank::second_layout::WIDENING_ATTR;
use crate::rank::settings::SettingsChange;
use crate::table::request::{Params, WithParams};

/// How long the old generation's entries stay after the switch: longer than any read's time
/// budget, so that a read that read the board item before the switch finds the entries it
/// names.
pub const WIDEN_GRACE: Duration = Duration::from_secs(60);

impl Rank<'_> {
    /// The index step: the live rebuild (`rebuild_into`) over the new generation's entries at
    /// the new width, whose switch transaction also switches the board (see
    /// [`Rank::widening_switch`]). Its cost is the rebuild's; its pause, if the lanes do not
    /// settle, the rebuild's.
    pub(super) async fn widen_index(
        self,
        board: &Board,
        run: &WideningRun,
    ) -> Result<(), StoreError> {
        let target = SwitchTarget {
            entry_generation: run.generation,
            widening: Some((board, run)),
        };
        self.rebuild_into(board, target).await.map(|_| ())
    }

    /// The board item's part of a widening's switch: the new `maxScore` (and columns) and
    /// generation of entries, the run at its step `retire`, on condition that the board is open and the run
    /// still this one's, at its step `index`.
    pub(super) fn widening_switch(
        self,
        board: &Board,
        run: &WideningRun,
    ) -> Result<TransactWriteItem, StoreError> {
        // The columns' new maxima with the maxScore (a run stored without them keeps the
        // board's).
        let (update, params) = match run.columns.is_empty() {
            true => (
                "SET #max = :max, #eg = :g, #wid.#step = :retire, #wid.#at = :now",
                Params::new(),
            ),
            false => (
                "SET #max = :max, #cols = :cols, #eg = :g, #wid.#step = :retire, #wid.#at = :now",
                Params::new()
                    .name("#cols", "columns")
                    .value(":cols", &run.columns),
            ),
        };
        // The new maximum is a setting plays decide by: the board and its lanes (written by
        // the switch, `lane_at_switch`) move to the next settings version.
        let (unchanged, params) = SettingsChange::of(board).condition(params);
        self.table.tx_update_if(
            &entity::board(&board.board_id),
            &format!("{update}, {}", SettingsChange::SET),
            &format!("#status = :open AND #wid.#gen = :g AND #wid.#step = :index AND {unchanged}"),
            params
                .name("#max", "maxScore")
                .name("#eg", "entryGeneration")
                .name("#wid", WIDENING_ATTR)
                .name("#step", "step")
                .name("#at", "switchedAt")
                .name("#gen", "generation")
                .name("#status", "status")
                .value(":max", run.max_score)
                .value(":g", run.generation)
                .value(":retire", WideningStep::Retire)
                .value(":index", WideningStep::Index)
                .value(":now", Timestamp::now())
                .value(":open", BoardStatus::Open),
        )
    }

    /// The retire step, once `grace` has passed since the switch (waiting for it): deletes the
    /// next page (at most `page`) of the old generation's Score items, and after the last one
    /// removes the run from the board item. Whether the run is over. Requests: 1 Query, the
    /// deletes (25 a request), 1 UpdateItem.
    pub(super) async fn widen_retire(
        self,
        board: &Board,
        run: &WideningRun,
        page: usize,
        grace: Duration,
    ) -> Result<bool, StoreError> {
        let switched = run.switched_at.unwrap_or(run.started_at);
        let until = switched.plus_millis(grace.as_millis() as u64);
        let now = Timestamp::now();
        if now < until {
            tokio::time::sleep(Duration::from_millis(until.as_millis() - now.as_millis())).await;
        }
        let old = board.generation_score_pks(run.generation.saturating_sub(1));
        let at = run.cursor.clone().unwrap_or_default();
        let (items, next) = self
            .entries_page(&old, &at, page, Some("pk, sk"), "Query(widening retire)")
            .await?;
        let keys: Vec<Key> = items.iter().map(item_key).collect();
        self.table.delete_all(&keys).await?;
        let done = next.shard as usize >= old.len();
        let (update, params) = if done {
            ("REMOVE #wid", Params::new())
        } else {
            (
                "SET #wid.#cur = :cur",
                Params::new().value(":cur", &next).name("#cur", "cursor"),
            )
        };
        self.table
            .update_request(&entity::board(&board.board_id), update)
            .condition_expression("#wid.#gen = :g AND #wid.#step = :retire")
            .params(
                params
                    .name("#wid", WIDENING_ATTR)
                    .name("#gen", "generation")
                    .name("#step", "step")
                    .value(":g", run.generation)
                    .value(":retire", WideningStep::Retire),
            )?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(widening retire)", e))?;
        Ok(done)
    }
}
