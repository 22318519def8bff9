//! Boards: creation (`POST /leaderboards`), AP9 (metadata by id), and bulk import of entries.

use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank_index::{LANES, lane_of};
use leaderboard_keys::time::Timestamp;

use crate::ground::error::StoreError;
use crate::ground::items::{pointer_item, score_item};
use crate::ground::model::{Board, Entry, EntryPointer, NewBoard};
use crate::store::Store;
use crate::table::batch::BatchStats;

impl Store {
    /// Creates an open board. It is listed under GSI2's sparse `BOARDS#OPEN` while open and has
    /// an end. A board with this id already: [`StoreError::AlreadyExists`], nothing changed. A
    /// recurring board whose successor's id would not be valid is refused
    /// ([`StoreError::Invalid`]), so that its rollover cannot fail at its first close.
    pub async fn create_board(&self, new: NewBoard, now: Timestamp) -> Result<Board, StoreError> {
        let board = Board::create(new, now)?;
        crate::ground::rollover::successor(&board).map_err(|why| {
            StoreError::Invalid(format!(
                "leaderboardId cannot recur: {why}; choose a shorter id"
            ))
        })?;
        self.table.put_new_board(&board).await?;
        Ok(board)
    }

    /// AP9: a board's metadata (GetItem, consistent).
    pub async fn get_board(&self, board: &BoardId) -> Result<Option<Board>, StoreError> {
        self.table.board(board).await
    }

    /// Bulk-loads entries onto a board: each player's Score item and entry pointer, with
    /// batched writes. For seeding, migrations and benchmarks, never beside live plays on the
    /// same board: it is not conditional, and a player must appear once. Entries must be in the
    /// board's score range. The lanes count the entries but carry no change for them, so a
    /// board's index shows them as lag until [`Store::build_rank_index`] runs (or the
    /// repair run, which the first play after the import asks for).
    pub async fn import_entries(
        &self,
        board: &Board,
        entries: &[(PlayerId, u64, Timestamp)],
    ) -> Result<BatchStats, StoreError> {
        let spec = board.spec()?;
        let mut items = Vec::with_capacity(entries.len() * 2);
        let mut written = [0u64; LANES as usize];
        for (player, score, at) in entries {
            board.check_score(*score)?;
            let pointer = EntryPointer {
                entry: Entry {
                    board_id: board.board_id.clone(),
                    player_id: player.clone(),
                    score: *score,
                    attained_at: *at,
                    name: None,
                    metadata: None,
                },
                session_id: crate::ground::session_id::new_session_id(*at)?,
                score_sk: spec.score_sort_key(*score, at.as_millis(), player)?,
                version: 1,
                saturated: false,
            };
            items.push(score_item(&pointer)?);
            items.push(pointer_item(&pointer)?);
            written[lane_of(player.as_str()) as usize] += 1;
        }
        // Counted as written before they are: an import that fails half way leaves the index
        // looking behind (ranks are counted), never ahead. Every board's lanes count, as a
        // play's do.
        self.table.add_written(board, &written).await?;
        self.table.put_all(items).await
    }
}
