//! The self-healing of the rank index. A lane stops at a change that never comes: a record
//! the stream discarded after its retries, or a written count moved without a change (a failed
//! import). The batch that finds the gap records a repair request for the board (one write)
//! and goes on: the lane's later changes are the rebuild's to count. The repair run, on the
//! season-close schedule, rebuilds each board whose request has waited
//! [`RepairOptions::min_age`] and whose lanes are still stopped there, while plays go on: a
//! rebuild staged over as many runs as it needs (`staged.rs`), switched as
//! [`Rank::rebuild_lane_index`] switches. Until then the lag shows in `rankLag` and nothing
//! behind it is answered as exact.

use std::time::{Duration, Instant};

use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank_index::{MAX_LANES, REPAIR_PK, repair_key};
use leaderboard_keys::time::Timestamp;

use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt, key_string};
use crate::ground::model::{BoardStatus, RankLayout};
use crate::primitives::pass::{Pass, PassSpec, Ready};
use crate::rank::Rank;
use crate::rank::lanes::{missing_attr, past_gap_attr};
use crate::rank::maintenance::rebuild::RebuildOutcome;
use crate::rank::maintenance::staged::{Stage, Staged};
use crate::table::request::{Index, Params, WithParams};

/// How a repair run chooses its work.
#[derive(Debug, Clone)]
pub struct RepairOptions {
    /// How long a request waits before its board is rebuilt: a missing record that comes late
    /// (a redelivery) heals the lane without a rebuild.
    pub min_age: Duration,
    /// Requests read (and boards rebuilt at most) per run.
    pub max_boards: i32,
}

impl Default for RepairOptions {
    fn default() -> RepairOptions {
        RepairOptions {
            min_age: Duration::from_secs(60),
            max_boards: 10,
        }
    }
}

/// What a repair run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RepairSummary {
    /// Boards rebuilt, with what each rebuild did.
    pub rebuilt: Vec<(BoardId, RebuildOutcome)>,
    /// Boards whose lanes had moved past their gaps by themselves: request dropped.
    pub caught_up: Vec<BoardId>,
    /// Requests younger than `min_age`, left for a later run.
    pub waiting: usize,
    /// Boards whose rebuild failed this time (logged; the request stays for the next run).
    pub failed: Vec<BoardId>,
    /// Boards another run is repairing (it holds their request's lease), left to it.
    pub busy: Vec<BoardId>,
    /// Boards whose rebuild the next run carries on from its checkpoint (out of time).
    pub continuing: Vec<BoardId>,
}

/// A repair request's hold: its lease, and its staged rebuild's checkpoint under it.
static REPAIR_HOLD: PassSpec = PassSpec {
    ready: Some(Ready {
        condition: "attribute_exists(pk)",
        holds: |_| true,
    }),
    lease: "UpdateItem(rank index repair lease)",
    scan: "Scan(rank index repair)",
    checkpoint: "UpdateItem(rank index rebuild checkpoint)",
    release: "UpdateItem(rank index repair release)",
};

/// What became of one repair request.
enum Repaired {
    Rebuilt(RebuildOutcome),
    CaughtUp,
    /// Another run holds the request's lease.
    Busy,
    /// The rebuild goes on in the next run, from its checkpoint.
    Continues,
    /// The last run's rebuild finished deleting what it replaced.
    Cleared,
    /// The board is gone, closed or not indexed: its index needs no repair.
    NotServed,
}

