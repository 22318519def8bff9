//! The recount run: every player's totals recounted from their sessions (`recount`), the
//! recovery after an outage longer than the stream's retention or a dead-letter queue whose
//! players are not known. An operator asks for it with one item, `RECOUNT` / `#RUN`
//! ([`Projection::request_recount`]); season close's schedule then works it, a bounded piece a run.
//!
//! The run is a resumable pass (`primitives::pass`) whose Scan reads Session items (at most
//! [`RecountRunOptions::scan_pages`] pages a run) and whose players are recounted one by one, in
//! the order the Scan meets them (a player's items are together). Its position lives on the run
//! item: the pass's place (the key the page it is in started after), the last player of that
//! page recounted, and a player's recount paused part-way (its progress). So a run that stops anywhere, at its deadline or
//! killed, is taken up where its last checkpoint left it; a player recounted twice gets the
//! same totals. A player who played too recently to be recounted exactly
//! ([`RecountOutcome::Busy`]) gets an item `RECOUNT` / `BUSY#<playerId>` with the time to try
//! again; once the Scan is over the run recounts those as they come due, and the run is done
//! (`doneAt`, `done`) when none is left. One run at a time holds the run item's lease.

use std::time::{Duration, Instant};

use leaderboard_keys::entity::{self, Key, SESSION_PREFIX};
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::time::Timestamp;

use serde::Serialize;

use super::recount::{Recount, RecountOutcome, RecountPages};
use crate::features::projection::Projection;
use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt, key_item, key_string, n, s};
use crate::primitives::pass::{
    AtEnd, Pass, PassPages, PassSpec, PassStart, PassState, PassWork, Ready, ScanFilter, Scanned,
    Worked,
};
use crate::table::request::{Index, Params, WithParams};

pub use leaderboard_keys::entity::RECOUNT_PK;
use leaderboard_keys::entity::RECOUNT_WAIT_PREFIX;
const RUN_SK: &str = "#RUN";
/// No player's recount is started with less time than this left before the deadline.
const PLAYER_MARGIN: Duration = Duration::from_secs(5);

/// How much of the recount a run does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecountRunOptions {
    /// Scan pages a run reads at most (each up to 1 MB, 128 read units).
    pub scan_pages: u32,
    /// Items a Scan page reads at most, if fewer than 1 MB of them.
    pub page_items: Option<u32>,
    /// How much of one player's sessions a call reads.
    pub sessions: RecountPages,
    /// Busy players retried a run at most.
    pub busy: i32,
    /// How long a play may take to commit ([`super::recount::PLAY_SETTLE`]; tests shorten it).
    pub settle: Duration,
}

impl Default for RecountRunOptions {
    fn default() -> Self {
        RecountRunOptions {
            scan_pages: 20,
            page_items: None,
            sessions: RecountPages::default(),
            busy: 100,
            settle: super::recount::PLAY_SETTLE,
        }
    }
}

/// What one run of the recount did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecountRunOutcome {
    /// Scan pages read.
    pub pages: u32,
    /// Players whose totals were written.
    pub recounted: u32,
    /// Players left for later (they played too recently).
    pub busy: u32,
    /// Erased players met (nothing written).
    pub erased: u32,
    /// Whether the recount is over (this run finished it).
    pub done: bool,
    /// Whether there was nothing to do: no recount asked for, or another run holds it.
    pub idle: bool,
}

/// A recount as its run item shows it: `GET /admin/recount`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecountStatus {
    /// When it was asked for.
    pub requested_at: Timestamp,
    /// Who asked (an admin's `sub`).
    pub requested_by: String,
    /// Whether the Scan over the players is over (busy players may be left).
    pub scanned: bool,
    /// When it finished; absent while it goes on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub done_at: Option<Timestamp>,
}

static RECOUNT_PASS: PassSpec = PassSpec {
    ready: Some(Ready {
        condition: "attribute_exists(requestedAt) AND attribute_not_exists(doneAt)",
        holds: |item| item.contains_key("requestedAt") && !item.contains_key("doneAt"),
    }),
    lease: "UpdateItem(recount lease)",
    scan: "Scan(recount)",
    checkpoint: "UpdateItem(recount checkpoint)",
    release: "UpdateItem(recount release)",
};

