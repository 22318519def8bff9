//! A tournament board's count of places taken (`LEADERBOARD#<b>` / `#ENTRANTS`), as a join
//! and a player's first play both read it and take a place on it: the one condition that keeps
//! `maxEntrants` exact whichever of them races.

use aws_sdk_dynamodb::types::TransactWriteItem;
use leaderboard_keys::entity;
use leaderboard_keys::ids::BoardId;

use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt};
use crate::table::Table;
use crate::table::request::Params;

/// The places taken, as the count's item read says (none taken without one).
pub(crate) fn places_taken(count: Option<Item>) -> u64 {
    count.and_then(|c| c.number("entrants")).unwrap_or(0)
}

impl Table {
    /// The transaction's taking of one of `board`'s `max` places: one more on its count, on
    /// condition that fewer than `max` are taken.
    pub(crate) fn tx_take_place(
        &self,
        board: &BoardId,
        max: u64,
    ) -> Result<TransactWriteItem, StoreError> {
        self.tx_update_if(
            &entity::entrant_count(board),
            "ADD entrants :one",
            "attribute_not_exists(entrants) OR entrants < :max",
            Params::new().value(":one", 1u64).value(":max", max),
        )
    }
}
