//! The rank index in the table (see [`leaderboard_keys::rank_index`] for the structure and the
//! fold): the change a play records on its lane, in the play's own transaction, and a batch of
//! lanes' changes applied to the counters exactly once. A board's index is built, and rebuilt,
//! by the rank maintenance rebuild; read by `lookup`.

use std::borrow::Cow;

use aws_sdk_dynamodb::types::AttributeValue;
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank_index::compact::{Entries, Plan, group_deltas, plan, update};
use leaderboard_keys::rank_index::journal::{Found, JOURNAL_NODES, Journal};
use leaderboard_keys::rank_index::lead::{LEAD_ATTR, Lead};
use leaderboard_keys::rank_index::{
    Chunk, CountedKey, Counters, ENTRY_GENERATION_ATTR, GENERATION_ATTR, Gap, LaneChange,
    MIGRATING_ATTR, Watermarks, absorb, fold, root_key, watermark_attr,
};

use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt};
use crate::rank::Rank;
use crate::rank::compact::{is_compact, item_entries};
use crate::rank::journal::{Begun, root_last_journal, watermarks_in};
use crate::rank::lead::{LeadStep, LeaderWatch, Unwatched};
use crate::table::Table;
use crate::table::request::{Params, WithParams};
use crate::table::retry::Retry;

/// What [`Rank::apply_lane_changes`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaneApplyOutcome {
    /// Changes written to the index by this call.
    pub applied: usize,
    /// Changes the index had already (delivered again, or repeated in the batch).
    pub already_applied: usize,
    /// Lanes stopped at a missing change: their later changes are left to the repair, which
    /// the call asked for.
    pub gaps: Vec<Gap>,
    /// Whether the repair of the gaps is recorded (a repair request written). When it is not,
    /// the gap's records must come again so that a later batch asks again.
    pub repair_requested: bool,
    /// Requests sent: root reads and transactions.
    pub requests: u32,
    /// Items written, all transactions together (each touched node once per chunk, and the
    /// root).
    pub items_written: usize,
    /// Changes of a board being moved onto this layout, whose root only followed their
    /// numbers (its rebuild counts them).
    pub absorbed: usize,
    /// Changes of the board's leader announced (each before the root recorded it).
    pub leaders_announced: usize,
    /// Nodes read to plan journals on the compact layout (layout 2 reads none).
    pub nodes_read: usize,
}

/// The root as read: the lanes' watermarks, the generation of the nodes below it and its last
/// journal.
pub(crate) struct Root {
    pub(crate) watermarks: Watermarks,
    generation: u64,
    /// The last journal it finished.
    last: u64,
    /// The board is being moved onto this layout: see [`MIGRATING_ATTR`].
    migrating: bool,
    /// The board's leader as of the watermarks.
    lead: Lead,
    /// The generation of entries it counts (a widening's switch moves it).
    entry_generation: u64,
    /// It is on the compact layout (3): its journals are planned from the nodes they touch.
    compact: bool,
    /// Its entries (on the compact layout: what a plan starts from).
    entries: Entries,
}

/// `changes` as keyed in the entry generation `root` counts. A change without keys of it is
/// kept as it is: one the root has applied (a change of before a widening's switch, delivered
/// again) is skipped by its watermark; one it has not cannot be (no lane records one after the
/// switch that put the generation in service, nor after the settled numbers it set), and is
/// said.
/// A batch already keyed in it (every board's but a widened one's between its scan and its
/// switch) is used as it is, not copied.
fn in_generation<'a>(
    board: &BoardId,
    changes: &'a [LaneChange],
    root: &Root,
) -> Cow<'a, [LaneChange]> {
    let generation = root.entry_generation;
    if changes.iter().all(|c| c.generation == generation) {
        return Cow::Borrowed(changes);
    }
    changes
        .iter()
        .map(|c| {
            c.in_generation(generation).unwrap_or_else(|| {
                if c.seq > root.watermarks.get(c.lane) {
                    tracing::error!(%board, lane = c.lane, seq = c.seq, change = c.generation,
                        index = generation, "a lane change without keys of the index's generation");
                }
                c.clone()
            })
        })
        .collect::<Vec<_>>()
        .into()
}

