//! The one resumable pass: a scheduled job's run through the whole table, a Scan page (1 MB
//! read) at a time, that stops anywhere (its pages or its deadline run out, its Lambda killed)
//! and is taken up by the next run where it stopped. Every such job (the board listing pass,
//! the rank layout sweep, the recount run) is a [`PassWork`]: what its Scan reads and what it
//! does with a page. The pass does the rest, the same way for all of them:
//! - its **item** (`<PK>` / `#CURSOR...`, one per job) keeps its place: `afterPk`, `afterSk`
//!   (the key after which the next page starts; absent: the table's start), the job's own
//!   attributes ([`PassState`]), and `done` once it is over, after which a run costs one read;
//! - its **lease** (`leaseBy`, `leaseUntil`, taken as a close lease is: for the holder's
//!   deadline plus [`crate::LEASE_MARGIN`]) lets one run at a time work it. Another run that
//!   finds it held does nothing; a lease whose holder died expires on its own; a run that stops
//!   gives it back, so the next need not wait;
//! - a **checkpoint** after every page (and wherever the job asks, within one) writes its place
//!   under the lease, renewing it. A run killed between two checkpoints leaves the page it was
//!   in to the next run, which works it again: a job's work on an item is idempotent.
//!
//! A run that holds one item without a Scan, a repair request's staged rebuild, takes the same
//! lease with [`Pass::take_pass`] and checkpoints its own attributes the same way.

use std::future::Future;
use std::time::{Duration, Instant};

use leaderboard_keys::entity::Key;
use serde::Serialize;

use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt, item_key, key_item};
use crate::primitives::lease::CloseLease;
use crate::table::Table;
use crate::table::request::{Params, WithParams};

/// A job's pass: what its item must hold, and what its requests are called in errors.
pub(crate) struct PassSpec {
    /// What the item must hold besides not being `done` for a run to take it.
    pub(crate) ready: Option<Ready>,
    /// Names of the requests: the lease, the Scan, the checkpoint, the release.
    pub(crate) lease: &'static str,
    pub(crate) scan: &'static str,
    pub(crate) checkpoint: &'static str,
    pub(crate) release: &'static str,
}

/// A condition on a pass's item for a run to take it: as the lease's write says it, and as the
/// run reads it on the item first.
pub(crate) struct Ready {
    pub(crate) condition: &'static str,
    pub(crate) holds: fn(&Item) -> bool,
}

/// How much of a pass one run does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PassPages {
    /// Scan pages a run reads at most (each up to 1 MB, 128 read units).
    pub(crate) max: u32,
    /// Items a page reads at most, if fewer than 1 MB of them.
    pub(crate) items: Option<u32>,
}

/// What a pass's Scan reads: its filter, its projection and their values.
pub(crate) struct ScanFilter {
    pub(crate) filter: &'static str,
    pub(crate) projection: &'static str,
    pub(crate) params: Params,
}

/// What a job did with a page.
pub(crate) enum Worked {
    /// Every item: the pass goes on with the next page.
    Page,
    /// The run stops here, its place kept after `at` (the last item done; `None`: before the
    /// page's first).
    Stop(Option<Key>),
}

/// What a pass does at the end of the table.
pub(crate) enum AtEnd {
    /// It is over: `done`, and the lease removed.
    Done,
    /// It starts over from the table's start, in the next run.
    Again,
    /// It stays at the end (the job has more to do before it is over, [`Pass::finish_pass`]).
    Stay,
}

/// How far a run's Scan went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scanned {
    /// Its pages or its time ran out, or the job stopped it.
    Stopped,
    /// It reached the end of the table.
    End,
}

/// One job run by a pass: its Scan, its work on a page, its own attributes on the pass's item.
pub(crate) trait PassWork {
    /// No page is started with less time than this left before the deadline.
    const MARGIN: Duration;

    /// What the Scan reads.
    fn scan_filter(&self) -> ScanFilter;

    /// Works one page's items, in order; `pass` checkpoints within the page if it must.
    fn work_page(
        &mut self,
        pass: &Pass<'_>,
        items: Vec<Item>,
    ) -> impl Future<Output = Result<Worked, StoreError>> + Send;

    /// The job's attributes, as a checkpoint writes them now.
    fn pass_state(&self) -> PassState {
        PassState::default()
    }

    /// What the pass does at the end of the table.
    fn at_end(&mut self) -> AtEnd {
        AtEnd::Done
    }
}

/// A job's own attributes on its pass's item, as a checkpoint writes them.
#[derive(Default)]
pub(crate) struct PassState {
    sets: Vec<String>,
    removes: Vec<String>,
    params: Params,
}

