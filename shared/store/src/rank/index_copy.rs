//! The plays' copies of a hot board's rank index, kept per process: the root, and the path
//! nodes read after it, so that no play of a hot board reads the items every play's rank reads
//! (the root and the top of the trie would each cap the board at 3,000 plays a second).
//!
//! A copy is as good as a root read just before the play: every node in it was read after its
//! root, so it holds at least the changes up to the root's watermarks, and the lanes, still
//! read last and strongly consistent by every rank, count every change the root has not
//! applied in the lag, whatever the nodes hold past it (`rank::lookup`). An older copy only
//! makes the lag larger: a rank answered from one is within its `rankLag` as any other. A copy
//! is used for at most [`IndexCopies::KEEP`], then read again, and dropped as soon as a rank
//! finds it spoiled (a rebuild's switch, a widening's new entries, a node deleted under it):
//! that rank reads the index afresh. Only boards of more than one write shard are copied: a
//! plain board's Score items cap it far below what its root's reads allow.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use leaderboard_keys::ids::BoardId;

use crate::ground::items::Item;
use crate::ground::model::Board;
use crate::primitives::kept::Kept;
use crate::rank::lane_caps::LaneView;

/// One board's copy: its root as read, and the path nodes read after it (by prefix; `None`
/// for a node found missing).
#[derive(Debug)]
pub(crate) struct IndexCopy {
    root: Item,
    nodes: Mutex<HashMap<String, Option<Item>>>,
    spoiled: AtomicBool,
    /// That a caller was told to read the copy again, once it aged out.
    renewing: AtomicBool,
    /// The lanes as the copy's latest rank that read them all tended them
    /// (`rank::lane_caps`).
    lanes: Mutex<Option<Arc<LaneView>>>,
    /// The lanes as a rank read them all, for the play to tend (a rank only reads).
    offered: Mutex<Option<Vec<Item>>>,
    /// How the process tends the lanes.
    settings: CopySettings,
}

impl IndexCopy {
    /// The most nodes a copy keeps: past it, further nodes are read on every rank (a copy
    /// lives [`IndexCopies::KEEP`]; the nodes every play reads are among its first). With
    /// [`IndexCopies::MOST`], a process's copies hold at most 8,192 nodes (a node is under
    /// 4 KB, most under 1 KB): 32 MB at the very most, for a function of 128 MB or more.
    pub(crate) const MOST_NODES: usize = 256;

    /// The root as read.
    pub(crate) fn root(&self) -> &Item {
        &self.root
    }

    /// The node at `prefix` as the copy holds it: `None` when it holds nothing of it, `Some`
    /// of the item or of its absence.
    pub(crate) fn node(&self, prefix: &str) -> Option<Option<Item>> {
        self.nodes.lock().ok()?.get(prefix).cloned()
    }

    /// Keeps the node at `prefix` as just read (after this copy's root), up to
    /// [`IndexCopy::MOST_NODES`].
    pub(crate) fn keep_node(&self, prefix: &str, item: Option<&Item>) {
        let Ok(mut nodes) = self.nodes.lock() else {
            return;
        };
        if nodes.len() < Self::MOST_NODES {
            nodes.insert(prefix.to_owned(), item.cloned());
        }
    }

    /// The lanes as the latest rank that read them all tended them.
    pub(crate) fn lanes(&self) -> Option<Arc<LaneView>> {
        self.lanes.lock().ok()?.clone()
    }

    /// Leaves the lanes a rank read all of for its play to tend (`Table::tend_offered`).
    pub(crate) fn offer_lanes(&self, items: Vec<Item>) {
        if let Ok(mut offered) = self.offered.lock() {
            *offered = Some(items);
        }
    }

    /// The lanes a rank left to tend, if any (once).
    pub(crate) fn take_offered(&self) -> Option<Vec<Item>> {
        self.offered.lock().ok()?.take()
    }

    /// Keeps the lanes as just tended.
    pub(crate) fn keep_lanes(&self, view: LaneView) {
        if let Ok(mut lanes) = self.lanes.lock() {
            *lanes = Some(Arc::new(view));
        }
    }

    /// The plays a second from which the board's lanes are capped.
    pub(crate) fn hot_rate(&self) -> u64 {
        self.settings.hot_rate
    }

    /// How often a rank tends the lanes.
    pub(crate) fn tend_every(&self) -> Duration {
        self.settings.tend_every
    }

    /// Marks the copy as no longer to be used (by any rank of the process).
    pub(crate) fn spoil(&self) {
        self.spoiled.store(true, Ordering::Relaxed);
    }
}

/// How a process keeps its copies of hot boards' indexes and tends their lanes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CopySettings {
    /// How long a copy is used ([`IndexCopies::KEEP`]).
    pub(crate) keep: Duration,
    /// The plays a second from which a board's lanes are capped ([`IndexCopies::HOT_RATE`]).
    pub(crate) hot_rate: u64,
    /// How often a rank tends a hot board's lanes ([`LaneView::TEND_EVERY`]).
    pub(crate) tend_every: Duration,
}

impl Default for CopySettings {
    fn default() -> Self {
        CopySettings {
            keep: IndexCopies::KEEP,
            hot_rate: IndexCopies::HOT_RATE,
            tend_every: LaneView::TEND_EVERY,
        }
    }
}

