//! The season-close function, run by an EventBridge schedule: it finds every open board whose
//! `endsAt` has passed (GSI2's sparse `BOARDS#OPEN` index, never a Scan) and closes each one with
//! [`Close::close_board`](leaderboard_store::Close::close_board): rollover, snapshot, archive. Boards take turns of
//! [`PAGES_PER_TURN`] snapshot pages, oldest first, so no due board waits behind another's long
//! snapshot. A board another run is closing (it holds the board's close lease) is left to that
//! run. Then, with the time left, it repairs the
//! rank indexes whose lanes stopped at a lost change ([`Rank::repair_rank_indexes`](leaderboard_store::Rank::repair_rank_indexes)), and goes
//! on with the one pass that moves boards stored before the rank index's current layout onto it
//! and deletes the replaced layout's items ([`Rank::sweep_rank_layout`](leaderboard_store::Rank::sweep_rank_layout)), lists the boards
//! stored before the board listing ([`BoardListing::list_old_boards`](leaderboard_store::BoardListing::list_old_boards)), and finishes the
//! player erasures their requests could not ([`Moderation::continue_erasures`](leaderboard_store::Moderation::continue_erasures)), and a recount of
//! players' totals an operator asked for ([`Projection::run_recount`](leaderboard_store::Projection::run_recount)). It stops
//! a safe margin before the Lambda time limit; what it did not finish is checkpointed on the
//! board and resumed by the next run.
//!
//! Settings (environment): `CLOSE_RETENTION_DAYS` (how long archived live items are kept,
//! default 30) and `CLOSE_PAGE_SIZE` (entries per snapshot page, default 500).

pub mod metrics;

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use lambda_runtime::{Error, LambdaEvent};
use leaderboard_events::{BoardClosed, Event, Publisher, Standing, TOP_COUNT};
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::time::{Timestamp, time_left};
use leaderboard_metrics::Sink;
use leaderboard_store::{
    CloseOptions, CloseProgress, DEFAULT_RETENTION_DAYS, KeyCheck, ListingPassOptions,
    RecountRunOptions, RepairOptions, Store, SweepOptions,
};
use serde::Serialize;
use serde_json::Value;

use crate::metrics::RunMetrics;

/// The snapshot pages a board gets per turn: due boards take turns, so a board of millions of
/// entries does not hold back every board due after it.
pub const PAGES_PER_TURN: u32 = 4;

/// How long before the Lambda deadline the function stops starting new pages.
pub const DEADLINE_MARGIN: Duration = Duration::from_secs(15);

/// The function's state.
pub struct App {
    store: Store,
    options: CloseOptions,
    /// How the rank index repair picks its boards.
    pub repair: RepairOptions,
    /// How much of a recount a run does.
    pub recount: RecountRunOptions,
    /// How much of the pass onto the rank index's current layout a run does.
    pub sweep: SweepOptions,
    /// How much of the pass that lists boards stored before the board listing a run does.
    pub listing: ListingPassOptions,
    clock: fn() -> Timestamp,
    metrics: Sink,
    /// Where `BoardClosed` goes (nowhere by default).
    publisher: Publisher,
}

impl App {
    /// The function over `store` with these options.
    pub fn new(store: Store, options: CloseOptions) -> App {
        App {
            store,
            options,
            repair: RepairOptions::default(),
            recount: RecountRunOptions::default(),
            sweep: SweepOptions::default(),
            listing: ListingPassOptions::default(),
            clock: Timestamp::now,
            metrics: Sink::stdout(),
            publisher: Publisher::Off,
        }
    }

    /// The same, publishing `BoardClosed` with `publisher` for every board it closes.
    pub fn with_publisher(self, publisher: Publisher) -> App {
        App { publisher, ..self }
    }

    /// The same, its metrics to `sink`.
    pub fn with_metrics(self, sink: Sink) -> App {
        App {
            metrics: sink,
            ..self
        }
    }