impl PassState {
    /// `attr` set to `value`, or removed when `None`.
    pub(crate) fn keep(mut self, attr: &str, value: Option<impl Serialize>) -> PassState {
        let i = self.sets.len() + self.removes.len();
        match value {
            Some(value) => {
                self.sets.push(format!("#j{i} = :j{i}"));
                self.params = self
                    .params
                    .name(format!("#j{i}"), attr)
                    .value(format!(":j{i}"), value);
            }
            None => {
                self.removes.push(format!("#j{i}"));
                self.params = self.params.name(format!("#j{i}"), attr);
            }
        }
        self
    }

    /// `attr` set when `on` (to true), removed otherwise.
    pub(crate) fn flag(self, attr: &str, on: bool) -> PassState {
        self.keep(attr, on.then_some(true))
    }
}

/// What starting a run found.
pub(crate) enum PassStart<'a> {
    /// The pass is over, or its item is not ready ([`PassSpec::ready`]): nothing to do.
    Idle,
    /// Another run holds it.
    Busy,
    /// This run holds it.
    Taken(Box<Pass<'a>>),
}

/// What a whole run of a pass that only scans did ([`Pass::run_pass`]).
pub(crate) enum PassRun<W> {
    /// The pass is over, or its item not ready.
    Idle,
    /// Another run holds it.
    Busy,
    /// This run worked it: the job, its Scan pages, and whether the pass is over.
    Ran { work: W, pages: u32, done: bool },
}

/// A run's hold on a pass: its lease, its place, its pages so far.
pub(crate) struct Pass<'a> {
    table: &'a Table,
    spec: &'static PassSpec,
    key: Key,
    lease: CloseLease,
    deadline: Option<Instant>,
    item: Item,
    after: Option<Key>,
    pages: u32,
    finished: bool,
}

