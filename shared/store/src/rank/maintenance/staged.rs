//! The repair's rebuild, staged across runs: it finishes on a board of any size while plays go
//! on at full rate, each run within its deadline, and resumes where the last run stopped.
//!
//! Its state is kept on the board's repair request, under the request's lease ([`Stage`]): the
//! generation it reserved, the scan its nodes count (the *base*) and the scan whose nodes it is
//! putting (the *target*), both staged in a few items ([`stage`]), and how many of the target's
//! nodes are put. A run goes through these steps, each resumed by the next run where it stopped:
//! 1. the target's node puts, from the count checkpointed (whole items: a node put twice does
//!    no harm), after which the target is the base;
//! 2. a *catch-up*: a scan of the board while plays go on, staged as the target, whose nodes
//!    are only those that differ from the base's ([`node_puts`]); the first one puts them all;
//! 3. once a catch-up put at most [`FINAL_PUTS`] nodes, the last one: every lane is paused for
//!    its scan, so that every lane settles in it, its few nodes are put and the root switched
//!    as [`Rank::rebuild_lane_index`] switches it, the pauses lifted in the same transaction;
//! 4. after the switch, the generation replaced is deleted one node partition at a time, then
//!    the staged scans.
//!
//! Each step looks at the deadline first, and the puts after every [`NODE_PUTS`]. Catch-ups
//! converge: one puts the nodes that the plays made during the one before changed, in less
//! time than those plays took. Plays are held back for the last scan and its few puts only.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use leaderboard_keys::entity::Key;
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank_index::compact::{COMPACT_LAYOUT, Entries};
use leaderboard_keys::rank_index::journal::journal_key;
use leaderboard_keys::rank_index::stage::{node_puts, pack, stage_key, stage_pk, unpack};
use leaderboard_keys::rank_index::{CountedKey, NODE_PARTITIONS, node_key};
use leaderboard_keys::time::Timestamp;

use super::rebuild::{IN_FLIGHT, RebuildOutcome, Switch, settled_lanes};
use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt, key_item};
use crate::ground::model::Board;
use crate::primitives::pass::{Pass, PassState};
use crate::rank::Rank;
use crate::rank::compact::{built_nodes, with_entries};
use crate::rank::lanes::LaneKeys;
use crate::rank::maintenance::lane_holds::SwitchTarget;
use crate::table::batch::BATCH_WRITE_SIZE;

/// Node items put between two checkpoints.
pub const NODE_PUTS: usize = 1_000;
/// Node items put between two looks at the deadline: two rounds of requests.
const DEADLINE_PUTS: usize = 2 * IN_FLIGHT * BATCH_WRITE_SIZE;
/// A catch-up that put at most this many nodes is followed by the last scan, lanes paused.
pub const FINAL_PUTS: usize = 10_000;
/// The most nodes the last scan puts with the lanes paused; past it, the pauses are lifted and
/// the scan is one more catch-up.
const PAUSED_PUTS: usize = 2 * FINAL_PUTS;
/// Time kept for the last scan's puts and switch, besides twice the last scan's time.
const FINAL_TIME: Duration = Duration::from_secs(3);

/// One staged scan: its slot (0 or 1) and how many items hold its keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Slot {
    slot: u8,
    items: usize,
}

/// A staged rebuild's checkpoint: attributes `st*` of the repair request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Stage {
    /// The generation reserved (0 before it is).
    generation: u64,
    /// The generation in service when it was reserved, which the switch replaces (no build
    /// can switch in between without the switch failing: each needs its own reservation).
    replaced: Option<u64>,
    base: Option<Slot>,
    target: Option<Slot>,
    /// Of the target's node puts, how many are made.
    put: usize,
    /// Nodes the last catch-up put.
    last_puts: Option<usize>,
    /// How long the last scan took.
    scan_ms: u64,
    /// After the switch (or when given up): the generation to delete, and its next partition.
    retire: Option<(u64, u8)>,
    /// Its nodes are the compact layout's (`stLy` 3): a rebuild begun before that layout
    /// finishes on layout 2, the nodes it put being layout 2's.
    compact: bool,
}

const ATTRS: [&str; 12] = [
    "stGen",
    "stReplaced",
    "stBase",
    "stBaseItems",
    "stTarget",
    "stTargetItems",
    "stPut",
    "stLast",
    "stScanMs",
    "stRetire",
    "stRetirePart",
    "stLy",
];