    /// The function over `store`, configured from `CLOSE_RETENTION_DAYS` and `CLOSE_PAGE_SIZE`.
    pub fn from_env(store: Store) -> Result<App, Error> {
        let number = |name: &str, default: u64, max: u64| -> Result<u64, Error> {
            match std::env::var(name) {
                Err(_) => Ok(default),
                Ok(v) => v
                    .parse::<u64>()
                    .ok()
                    .filter(|n| (1..=max).contains(n))
                    .ok_or_else(|| format!("{name} must be an integer from 1 to {max}").into()),
            }
        };
        let options = CloseOptions {
            retention_days: number("CLOSE_RETENTION_DAYS", DEFAULT_RETENTION_DAYS, 3650)?,
            page_size: number("CLOSE_PAGE_SIZE", 500, 1000)? as usize,
            ..CloseOptions::default()
        };
        Ok(App::new(store, options))
    }
}

/// What one run did.
#[derive(Debug, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct CloseSummary {
    /// Boards closed by this run, with their successors.
    pub closed: Vec<ClosedBoard>,
    /// Boards left part-way (time limit); the next run resumes them.
    pub paused: Vec<PausedBoard>,
    /// Boards whose close failed this time (logged; retried by the next run).
    pub failed: Vec<String>,
    /// Boards another run was closing (it holds their close lease), left to it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub busy: Vec<BoardId>,
    /// Boards whose rank index was rebuilt after a lane stopped at a lost change.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rank_repaired: Vec<BoardId>,
    /// Boards whose rank index repair failed this time (logged; retried by the next run).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rank_repair_failed: Vec<BoardId>,
    /// Boards another run was repairing (it holds their request's lease), left to it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rank_repair_busy: Vec<BoardId>,
    /// Boards whose rank index rebuild the next run carries on from its checkpoint.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rank_repair_continuing: Vec<BoardId>,
    /// Boards stored before the rank index's current layout, moved onto it by this run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rank_migrated: Vec<BoardId>,
    /// A board whose move onto the current layout failed (logged; the next run starts at it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank_migration_failed: Option<BoardId>,
    /// Items of the replaced rank index layout deleted by this run.
    #[serde(skip_serializing_if = "is_zero")]
    pub old_index_items_deleted: usize,
    /// Boards whose lanes the pass grouped under one partition key.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lanes_grouped: Vec<BoardId>,
    /// Boards whose index was too far behind to group their lanes (a later pass does).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lanes_behind: Vec<BoardId>,
    /// Boards stored before the board listing that this run listed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub boards_listed: Vec<BoardId>,
    /// Player erasures a request left unfinished, finished by this run.
    #[serde(skip_serializing_if = "is_zero")]
    pub erasures_finished: usize,
    /// Players whose totals this run recounted from their sessions.
    #[serde(skip_serializing_if = "is_zero")]
    pub players_recounted: usize,
    /// Whether this run finished the recount asked for.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub recount_done: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
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
/// by pseudonym, one BatchGetItem of their markers), its count and its successor. Called once
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
    app.publisher.publish(&[Event::BoardClosed(event)]).await
}

/// Keeps the table's check of the erasure secret (`lbctl` compares its own with it): written
/// by the first run after a deploy; a check made with another secret is logged, never
/// replaced, and stops nothing else.
async fn keep_key_check(app: &App) {
    match app.store.moderation().keep_erasure_key_check().await {
        Ok(KeyCheck::Differs) => tracing::error!(
            "the table's erasure key check was made with another ERASURE_SECRET: pseudonyms \
             and erasure markers from before do not match this stack's secret"
        ),
        Ok(_) => {}
        Err(e) => {
            tracing::warn!(error = %e, "the erasure key check was not kept; the next run tries again")
        }
    }
}

/// Handles one scheduled invocation (any payload: the schedule's event is not needed).
pub async fn handle(app: &App, event: LambdaEvent<Value>) -> Result<CloseSummary, Error> {
    // `DEADLINE_MARGIN` before the invocation's deadline, if it has one.
    let deadline = time_left(event.context.deadline)
        .map(|left| Instant::now() + left.saturating_sub(DEADLINE_MARGIN));
    let mut metrics = RunMetrics::start(&app.metrics);
    let summary = run_measured(app, deadline, &mut metrics).await;
    metrics.write(&app.metrics, summary.as_ref().ok(), (app.clock)());
    Ok(summary?)
}