impl<'a> Pass<'a> {
    /// Starts a run of the pass `spec` kept on item `key`, working until `deadline` (if any):
    /// one read of its item (all a run does once it is over), then its lease taken.
    pub(crate) async fn start_pass(
        table: &'a Table,
        spec: &'static PassSpec,
        key: Key,
        deadline: Option<Instant>,
    ) -> Result<PassStart<'a>, StoreError> {
        let read = table.get_raw(&key).await?.unwrap_or_default();
        let ready = spec.ready.as_ref().is_none_or(|r| (r.holds)(&read));
        if read.contains_key("done") || !ready {
            return Ok(PassStart::Idle);
        }
        Ok(match Pass::take_pass(table, spec, key, deadline).await? {
            Some(pass) => PassStart::Taken(Box::new(pass)),
            None => PassStart::Busy,
        })
    }

    /// Takes the lease of the pass `spec` kept on item `key` (an item just read: no read
    /// first), unless another run holds it or the item is not ready (`None`).
    pub(crate) async fn take_pass(
        table: &'a Table,
        spec: &'static PassSpec,
        key: Key,
        deadline: Option<Instant>,
    ) -> Result<Option<Pass<'a>>, StoreError> {
        let lease = CloseLease::new(deadline);
        let condition = match &spec.ready {
            Some(r) => format!("attribute_not_exists(done) AND ({})", r.condition),
            None => "attribute_not_exists(done)".to_owned(),
        };
        let taken = table
            .take_item_lease(&key, &lease, &condition, spec.lease)
            .await?;
        let Some(item) = taken else {
            return Ok(None);
        };
        let after = item
            .string("afterPk")
            .zip(item.string("afterSk"))
            .map(|(pk, sk)| Key::new(pk, sk));
        Ok(Some(Pass {
            table,
            spec,
            key,
            lease,
            deadline,
            item,
            after,
            pages: 0,
            finished: false,
        }))
    }

    /// A whole run of a pass that only scans: started ([`Pass::start_pass`]), its job made from
    /// its item as taken, scanned up to `pages` and `deadline`, and ended.
    pub(crate) async fn run_pass<W: PassWork>(
        table: &'a Table,
        spec: &'static PassSpec,
        key: Key,
        deadline: Option<Instant>,
        pages: PassPages,
        work: impl FnOnce(&Item) -> W,
    ) -> Result<PassRun<W>, StoreError> {
        let mut pass = match Pass::start_pass(table, spec, key, deadline).await? {
            PassStart::Idle => return Ok(PassRun::Idle),
            PassStart::Busy => return Ok(PassRun::Busy),
            PassStart::Taken(pass) => pass,
        };
        let mut work = work(pass.item());
        let result = pass.scan_pass(&mut work, pages).await;
        let (pages, done) = (pass.pages(), pass.finished());
        pass.end_pass(result).await?;
        Ok(PassRun::Ran { work, pages, done })
    }

    /// The pass's item as this run took it: the job's attributes where the last run left them.
    pub(crate) fn item(&self) -> &Item {
        &self.item
    }

    /// Scan pages this run read.
    pub(crate) fn pages(&self) -> u32 {
        self.pages
    }

    /// Whether the pass is over (this run finished it).
    pub(crate) fn finished(&self) -> bool {
        self.finished
    }

    /// Whether more than `margin` is left before the deadline.
    pub(crate) fn has_time(&self, margin: Duration) -> bool {
        self.deadline.is_none_or(|d| Instant::now() + margin < d)
    }

    /// Scans on from the pass's place, `work` doing each page, until `pages` or the time run
    /// out, the job stops, or the table ends; a checkpoint after each page.
    pub(crate) async fn scan_pass<W: PassWork>(
        &mut self,
        work: &mut W,
        pages: PassPages,
    ) -> Result<Scanned, StoreError> {
        while self.pages < pages.max && self.has_time(W::MARGIN) {
            let filter = work.scan_filter();
            let page = self
                .table
                .scan_request()
                .filter_expression(filter.filter)
                .projection_expression(filter.projection)
                .set_limit(pages.items.map(|l| l.min(i32::MAX as u32) as i32))
                .set_exclusive_start_key(self.after.as_ref().map(key_item))
                .params(filter.params)?
                .send()
                .await
                .map_err(|e| StoreError::sdk(self.spec.scan, e))?;
            self.pages += 1;
            let next = page.last_evaluated_key.as_ref().map(item_key);
            if let Worked::Stop(at) = work.work_page(self, page.items.unwrap_or_default()).await? {
                if at.is_some() {
                    self.after = at;
                }
                self.checkpoint_pass(work.pass_state()).await?;
                return Ok(Scanned::Stopped);
            }
            self.after = next;
            if self.after.is_some() {
                self.checkpoint_pass(work.pass_state()).await?;
                continue;
            }
            match work.at_end() {
                AtEnd::Done => self.finish_pass(work.pass_state()).await?,
                AtEnd::Again => {
                    self.checkpoint_pass(work.pass_state()).await?;
                    return Ok(Scanned::Stopped);
                }
                AtEnd::Stay => self.checkpoint_pass(work.pass_state()).await?,
            }
            return Ok(Scanned::End);
        }
        Ok(Scanned::Stopped)
    }

    /// Records the pass's place and the job's `state`, renewing the lease, on condition that
    /// this run still holds it.
    pub(crate) async fn checkpoint_pass(&self, state: PassState) -> Result<(), StoreError> {
        let (mut sets, mut removes) = (state.sets, state.removes);
        let mut params = state.params.value(":until", self.lease.until().as_millis());
        sets.push("leaseUntil = :until".to_owned());
        match &self.after {
            Some(at) => {
                sets.push("afterPk = :afterPk, afterSk = :afterSk".to_owned());
                params = params.value(":afterPk", &at.pk).value(":afterSk", &at.sk);
            }
            None => removes.push("afterPk, afterSk".to_owned()),
        }
        self.write_place(sets, removes, params, self.spec.checkpoint)
            .await
    }

    /// Ends the pass with the job's `state`: `done`, its place and its lease removed.
    pub(crate) async fn finish_pass(&mut self, state: PassState) -> Result<(), StoreError> {
        let (mut sets, mut removes) = (state.sets, state.removes);
        sets.push("done = :done".to_owned());
        removes.push("afterPk, afterSk, leaseBy, leaseUntil".to_owned());
        let params = state.params.value(":done", true);
        self.write_place(sets, removes, params, self.spec.checkpoint)
            .await?;
        self.finished = true;
        Ok(())
    }

    /// Ends this run: the lease given back unless the pass is over (or the lease lost), and
    /// `result` passed on. A failure to give it back is logged: the lease then expires.
    pub(crate) async fn end_pass<T>(self, result: Result<T, StoreError>) -> Result<T, StoreError> {
        if !self.finished {
            let released = self
                .table
                .release_item_lease(&self.key, self.lease.by(), self.spec.release)
                .await;
            match released {
                Ok(()) | Err(StoreError::ConditionalCheckFailed) => {}
                Err(e) => {
                    tracing::warn!(pass = %self.key.pk, error = %e, "pass lease not released; it expires")
                }
            }
        }
        result
    }

    async fn write_place(
        &self,
        sets: Vec<String>,
        removes: Vec<String>,
        params: Params,
        what: &'static str,
    ) -> Result<(), StoreError> {
        let mut update = format!("SET {}", sets.join(", "));
        if !removes.is_empty() {
            update.push_str(&format!(" REMOVE {}", removes.join(", ")));
        }
        self.table
            .update_under_lease(&self.key, self.lease.by(), &update, params, what)
            .await
    }
}