impl Rank<'_> {
    /// Repairs the boards whose lanes stopped at a missing change: see the module
    /// documentation. Stops starting rebuilds at `deadline`. Requests: one Query of at most
    /// `max_boards` requests, then per board one root read, and for a board still stopped a
    /// board read and a rebuild ([`Rank::rebuild_lane_index`]), and one delete of its request.
    pub async fn repair_rank_indexes(
        self,
        now: Timestamp,
        options: &RepairOptions,
        deadline: Option<Instant>,
    ) -> Result<RepairSummary, StoreError> {
        let out = self
            .table
            .query_request(Index::Table)
            .key_condition_expression("pk = :pk")
            .params(Params::new().value(":pk", REPAIR_PK))?
            .consistent_read(true)
            .limit(options.max_boards)
            .send()
            .await
            .map_err(|e| StoreError::sdk("Query(rank index repair requests)", e))?;
        let mut summary = RepairSummary::default();
        for request in out.items.unwrap_or_default() {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let Ok(board) = BoardId::parse(&key_string(&request, "sk")) else {
                tracing::error!(
                    sk = key_string(&request, "sk"),
                    "repair request of no board"
                );
                continue;
            };
            let at: u64 = request.number("at").unwrap_or(0);
            // A rebuild under way goes on at once.
            if now.as_millis() < at.saturating_add(options.min_age.as_millis() as u64)
                && !Stage::read(&request).started()
            {
                summary.waiting += 1;
                continue;
            }
            // One board's failure is the next run's to retry, not a reason to skip the others.
            match self.repair_board(&board, &request, deadline).await {
                Ok(Repaired::Rebuilt(rebuilt)) => summary.rebuilt.push((board, rebuilt)),
                Ok(Repaired::CaughtUp) => summary.caught_up.push(board),
                Ok(Repaired::Busy) => summary.busy.push(board),
                Ok(Repaired::Continues) => summary.continuing.push(board),
                Ok(Repaired::NotServed | Repaired::Cleared) => {}
                Err(e) => {
                    tracing::error!(%board, error = %e, "rank index repair failed; the next run retries");
                    summary.failed.push(board);
                }
            }
        }
        Ok(summary)
    }

    /// Rebuilds `board` if its lanes are still stopped where `request` says, and drops the
    /// request; under the request's lease, so that two runs never rebuild one board at once
    /// (the later one's reservation would cancel the earlier one's switch). The rebuild is
    /// staged: a run out of time leaves its checkpoint on the request for the next.
    async fn repair_board(
        self,
        board: &BoardId,
        request: &Item,
        deadline: Option<Instant>,
    ) -> Result<Repaired, StoreError> {
        let seen: u64 = request.number("seen").unwrap_or(0);
        if !Stage::read(request).started() && !self.still_stopped(board, request).await? {
            tracing::info!(%board, "rank index lanes moved past their gaps; no repair needed");
            self.drop_repair_request(board, seen).await?;
            return Ok(Repaired::CaughtUp);
        }
        let taken = Pass::take_pass(self.table, &REPAIR_HOLD, repair_key(board), deadline).await?;
        let Some(pass) = taken else {
            return Ok(Repaired::Busy);
        };
        let request = pass.item();
        let repaired = async {
            let serving = self.table.board(board).await?.filter(|b| {
                // A closed board's index is no longer read.
                b.rank_layout == RankLayout::V2 && b.status == BoardStatus::Open
            });
            let mut stage = Stage::read(request);
            let staged = self
                .run_stage(board, serving.as_ref(), &mut stage, &pass)
                .await?;
            let seen: u64 = request.number("seen").unwrap_or(0);
            Ok(match staged {
                Staged::Continues => Repaired::Continues,
                Staged::Switched(rebuilt) if stage.started() => Repaired::Rebuilt(rebuilt),
                Staged::Switched(rebuilt) => {
                    self.drop_repair_request(board, seen).await?;
                    Repaired::Rebuilt(rebuilt)
                }
                Staged::Finished => {
                    self.drop_repair_request(board, seen).await?;
                    match serving {
                        Some(_) => Repaired::Cleared,
                        None => Repaired::NotServed,
                    }
                }
            })
        }
        .await;
        // The request stays when a batch met a gap again meanwhile, or the rebuild failed: the
        // next run may take it at once.
        pass.end_pass(repaired).await
    }

    /// Whether a lane of `board` is still stopped where `request` says. A lane has caught up
    /// once it is applied up to the latest change a batch met past its gap (its missing change
    /// came late, and so did the ones after it); a request from before that attribute existed
    /// knows only the missing change.
    async fn still_stopped(self, board: &BoardId, request: &Item) -> Result<bool, StoreError> {
        let applied = self.table.read_root(board).await?.watermarks;
        Ok((0..MAX_LANES).any(|lane| {
            let past = request.number::<u64>(&past_gap_attr(lane));
            request
                .number::<u64>(&missing_attr(lane))
                .is_some_and(|missing| applied.get(lane) < past.unwrap_or(missing).max(missing))
        }))
    }

    /// Deletes `board`'s repair request unless a batch saw a gap again after `seen` (that one
    /// is looked at by the next run).
    async fn drop_repair_request(self, board: &BoardId, seen: u64) -> Result<(), StoreError> {
        let sent = self
            .table
            .delete_request(&repair_key(board))
            .condition_expression("#seen = :seen")
            .params(Params::new().name("#seen", "seen").value(":seen", seen))?
            .send()
            .await;
        match sent.map_err(|e| StoreError::sdk("DeleteItem(rank index repair request)", e)) {
            Ok(_) | Err(StoreError::ConditionalCheckFailed) => Ok(()),
            Err(e) => Err(e),
        }
    }
}