/// The boards a process keeps index copies of, at most [`IndexCopies::MOST`].
#[derive(Debug)]
pub(crate) struct IndexCopies {
    copies: Kept<Arc<IndexCopy>>,
    /// How they are kept and their lanes tended.
    pub(crate) settings: CopySettings,
}

impl Default for IndexCopies {
    fn default() -> Self {
        IndexCopies::new(CopySettings::default())
    }
}

impl IndexCopies {
    /// How long a copy is used: what its age adds to a rank's lag is the changes committed on
    /// the board in it, and each process reads the root and the top nodes once in it.
    pub(crate) const KEEP: Duration = Duration::from_secs(1);

    /// How long past its keeping time a copy is still used while one caller reads it again
    /// (after that, every caller reads it: the one told to may have failed).
    pub(crate) const RENEWAL: Duration = Duration::from_secs(2);

    /// The most boards kept: past it the copies are dropped all at once (a process playing on
    /// more hot boards than that reads each root again, as without copies).
    pub(crate) const MOST: usize = 32;

    /// The plays a second from which a board's lanes are capped (`rank::lane_caps`), unless
    /// the store is told otherwise (`LANE_CAPS_FROM`).
    pub(crate) const HOT_RATE: u64 = crate::ground::config::DEFAULT_LANE_CAPS_FROM;

    /// Copies kept and tended by `settings`.
    pub(crate) fn new(settings: CopySettings) -> IndexCopies {
        IndexCopies {
            copies: Kept::new(settings.keep, Self::MOST),
            settings,
        }
    }

    /// The copy of `board`'s index, if one was read within the time copies are kept and no
    /// rank found it spoiled. Past that time, one caller is told to read it again (`None`)
    /// while the others go on with it for up to [`IndexCopies::RENEWAL`] more: the plays in
    /// flight when a copy ages out do not all read the root and the lanes at once (an older
    /// copy only makes a rank's lag larger).
    pub(crate) fn get(&self, board: &BoardId) -> Option<Arc<IndexCopy>> {
        let (copy, age) = self.copies.last_with_age(board)?;
        if copy.spoiled.load(Ordering::Relaxed) {
            return None;
        }
        let keep = self.settings.keep;
        if age < keep {
            return Some(copy);
        }
        let renewing =
            age < keep.saturating_add(Self::RENEWAL) && copy.renewing.swap(true, Ordering::Relaxed);
        renewing.then_some(copy)
    }

    /// A copy of `board`'s index from its `root`, as just read, kept if the board is copied
    /// (more than one write shard) and copies are kept at all (a keeping time of zero: never,
    /// so that no view of the lanes passes from one play's copy to the next either).
    pub(crate) fn keep(&self, board: &Board, root: Item) -> Option<Arc<IndexCopy>> {
        if board.write_shards <= 1 || self.settings.keep.is_zero() {
            return None;
        }
        // The previous copy's view of the lanes: their caps hold whatever root they go with,
        // so the new copy's ranks bound the lanes by them until a rank tends them again; and
        // their written counts, however old, measure the board's heat from.
        let lanes = self.copies.last(&board.board_id).and_then(|c| c.lanes());
        let copy = Arc::new(IndexCopy {
            root,
            nodes: Mutex::default(),
            spoiled: AtomicBool::new(false),
            renewing: AtomicBool::new(false),
            lanes: Mutex::new(lanes),
            offered: Mutex::default(),
            settings: self.settings,
        });
        self.copies.put(&board.board_id, Arc::clone(&copy));
        Some(copy)
    }
}

/// A board's rank index root as a play read it before its transaction: read with the play's
/// other items, or this process's copy of the board's index.
#[derive(Debug, Clone)]
pub(crate) enum RootBefore {
    /// Read with the play (empty where the board has none).
    Read(Item),
    /// The process's copy.
    Copy(Arc<IndexCopy>),
}

impl Default for RootBefore {
    fn default() -> Self {
        RootBefore::Read(Item::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::model::NewBoard;

    #[test]
    fn an_aged_copy_is_read_again_by_one_caller_while_the_others_go_on_with_it() {
        let copies = IndexCopies::new(CopySettings {
            keep: Duration::from_millis(10),
            ..CopySettings::default()
        });
        let new = NewBoard {
            write_shards: 4,
            ..NewBoard::named(BoardId::parse("aged").unwrap(), "aged".into())
        };
        let board = Board::create(new, leaderboard_keys::time::Timestamp::now()).unwrap();
        let first = copies.keep(&board, Item::new()).unwrap();
        assert!(copies.get(&board.board_id).is_some());
        std::thread::sleep(Duration::from_millis(20));
        // Aged out: the first caller reads it again, the next ones use it meanwhile.
        assert!(copies.get(&board.board_id).is_none());
        let meanwhile = copies.get(&board.board_id).unwrap();
        assert!(Arc::ptr_eq(&meanwhile, &first));
        let renewed = copies.keep(&board, Item::new()).unwrap();
        assert!(Arc::ptr_eq(&copies.get(&board.board_id).unwrap(), &renewed));
    }
}