impl Stage {
    /// The checkpoint a repair request holds (the default: none).
    pub(super) fn read(item: &Item) -> Stage {
        let slot = |at: &str, items: &str| {
            Some(Slot {
                slot: item.number(at)?,
                items: item.number(items)?,
            })
        };
        Stage {
            generation: item.number("stGen").unwrap_or(0),
            replaced: item.number("stReplaced"),
            base: slot("stBase", "stBaseItems"),
            target: slot("stTarget", "stTargetItems"),
            put: item.number("stPut").unwrap_or(0),
            last_puts: item.number("stLast"),
            scan_ms: item.number("stScanMs").unwrap_or(0),
            retire: item
                .number("stRetire")
                .map(|g| (g, item.number("stRetirePart").unwrap_or(0))),
            compact: item.number::<u64>("stLy") == Some(u64::from(COMPACT_LAYOUT)),
        }
    }

    /// Whether a rebuild is under way (or its old nodes still to delete).
    pub(super) fn started(&self) -> bool {
        *self != Stage::default()
    }

    /// The checkpoint's attributes, `None` for one to remove.
    fn attrs(&self) -> [Option<u64>; 12] {
        let (base, target) = (self.base, self.target);
        [
            (self.generation > 0).then_some(self.generation),
            self.replaced,
            base.map(|s| s.slot.into()),
            base.map(|s| s.items as u64),
            target.map(|s| s.slot.into()),
            target.map(|s| s.items as u64),
            (self.put > 0).then_some(self.put as u64),
            self.last_puts.map(|p| p as u64),
            (self.scan_ms > 0).then_some(self.scan_ms),
            self.retire.map(|r| r.0),
            self.retire.map(|r| r.1.into()),
            self.compact.then_some(u64::from(COMPACT_LAYOUT)),
        ]
    }

    /// The state after a switch to the generation, or a rebuild given up: `generation`'s nodes
    /// to delete (none on a board never indexed before), then the staged scans.
    fn retiring(generation: Option<u64>) -> Stage {
        Stage {
            retire: Some((generation.unwrap_or(0), 0)),
            ..Stage::default()
        }
    }
}

/// What one run of a staged rebuild came to.
pub(super) enum Staged {
    /// The root now counts the new generation; the old one is deleted in this run or the next.
    Switched(RebuildOutcome),
    /// Out of time: the next run resumes from the checkpoint.
    Continues,
    /// Nothing left to do: the checkpoint is removed.
    Finished,
}

