//! The season-close schedule: `season_close::run` every period (the template's `rate(...)`, or
//! `LOCAL_CLOSE_EVERY_SECS`), and on demand from `POST /local/schedule/season-close`.
//!
//! Runs never overlap: a run fired while another is under way waits for it (season close is
//! safe to run twice, but one at a time keeps the local logs readable). Each run gets the
//! deadline its Lambda would have: the function's timeout, less season close's own margin.

use std::time::{Duration, Instant};

use leaderboard_store::StoreError;
use season_close::RunSummary;
use tokio::sync::{Mutex, watch};

/// Season close, callable on a schedule and on demand.
pub struct Schedule {
    app: season_close::App,
    timeout: Duration,
    running: Mutex<()>,
}

impl Schedule {
    /// Season close over `app`, each run limited as a Lambda of this timeout is.
    pub fn new(app: season_close::App, timeout: Duration) -> Schedule {
        Schedule {
            app,
            timeout,
            running: Mutex::new(()),
        }
    }

    /// Runs season close now (after a run under way, if any) and returns what it did.
    pub async fn fire(&self) -> Result<RunSummary, StoreError> {
        let _one_at_a_time = self.running.lock().await;
        let deadline = Instant::now() + self.timeout.saturating_sub(season_close::DEADLINE_MARGIN);
        let summary = season_close::run(&self.app, Some(deadline)).await?;
        if !summary.close().closed.is_empty()
            || !summary.close().paused.is_empty()
            || !summary.close().failed.is_empty()
            || !summary.close().busy.is_empty()
        {
            tracing::info!(
                closed = summary.close().closed.len(),
                paused = summary.close().paused.len(),
                failed = summary.close().failed.len(),
                busy = summary.close().busy.len(),
                "season close"
            );
        }
        Ok(summary)
    }

    /// Fires every `every` until `shutdown` turns true. The first run is one period after the
    /// start, as a new EventBridge schedule's is.
    pub async fn run_every(&self, every: Duration, mut shutdown: watch::Receiver<bool>) {
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = ticks.tick() => {}
                _ = crate::stopped(&mut shutdown) => return,
            }
            if let Err(e) = self.fire().await {
                tracing::error!(error = %e, "scheduled season close failed; the next run retries");
            }
        }
    }
}
