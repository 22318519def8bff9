//! The one pass over the table that finishes the move onto the rank index's current layout:
//! every open board stored before it is migrated (`rank_migration`), every open board whose
//! lanes are kept apart has them grouped (`grouping`), every open board whose index is on
//! layout 2 is rebuilt onto the compact layout (3, `docs/rank-index.md`; the live rebuild,
//! plays going on), one board at a time, and every item of
//! the index layout it replaced (nodes `RANKNODE#...`, markers `PLAYER#<p>` / `RANKED#<b>`,
//! closed boards' included) is deleted, 25 a request. Nothing reads or writes those items any
//! more; only this pass knows their names.
//!
//! The pass is a `Scan` with a filter, a page (1 MB read) at a time, at most
//! [`SweepOptions::max_pages`] pages a run. Its position is kept on one item, `RANKSWEEP` /
//! `#CURSOR#COMPACT`: the key after which the next run goes on (a board whose migration failed is
//! not passed: the next run starts at it again), `again` when a board's index was too far behind
//! to group its lanes (the pass then starts over once it reaches the end), and `done` once a
//! Scan has reached the end with nothing left, after which a run costs one read and does
//! nothing. (A table whose passes before grouped lanes and the compact layout finished keeps
//! their `#CURSOR` and `#CURSOR#LANES` items; this pass is a new one.) One run at a time holds the cursor's lease (`leaseBy`,
//! `leaseUntil`, taken as a close lease is: for the holder's deadline plus
//! [`crate::LEASE_MARGIN`]): another run that finds it held leaves the pass to it, and a lease
//! whose holder died expires on its own.

use std::time::{Duration, Instant};

use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank_index::{repair_key, root_key};

use crate::ground::error::StoreError;
use crate::ground::items::{Item, item_key};
use crate::ground::model::BoardStatus;
use crate::primitives::pass::{
    AtEnd, Pass, PassPages, PassRun, PassSpec, PassState, PassWork, ScanFilter, Worked,
};
use crate::rank::Rank;
use crate::rank::compact::is_compact;
use crate::rank::maintenance::grouping::LaneGrouping;
use crate::table::request::Params;

/// The cursor item's partition.
pub const SWEEP_PK: &str = "RANKSWEEP";
const SWEEP_SK: &str = "#CURSOR#COMPACT";
/// The partitions of the replaced layout's nodes, and the sort keys of its markers.
const OLD_NODE_PREFIX: &str = "RANKNODE#";
const OLD_MARKER_PREFIX: &str = "RANKED#";
/// No board's migration is started with less time than this left before the deadline.
const BOARD_MARGIN: Duration = Duration::from_secs(60);

/// How much of the pass a run does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SweepOptions {
    /// Scan pages a run reads at most (each up to 1 MB, 128 read units).
    pub max_pages: u32,
    /// Items a page reads at most, if fewer than 1 MB of them.
    pub page_items: Option<u32>,
}

impl Default for SweepOptions {
    fn default() -> Self {
        SweepOptions {
            max_pages: 40,
            page_items: None,
        }
    }
}

/// What one run of the pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SweepOutcome {
    /// Scan pages read.
    pub pages: u32,
    /// Boards moved onto the current layout.
    pub migrated: Vec<BoardId>,
    /// Boards whose lanes were grouped.
    pub grouped: Vec<BoardId>,
    /// Boards rebuilt onto the compact layout.
    pub compacted: Vec<BoardId>,
    /// Boards whose index was too far behind to group their lanes: the pass starts over for
    /// them once it reaches the end.
    pub behind: Vec<BoardId>,
    /// A board whose migration failed (logged): the next run starts at it.
    pub failed: Option<BoardId>,
    /// Items of the replaced layout deleted.
    pub deleted: usize,
    /// Whether the pass is over (this run or an earlier one finished it).
    pub done: bool,
    /// Whether another run holds the pass, so this one did nothing.
    pub busy: bool,
}

/// What the Scan found at one key.
enum Found {
    Old(Key),
    Board(BoardId),
}

static SWEEP_PASS: PassSpec = PassSpec {
    ready: None,
    lease: "UpdateItem(rank sweep lease)",
    scan: "Scan(rank layout sweep)",
    checkpoint: "UpdateItem(rank sweep checkpoint)",
    release: "UpdateItem(rank sweep release)",
};

