//! What a process keeps per board for a while, so that no play of a hot board reads an item
//! every play reads: the plays' copies of a board's item (`board_cache`) and of its rank index
//! (`rank::index_copy`). A value is used while younger than its keeping time; past the most
//! boards kept, all are dropped at once (a process on that many hot boards reads each again
//! once).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use leaderboard_keys::ids::BoardId;

/// Values by board, each kept [`Kept::keep`] from when it was put, at most [`Kept::most`].
#[derive(Debug)]
pub(crate) struct Kept<T> {
    values: Mutex<HashMap<BoardId, (T, Instant)>>,
    keep: Duration,
    most: usize,
}

impl<T: Clone> Kept<T> {
    /// Values used for `keep`, for at most `most` boards.
    pub(crate) fn new(keep: Duration, most: usize) -> Kept<T> {
        Kept {
            values: Mutex::default(),
            keep,
            most,
        }
    }

    /// `board`'s value, if it was put within the keeping time.
    pub(crate) fn get(&self, board: &BoardId) -> Option<T> {
        let values = self.values.lock().ok()?;
        let (value, at) = values.get(board)?;
        (at.elapsed() < self.keep).then(|| value.clone())
    }

    /// `board`'s value however old, unless the most boards kept dropped it.
    pub(crate) fn last(&self, board: &BoardId) -> Option<T> {
        self.last_with_age(board).map(|(value, _)| value)
    }

    /// `board`'s value however old, and its age.
    pub(crate) fn last_with_age(&self, board: &BoardId) -> Option<(T, Duration)> {
        let values = self.values.lock().ok()?;
        values
            .get(board)
            .map(|(value, at)| (value.clone(), at.elapsed()))
    }

    /// Keeps `value` for `board`, from now.
    pub(crate) fn put(&self, board: &BoardId, value: T) {
        let Ok(mut values) = self.values.lock() else {
            return;
        };
        if values.len() >= self.most && !values.contains_key(board) {
            values.clear();
        }
        values.insert(board.clone(), (value, Instant::now()));
    }

    /// Drops `board`'s value.
    pub(crate) fn forget(&self, board: &BoardId) {
        if let Ok(mut values) = self.values.lock() {
            values.remove(board);
        }
    }
}
