//! Season close: snapshot, archive and rollover of a board whose `endsAt` has passed.
//!
//! 1. **Close**: `status` goes `open` -> `closing` (conditional), then every lane of the board
//!    is closed (`Table::close_lanes`): a play reads the status (409), and a play in flight
//!    changes its entry only together with its lane, on condition that the lane is not closed,
//!    so no score lands once the lanes are closed, and every one that landed before is read.
//! 2. **Roll over** a recurring board: its successor (same settings, predictable id) is
//!    created if it does not exist, before the snapshot, so the next board takes plays however
//!    long the snapshot takes.
//! 3. **Count** the entries once (`playerCount`, kept on the board item: the lanes' count, one
//!    read), and clear a widening run the close cut off (its other generation of entries:
//!    `widen_cutoff`).
//! 4. **Snapshot**: walk the live entries in rank order, a page at a time; **grant** the
//!    page's rewards, exactly once (`rewards`), then write each player's Final standing
//!    (`FINAL#<rank>`) and Season result (`RESULT#<boardId>`), and **archive** the live Score
//!    item and the entry pointer by re-putting them with a `ttl`, all in batches (unprocessed
//!    items retried). After each page the progress is checkpointed on the board item
//!    (`closeRank`, `closeCursor`), monotonically.
//! 5. **Finish**: `status = closed`, `closedAt`, `nextLeaderboardId`; the sparse `BOARDS#OPEN`
//!    key is removed.
//!
//! One close at a time works a board: each turn holds the board's close lease (`close_lease`),
//! and a close that finds it held by another run does nothing. Because the board is frozen, the
//! walk is deterministic and every write is idempotent: a close stopped anywhere (time limit,
//! crash) resumes from its checkpoint, and even a holder that outlived its lease writes the
//! same items as the run that took the lease over, so the snapshot has no duplicate or missing
//! rank and there is one successor.

mod finish;
mod league;
mod rewards;
mod widen_cutoff;

pub use rewards::{RewardWatch, Unannounced};

use std::time::Instant;

use leaderboard_keys::entity::{self, SCORE_PREFIX, SCORE_UPPER_BOUND};
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::time::Timestamp;

use crate::ground::error::StoreError;
use crate::ground::items::{
    Item, ItemExt, key_string, n, pointer_from_score_item, pointer_item, s, to_item,
};
use crate::ground::model::{Board, BoardStatus, FinalStanding, SeasonResult};
use crate::primitives::lease::{CloseLease, Taken};
use crate::rank::count::RankCost;
use crate::rank::lanes::lane_counts;
use crate::rank::second_layout::{GSI1_PK, GSI1_SK};
use crate::store::Store;
use crate::table::merge::Direction;
use crate::table::request::{Index, Params, WithParams};
use crate::table::retry::Retry;

/// How long archived live items are kept by default (days).
pub const DEFAULT_RETENTION_DAYS: u64 = 30;

/// How a close runs.
#[derive(Debug, Clone)]
pub struct CloseOptions {
    /// Entries per page of the walk (each page is one Query and one checkpoint).
    pub page_size: usize,
    /// How long archived live items are kept before DynamoDB's TTL removes them.
    pub retention_days: u64,
    /// Stop (with the progress checkpointed) before starting a page after this instant.
    pub deadline: Option<Instant>,
    /// Stop after this many pages (for tests of interruption and resumption).
    pub max_pages: Option<u32>,
    /// Stop once the snapshot is complete, before the board is marked closed, answering
    /// [`CloseProgress::Snapshotted`]: for a caller that must do something before the board
    /// stops being due (publish `BoardClosed`), then closes it again to finish.
    pub stop_before_finish: bool,
}

impl Default for CloseOptions {
    fn default() -> Self {
        CloseOptions {
            page_size: 500,
            retention_days: DEFAULT_RETENTION_DAYS,
            deadline: None,
            max_pages: None,
            stop_before_finish: false,
        }
    }
}

