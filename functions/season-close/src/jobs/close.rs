//! The close job, the function's first duty: it finds every open board whose `endsAt` has
//! passed (GSI2's sparse `BOARDS#OPEN` index, never a Scan) and closes each one with
//! [`Close::close_board`](leaderboard_store::Close::close_board): rollover, snapshot, archive.
//! Boards take turns of [`PAGES_PER_TURN`] snapshot pages, oldest first, so no due board waits
//! behind another's long snapshot. A board another run is closing (it holds the board's close
//! lease) is left to that run. Each page's rewards are published as the close grants them
//! ([`RewardEvents`]). What the deadline leaves unfinished is checkpointed on the board
//! and resumed by the next run.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Instant;

use leaderboard_events::{BoardClosed, BoardOpened, Event, Standing, TOP_COUNT};
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::{CloseOptions, CloseProgress, StoreError};
use serde::Serialize;

use super::reward_events::RewardEvents;
use super::{Job, Outcome, Step, StepFuture, boxed};
use crate::App;

/// The snapshot pages a board gets per turn: due boards take turns, so a board of millions of
/// entries does not hold back every board due after it.
pub const PAGES_PER_TURN: u32 = 4;

/// The job.
pub struct CloseJob;

/// What it did.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct CloseOutcome {
    /// Boards closed by this run, with their successors.
    pub closed: Vec<ClosedBoard>,
    /// Boards left part-way (time limit); the next run resumes them.
    pub paused: Vec<PausedBoard>,
    /// Boards whose close failed this time (logged; retried by the next run).
    pub failed: Vec<String>,
    /// Boards another run was closing (it holds their close lease), left to it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub busy: Vec<BoardId>,
    /// The boards due when the run began, with their ends (the close backlog's metric).
    #[serde(skip)]
    pub due: Vec<(Timestamp, BoardId)>,
}

impl CloseOutcome {
    /// No board closed: the outcome of a run whose close job did not run.
    pub const NONE: CloseOutcome = CloseOutcome {
        closed: Vec::new(),
        paused: Vec::new(),
        failed: Vec::new(),
        busy: Vec::new(),
        due: Vec::new(),
    };
}

impl Outcome for CloseOutcome {
    fn failures(&self) -> usize {
        self.failed.len()
    }
}

/// A board this run closed.
#[derive(Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ClosedBoard {
    /// The board.
    #[serde(rename = "leaderboardId")]
    pub board_id: BoardId,
    /// Its player count.
    pub player_count: u64,
    /// Its successor.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(rename = "nextLeaderboardId")]
    pub next_board_id: Option<BoardId>,
}

/// A board this run left part-way.
#[derive(Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct PausedBoard {
    /// The board.
    #[serde(rename = "leaderboardId")]
    pub board_id: BoardId,
    /// Ranks snapshotted so far.
    pub done: u64,
    /// Ranks in all.
    pub total: u64,
}

/// Publishes `board`'s `BoardClosed`: its first 10 final standings (one Query; erased players
/// by pseudonym, one BatchGetItem of their markers), its count and its successor; and the
/// successor's `BoardOpened` (one GetItem of it). Called once
/// the snapshot is complete and before the board is marked closed, so that a publication lost
/// here is made again by the next run, with the same `eventId`.
async fn publish_closed(
    app: &App,
    board: &BoardId,
    player_count: u64,
    next: Option<&BoardId>,
) -> Result<(), String> {
    let top = app
        .store
        .listings()
        .final_standings(board, TOP_COUNT, None)
        .await
        .map_err(|e| e.to_string())?;
    // A player whose erasure began (it may be waiting for this very close to finish) is
    // named by their pseudonym, without a name: an event cannot be recalled.
    let named: Vec<_> = top.items.iter().map(|f| f.player_id.clone()).collect();
    let erased = app
        .store
        .moderation()
        .erased_among(&named)
        .await
        .map_err(|e| e.to_string())?;
    let top = top
        .items
        .into_iter()
        .map(|f| {
            let (player_id, name) = match erased.get(&f.player_id) {
                Some(pseudonym) => (pseudonym.to_string(), None),
                None => (f.player_id.to_string(), Some(f.name)),
            };
            Standing {
                rank: f.rank,
                player_id,
                name,
                score: f.score,
            }
        })
        .collect();
    let event = BoardClosed::new(
        board.as_str(),
        player_count,
        top,
        next.map(|b| b.to_string()),
    );
    let mut events = Vec::new();
    // The successor's opening goes out with its predecessor's close, under the same rule: a
    // publication lost here is made again by the next run, with the same ids.
    if let Some(next) = next {
        let opened = app
            .store
            .boards()
            .get_board(next)
            .await
            .map_err(|e| e.to_string())?;
        if let Some(b) = opened {
            events.push(Event::BoardOpened(BoardOpened::new(
                b.board_id.as_str(),
                b.series().as_str(),
                b.starts_at.to_string(),
                b.ends_at.map(|e| e.to_string()),
            )));
        }
    }
    events.push(Event::BoardClosed(event));
    app.publisher.publish(&events).await
}

