//! A widening cut off by the board's close (docs/widen.md): the close clears the run's other
//! generation of entries before it walks the one in service. Before the switch that is the
//! generation the run was building (copies that took their entries' GSI1 keys: the close's
//! archive puts the key back on the item in service), after it the one the run was retiring.
//! Left alone, either would keep players' ids, names and metadata beyond the close's
//! retention, listed in `GET /players/{p}/scores` for good, and out of an erasure's reach.
//!
//! Nothing writes that generation once the board is closing: a play's change fails on its
//! closed lane, and a copy's transaction checks that the board is open (`widen_copy`). So the
//! clearing needs no cursor: each page is the first of what is left (read consistently, so a
//! page that comes back empty means the partition is). Cost: one Query of keys a
//! [`PAGE`] of the generation's entries, and their deletes (25 a BatchWriteItem), then one
//! conditional UpdateItem removing the run from the board item.

use std::time::Instant;

use leaderboard_keys::entity;

use crate::features::close::Close;
use crate::ground::error::StoreError;
use crate::ground::items::item_key;
use crate::ground::model::Board;
use crate::ground::widening::WideningStep;
use crate::rank::second_layout::WIDENING_ATTR;
use crate::table::request::{Index, Params, WithParams};

/// Entries of the other generation one page deletes.
const PAGE: i32 = 500;

impl Close<'_> {
    /// Clears the widening run of `board` (closing, read after its lanes closed), if it has
    /// one, until `deadline`: `false` when the deadline came first (the close's next run goes
    /// on), `true` once no run is left.
    pub(crate) async fn clear_cut_off_widening(
        self,
        board: &Board,
        deadline: Option<Instant>,
    ) -> Result<bool, StoreError> {
        let Some(run) = &board.widening else {
            return Ok(true);
        };
        let other = match run.step {
            WideningStep::Retire => run.generation.saturating_sub(1),
            WideningStep::Copy | WideningStep::Index => run.generation,
        };
        for pk in board.generation_score_pks(other) {
            loop {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return Ok(false);
                }
                let out = self
                    .store
                    .table
                    .query_request(Index::Table)
                    .key_condition_expression("pk = :pk AND begins_with(sk, :score)")
                    .params(
                        Params::new()
                            .value(":pk", pk.as_str())
                            .value(":score", entity::SCORE_PREFIX),
                    )?
                    .projection_expression("pk, sk")
                    .consistent_read(true)
                    .limit(PAGE)
                    .send()
                    .await
                    .map_err(|e| StoreError::sdk("Query(cut-off widening)", e))?;
                let keys: Vec<_> = out.items.unwrap_or_default().iter().map(item_key).collect();
                if keys.is_empty() {
                    break;
                }
                self.store.table.delete_all(&keys).await?;
            }
        }
        let sent = self
            .store
            .table
            .update_request(&entity::board(&board.board_id), "REMOVE #wid")
            .condition_expression("#wid.#gen = :g")
            .params(
                Params::new()
                    .name("#wid", WIDENING_ATTR)
                    .name("#gen", "generation")
                    .value(":g", run.generation),
            )?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(cut-off widening)", e));
        match sent {
            // Another run of the close removed it first.
            Err(e) if e.is_conditional_check_failed() => Ok(true),
            other => other.map(|_| true),
        }
    }
}
