//! The recount run: every player's totals recounted from their sessions (`recount`), the
//! recovery after an outage longer than the stream's retention or a dead-letter queue whose
//! players are not known. An operator asks for it with one item, `RECOUNT` / `#RUN`
//! ([`Projection::request_recount`]); season close's schedule then works it, a bounded piece a run.
//!
//! The run is a `Scan` for Session items (a page, 1 MB read, at a time; at most
//! [`RecountRunOptions::scan_pages`] a run) whose players are recounted one by one, in the order
//! the Scan meets them (a player's items are together). Its position lives on the run item: the
//! key the page it is in started after, the last player of that page recounted, and a player's
//! recount paused part-way (its progress). So a run that stops anywhere, at its deadline or
//! killed, is taken up where its last checkpoint left it; a player recounted twice gets the
//! same totals. A player who played too recently to be recounted exactly
//! ([`RecountOutcome::Busy`]) gets an item `RECOUNT` / `BUSY#<playerId>` with the time to try
//! again; once the Scan is over the run recounts those as they come due, and the run is done
//! (`doneAt`) when none is left. One run at a time holds the run item's lease.

use std::time::{Duration, Instant};

use leaderboard_keys::entity::{self, Key, SESSION_PREFIX};
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::time::Timestamp;

use serde::Serialize;

use super::recount::{Recount, RecountOutcome, RecountPages};
use crate::features::projection::Projection;
use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt, item_key, key_item, key_string, n, s};
use crate::primitives::lease::CloseLease;
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

/// Where the run is, as its item keeps it.
#[derive(Debug, Default)]
struct Position {
    /// The key the current Scan page starts after (`None`: the table's start).
    page: Option<Key>,
    /// The last player of that page recounted.
    last: Option<String>,
    /// A player's recount paused part-way.
    current: Option<Recount>,
    /// The Scan is over; busy players are left.
    scanned: bool,
}