impl Projection<'_> {
    /// Asks for a recount of every player, from the start (one PutItem): a run in progress
    /// loses its lease and stops at its next checkpoint.
    pub async fn request_recount(
        self,
        requested_by: &str,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let mut item = key_item(&Key::new(RECOUNT_PK, RUN_SK));
        item.insert("requestedAt".into(), n(now.as_millis()));
        item.insert("requestedBy".into(), s(requested_by));
        self.store
            .table
            .put_request(item)
            .send()
            .await
            .map_err(|e| StoreError::sdk("PutItem(recount request)", e))?;
        Ok(())
    }

    /// The recount asked for last, as its run item shows it (one consistent GetItem).
    pub async fn recount_status(self) -> Result<Option<RecountStatus>, StoreError> {
        let Some(item) = self
            .store
            .table
            .get_raw(&Key::new(RECOUNT_PK, RUN_SK))
            .await?
        else {
            return Ok(None);
        };
        let time = |name: &str| {
            item.number::<u64>(name)
                .and_then(|ms| Timestamp::from_millis(ms).ok())
        };
        Ok(Some(RecountStatus {
            requested_at: time("requestedAt").unwrap_or(Timestamp::now()),
            requested_by: item.string("requestedBy").unwrap_or_default().to_owned(),
            scanned: item.contains_key("scanned"),
            done_at: time("doneAt"),
        }))
    }

    /// One run of the recount (see the module documentation), until its pages or `deadline`
    /// run out. Requests: 1 read of the run item (all a run does when none is asked for), 1
    /// lease, per Scan page 1 Scan, per player its recount and 1 checkpoint, per busy player 1
    /// write.
    pub async fn run_recount(
        self,
        options: &RecountRunOptions,
        deadline: Option<Instant>,
    ) -> Result<RecountRunOutcome, StoreError> {
        let mut pass = match Pass::start_pass(
            &self.store.table,
            &RECOUNT_PASS,
            Key::new(RECOUNT_PK, RUN_SK),
            deadline,
        )
        .await?
        {
            PassStart::Idle | PassStart::Busy => {
                return Ok(RecountRunOutcome {
                    idle: true,
                    ..RecountRunOutcome::default()
                });
            }
            PassStart::Taken(pass) => pass,
        };
        let item = pass.item();
        let mut run = RecountWork {
            projection: self,
            options,
            out: RecountRunOutcome::default(),
            last: item.string("lastPlayer").map(str::to_owned),
            current: item
                .string("current")
                .and_then(|json| serde_json::from_str(json).ok()),
            scanned: item.contains_key("scanned"),
        };
        let result = run.work_recount(&mut pass).await;
        let mut out = run.out;
        (out.pages, out.done) = (pass.pages(), pass.finished());
        pass.end_pass(result).await.map(|()| out)
    }

    /// Leaves `player` for a later run, to recount at `until`.
    async fn put_busy(self, player: &PlayerId, until: Timestamp) -> Result<(), StoreError> {
        self.store
            .table
            .update_request(&entity::recount_wait(player), "SET #at = :at")
            .params(
                Params::new()
                    .name("#at", "at")
                    .value(":at", until.as_millis()),
            )?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(recount busy player)", e))?;
        Ok(())
    }

    async fn drop_busy(self, player: &PlayerId) -> Result<(), StoreError> {
        self.store
            .table
            .delete_request(&entity::recount_wait(player))
            .send()
            .await
            .map_err(|e| StoreError::sdk("DeleteItem(recount busy player)", e))?;
        Ok(())
    }
}

/// A run of the recount: its limits, its outcome so far, and where it is besides the pass's
/// place (the Scan page it is in).
struct RecountWork<'a, 'o> {
    projection: Projection<'a>,
    options: &'o RecountRunOptions,
    out: RecountRunOutcome,
    /// The last player of the current page recounted.
    last: Option<String>,
    /// A player's recount paused part-way.
    current: Option<Recount>,
    /// The Scan is over; busy players are left.
    scanned: bool,
}

impl PassWork for RecountWork<'_, '_> {
    const MARGIN: Duration = PLAYER_MARGIN;

    fn scan_filter(&self) -> ScanFilter {
        ScanFilter {
            filter: "begins_with(sk, :session)",
            projection: "pk",
            params: Params::new().value(":session", SESSION_PREFIX),
        }
    }

    async fn work_page(&mut self, pass: &Pass<'_>, items: Vec<Item>) -> Result<Worked, StoreError> {
        let mut players: Vec<PlayerId> = Vec::new();
        for item in &items {
            let pk = key_string(item, "pk");
            let Some(Ok(player)) = pk.strip_prefix(entity::PLAYER_PREFIX).map(PlayerId::parse)
            else {
                continue;
            };
            if players.last() != Some(&player) {
                players.push(player);
            }
        }
        // Players up to the last one recounted were done before this page was read again.
        let skip = self
            .last
            .as_ref()
            .and_then(|last| players.iter().position(|p| p.as_str() == last))
            .map_or(0, |i| i + 1);
        for player in &players[skip..] {
            if !pass.has_time(PLAYER_MARGIN) {
                return Ok(Worked::Stop(None));
            }
            let progress = Recount::settling(player.clone(), Timestamp::now(), self.options.settle);
            if !self.recount_one(progress, pass).await? {
                return Ok(Worked::Stop(None));
            }
            self.last = Some(player.to_string());
            pass.checkpoint_pass(self.pass_state()).await?;
        }
        self.last = None;
        Ok(Worked::Page)
    }