impl Rank<'_> {
    /// Applies a batch of one board's lane changes (any order, repeats allowed) to its rank
    /// index, exactly once, following its leader without telling anyone. Requests: see
    /// `Table::apply_changes` below.
    pub async fn apply_lane_changes(
        self,
        board: &BoardId,
        changes: &[LaneChange],
    ) -> Result<LaneApplyOutcome, StoreError> {
        self.table.apply_changes(board, changes, &Unwatched).await
    }

    /// The same, telling `watch` of every change of the board's leader before the index
    /// records it (`NewLeader`): a change is told at least once, the same on every telling; a
    /// telling that fails fails the apply. At most one more read than the apply's: the board's
    /// top entry, when the changes moved the leader's own entry down or removed it with
    /// nothing better (`rank::lead`).
    pub async fn apply_lane_changes_watched<W: LeaderWatch>(
        self,
        board: &BoardId,
        changes: &[LaneChange],
        watch: &W,
    ) -> Result<LaneApplyOutcome, StoreError> {
        self.table.apply_changes(board, changes, watch).await
    }
}

impl Table {
    /// Applies a batch of lane changes (any order, repeats allowed) to a board's index, exactly
    /// once, by journals ([`leaderboard_keys::rank_index::journal`]): one consistent read of
    /// the root, the fold of every change after its lane's watermark, then per slice of at most
    /// [`JOURNAL_NODES`] nodes the journal's put, its node updates (`NODES_IN_FLIGHT` at a
    /// time) and the root's update. A journal found pending is finished first; on any failed
    /// condition it re-reads the root and folds again, so that slices another apply finished
    /// are skipped by their watermarks. Requests: at most [`Retry::RANK_APPLY`] rounds of one
    /// root read, and per slice one put (and one read of the journal item when its condition
    /// fails), one update per node and one of the root. Each journal that changes the
    /// board's leader records it on the root, and one that changes hands tells `watch` before
    /// (`lead`; the only read it may add is the board's top entry).
    pub(crate) async fn apply_changes<W: LeaderWatch>(
        &self,
        board: &BoardId,
        changes: &[LaneChange],
        watch: &W,
    ) -> Result<LaneApplyOutcome, StoreError> {
        let mut outcome = LaneApplyOutcome::default();
        'rounds: for attempt in Retry::RANK_APPLY.attempts() {
            let root = self.read_root(board).await?;
            outcome.requests += 1;
            let keyed = in_generation(board, changes, &root);
            let changes = keyed.as_ref();
            if root.migrating {
                match self
                    .absorb_changes(board, &root, changes, &mut outcome)
                    .await
                {
                    Err(e) if e.worth_rereading() || e.is_conditional_check_failed() => {
                        Retry::RANK_APPLY.pause(attempt).await;
                        continue 'rounds;
                    }
                    done => return done.map(|()| outcome),
                }
            }
            let folded = fold(&root.watermarks, changes);
            let held_back = changes.len() - folded.applied.len() - folded.already_applied;
            outcome.gaps = folded.gaps.clone();
            let (mut at, mut last) = (root.watermarks.clone(), root.last);
            let mut lead = root.lead.clone();
            let mut entries = root.entries.clone();
            while let Some(mut journal) =
                Journal::begin(last + 1, &at, &folded.applied, JOURNAL_NODES)
            {
                if root.compact {
                    let carried = journal.carried(changes);
                    match self
                        .plan_journal(board, &root, (last, &entries), carried, watch, &mut outcome)
                        .await
                    {
                        Ok(Some(plan)) => journal.plan = Some(plan),
                        // Another apply moved the index under the read, or the store was busy.
                        Ok(None) => {
                            Retry::RANK_APPLY.pause(attempt).await;
                            continue 'rounds;
                        }
                        Err(e) if e.worth_rereading() => {
                            Retry::RANK_APPLY.pause(attempt).await;
                            continue 'rounds;
                        }
                        Err(e) => return Err(e),
                    }
                }
                let (step, reads) = self
                    .lead_step(board, &lead, &journal.carried(changes))
                    .await?;
                outcome.requests += reads;
                match self
                    .run_journal(board, root.generation, &journal, step, watch, &mut outcome)
                    .await
                {
                    Ok(Some(after)) => {
                        if let Some(plan) = &journal.plan {
                            update(&mut entries, &plan.root);
                        }
                        (at, last) = (journal.to, journal.id);
                        lead = after.unwrap_or(lead);
                    }
                    // Another apply moved the root, or the store was busy: re-read, re-fold.
                    Ok(None) => {
                        Retry::RANK_APPLY.pause(attempt).await;
                        continue 'rounds;
                    }
                    Err(e) if e.worth_rereading() => {
                        tracing::debug!(attempt, error = %e, "rank index journal failed; re-reading");
                        Retry::RANK_APPLY.pause(attempt).await;
                        continue 'rounds;
                    }
                    Err(e) => return Err(e),
                }
            }
            // (A pending journal this call finished may hold changes of another delivery.)
            outcome.already_applied = changes.len().saturating_sub(outcome.applied + held_back);
            if !outcome.gaps.is_empty() {
                // A lane's changes past its gap are the repair's from now on: the batch
                // succeeds, unless the request is not recorded (its records then come again).
                match self.request_repair(board, &outcome.gaps, changes).await {
                    Ok(()) => outcome.repair_requested = true,
                    Err(e) => {
                        tracing::error!(%board, error = %e, "rank index repair request not recorded")
                    }
                }
                outcome.requests += 1;
            }
            return Ok(outcome);
        }
        Err(Retry::RANK_APPLY.exhausted())
    }

    /// One journal of this apply, with its `step` of the leader: put, nodes, the step's
    /// announcement, root. When the root took it, the leader it recorded (`None` inside: the
    /// same as before); when the put finds another journal pending, that one is finished
    /// instead (its changes counted as applied if this call's update of the root finished it,
    /// its own step announced and recorded), and this one is not: `None`, and the caller reads
    /// the root again. An announcement that fails fails the apply before the root takes the
    /// journal, so that the journal's next finisher announces it again.
    async fn run_journal<W: LeaderWatch>(
        &self,
        board: &BoardId,
        generation: u64,
        journal: &Journal,
        step: Option<LeadStep>,
        watch: &W,
        outcome: &mut LaneApplyOutcome,
    ) -> Result<Option<Option<Lead>>, StoreError> {
        outcome.requests += 1;
        let begun = self
            .put_journal(board, generation, journal, step.as_ref())
            .await?;
        let (journal, step) = match begun {
            Begun::Written => {
                outcome.items_written += 1;
                (journal, step)
            }
            Begun::Pending(ref pending) => {
                outcome.requests += 1;
                (&pending.0, pending.1.clone())
            }
            Begun::Stale => {
                outcome.requests += 1;
                return Ok(None);
            }
        };
        let finished = self
            .complete_journal(board, generation, journal, step.as_ref(), watch, outcome)
            .await?;
        let ours = finished && matches!(begun, Begun::Written);
        Ok(ours.then(|| step.map(|s| s.after())))
    }

    /// A written journal's node writes, its step's announcements, and the root's finish.
    /// Whether the root took it (if not, another applier finished it first).
    async fn complete_journal<W: LeaderWatch>(
        &self,
        board: &BoardId,
        generation: u64,
        journal: &Journal,
        step: Option<&LeadStep>,
        watch: &W,
        outcome: &mut LaneApplyOutcome,
    ) -> Result<bool, StoreError> {
        let nodes = self.take_journal(board, generation, journal).await?;
        outcome.requests += nodes as u32 + 1;
        outcome.items_written += nodes;
        for change in step.iter().flat_map(|s| &s.announce) {
            watch
                .new_leader(change)
                .await
                .map_err(StoreError::Announce)?;
            outcome.leaders_announced += 1;
        }
        let finished = self
            .finish_journal(board, generation, journal, step)
            .await?;
        if finished {
            outcome.items_written += 1;
            outcome.applied += journal.changes;
        }
        Ok(finished)
    }

    /// The journal pending on a root whose last is `last`, if there is one, completed: whether
    /// the index moved past `last` (a journal pending, or written since: the nodes read may
    /// hold it), so that reading again is worth it. One read of the journal item, and the
    /// pending journal's writes.
    async fn finish_pending<W: LeaderWatch>(
        &self,
        board: &BoardId,
        generation: u64,
        last: u64,
        watch: &W,
        outcome: &mut LaneApplyOutcome,
    ) -> Result<bool, StoreError> {
        outcome.requests += 1;
        let (found, pending) = self.pending_journal(board, generation, last).await?;
        if let Some(pending) = pending {
            let (journal, step) = *pending;
            self.complete_journal(board, generation, &journal, step.as_ref(), watch, outcome)
                .await?;
        }
        Ok(found != Found::Finished)
    }

    /// The plan of a compact journal carrying `carried` from the root as this apply left it
    /// (`at`: its last journal and its entries; `root` as read) and the live nodes the changes
    /// touch, read here.
    /// `None` when those do not add up because the index moved under the read (a journal
    /// pending, finished here, or written since; a rebuild's switch deleting the old nodes):
    /// read again. When it did not move, the index is damaged, and said so.
    async fn plan_journal<W: LeaderWatch>(
        &self,
        board: &BoardId,
        root: &Root,
        (last, entries): (u64, &Entries),
        carried: Vec<&LaneChange>,
        watch: &W,
        outcome: &mut LaneApplyOutcome,
    ) -> Result<Option<Plan>, StoreError> {
        let layout = carried
            .iter()
            .find_map(|c| c.new.as_ref().or(c.old.as_ref()).map(CountedKey::layout));
        let deltas = group_deltas(carried);
        let Some(layout) = layout.filter(|_| !deltas.is_empty()) else {
            return Ok(Some(Plan::default()));
        };
        let (read, requests) = self
            .read_for_plan(board, root.generation, layout, entries.clone(), &deltas)
            .await?;
        outcome.requests += requests;
        outcome.nodes_read += read.len().saturating_sub(1);
        let damaged = match plan(layout, &deltas, &read) {
            Ok(plan) => return Ok(Some(plan)),
            Err(damaged) => damaged,
        };
        if self
            .finish_pending(board, root.generation, last, watch, outcome)
            .await?
        {
            return Ok(None);
        }
        let now = self.read_root(board).await?;
        outcome.requests += 1;
        if (now.generation, now.last) != (root.generation, last) {
            return Ok(None);
        }
        Err(StoreError::corrupt(root_key(board).pk, damaged.0))
    }

    /// A batch onto the root of a board being moved onto this layout: its watermarks follow
    /// the batch's latest changes ([`absorb`]), one conditional UpdateItem.
    async fn absorb_changes(
        &self,
        board: &BoardId,
        root: &Root,
        changes: &[LaneChange],
        outcome: &mut LaneApplyOutcome,
    ) -> Result<(), StoreError> {
        let Some(chunk) = absorb(&root.watermarks, changes) else {
            outcome.already_applied = changes.len();
            return Ok(());
        };
        let mut sets = Vec::new();
        let mut conditions = vec!["attribute_exists(#mig)".to_owned()];
        let params = advance_watermarks(
            &chunk,
            &mut sets,
            &mut conditions,
            Params::new().name("#mig", MIGRATING_ATTR),
        );
        outcome.requests += 1;
        self.update_request(&root_key(board), format!("SET {}", sets.join(", ")))
            .condition_expression(conditions.join(" AND "))
            .params(params)?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(rank index migrating root)", e))?;
        outcome.absorbed = chunk.changes;
        outcome.already_applied = changes.len() - chunk.changes;
        outcome.items_written = 1;
        Ok(())
    }

    /// The root's watermarks and generation, read strongly consistent.
    pub(crate) async fn read_root(&self, board: &BoardId) -> Result<Root, StoreError> {
        let out = self
            .get_request(&root_key(board))
            .send()
            .await
            .map_err(|e| StoreError::sdk("GetItem(rank index root)", e))?;
        let item = out.item.unwrap_or_default();
        let counted = item_counters(&item).values().any(|c| *c > 0);
        Ok(Root {
            watermarks: root_watermarks(&item),
            generation: item.number(GENERATION_ATTR).unwrap_or(0),
            last: root_last_journal(&item),
            migrating: item.contains_key(MIGRATING_ATTR),
            lead: Lead::of_root(item.string(LEAD_ATTR), counted),
            entry_generation: item.number(ENTRY_GENERATION_ATTR).unwrap_or(0),
            compact: is_compact(&item),
            entries: item_entries(&item),
        })
    }
}