/// Where a close got to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CloseProgress {
    /// The board is closed (now or before).
    Closed {
        /// The board.
        board: BoardId,
        /// How many players it had.
        player_count: u64,
        /// Its successor, if it recurs.
        next: Option<BoardId>,
    },
    /// The snapshot is complete and the board still `closing` (asked for with
    /// [`CloseOptions::stop_before_finish`]): a close without that option finishes it.
    Snapshotted {
        /// The board.
        board: BoardId,
        /// How many players it had.
        player_count: u64,
        /// Its successor, if it recurs.
        next: Option<BoardId>,
    },
    /// Stopped before the end; the next run resumes from the checkpoint.
    Paused {
        /// The board.
        board: BoardId,
        /// Ranks snapshotted so far.
        done: u64,
        /// Ranks in all.
        total: u64,
    },
    /// The board has not ended yet (or has no end); nothing was done.
    NotDue {
        /// The board.
        board: BoardId,
    },
    /// A league board whose cohorts are not all closed yet: its own close (its rollover)
    /// waits for them. Each cohort is due as the league is, and closes like any board.
    Waiting {
        /// The league board.
        board: BoardId,
        /// Its cohorts counted closed.
        closed: u64,
        /// Its cohorts in all.
        cohorts: u64,
    },
    /// Another close run holds the board's close lease (see `close_lease`); nothing was done
    /// (or, if that run took the lease over from this one mid-way, this one stopped).
    Busy {
        /// The board.
        board: BoardId,
        /// When the other run's lease expires, at the latest.
        until: Timestamp,
    },
}

/// What a rollover did: the successor's id (`None`: the board does not recur), or why there is
/// none.
type Rolled = Result<Option<BoardId>, String>;

/// Season close's handle on the store ([`Store::close`]): the boards due, and a board's close,
/// a bounded turn at a time.
#[derive(Clone, Copy)]
pub struct Close<'a> {
    pub(crate) store: &'a Store,
}

impl Store {
    /// Season close: the boards due, and a board's close, a bounded turn at a time.
    pub fn close(&self) -> Close<'_> {
        Close { store: self }
    }
}

