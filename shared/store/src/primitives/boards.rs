//! Boards as the features share them: reading a board's metadata, writing a new board, and
//! the condition that keeps a write off a board that is no longer open.

use aws_sdk_dynamodb::types::TransactWriteItem;
use leaderboard_keys::entity;
use leaderboard_keys::ids::BoardId;

use crate::ground::error::StoreError;
use crate::ground::items::to_item;
use crate::ground::model::{Board, BoardStatus};
use crate::table::Table;
use crate::table::request::Params;

impl Table {
    /// A board's metadata (GetItem, consistent).
    pub(crate) async fn board(&self, id: &BoardId) -> Result<Option<Board>, StoreError> {
        self.get(&entity::board(id)).await
    }

    /// Writes `board` if no board with its id exists.
    pub(crate) async fn put_new_board(&self, board: &Board) -> Result<(), StoreError> {
        let gsi2 = match (board.status, board.ends_at) {
            (BoardStatus::Open, Some(end)) => Some(entity::board_open_gsi2(end, &board.board_id)),
            _ => None,
        };
        let item = to_item(board, &entity::board(&board.board_id), None, gsi2.as_ref())?;
        self.put_request(item)
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await
            .map_err(|e| match StoreError::sdk("PutItem(board)", e) {
                StoreError::ConditionalCheckFailed => StoreError::AlreadyExists {
                    what: "leaderboard",
                    id: board.board_id.to_string(),
                },
                other => other,
            })?;
        Ok(())
    }

    /// A transaction's check that the board `id` is still open: the fence against season
    /// close, which sets `closing` before it reads the entries.
    pub(crate) fn tx_board_open(&self, id: &BoardId) -> Result<TransactWriteItem, StoreError> {
        self.tx_check(
            &entity::board(id),
            "#status = :open",
            Params::new()
                .name("#status", "status")
                .value(":open", BoardStatus::Open),
        )
    }
}