/// The counters of a root or node item, by child label: what [`counter_item`] wrote.
pub(crate) fn item_counters(item: &Item) -> Counters {
    item.iter()
        .filter_map(|(name, value)| {
            let label = name.strip_prefix('c')?;
            let AttributeValue::N(v) = value else {
                return None;
            };
            (!label.is_empty() && label.bytes().all(|b| b.is_ascii_digit()))
                .then(|| (label.to_owned(), v.parse().unwrap_or_default()))
        })
        .collect()
}

/// The lanes' watermarks a root item holds (a lane never applied has none).
pub(crate) fn root_watermarks(root: &Item) -> Watermarks {
    watermarks_in(root, watermark_attr)
}

/// Adds to a root update the chunk's watermark advances (`SET #w<lane> = :w<lane>`), each on
/// condition that the watermark is still the one it starts from.
fn advance_watermarks(
    chunk: &Chunk,
    sets: &mut Vec<String>,
    conditions: &mut Vec<String>,
    mut params: Params,
) -> Params {
    for (lane, (from, to)) in &chunk.advances {
        sets.push(format!("#w{lane} = :w{lane}"));
        conditions.push(format!(
            "(attribute_not_exists(#w{lane}) OR #w{lane} = :f{lane})"
        ));
        params = params
            .name(format!("#w{lane}"), watermark_attr(*lane))
            .value(format!(":w{lane}"), to)
            .value(format!(":f{lane}"), from);
    }
    params
}