    fn pass_state(&self) -> PassState {
        let current = self.current.as_ref().map(serde_json::to_string);
        PassState::default()
            .keep("lastPlayer", self.last.as_ref())
            .keep("current", current.and_then(Result::ok))
            .flag("scanned", self.scanned)
    }

    fn at_end(&mut self) -> AtEnd {
        self.scanned = true;
        AtEnd::Stay
    }
}

impl RecountWork<'_, '_> {
    /// The run: a player's recount paused by the last run finished, the Scan gone on with, then
    /// the busy players recounted as they come due.
    async fn work_recount(&mut self, pass: &mut Pass<'_>) -> Result<(), StoreError> {
        if let Some(current) = self.current.take() {
            let player = current.player.to_string();
            if !self.recount_one(current, pass).await? {
                return pass.checkpoint_pass(self.pass_state()).await;
            }
            self.last = Some(player);
            pass.checkpoint_pass(self.pass_state()).await?;
        }
        let pages = PassPages {
            max: self.options.scan_pages,
            items: self.options.page_items,
        };
        if !self.scanned && pass.scan_pass(self, pages).await? == Scanned::Stopped {
            return Ok(());
        }
        if pass.has_time(PLAYER_MARGIN) {
            self.recount_busy(pass).await?;
        }
        Ok(())
    }

    /// Recounts one player to the end, or until the time runs out (its progress then kept as
    /// `current`, for the caller's checkpoint): whether it finished.
    async fn recount_one(
        &mut self,
        mut progress: Recount,
        pass: &Pass<'_>,
    ) -> Result<bool, StoreError> {
        let player = progress.player.clone();
        let projection = self.projection;
        loop {
            match projection
                .recount_player(progress, self.options.sessions)
                .await?
            {
                RecountOutcome::Paused(p) if pass.has_time(PLAYER_MARGIN) => progress = p,
                RecountOutcome::Paused(p) => {
                    self.current = Some(p);
                    return Ok(false);
                }
                RecountOutcome::Done { .. } => {
                    self.out.recounted += 1;
                    projection.drop_busy(&player).await?;
                    return Ok(true);
                }
                RecountOutcome::Erased => {
                    self.out.erased += 1;
                    projection.drop_busy(&player).await?;
                    return Ok(true);
                }
                RecountOutcome::Busy(until) => {
                    self.out.busy += 1;
                    projection.put_busy(&player, until).await?;
                    return Ok(true);
                }
            }
        }
    }

    /// Once the Scan is over: recounts the busy players whose time has come, and ends the run
    /// when none is left.
    async fn recount_busy(&mut self, pass: &mut Pass<'_>) -> Result<(), StoreError> {
        let out = self
            .projection
            .store
            .table
            .query_request(Index::Table)
            .key_condition_expression("pk = :pk AND begins_with(sk, :busy)")
            .params(
                Params::new()
                    .value(":pk", RECOUNT_PK)
                    .value(":busy", RECOUNT_WAIT_PREFIX),
            )?
            .consistent_read(true)
            .limit(self.options.busy)
            .send()
            .await
            .map_err(|e| StoreError::sdk("Query(recount busy players)", e))?;
        let items = out.items.unwrap_or_default();
        let now = Timestamp::now();
        let mut left = out.last_evaluated_key.is_some();
        for item in &items {
            let due = item.number::<u64>("at").unwrap_or(0) <= now.as_millis();
            let player = key_string(item, "sk");
            let player = player
                .strip_prefix(RECOUNT_WAIT_PREFIX)
                .map(PlayerId::parse);
            let Some(Ok(player)) = player else {
                continue;
            };
            if !due || !pass.has_time(PLAYER_MARGIN) {
                left = true;
                continue;
            }
            // A busy player's recount that comes due again is left, not counted as more work.
            let busy = self.out.busy;
            let progress = Recount::settling(player, now, self.options.settle);
            if !self.recount_one(progress, pass).await? {
                return pass.checkpoint_pass(self.pass_state()).await;
            }
            left |= self.out.busy > busy;
        }
        if !left {
            // A finished run's position would name a player for good (data rights).
            let state = PassState::default()
                .keep("doneAt", Some(now.as_millis()))
                .keep("lastPlayer", None::<String>)
                .keep("current", None::<String>)
                .flag("scanned", true);
            pass.finish_pass(state).await?;
        }
        Ok(())
    }
}
