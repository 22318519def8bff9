//! A close's two ends: the successor of a recurring board, created before the snapshot so that
//! the next board takes plays however long the snapshot takes, and the finish, `closing` ->
//! `closed`, off the open-board index.

use leaderboard_keys::entity;

use super::{Close, Rolled};
use crate::ground::error::StoreError;
use crate::ground::model::Board;
use crate::ground::model::BoardStatus;
use crate::table::request::{Params, WithParams};
use leaderboard_keys::time::Timestamp;

impl Close<'_> {
    /// Creates the successor of a recurring board unless it exists: its id, `None` if the board
    /// does not recur, or why it can have no successor (the board then closes without one).
    pub(super) async fn roll_over(self, board: &Board) -> Result<Rolled, StoreError> {
        let next = match crate::ground::successor::successor(board) {
            Ok(Some(next)) => next,
            Ok(None) => return Ok(Ok(None)),
            Err(why) => return Ok(Err(why)),
        };
        let id = next.board_id.clone();
        let successor = match Board::create(next, board.ends_at.unwrap_or(board.starts_at)) {
            Ok(successor) => successor,
            Err(e) => return Ok(Err(format!("the successor {id} is not a valid board: {e}"))),
        };
        match self.store.table.put_new_board(&successor).await {
            Ok(()) | Err(StoreError::AlreadyExists { .. }) => Ok(Ok(Some(id))),
            Err(e) => Err(e),
        }
    }

    /// `closing` -> `closed`, off the open-board index. The checkpoint's cursor goes: it is the
    /// Score sort key of the last entry snapshotted, which names a player (and must not outlive
    /// their erasure).
    pub(super) async fn finish_closing(
        self,
        board: &Board,
        now: Timestamp,
        player_count: u64,
        rolled: &Rolled,
    ) -> Result<(), StoreError> {
        let mut update = String::from(
            "SET #status = :closed, closedAt = if_not_exists(closedAt, :now), playerCount = :count \
             REMOVE gsi2pk, gsi2sk, closeLeaseBy, closeLeaseUntil, closeCursor",
        );
        let mut params = Params::new()
            .name("#status", "status")
            .value(":closed", BoardStatus::Closed)
            .value(":closing", BoardStatus::Closing)
            .value(":now", now)
            .value(":count", player_count);
        match rolled {
            Ok(None) => {}
            Ok(Some(next)) => {
                update = update.replace(" REMOVE", ", nextLeaderboardId = :next REMOVE");
                params = params.value(":next", next.as_str());
            }
            Err(why) => {
                update = update.replace(" REMOVE", ", rolloverError = :why REMOVE");
                params = params.value(":why", why);
            }
        }
        let id = &board.board_id;
        if let Some(league) = &board.cohort_of {
            return self.finish_cohort(id, league, &update, params).await;
        }
        self.store
            .table
            .update_request(&entity::board(id), update)
            .condition_expression("#status IN (:closing, :closed)")
            .params(params)?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(closed)", e))?;
        Ok(())
    }
}
