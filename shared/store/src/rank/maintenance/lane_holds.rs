//! A rebuild's writes of a board's lanes: the pauses that hold their plays back while the
//! last scan settles them, the lifting of those pauses, and each lane's write in the switch's
//! transaction (the generation it puts in service, for rank reads to see; and the end of a
//! widening's fence when the switch is a widening's).

use std::collections::BTreeSet;

use aws_sdk_dynamodb::types::TransactWriteItem;
use leaderboard_keys::rank_index::{CREATED_ATTR, LANE_GENERATION_ATTR, PAUSE_ATTR};
use leaderboard_keys::time::Timestamp;

use crate::ground::error::StoreError;
use crate::ground::model::Board;
use crate::ground::widening::WideningRun;
use crate::rank::Rank;
use crate::rank::lanes::{GROUPED_ATTR, LaneKeys};
use crate::rank::second_layout::WIDENING_ATTR;
use crate::rank::settings::SettingsChange;
use crate::table::request::{Params, WithParams};

/// What a rebuild's switch puts in service with its index: the board's entries of
/// `entry_generation`, which its nodes count, and for a widening's build, the run it switches
/// (the board item's write joins the switch's transaction).
#[derive(Clone, Copy)]
pub(super) struct SwitchTarget<'a> {
    /// The generation of entries the index counts.
    pub(super) entry_generation: u64,
    /// The widening the switch ends, with its board as read.
    pub(super) widening: Option<(&'a Board, &'a WideningRun)>,
}

impl<'a> SwitchTarget<'a> {
    /// A rebuild's: the entries in service.
    pub(super) fn in_service(board: &Board) -> SwitchTarget<'a> {
        SwitchTarget {
            entry_generation: board.entry_generation,
            widening: None,
        }
    }

    /// The partitions of the entries the build scans.
    pub(super) fn score_pks(&self, board: &Board) -> Vec<String> {
        board.generation_score_pks(self.entry_generation)
    }
}

impl Rank<'_> {
    /// Holds `lane`'s plays back until `until` or until the switch lifts it.
    pub(super) async fn pause_lane(
        self,
        lanes: LaneKeys<'_>,
        lane: u8,
        until: Timestamp,
    ) -> Result<(), StoreError> {
        self.table
            .update_request(&lanes.key(lane), "SET #p = :until")
            .params(
                Params::new()
                    .name("#p", PAUSE_ATTR)
                    .value(":until", until.as_millis()),
            )?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(rank index lane pause)", e))?;
        Ok(())
    }

    /// The transaction item lifting `lane`'s pause.
    fn lift_pause(self, lanes: LaneKeys<'_>, lane: u8) -> Result<TransactWriteItem, StoreError> {
        self.table.tx_update(
            &lanes.key(lane),
            "REMOVE #p",
            Params::new().name("#p", PAUSE_ATTR),
        )
    }

    /// The switch's write of `lane`: the generation it puts in service (see
    /// [`LANE_GENERATION_ATTR`]), its pause lifted, and its `created` count corrected by
    /// `off_by` (the changes after the settled number add to it and take from it as they
    /// always do, so the correction holds whatever they are). On condition that the lane was
    /// not grouped since the rebuild read the board: the grouped lane would miss the
    /// generation, and the rebuild settled counts plays no longer write. A widening's switch
    /// (`widened`) also lifts the lane's widening fence and writes the board's next settings
    /// version.
    pub(super) fn lane_at_switch(
        self,
        lanes: LaneKeys<'_>,
        lane: u8,
        generation: u64,
        paused: bool,
        off_by: i64,
        widened: Option<SettingsChange>,
    ) -> Result<TransactWriteItem, StoreError> {
        let mut params = Params::new()
            .name("#lg", LANE_GENERATION_ATTR)
            .value(":lg", generation)
            .name("#grouped", GROUPED_ATTR);
        let mut update = String::from("SET #lg = :lg ");
        // A widening's switch changes the board's settings (`rank::settings`).
        if let Some(change) = widened {
            update = format!("SET #lg = :lg, {} ", SettingsChange::SET);
            params = change.set_params(params);
        }
        if off_by != 0 {
            update.push_str("ADD #c :off ");
            params = params.name("#c", CREATED_ATTR).value(":off", off_by);
        }
        let mut removed = Vec::new();
        if paused {
            removed.push("#p");
            params = params.name("#p", PAUSE_ATTR);
        }
        if widened.is_some() {
            removed.push("#wid");
            params = params.name("#wid", WIDENING_ATTR);
        }
        if !removed.is_empty() {
            update.push_str(&format!("REMOVE {}", removed.join(", ")));
        }
        self.table.tx_update_if(
            &lanes.key(lane),
            update.trim(),
            "attribute_not_exists(#grouped)",
            params,
        )
    }

    /// Lifts the pauses of a rebuild that gave up (one transaction).
    pub(super) async fn lift_pauses(
        self,
        lanes: LaneKeys<'_>,
        paused: &BTreeSet<u8>,
    ) -> Result<(), StoreError> {
        let items = paused
            .iter()
            .map(|&lane| self.lift_pause(lanes, lane))
            .collect::<Result<Vec<_>, _>>()?;
        self.table
            .transact(items, "TransactWriteItems(rank index lift pauses)")
            .await
    }
}