impl Close<'_> {
    /// The open (or closing) boards whose `endsAt` is at or before `now`, from GSI2's sparse
    /// `BOARDS#OPEN` partition (never a Scan), oldest end first.
    pub async fn due_boards(self, now: Timestamp) -> Result<Vec<BoardId>, StoreError> {
        let due = self.due_boards_ending(now).await?;
        Ok(due.into_iter().map(|(_, board)| board).collect())
    }

    /// [`Close::due_boards`], each with its `endsAt`.
    pub async fn due_boards_ending(
        self,
        now: Timestamp,
    ) -> Result<Vec<(Timestamp, BoardId)>, StoreError> {
        let mut due = Vec::new();
        let query = self
            .store
            .table
            .query_request(Index::Gsi2)
            .key_condition_expression("gsi2pk = :pk AND gsi2sk < :end")
            .params(
                Params::new()
                    .value(":pk", entity::BOARDS_OPEN)
                    .value(":end", entity::boards_open_ended_by(now)),
            )?;
        self.store
            .table
            .query_pages("Query(GSI2 due boards)", query, |out| {
                for item in out.items.unwrap_or_default() {
                    let sk = key_string(&item, "gsi2sk");
                    due.push(entity::parse_board_open_gsi2_sk(&sk)?);
                }
                Ok(())
            })
            .await?;
        Ok(due)
    }

    /// Closes one board as far as `options` allow: see the module docs. Safe to run again, and
    /// at the same time as another close of the same board: one of them holds the board's close
    /// lease and the other answers [`CloseProgress::Busy`] without writing.
    #[tracing::instrument(skip(self, options), fields(board = %id))]
    pub async fn close_board(
        self,
        id: &BoardId,
        now: Timestamp,
        options: &CloseOptions,
    ) -> Result<CloseProgress, StoreError> {
        self.close_board_watched(id, now, options, &Unannounced)
            .await
    }

    /// [`Close::close_board`], telling `watch` of each page's rewards before the page is
    /// checkpointed (`rewards`).
    pub async fn close_board_watched<W: RewardWatch>(
        self,
        id: &BoardId,
        now: Timestamp,
        options: &CloseOptions,
        watch: &W,
    ) -> Result<CloseProgress, StoreError> {
        let key = entity::board(id);
        let raw = self
            .store
            .table
            .get_raw(&key)
            .await?
            .ok_or_else(|| StoreError::NotFound {
                what: "leaderboard",
                id: id.to_string(),
            })?;
        let board: Board = crate::ground::items::from_item(raw)?;
        if board.status == BoardStatus::Closed {
            return Ok(closed(board));
        }
        if board.ends_at.is_none_or(|end| end > now) {
            return Ok(CloseProgress::NotDue { board: id.clone() });
        }
        let lease = CloseLease::new(options.deadline);
        let raw = match self.store.table.take_close_lease(id, &lease).await? {
            Taken::Held(raw) => raw,
            Taken::Busy(until) => {
                tracing::info!(board = %id, until = %until, "another run is closing the board");
                return Ok(CloseProgress::Busy {
                    board: id.clone(),
                    until,
                });
            }
            Taken::Closed(raw) => return Ok(closed(crate::ground::items::from_item(raw)?)),
        };
        let progress = self
            .close_leased(id, raw, (now, options), &lease, watch)
            .await;
        // The finished close removed the lease; anything else gives it back.
        if !matches!(progress, Ok(CloseProgress::Closed { .. })) {
            self.store.table.release_close_lease(id, &lease).await;
        }
        progress
    }

    /// The close of board `id` under `lease`, from `raw`, its item as the lease was taken.
    async fn close_leased<W: RewardWatch>(
        self,
        id: &BoardId,
        raw: Item,
        (now, options): (Timestamp, &CloseOptions),
        lease: &CloseLease,
        watch: &W,
    ) -> Result<CloseProgress, StoreError> {
        let mut board: Board = crate::ground::items::from_item(raw.clone())?;
        if board.status == BoardStatus::Open {
            self.begin_closing(id, now).await?;
        }
        // A league rolls over once its cohorts are closed (`league`): the cohorts counted after
        // `closing`, which no cohort opens past; the closed ones as the lease read them (a
        // cohort finishing since is counted on the next turn).
        if board.is_league() {
            let (closed, cohorts) = self.cohorts_closed(id, &raw).await?;
            if closed < cohorts {
                return Ok(CloseProgress::Waiting {
                    board: id.clone(),
                    closed,
                    cohorts,
                });
            }
        }
        // The fence before the first read of the entries (again on a resumed close that had
        // not counted them: closing lanes twice changes nothing). The board as stored now that
        // it is closing: its lanes' layout cannot change any more.
        if board.player_count.is_none() {
            board = self.store.table.board(id).await?.unwrap_or(board);
            self.store.table.close_lanes(&board, now).await?;
        }
        // The successor first, so that the next board takes plays while this one's snapshot
        // is written (a resumed close finds it there).
        let rolled = self.roll_over(&board).await?;
        if let Err(why) = &rolled {
            tracing::error!(board = %id, error = %why, "rollover failed: the board closes without a successor");
        }
        let total = match board.player_count {
            Some(count) => count,
            None => self.count_entries(&board).await?,
        };
        let (mut done, mut cursor) = (
            raw.number("closeRank").unwrap_or(0),
            raw.string("closeCursor").map(str::to_owned),
        );
        // A widening the close cut off: its other generation goes before the walk (see
        // `widen_cutoff`).
        if !self
            .clear_cut_off_widening(&board, options.deadline)
            .await?
        {
            return Ok(CloseProgress::Paused {
                board: id.clone(),
                done,
                total,
            });
        }
        let ttl = now.as_secs() + options.retention_days * 86_400;
        // Rewards are granted as of the close's start, the same on every page written again.
        let granted_at = raw
            .string("closingAt")
            .and_then(|at| Timestamp::parse_rfc3339("closingAt", at).ok())
            .unwrap_or(now);
        let started = Instant::now();
        let mut pages = 0u32;
        let pks = board.score_pks();
        while done < total {
            if options.max_pages.is_some_and(|m| pages >= m)
                || options.deadline.is_some_and(|d| Instant::now() >= d)
            {
                tracing::info!(board = %id, done, total, "close paused; resumes on the next run");
                return Ok(CloseProgress::Paused {
                    board: id.clone(),
                    done,
                    total,
                });
            }
            // The next page of live entries after the checkpoint, in rank order.
            let upper = cursor
                .clone()
                .unwrap_or_else(|| SCORE_UPPER_BOUND.to_owned());
            // One Query a write shard, merged: the checkpoint is one key whatever the shards.
            let mut items: Vec<Item> = self
                .store
                .table
                .read_merged(
                    &pks,
                    (SCORE_PREFIX, &upper),
                    Direction::Down,
                    None,
                    options.page_size + 1,
                )
                .await?;
            // The upper bound is inclusive: skip the checkpointed entry itself.
            if cursor.is_some()
                && items
                    .first()
                    .is_some_and(|i| Some(key_string(i, "sk")) == cursor)
            {
                items.remove(0);
            }
            items.truncate(options.page_size);
            if items.is_empty() {
                break;
            }
            let mut writes = Vec::with_capacity(items.len() * 4);
            let mut results = Vec::with_capacity(items.len());
            for (item, rank) in items.iter().zip(done + 1..) {
                let pointer = pointer_from_score_item(item)?;
                let standing = FinalStanding {
                    entry: pointer.entry.clone(),
                    rank,
                };
                writes.push(to_item(
                    &standing,
                    &entity::final_standing(id, rank)?,
                    None,
                    None,
                )?);
                let result = SeasonResult {
                    entry: pointer.entry.clone(),
                    rank,
                    player_count: total,
                    cohort_of: None,
                    tier: None,
                    movement: None,
                };
                let result = league::with_move(result, &board);
                writes.push(to_item(
                    &result,
                    &entity::season_result(&pointer.entry.player_id, id),
                    None,
                    None,
                )?);
                results.push(result);
                // Archive: the live item and its pointer, as they are, with a ttl; the item
                // listed in the player's boards again where a cut-off widening's copy had
                // taken its GSI1 key.
                let mut archived = item.clone();
                archived.insert("ttl".into(), n(ttl));
                let gsi1 = entity::score_gsi1(&pointer.entry.player_id, id);
                archived.insert(GSI1_PK.into(), s(gsi1.pk));
                archived.insert(GSI1_SK.into(), s(gsi1.sk));
                writes.push(archived);
                let mut pointer_archived = pointer_item(&pointer)?;
                pointer_archived.insert("ttl".into(), n(ttl));
                writes.push(pointer_archived);
            }
            // The rewards before the archive: an erasure that finds the player's entry
            // archived then finds their reward too (see `rewards`).
            self.grant_rewards(&board, &results, total, granted_at, watch)
                .await?;
            self.store.table.put_all(writes).await?;
            self.move_tiers(&board, &results).await?;
            let last_sk = key_string(items.last().unwrap_or(&Item::new()), "sk");
            done += items.len() as u64;
            cursor = Some(last_sk);
            pages += 1;
            match self
                .store
                .table
                .checkpoint_under_lease(id, lease, done, cursor)
                .await?
            {
                Some(furthest) => (done, cursor) = furthest,
                None => {
                    tracing::warn!(board = %id, done, "another run took the close lease over; stopping");
                    return Ok(CloseProgress::Busy {
                        board: id.clone(),
                        until: Timestamp::now(),
                    });
                }
            }
            let secs = started.elapsed().as_secs_f64().max(1e-6);
            tracing::info!(
                board = %id,
                done,
                total,
                rate = (pages as f64 * options.page_size as f64 / secs).round(),
                "snapshot progress"
            );
        }
        if options.stop_before_finish {
            return Ok(CloseProgress::Snapshotted {
                board: id.clone(),
                player_count: total,
                next: rolled.ok().flatten(),
            });
        }
        self.finish_closing(&board, now, total, &rolled).await?;
        let next = rolled.ok().flatten();
        tracing::info!(board = %id, players = total, next = ?next, "closed");
        Ok(CloseProgress::Closed {
            board: id.clone(),
            player_count: total,
            next,
        })
    }

    /// `open` -> `closing`; a close already under way is fine. Retried when a play's
    /// transaction in flight on the board item conflicts with it, or on throttling.
    async fn begin_closing(self, id: &BoardId, now: Timestamp) -> Result<(), StoreError> {
        Retry::ITEM_UPDATE
            .run("closing the board", || self.try_begin_closing(id, now))
            .await
    }

    async fn try_begin_closing(self, id: &BoardId, now: Timestamp) -> Result<(), StoreError> {
        let result = self
            .store
            .table
            .update_request(
                &entity::board(id),
                "SET #status = :closing, closingAt = :now",
            )
            .condition_expression("#status = :open")
            .params(
                Params::new()
                    .name("#status", "status")
                    .value(":closing", BoardStatus::Closing)
                    .value(":open", BoardStatus::Open)
                    .value(":now", now),
            )?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(closing)", e));
        match result {
            Ok(_) | Err(StoreError::ConditionalCheckFailed) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Counts the frozen board's entries and records `playerCount` (the same number for every
    /// concurrent close). An indexed board's lanes count its entries (each play's `created`,
    /// each import's, each repair's correction): one consistent read of the lanes, whatever
    /// the board's size. A board the migration has still to move onto the index has no such
    /// count: its Score items are counted, `ceil(N / 4,681)` Queries (and one more a write
    /// shard).
    async fn count_entries(self, board: &Board) -> Result<u64, StoreError> {
        let id = &board.board_id;
        let count = if board.indexed() {
            let lanes = self
                .store
                .table
                .read_lane_items(board, &mut RankCost::default())
                .await?;
            u64::try_from(lane_counts(&lanes).1).unwrap_or(0)
        } else {
            let mut count = 0;
            for pk in board.score_pks() {
                count += self
                    .store
                    .table
                    .count_range(&pk, SCORE_PREFIX, SCORE_UPPER_BOUND)
                    .await?
                    .0;
            }
            count
        };
        self.store
            .table
            .update_request(
                &entity::board(id),
                "SET playerCount = if_not_exists(playerCount, :count)",
            )
            .params(Params::new().value(":count", count))?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(playerCount)", e))?;
        Ok(count)
    }
}

/// The progress of a board found closed.
fn closed(board: Board) -> CloseProgress {
    CloseProgress::Closed {
        board: board.board_id,
        player_count: board.player_count.unwrap_or(0),
        next: board.next_board_id,
    }
}