impl Rank<'_> {
    /// One run of the staged rebuild of `board` (`None`: a board no longer served, whose
    /// rebuild is given up): see the module documentation.
    pub(super) async fn run_stage(
        self,
        id: &BoardId,
        board: Option<&Board>,
        stage: &mut Stage,
        pass: &Pass<'_>,
    ) -> Result<Staged, StoreError> {
        let mut switched = None;
        if stage.retire.is_none() {
            match board {
                Some(b) => match self.build_stage(b, stage, pass).await? {
                    Some(out) => switched = Some(out),
                    None => return Ok(Staged::Continues),
                },
                None => {
                    *stage = Stage::retiring((stage.generation > 0).then_some(stage.generation));
                    self.save_stage(pass, stage).await?;
                }
            }
        }
        let mut out = RebuildOutcome::default();
        let retired = self.retire_stage(id, stage, pass, &mut out).await?;
        Ok(match (switched, retired) {
            (Some(mut s), _) => {
                s.nodes_deleted += out.nodes_deleted;
                Staged::Switched(s)
            }
            (None, true) => Staged::Finished,
            (None, false) => Staged::Continues,
        })
    }

    /// Steps 1 to 3: the outcome once the root is switched, `None` when out of time.
    async fn build_stage(
        self,
        board: &Board,
        stage: &mut Stage,
        pass: &Pass<'_>,
    ) -> Result<Option<RebuildOutcome>, StoreError> {
        let id = &board.board_id;
        let lanes = LaneKeys::of(board);
        let mut out = RebuildOutcome::default();
        if stage.generation == 0 {
            (stage.generation, stage.replaced) = self.reserve_generation(id).await?;
            stage.compact = true;
            out.requests += 1;
            self.save_stage(pass, stage).await?;
        }
        let base_keys = match stage.base {
            Some(slot) => self.staged_keys(id, slot).await?,
            None => Vec::new(),
        };
        let mut base_nodes = built_nodes(&base_keys, stage.compact);
        loop {
            // The last scan's settled lanes and the lanes paused for it.
            let mut last: Option<(BTreeMap<u8, _>, BTreeSet<u8>)> = None;
            let target_keys = match stage.target {
                Some(slot) => self.staged_keys(id, slot).await?,
                None => {
                    let scan = Duration::from_millis(2 * stage.scan_ms);
                    if !pass.has_time(scan + Duration::from_secs(1)) {
                        return Ok(None);
                    }
                    let pause = stage.last_puts.is_some_and(|p| p <= FINAL_PUTS)
                        && pass.has_time(scan + FINAL_TIME);
                    let paused: BTreeSet<u8> = if pause {
                        lanes.lanes().collect()
                    } else {
                        BTreeSet::new()
                    };
                    let until = Timestamp::now().plus_millis(self.lane_pause.as_millis() as u64);
                    for &lane in &paused {
                        out.requests += 1;
                        self.pause_lane(lanes, lane, until).await?;
                    }
                    let started = Instant::now();
                    let scanned = self.scan_lanes(lanes, board.score_pks(), &mut out).await;
                    let (before, keys, after) = self.or_lift(lanes, &paused, scanned).await?;
                    stage.scan_ms = started.elapsed().as_millis() as u64;
                    let mut all: Vec<CountedKey> = keys.values().flatten().cloned().collect();
                    all.sort();
                    let settled = settled_lanes(&before, keys, &after);
                    if pause && settled.len() == usize::from(lanes.count) {
                        last = Some((settled, paused));
                    } else if pause {
                        self.lift_pauses(lanes, &paused).await?;
                    }
                    let slot = stage.base.map_or(0, |b| 1 - b.slot);
                    let staged = self.stage_keys(id, slot, &all, &mut out).await;
                    let items = self.or_lift(lanes, paused_of(&last), staged).await?;
                    stage.target = Some(Slot { slot, items });
                    stage.put = 0;
                    let saved = self.save_stage(pass, stage).await;
                    self.or_lift(lanes, paused_of(&last), saved).await?;
                    all
                }
            };
            let target_nodes = built_nodes(&target_keys, stage.compact);
            let puts = node_puts(&base_nodes, &target_nodes);
            if let Some((_, paused)) = last.take_if(|_| puts.len() > PAUSED_PUTS) {
                // More than the pause was kept for: the plays go on, and this is a catch-up.
                self.lift_pauses(lanes, &paused).await?;
            }
            let written = self.put_stage_nodes(id, stage, &puts, pass, &mut out).await;
            if !self.or_lift(lanes, paused_of(&last), written).await? {
                if let Some((_, paused)) = &last {
                    self.lift_pauses(lanes, paused).await?;
                }
                return Ok(None);
            }
            stage.base = stage.target.take();
            stage.last_puts = Some(puts.len());
            stage.put = 0;
            let saved = self.save_stage(pass, stage).await;
            self.or_lift(lanes, paused_of(&last), saved).await?;
            base_nodes = target_nodes;
            let Some((settled, paused)) = last else {
                continue;
            };
            let root_entries: Entries = base_nodes.get("").cloned().unwrap_or_default();
            let switch = self
                .switch_root(
                    lanes,
                    (stage.generation, stage.compact),
                    &root_entries,
                    &settled,
                    &paused,
                    SwitchTarget::in_service(board),
                    &mut out,
                )
                .await;
            match self.or_lift(lanes, &paused, switch).await? {
                Switch::Done => {
                    out.nodes = base_nodes.len().max(1);
                    out.paused = paused.into_iter().collect();
                    *stage = Stage::retiring(stage.replaced);
                    self.save_stage(pass, stage).await?;
                    return Ok(Some(out));
                }
                Switch::Passed(passed) => {
                    tracing::info!(board = %id, lanes = ?passed,
                        "staged rebuild: the index applied past a paused lane; scanning again");
                    self.lift_pauses(lanes, &paused).await?;
                }
                Switch::Superseded => {
                    *stage = Stage::retiring(Some(stage.generation));
                    self.save_stage(pass, stage).await?;
                    return Err(StoreError::Contention { attempts: 1 });
                }
            }
        }
    }

    /// `result`, after lifting `paused`'s pauses if it is an error (they end by themselves
    /// too; lifting them spares the plays the wait).
    async fn or_lift<T>(
        self,
        lanes: LaneKeys<'_>,
        paused: &BTreeSet<u8>,
        result: Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if result.is_err() && !paused.is_empty() {
            let _ = self.lift_pauses(lanes, paused).await;
        }
        result
    }

    /// The target's node puts from the checkpointed count on: whether all are made.
    async fn put_stage_nodes(
        self,
        id: &BoardId,
        stage: &mut Stage,
        puts: &[(String, Entries)],
        pass: &Pass<'_>,
        out: &mut RebuildOutcome,
    ) -> Result<bool, StoreError> {
        let mut saved = stage.put;
        let mut all = true;
        while stage.put < puts.len() {
            if !pass.has_time(Duration::ZERO) {
                all = false;
                break;
            }
            let end = (stage.put + DEADLINE_PUTS).min(puts.len());
            let items = puts[stage.put..end]
                .iter()
                .map(|(prefix, entries)| {
                    with_entries(key_item(&node_key(id, stage.generation, prefix)), entries)
                })
                .collect();
            let put = self.table.put_all_in_flight(items, IN_FLIGHT).await?;
            out.items_written += put.items;
            out.requests += put.requests;
            stage.put = end;
            if stage.put - saved >= NODE_PUTS {
                self.save_stage(pass, stage).await?;
                saved = stage.put;
            }
        }
        if stage.put > saved {
            self.save_stage(pass, stage).await?;
        }
        Ok(all)
    }

    /// Step 4: deletes the retired generation a node partition at a time, then the staged
    /// scans and the retired generation's journal item: whether all is done (the checkpoint
    /// is then empty).
    async fn retire_stage(
        self,
        id: &BoardId,
        stage: &mut Stage,
        pass: &Pass<'_>,
        out: &mut RebuildOutcome,
    ) -> Result<bool, StoreError> {
        let Some((generation, mut partition)) = stage.retire else {
            return Ok(!stage.started());
        };
        while generation > 0 && partition < NODE_PARTITIONS {
            if !pass.has_time(Duration::ZERO) {
                return Ok(false);
            }
            let (keys, requests) = self.partition_nodes(id, generation, partition).await?;
            out.requests += requests;
            let deleted = self.table.delete_all(&keys).await?;
            out.nodes_deleted += deleted.items;
            partition += 1;
            stage.retire = Some((generation, partition));
            if partition % 10 == 0 {
                self.save_stage(pass, stage).await?;
            }
        }
        let (mut keys, requests) = self
            .table
            .partition_keys(&stage_pk(id), "Query(rank index staged scans)")
            .await?;
        out.requests += requests;
        keys.push(journal_key(id, generation));
        self.table.delete_all(&keys).await?;
        *stage = Stage::default();
        self.save_stage(pass, stage).await?;
        Ok(true)
    }

    /// Writes the checkpoint, on condition that this run still holds the lease.
    async fn save_stage(self, pass: &Pass<'_>, stage: &Stage) -> Result<(), StoreError> {
        let state = ATTRS
            .iter()
            .zip(stage.attrs())
            .fold(PassState::default(), |state, (attr, value)| {
                state.keep(attr, value)
            });
        pass.checkpoint_pass(state).await
    }

    /// Stages `keys` (sorted) in `slot`: the items written.
    async fn stage_keys(
        self,
        id: &BoardId,
        slot: u8,
        keys: &[CountedKey],
        out: &mut RebuildOutcome,
    ) -> Result<usize, StoreError> {
        let items: Vec<Item> = pack(keys)
            .into_iter()
            .enumerate()
            .map(|(i, bytes)| {
                let mut item = key_item(&stage_key(id, slot, i));
                item.insert("k".into(), AttributeValue::B(Blob::new(bytes)));
                item
            })
            .collect();
        let count = items.len();
        let put = self.table.put_all(items).await?;
        out.requests += put.requests;
        Ok(count)
    }

    /// The keys staged in `slot` (items past its count are an earlier use's, and ignored).
    async fn staged_keys(self, id: &BoardId, slot: Slot) -> Result<Vec<CountedKey>, StoreError> {
        let keys: Vec<Key> = (0..slot.items)
            .map(|i| stage_key(id, slot.slot, i))
            .collect();
        let mut found = self
            .table
            .batch_get_all(&keys, "BatchGetItem(rank index staged scan)")
            .await?;
        let chunks: Vec<Vec<u8>> = keys
            .iter()
            .filter_map(|key| match found.take(key)?.remove("k") {
                Some(AttributeValue::B(bytes)) => Some(bytes.into_inner()),
                _ => None,
            })
            .collect();
        if chunks.len() != slot.items {
            return Err(StoreError::corrupt(
                stage_pk(id),
                format!("{} of {} staged items", chunks.len(), slot.items),
            ));
        }
        unpack(&chunks).map_err(|e| StoreError::corrupt(stage_pk(id), e.to_string()))
    }
}

/// The lanes paused for the last scan, if this is it.
fn paused_of<S>(last: &Option<(S, BTreeSet<u8>)>) -> &BTreeSet<u8> {
    static NONE: BTreeSet<u8> = BTreeSet::new();
    last.as_ref().map_or(&NONE, |(_, paused)| paused)
}