impl Position {
    fn of(item: &Item) -> Position {
        Position {
            page: item
                .string("pagePk")
                .zip(item.string("pageSk"))
                .map(|(pk, sk)| Key::new(pk, sk)),
            last: item.string("lastPlayer").map(str::to_owned),
            current: item
                .string("current")
                .and_then(|json| serde_json::from_str(json).ok()),
            scanned: item.contains_key("scanned"),
        }
    }
}

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
    /// run out. Requests: 1 lease (all a run does when none is asked for), per Scan page 1
    /// Scan, per player its recount and 1 checkpoint, per busy player 1 write.
    pub async fn run_recount(
        self,
        options: &RecountRunOptions,
        deadline: Option<Instant>,
    ) -> Result<RecountRunOutcome, StoreError> {
        let mut out = RecountRunOutcome::default();
        let run = Key::new(RECOUNT_PK, RUN_SK);
        let lease = CloseLease::new(deadline);
        let taken = self
            .store
            .table
            .take_item_lease(
                &run,
                &lease,
                "attribute_exists(requestedAt) AND attribute_not_exists(doneAt)",
                Params::new(),
                "UpdateItem(recount lease)",
            )
            .await?;
        let Some(item) = taken else {
            out.idle = true;
            return Ok(out);
        };
        let mut at = Position::of(&item);
        let time_left = || deadline.is_none_or(|d| Instant::now() + PLAYER_MARGIN < d);
        let mut work = Work {
            run: &run,
            by: lease.by(),
            options,
            time_left: &time_left,
            out: &mut out,
        };
        let result = self.work_recount(&mut work, &mut at).await;
        if !out.done {
            let _ = self
                .store
                .table
                .release_item_lease(&run, lease.by(), "UpdateItem(recount release)")
                .await;
        }
        result.map(|()| out)
    }

    async fn work_recount(self, work: &mut Work<'_>, at: &mut Position) -> Result<(), StoreError> {
        if let Some(current) = at.current.take() {
            let player = current.player.to_string();
            if !self.recount_one(current, work, at).await? {
                return Ok(());
            }
            at.last = Some(player);
            self.checkpoint_recount(work, at).await?;
        }
        while !at.scanned && work.out.pages < work.options.scan_pages && (work.time_left)() {
            let (players, next) = self.session_players(at.page.as_ref(), work.options).await?;
            work.out.pages += 1;
            // Players up to the last one recounted were done before this page was re-read.
            let skip = at
                .last
                .as_ref()
                .and_then(|last| players.iter().position(|p| p.as_str() == last))
                .map_or(0, |i| i + 1);
            for player in &players[skip..] {
                if !(work.time_left)() {
                    return Ok(());
                }
                let progress =
                    Recount::settling(player.clone(), Timestamp::now(), work.options.settle);
                if !self.recount_one(progress, work, at).await? {
                    return Ok(());
                }
                at.last = Some(player.to_string());
                self.checkpoint_recount(work, at).await?;
            }
            at.page = next;
            at.last = None;
            at.scanned = at.page.is_none();
            self.checkpoint_recount(work, at).await?;
        }
        if at.scanned && (work.time_left)() {
            self.recount_busy(work, at).await?;
        }
        Ok(())
    }

    /// Recounts one player to the end, or until the time runs out (its progress then kept on
    /// the run item): whether it finished.
    async fn recount_one(
        self,
        mut progress: Recount,
        work: &mut Work<'_>,
        at: &mut Position,
    ) -> Result<bool, StoreError> {
        let player = progress.player.clone();
        loop {
            match self.recount_player(progress, work.options.sessions).await? {
                RecountOutcome::Paused(p) if (work.time_left)() => progress = p,
                RecountOutcome::Paused(p) => {
                    at.current = Some(p);
                    self.checkpoint_recount(work, at).await?;
                    return Ok(false);
                }
                RecountOutcome::Done { .. } => {
                    work.out.recounted += 1;
                    self.drop_busy(&player).await?;
                    return Ok(true);
                }
                RecountOutcome::Erased => {
                    work.out.erased += 1;
                    self.drop_busy(&player).await?;
                    return Ok(true);
                }
                RecountOutcome::Busy(until) => {
                    work.out.busy += 1;
                    self.put_busy(&player, until).await?;
                    return Ok(true);
                }
            }
        }
    }

    /// Records where the run is, on condition that it still holds the lease.
    async fn checkpoint_recount(self, work: &Work<'_>, at: &Position) -> Result<(), StoreError> {
        let mut sets = Vec::new();
        let mut removes = Vec::new();
        let mut params = Params::new();
        match &at.page {
            Some(k) => {
                sets.push("pagePk = :pk, pageSk = :sk");
                params = params.value(":pk", &k.pk).value(":sk", &k.sk);
            }
            None => removes.push("pagePk, pageSk"),
        }
        match &at.last {
            Some(last) => {
                sets.push("lastPlayer = :last");
                params = params.value(":last", last);
            }
            None => removes.push("lastPlayer"),
        }
        match &at.current {
            Some(current) => {
                let json = serde_json::to_string(current)
                    .map_err(|e| StoreError::Invalid(format!("recount progress: {e}")))?;
                sets.push("#current = :current");
                params = params.value(":current", json);
            }
            None => removes.push("#current"),
        }
        if at.scanned {
            sets.push("scanned = :yes");
            params = params.value(":yes", true);
        }
        params = params.name("#current", "current");
        let mut update = format!("SET {}", sets.join(", "));
        if !removes.is_empty() {
            update.push_str(&format!(" REMOVE {}", removes.join(", ")));
        }
        self.store
            .table
            .update_under_lease(
                work.run,
                work.by,
                &update,
                params,
                "UpdateItem(recount checkpoint)",
            )
            .await
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

    /// Once the Scan is over: recounts the busy players whose time has come, and ends the run
    /// when none is left.
    async fn recount_busy(self, work: &mut Work<'_>, at: &mut Position) -> Result<(), StoreError> {
        let out = self
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
            .limit(work.options.busy)
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
            if !due || !(work.time_left)() {
                left = true;
                continue;
            }
            // A busy player's recount that comes due again is left, not counted as more work.
            let busy = work.out.busy;
            if !self
                .recount_one(
                    Recount::settling(player, now, work.options.settle),
                    work,
                    at,
                )
                .await?
            {
                return Ok(());
            }
            left |= work.out.busy > busy;
        }
        if !left {
            self.store
                .table
                .update_under_lease(
                    work.run,
                    work.by,
                    // A finished run's position would name a player for good (data rights).
                    "SET doneAt = :now \
                     REMOVE leaseBy, leaseUntil, pagePk, pageSk, lastPlayer, #current",
                    Params::new()
                        .value(":now", now.as_millis())
                        .name("#current", "current"),
                    "UpdateItem(recount done)",
                )
                .await?;
            work.out.done = true;
        }
        Ok(())
    }

    /// The players of one Scan page of Session items after `after`, in the order met, and the
    /// key the next page starts after (`None` at the end of the table).
    async fn session_players(
        self,
        after: Option<&Key>,
        options: &RecountRunOptions,
    ) -> Result<(Vec<PlayerId>, Option<Key>), StoreError> {
        let page = self
            .store
            .table
            .scan_request()
            .filter_expression("begins_with(sk, :session)")
            .projection_expression("pk")
            .set_limit(options.page_items.map(|l| l.min(i32::MAX as u32) as i32))
            .set_exclusive_start_key(after.map(key_item))
            .params(Params::new().value(":session", SESSION_PREFIX))?
            .send()
            .await
            .map_err(|e| StoreError::sdk("Scan(recount)", e))?;
        let mut players: Vec<PlayerId> = Vec::new();
        for item in page.items() {
            let pk = key_string(item, "pk");
            let Some(Ok(player)) = pk.strip_prefix(entity::PLAYER_PREFIX).map(PlayerId::parse)
            else {
                continue;
            };
            if players.last() != Some(&player) {
                players.push(player);
            }
        }
        let next = page.last_evaluated_key.map(|k| item_key(&k));
        Ok((players, next))
    }
}

/// What a run works with: its item, its lease, its limits and its outcome so far.
struct Work<'a> {
    run: &'a Key,
    by: &'a str,
    options: &'a RecountRunOptions,
    time_left: &'a (dyn Fn() -> bool + Sync),
    out: &'a mut RecountRunOutcome,
}
