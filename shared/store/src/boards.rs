//! Boards: creation (`POST /leaderboards`) and AP9 (metadata by id).

use leaderboard_keys::entity;
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::time::Timestamp;

use crate::items::to_item;
use crate::model::{Board, BoardStatus, NewBoard};
use crate::{Store, StoreError};

impl Store {
    /// Creates an open board. It is listed under GSI2's sparse `BOARDS#OPEN` while open and has
    /// an end. A board with this id already: [`StoreError::AlreadyExists`], nothing changed. A
    /// recurring board whose successor's id would not be valid is refused
    /// ([`StoreError::Invalid`]), so that its rollover cannot fail at its first close.
    pub async fn create_board(&self, new: NewBoard, now: Timestamp) -> Result<Board, StoreError> {
        let board = Board::create(new, now)?;
        crate::rollover::successor(&board).map_err(|why| {
            StoreError::Invalid(format!(
                "leaderboardId cannot recur: {why}; choose a shorter id"
            ))
        })?;
        self.put_new_board(&board).await?;
        Ok(board)
    }

    /// Writes `board` if no board with its id exists.
    pub(crate) async fn put_new_board(&self, board: &Board) -> Result<(), StoreError> {
        let gsi2 = match (board.status, board.ends_at) {
            (BoardStatus::Open, Some(end)) => {
                Some(entity::board_open_gsi2(end, &board.leaderboard_id))
            }
            _ => None,
        };
        let item = to_item(
            board,
            &entity::board(&board.leaderboard_id),
            None,
            gsi2.as_ref(),
        )?;
        self.put_request(item)
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await
            .map_err(|e| match StoreError::sdk("PutItem(board)", e) {
                StoreError::ConditionalCheckFailed => StoreError::AlreadyExists {
                    what: "leaderboard",
                    id: board.leaderboard_id.to_string(),
                },
                other => other,
            })?;
        Ok(())
    }

    /// AP9: a board's metadata (GetItem, consistent).
    pub async fn get_board(&self, board: &BoardId) -> Result<Option<Board>, StoreError> {
        self.get(&entity::board(board)).await
    }
}