impl Job for CloseJob {
    fn name(&self) -> &'static str {
        "close"
    }

    fn run_step<'a>(&'a self, step: &'a Step<'a>) -> StepFuture<'a> {
        boxed(close_due(step))
    }

    /// A run that cannot even list the due boards fails.
    fn required(&self) -> bool {
        true
    }
}

/// Closes every due board, in turns, until `step.deadline`.
async fn close_due(step: &Step<'_>) -> Result<CloseOutcome, StoreError> {
    let (now, deadline) = (step.now, step.deadline);
    let due_at = step.app.store.close().due_boards_ending(now).await?;
    let due: Vec<BoardId> = due_at.iter().map(|(_, board)| board.clone()).collect();
    let due_order = due.clone();
    tracing::info!(due = due.len(), "season close run");
    let options = CloseOptions {
        deadline,
        ..step.app.options.clone()
    };
    let mut summary = CloseOutcome {
        due: due_at,
        ..CloseOutcome::default()
    };
    // Boards take turns of a few pages each, oldest first, so that no due board waits behind
    // another's long snapshot. A run whose options cap its pages (a test of interruption) gives
    // each board one turn of that many.
    let turn = step.app.options.max_pages.unwrap_or(PAGES_PER_TURN);
    let mut waiting: VecDeque<BoardId> = due.into();
    let mut progress: HashMap<BoardId, PausedBoard> = HashMap::new();
    let mut waited: HashSet<BoardId> = HashSet::new();
    let rewards = RewardEvents { app: step.app };
    while let Some(board) = waiting.pop_front() {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            waiting.push_front(board);
            break;
        }
        let options = CloseOptions {
            max_pages: Some(turn),
            // `BoardClosed` goes out before the board stops being due (see `publish_closed`).
            stop_before_finish: step.app.publisher.is_on(),
            ..options.clone()
        };
        let mut outcome = step
            .app
            .store
            .close()
            .close_board_watched(&board, now, &options, &rewards)
            .await;
        if let Ok(CloseProgress::Snapshotted {
            player_count, next, ..
        }) = &outcome
        {
            if let Err(why) = publish_closed(step.app, &board, *player_count, next.as_ref()).await {
                // The board stays `closing` and due: the next run publishes again (same id).
                tracing::error!(board = %board, error = %why, "BoardClosed not published; the next run retries");
                progress.remove(&board);
                summary.failed.push(board.to_string());
                continue;
            }
            let finish = CloseOptions {
                stop_before_finish: false,
                ..options.clone()
            };
            outcome = step
                .app
                .store
                .close()
                .close_board_watched(&board, now, &finish, &rewards)
                .await;
        }
        match outcome {
            Ok(CloseProgress::Closed {
                board,
                player_count,
                next,
            }) => {
                progress.remove(&board);
                summary.closed.push(ClosedBoard {
                    board_id: board,
                    player_count,
                    next_board_id: next,
                });
            }
            Ok(CloseProgress::Paused { board, done, total }) => {
                let paused = PausedBoard {
                    board_id: board.clone(),
                    done,
                    total,
                };
                progress.insert(board.clone(), paused);
                if step.app.options.max_pages.is_none() {
                    waiting.push_back(board);
                }
            }
            Ok(CloseProgress::Waiting {
                board,
                closed,
                cohorts,
            }) => {
                let paused = PausedBoard {
                    board_id: board.clone(),
                    done: closed,
                    total: cohorts,
                };
                progress.insert(board.clone(), paused);
                // Its cohorts are due with it, after it: one more turn once they had theirs.
                if step.app.options.max_pages.is_none() && waited.insert(board.clone()) {
                    waiting.push_back(board);
                }
            }
            Ok(CloseProgress::NotDue { .. }) => {}
            // Only a close asked to stop before finishing answers this; finished above.
            Ok(CloseProgress::Snapshotted { board, .. }) => {
                progress.remove(&board);
                summary.failed.push(board.to_string());
            }
            Ok(CloseProgress::Busy { board, .. }) => {
                progress.remove(&board);
                summary.busy.push(board);
            }
            Err(e) => {
                tracing::error!(board = %board, error = %e, "close failed; the next run retries");
                progress.remove(&board);
                summary.failed.push(board.to_string());
            }
        }
    }
    // What the time left unfinished, in the order it was due; the next run resumes it.
    summary.paused = due_order
        .iter()
        .filter_map(|b| progress.remove(b))
        .collect();
    Ok(summary)
}