/// Closes every due board, stopping at `deadline`.
pub async fn run(
    app: &App,
    deadline: Option<Instant>,
) -> Result<CloseSummary, leaderboard_store::StoreError> {
    run_measured(app, deadline, &mut RunMetrics::default()).await
}

async fn run_measured(
    app: &App,
    deadline: Option<Instant>,
    metrics: &mut RunMetrics,
) -> Result<CloseSummary, leaderboard_store::StoreError> {
    let now = (app.clock)();
    keep_key_check(app).await;
    let due = app.store.close().due_boards_ending(now).await?;
    metrics.due(&due);
    let due: Vec<BoardId> = due.into_iter().map(|(_, board)| board).collect();
    let due_order = due.clone();
    tracing::info!(due = due.len(), "season close run");
    let options = CloseOptions {
        deadline,
        ..app.options.clone()
    };
    let mut summary = CloseSummary::default();
    // Boards take turns of a few pages each, oldest first, so that no due board waits behind
    // another's long snapshot. A run whose options cap its pages (a test of interruption) gives
    // each board one turn of that many.
    let turn = app.options.max_pages.unwrap_or(PAGES_PER_TURN);
    let mut waiting: VecDeque<BoardId> = due.into();
    let mut progress: HashMap<BoardId, PausedBoard> = HashMap::new();
    while let Some(board) = waiting.pop_front() {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            waiting.push_front(board);
            break;
        }
        let options = CloseOptions {
            max_pages: Some(turn),
            // `BoardClosed` goes out before the board stops being due (see `publish_closed`).
            stop_before_finish: app.publisher.is_on(),
            ..options.clone()
        };
        let mut outcome = app.store.close().close_board(&board, now, &options).await;
        if let Ok(CloseProgress::Snapshotted {
            player_count, next, ..
        }) = &outcome
        {
            if let Err(why) = publish_closed(app, &board, *player_count, next.as_ref()).await {
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
            outcome = app.store.close().close_board(&board, now, &finish).await;
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
                if app.options.max_pages.is_none() {
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
    if deadline.is_none_or(|d| Instant::now() < d) {
        match app
            .store
            .rank()
            .repair_rank_indexes(now, &app.repair, deadline)
            .await
        {
            Ok(repair) => {
                summary.rank_repaired = repair.rebuilt.into_iter().map(|(b, _)| b).collect();
                summary.rank_repair_failed = repair.failed;
                summary.rank_repair_busy = repair.busy;
                summary.rank_repair_continuing = repair.continuing;
            }
            // Closing is this function's first job: a failed repair run is retried next time.
            Err(e) => tracing::error!(error = %e, "rank index repair run failed"),
        }
    }
    if deadline.is_none_or(|d| Instant::now() < d) {
        match app
            .store
            .rank()
            .sweep_rank_layout(&app.sweep, deadline)
            .await
        {
            Ok(sweep) => {
                summary.rank_migrated = sweep.migrated;
                summary.rank_migration_failed = sweep.failed;
                summary.old_index_items_deleted = sweep.deleted;
                summary.lanes_grouped = sweep.grouped;
                summary.lanes_behind = sweep.behind;
            }
            Err(e) => tracing::error!(error = %e, "rank layout sweep failed"),
        }
    }
    if deadline.is_none_or(|d| Instant::now() < d) {
        match app
            .store
            .board_listing()
            .list_old_boards(&app.listing, deadline)
            .await
        {
            Ok(pass) => summary.boards_listed = pass.listed,
            Err(e) => tracing::error!(error = %e, "board listing pass failed"),
        }
    }
    if deadline.is_none_or(|d| Instant::now() < d) {
        match app
            .store
            .moderation()
            .continue_erasures(now, deadline)
            .await
        {
            Ok(n) => summary.erasures_finished = n,
            Err(e) => tracing::error!(error = %e, "finishing erasures failed"),
        }
    }
    if deadline.is_none_or(|d| Instant::now() < d) {
        match app
            .store
            .projection()
            .run_recount(&app.recount, deadline)
            .await
        {
            Ok(run) => {
                summary.players_recounted = run.recounted as usize;
                summary.recount_done = run.done;
            }
            Err(e) => tracing::error!(error = %e, "recount run failed; the next run goes on"),
        }
    }
    Ok(summary)
}
