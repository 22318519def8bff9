//! A league's close. Each cohort closes like any board (it is due when its league ends); its
//! snapshot also says where the period's end moves each of its players (their Season result's
//! `tier` and `movement`, and their placement's `tierAfter`, which places them in the next
//! period), and its finish counts it closed on the league board, once. The league board's own
//! close waits until every cohort its tiers opened is counted closed: only then does it roll
//! over, so no player's first play of the next period can come before their tier moved.
//!
//! Every write here is idempotent (a placement's movement is a function of the frozen cohort's
//! final standings) or conditional (a cohort is counted closed in the transaction that closes
//! it), so a close stopped anywhere and resumed moves every tier exactly once.

use leaderboard_keys::entity;
use leaderboard_keys::ids::BoardId;

use crate::features::close::Close;
use crate::ground::error::{CancelReason, StoreError};
use crate::ground::items::{Item, ItemExt, from_item, to_item};
use crate::ground::league::Placement;
use crate::ground::model::{Board, SeasonResult};
use crate::table::request::Params;

/// The league board's attribute counting its cohorts closed.
const COHORTS_CLOSED: &str = "cohortsClosed";

/// `result` with its cohort's league fields: the player's tier in the period and where the
/// period's end moves them (unchanged on a board that is not a cohort).
pub(super) fn with_move(mut result: SeasonResult, board: &Board) -> SeasonResult {
    if let (Some(league), Some(tier), Some(_)) = (&board.league, &board.tier, &board.cohort_of) {
        result.movement = Some(league.movement(tier, result.rank, result.player_count));
        result.cohort_of = board.cohort_of.clone();
        result.tier = Some(tier.clone());
    }
    result
}

impl Close<'_> {
    /// Records on each player's placement where the period's end left them (`tierAfter`,
    /// `movement`): the placements of the page's `results` read in one `BatchGetItem` and put
    /// back with them. A placement the player's erasure deleted stays deleted.
    pub(super) async fn move_tiers(
        self,
        board: &Board,
        results: &[SeasonResult],
    ) -> Result<(), StoreError> {
        let (Some(league), Some(end)) = (&board.league, board.ends_at) else {
            return Ok(());
        };
        if board.cohort_of.is_none() || results.is_empty() {
            return Ok(());
        }
        let series = board.series();
        let keys = results
            .iter()
            .map(|r| entity::placement(&r.entry.player_id, &series, end))
            .collect::<Result<Vec<_>, _>>()?;
        let mut found = self
            .store
            .table
            .batch_get_all(&keys, "BatchGetItem(placements to move)")
            .await?;
        let mut moved = Vec::with_capacity(results.len());
        for (result, key) in results.iter().zip(&keys) {
            let (Some(item), Some(tier), Some(movement)) =
                (found.take(key), &result.tier, result.movement)
            else {
                continue;
            };
            let mut placement: Placement = from_item(item)?;
            placement.tier_after = Some(league.moved(tier, movement));
            placement.movement = Some(movement);
            moved.push(to_item(&placement, key, None, None)?);
        }
        self.store.table.put_all(moved).await?;
        Ok(())
    }

    /// The cohorts of league board `league` and how many of them are counted closed: the
    /// tiers' cursors (one Query of the league board's partition, at most one item a tier)
    /// and the board's count, as `raw` (its item) holds it.
    pub(super) async fn cohorts_closed(
        self,
        league: &BoardId,
        raw: &Item,
    ) -> Result<(u64, u64), StoreError> {
        let opened = self
            .store
            .table
            .cohort_cursors(league)
            .await?
            .iter()
            .map(|(_, c)| u64::from(c.number))
            .sum();
        Ok((raw.number(COHORTS_CLOSED).unwrap_or(0), opened))
    }

    /// Marks cohort `id` of `league` closed with `update` (the close's finish), counting it on
    /// the league board in the same transaction: only the finish that moves the cohort from
    /// `closing` counts it, so a repeated finish counts nothing.
    pub(super) async fn finish_cohort(
        self,
        id: &BoardId,
        league: &BoardId,
        update: &str,
        params: Params,
    ) -> Result<(), StoreError> {
        let table = &self.store.table;
        let items = vec![
            table.tx_update_if(&entity::board(id), update, "#status = :closing", params)?,
            table.tx_update(
                &entity::board(league),
                "ADD #closed :one",
                Params::new()
                    .name("#closed", COHORTS_CLOSED)
                    .value(":one", 1u64),
            )?,
        ];
        match table
            .transact(items, "TransactWriteItems(cohort closed)")
            .await
        {
            Err(StoreError::TransactionCanceled { reasons })
                if reasons.first() == Some(&CancelReason::ConditionalCheckFailed) =>
            {
                // Finished before: counted then.
                Ok(())
            }
            other => other,
        }
    }
}
