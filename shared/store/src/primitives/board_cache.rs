//! The plays' copy of hot boards, kept per process: a play on a board of more than one write
//! shard decides from a copy read within the last [`BoardCache::KEEP`], so that no key is read
//! by every play of a hot board (the board item would cap it at 3,000 plays a second).
//!
//! A copy never makes a wrong write: the play's lane update holds only at the settings version
//! it decided by (`rank::settings`), and a play that fails it reads the board again. Nor a
//! wrong refusal: a play a copy refuses is decided again from the board read then (a widening
//! raises `maxScore`, and a copy would refuse the scores it allows). Only a play's first
//! attempt uses a copy: its retries read the board. A board of one write shard
//! is read on every play as before: its one partition of Score items caps it far below what
//! its board item's reads allow, and a copy would save nothing.

use std::time::Duration;

use leaderboard_keys::ids::BoardId;

use crate::ground::model::{Board, BoardStatus};
use crate::primitives::kept::Kept;

/// The boards a process keeps copies of, at most [`BoardCache::MOST`].
#[derive(Debug)]
pub(crate) struct BoardCache {
    copies: Kept<Board>,
}

impl Default for BoardCache {
    fn default() -> Self {
        BoardCache {
            copies: Kept::new(Self::KEEP, Self::MOST),
        }
    }
}

impl BoardCache {
    /// How long a copy is used: a change of a setting costs each process's next play on the
    /// board a retry within it, and a board's item takes a read from each process once in it.
    pub(crate) const KEEP: Duration = Duration::from_secs(60);

    /// The most boards kept: past it the copies are dropped all at once (a process that plays
    /// on that many hot boards reads each again once).
    pub(crate) const MOST: usize = 1_000;

    /// The copy of board `id`, if one was kept within [`BoardCache::KEEP`].
    pub(crate) fn get(&self, id: &BoardId) -> Option<Board> {
        self.copies.get(id)
    }

    /// Keeps a copy of `board` as just read, if it is an open board of more than one write
    /// shard.
    pub(crate) fn keep(&self, board: &Board) {
        if board.write_shards > 1 && board.status == BoardStatus::Open {
            self.copies.put(&board.board_id, board.clone());
        }
    }

    /// Drops the copies of `ids` (the boards a play decided from copies of): whether it named
    /// any, so that the play decides again from the boards read now.
    pub(crate) fn forget(&self, ids: &[BoardId]) -> bool {
        for id in ids {
            self.copies.forget(id);
        }
        !ids.is_empty()
    }
}