impl Rank<'_> {
    /// One run of the pass (see the module documentation), until its pages or `deadline` run
    /// out. Requests: 1 read of the cursor (all a run does once the pass is over), 1 lease,
    /// per page 1 Scan, a delete per 25 old items and 1 checkpoint, and each board's migration.
    pub async fn sweep_rank_layout(
        self,
        options: &SweepOptions,
        deadline: Option<Instant>,
    ) -> Result<SweepOutcome, StoreError> {
        let pages = PassPages {
            max: options.max_pages,
            items: options.page_items,
        };
        let work = |cursor: &Item| Sweep {
            rank: self,
            out: SweepOutcome::default(),
            again: cursor.contains_key("again"),
        };
        let key = Key::new(SWEEP_PK, SWEEP_SK);
        Ok(
            match Pass::run_pass(self.table, &SWEEP_PASS, key, deadline, pages, work).await? {
                PassRun::Idle => SweepOutcome {
                    done: true,
                    ..SweepOutcome::default()
                },
                PassRun::Busy => SweepOutcome {
                    busy: true,
                    ..SweepOutcome::default()
                },
                PassRun::Ran { work, pages, done } => SweepOutcome {
                    pages,
                    done,
                    ..work.out
                },
            },
        )
    }

    /// Board `id` moved onto the current layout if it is not on it yet (whether it was), its
    /// lanes grouped, and its index rebuilt onto the compact layout (whether it was).
    async fn move_board(self, id: &BoardId) -> Result<(bool, LaneGrouping, bool), StoreError> {
        let moved = !self.migrate_board(id).await?.is_empty();
        let grouping = self.group_lanes(id).await?;
        Ok((moved, grouping, self.compact_board(id).await?))
    }

    /// Board `id`'s index rebuilt onto the compact layout, while plays go on, if it is an open
    /// board on the index whose root is on layout 2 and neither widening nor under repair (a
    /// repair's rebuild writes the compact layout itself): whether it was. Requests: 1 board
    /// read, 1 root read, 1 repair request read, and the live rebuild's.
    pub async fn compact_board(self, id: &BoardId) -> Result<bool, StoreError> {
        let Some(board) = self.table.board(id).await? else {
            return Ok(false);
        };
        if board.status != BoardStatus::Open
            || !board.indexed()
            || board.rank_migrating
            || board.widening.is_some()
        {
            return Ok(false);
        }
        let root = self.table.get_raw(&root_key(id)).await?.unwrap_or_default();
        if is_compact(&root) || self.table.get_raw(&repair_key(id)).await?.is_some() {
            return Ok(false);
        }
        self.rebuild_lane_index(&board).await?;
        Ok(true)
    }
}

/// The pass's work: a page's old items deleted and its boards moved.
struct Sweep<'a> {
    rank: Rank<'a>,
    out: SweepOutcome,
    /// A board was too far behind to group its lanes: the pass starts over at the end.
    again: bool,
}

impl PassWork for Sweep<'_> {
    const MARGIN: Duration = BOARD_MARGIN;

    fn scan_filter(&self) -> ScanFilter {
        ScanFilter {
            filter: "begins_with(pk, :node) OR begins_with(sk, :marker) OR (sk = :meta AND \
                 begins_with(pk, :board) AND #status = :open)",
            projection: "pk, sk",
            params: Params::new()
                .name("#status", "status")
                .value(":node", OLD_NODE_PREFIX)
                .value(":marker", OLD_MARKER_PREFIX)
                .value(":meta", entity::METADATA)
                .value(":board", entity::LEADERBOARD_PREFIX)
                .value(":open", BoardStatus::Open),
        }
    }

    async fn work_page(&mut self, pass: &Pass<'_>, items: Vec<Item>) -> Result<Worked, StoreError> {
        let (mut old, mut at) = (Vec::new(), None);
        for item in &items {
            let key = item_key(item);
            let found = match key.pk.strip_prefix(entity::LEADERBOARD_PREFIX) {
                Some(id) if key.sk == entity::METADATA => match BoardId::parse(id) {
                    Ok(id) => Found::Board(id),
                    Err(_) => continue,
                },
                _ => Found::Old(key.clone()),
            };
            match found {
                Found::Old(k) => old.push(k),
                Found::Board(id) => {
                    self.out.deleted += self.rank.table.delete_all(&old).await?.items;
                    old.clear();
                    if !pass.has_time(BOARD_MARGIN) {
                        return Ok(Worked::Stop(at));
                    }
                    match self.rank.move_board(&id).await {
                        Err(e) => {
                            tracing::error!(board = %id, error = %e,
                                "rank layout migration failed; the next run starts at it");
                            self.out.failed = Some(id);
                            return Ok(Worked::Stop(at));
                        }
                        Ok((moved, grouping, compacted)) => {
                            if moved {
                                self.out.migrated.push(id.clone());
                            }
                            if compacted {
                                self.out.compacted.push(id.clone());
                            }
                            match grouping {
                                LaneGrouping::Grouped { .. } => self.out.grouped.push(id),
                                LaneGrouping::Behind => {
                                    self.again = true;
                                    self.out.behind.push(id);
                                }
                                LaneGrouping::Skipped => {}
                            }
                        }
                    }
                }
            }
            at = Some(key);
        }
        self.out.deleted += self.rank.table.delete_all(&old).await?.items;
        Ok(Worked::Page)
    }

    fn pass_state(&self) -> PassState {
        PassState::default().flag("again", self.again)
    }

    fn at_end(&mut self) -> AtEnd {
        if std::mem::take(&mut self.again) {
            AtEnd::Again
        } else {
            AtEnd::Done
        }
    }
}
