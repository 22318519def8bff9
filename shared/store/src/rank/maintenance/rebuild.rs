//! Rebuilding a board's rank index from its Score items while plays go on, in one go:
//! `build_rank_index` and a board's migration onto the index. The repair's rebuild, staged over
//! as many runs as it needs, shares its scan and its switch (`staged.rs`).
//!
//! The rebuild needs, for every lane, the board's keys exactly as they stood at one of that
//! lane's change numbers. A scan of the Score items is not a snapshot, but a lane's players only
//! change their entries in transactions that also add to that lane's `written`. So when a lane
//! reads the same `written` (strongly consistent) before and after a scan, the scan saw its
//! players exactly as of that number: the lane is *settled*. Lanes settle independently, in the
//! same scan or in later ones.
//!
//! When every lane has settled, the nodes are written under a generation no other build used,
//! and the root is replaced by one transaction: counters, each lane's watermark at its settled
//! number, the new generation. Its condition is that, for every lane, the old index has not
//! applied past that number (the changes after it are still to come from the stream, and the
//! new index takes them; the ones before it are in the scan). A lane the old index passed
//! settles again.
//!
//! A busy lane may never keep still for a whole scan, and a settled lane that keeps moving may
//! be applied past its number before the switch. So after [`FREE_SCANS`] scans every lane is
//! *paused* and the board scanned once more: a paused lane's plays fail a condition of their
//! transaction and retry (the play's own retry budget, about 9 s), until the switch lifts the
//! pause, or until it ends by itself after the store's lane pause
//! ([`LANE_PAUSE`](crate::LANE_PAUSE) unless [`Store::with_lane_pause`](crate::Store::with_lane_pause) says otherwise) whatever
//! becomes of the rebuild. With every lane paused, every lane settles in that scan and the old
//! index cannot pass any of them, so the switch succeeds unless the pause ran out first (a
//! board whose scan and node writes take longer than the pause) or another rebuild took over.
//! The outcome says whether the lanes were paused. Plays are held for one scan and the node
//! writes at most; the node writes go [`IN_FLIGHT`] requests at a time, so that their time is
//! their number of rounds.
//!
//! After its switch a rebuild deletes the generation it replaced (listed by one Query per node
//! partition); a switch attempt that fails deletes the nodes it wrote.

use std::collections::{BTreeMap, BTreeSet};

use futures::StreamExt;

use leaderboard_keys::entity;
use leaderboard_keys::entity::Key;
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank_index::compact::{COMPACT_LAYOUT, Entries, LAYOUT_ATTR};
use leaderboard_keys::rank_index::journal::journal_key;
use leaderboard_keys::rank_index::{
    CREATED_ATTR, CountedKey, ENTRY_GENERATION_ATTR, GENERATION_ATTR, NODE_PARTITIONS,
    RESERVED_ATTR, WRITTEN_ATTR, node_key, node_partition_pk, root_key, watermark_attr,
};

use leaderboard_keys::time::Timestamp;

use crate::ground::error::CancelReason;
use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt, key_item, key_string, n};
use crate::ground::model::Board;
use crate::rank::Rank;
use crate::rank::apply::root_watermarks;
use crate::rank::compact::{built_nodes, with_entries};
use crate::rank::lanes::LaneKeys;
use crate::rank::maintenance::lane_holds::SwitchTarget;
use crate::rank::settings::SettingsChange;
use crate::table::request::{Index, Params, WithParams};
use crate::table::retry::Retry;

/// Scans made before the lanes that did not settle are paused.
pub const FREE_SCANS: u32 = 2;
/// Scans made in all before the rebuild gives up ([`StoreError::Contention`]): the free ones,
/// and two with the lanes paused (the second only if the first outlasted its pause).
pub const MAX_SCANS: u32 = FREE_SCANS + 2;
/// Node item requests sent at once. A switch's node writes are the time between a scan and
/// its switch, in which the lanes must keep still (paused, they hold plays back): their time
/// is their number of rounds, not of requests.
pub(super) const IN_FLIGHT: usize = 8;

/// What [`Rank::rebuild_lane_index`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RebuildOutcome {
    /// The generation now in service.
    pub generation: u64,
    /// Entries the new index counts.
    pub entries: usize,
    /// Node items of the new generation, the root included.
    pub nodes: usize,
    /// Scans of the board's Score items.
    pub scans: u32,
    /// Lanes whose plays were held back so that they would settle (none, or all of them).
    pub paused: Vec<u8>,
    /// Requests sent.
    pub requests: u32,
    /// Items written (nodes, and the root once per attempt).
    pub items_written: usize,
    /// Nodes deleted: the generation replaced, and any this rebuild wrote and did not use.
    pub nodes_deleted: usize,
}

/// Each lane's item (empty for a lane never written).
pub(super) type Lanes = Vec<Item>;

/// A lane's players' keys as of its change number `written`, and the lane's `created` count
/// then (which the switch corrects to the keys' number, should it be off: a board that counted
/// its lanes before `created` existed, or not at all).
pub(super) struct Settled {
    pub(super) written: u64,
    pub(super) created: i64,
    pub(super) keys: Vec<CountedKey>,
}

/// The lanes that kept still through one scan (the same `written` before and after), each
/// with its keys from `keys`.
pub(super) fn settled_lanes(
    before: &Lanes,
    mut keys: BTreeMap<u8, Vec<CountedKey>>,
    after: &Lanes,
) -> BTreeMap<u8, Settled> {
    (0..=u8::MAX)
        .zip(before.iter().zip(after))
        .filter_map(|(lane, (before, after))| {
            let written = after.number(WRITTEN_ATTR).unwrap_or(0);
            (before.number(WRITTEN_ATTR).unwrap_or(0) == written).then(|| {
                let settle = Settled {
                    written,
                    created: after.number(CREATED_ATTR).unwrap_or(0),
                    keys: keys.remove(&lane).unwrap_or_default(),
                };
                (lane, settle)
            })
        })
        .collect()
}

/// How a switch attempt ended.
pub(super) enum Switch {
    Done,
    /// The old index applied past these lanes' settled numbers: they settle again.
    Passed(Vec<u8>),
    /// A later build reserved a generation: it switches, not this one.
    Superseded,
}

impl Rank<'_> {
    /// Rebuilds a board's index into a new generation and switches to it, safe while
    /// plays go on (see the module documentation). Requests: per scan, 2 lane reads and
    /// `ceil(N / 4,681)` Query pages; per switch attempt, 1 reservation, the node puts
    /// (`ceil(nodes / 25)`), 1 transaction and, if it fails, 1 root read; one pause write per
    /// lane paused. At most [`MAX_SCANS`] scans.
    pub async fn rebuild_lane_index(self, board: &Board) -> Result<RebuildOutcome, StoreError> {
        self.rebuild_into(board, SwitchTarget::in_service(board))
            .await
    }

    /// [`Rank::rebuild_lane_index`] over the entries of `target`, switching them in with the
    /// index when they are a widening's.
    pub(super) async fn rebuild_into(
        self,
        board: &Board,
        target: SwitchTarget<'_>,
    ) -> Result<RebuildOutcome, StoreError> {
        let id = &board.board_id;
        let lanes = LaneKeys::of(board);
        let mut out = RebuildOutcome::default();
        let mut settled: BTreeMap<u8, Settled> = BTreeMap::new();
        let mut paused: BTreeSet<u8> = BTreeSet::new();
        let result = 'rounds: loop {
            if out.scans == MAX_SCANS {
                break Err(StoreError::Contention {
                    attempts: out.scans,
                });
            }
            if out.scans >= FREE_SCANS {
                // Every lane, settled or not: a settled lane left to move could be applied
                // past its number before the switch. Paused, each settles at its last number.
                let until = Timestamp::now().plus_millis(self.lane_pause.as_millis() as u64);
                for lane in lanes.lanes() {
                    paused.insert(lane);
                    out.requests += 1;
                    if let Err(e) = self.pause_lane(lanes, lane, until).await {
                        break 'rounds Err(e);
                    }
                }
                settled.clear();
            }
            let (before, keys, after) = match self
                .scan_lanes(lanes, target.score_pks(board), &mut out)
                .await
            {
                Ok(scanned) => scanned,
                Err(e) => break Err(e),
            };
            for (lane, settle) in settled_lanes(&before, keys, &after) {
                settled.entry(lane).or_insert(settle);
            }
            if settled.len() < usize::from(lanes.count) {
                tracing::info!(board = %id, settled = settled.len(), scans = out.scans,
                    "rank index rebuild: lanes moved during the scan; scanning again");
                continue;
            }
            match self
                .switch_generation(lanes, &settled, &paused, target, &mut out)
                .await
            {
                Ok(Switch::Done) => break Ok(()),
                Ok(Switch::Superseded) => break Err(StoreError::Contention { attempts: 1 }),
                Ok(Switch::Passed(passed)) => {
                    tracing::info!(board = %id, lanes = ?passed,
                        "rank index rebuild: the index applied past a settled lane; scanning again");
                    for lane in passed {
                        settled.remove(&lane);
                    }
                }
                Err(e) => break Err(e),
            }
        };
        out.paused = paused.iter().copied().collect();
        if let Err(e) = &result {
            tracing::warn!(board = %id, error = %e, scans = out.scans, ?paused,
                "rank index rebuild gave up");
            if !paused.is_empty() {
                // The pauses end by themselves; lifting them now spares the plays the wait.
                let _ = self.lift_pauses(lanes, &paused).await;
            }
        } else {
            tracing::info!(board = %id, generation = out.generation, entries = out.entries,
                scans = out.scans, ?paused, "rank index index rebuilt");
        }
        result.map(|()| out)
    }

    /// One scan: the lanes, the board's keys by lane (its Score items in the partitions
    /// `pks`), the lanes again.
    pub(super) async fn scan_lanes(
        self,
        lanes: LaneKeys<'_>,
        pks: Vec<String>,
        out: &mut RebuildOutcome,
    ) -> Result<(Lanes, BTreeMap<u8, Vec<CountedKey>>, Lanes), StoreError> {
        let before = self.table.lane_items(lanes).await?;
        let mut keys: BTreeMap<u8, Vec<CountedKey>> = BTreeMap::new();
        out.requests += self
            .scan_scores(pks, "sk", |item| {
                let key = CountedKey::parse(&key_string(item, "sk"))?;
                keys.entry(key.lane(lanes.count)).or_default().push(key);
                Ok(())
            })
            .await?;
        let after = self.table.lane_items(lanes).await?;
        out.requests += 2;
        out.scans += 1;
        Ok((before, keys, after))
    }

    /// Writes the settled keys' nodes under a new generation and switches the root to them, on
    /// condition that the old index applied no lane past its settled number.
    async fn switch_generation(
        self,
        lanes: LaneKeys<'_>,
        settled: &BTreeMap<u8, Settled>,
        paused: &BTreeSet<u8>,
        target: SwitchTarget<'_>,
        out: &mut RebuildOutcome,
    ) -> Result<Switch, StoreError> {
        let id = lanes.board;
        let (generation, replaced) = self.reserve_generation(id).await?;
        out.requests += 1;
        let keys: Vec<&CountedKey> = settled.values().flat_map(|s| &s.keys).collect();
        let mut nodes = built_nodes(keys.iter().copied(), true);
        let root_entries = nodes.remove("").unwrap_or_default();
        let node_keys: Vec<Key> = nodes
            .keys()
            .map(|prefix| node_key(id, generation, prefix))
            .collect();
        let items: Vec<Item> = node_keys
            .iter()
            .zip(nodes.values())
            .map(|(key, entries)| with_entries(key_item(key), entries))
            .collect();
        let put = self.table.put_all_in_flight(items, IN_FLIGHT).await?;
        out.items_written += put.items;
        out.requests += put.requests;
        let switched = self
            .switch_root(
                lanes,
                (generation, true),
                &root_entries,
                settled,
                paused,
                target,
                out,
            )
            .await?;
        match &switched {
            // No build can switch between this one's reservation and its switch (each needs
            // `gn` to be its own), so the generation replaced is the one in service then.
            Switch::Done => {
                out.nodes = nodes.len() + 1;
                if let Some(replaced) = replaced {
                    self.clear_generation(id, replaced, out).await;
                }
            }
            Switch::Passed(_) | Switch::Superseded => {
                self.clear_nodes(id, generation, &node_keys, out).await
            }
        }
        Ok(switched)
    }

    /// Switches the root to `generation`, whose nodes count the settled keys (on the compact
    /// layout when `compact`, which the root then says): its entries,
    /// each lane's watermark at its settled number, the lanes' pauses lifted and their `created`
    /// corrected, on condition that `generation` is still the last reserved and that the old
    /// index applied no lane past its settled number. A widening's switch (`target`) puts its
    /// entries in service in the same transaction.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn switch_root(
        self,
        lanes: LaneKeys<'_>,
        (generation, compact): (u64, bool),
        root_entries: &Entries,
        settled: &BTreeMap<u8, Settled>,
        paused: &BTreeSet<u8>,
        target: SwitchTarget<'_>,
        out: &mut RebuildOutcome,
    ) -> Result<Switch, StoreError> {
        // The root is written twice: the reservation, and the switch.
        out.items_written += 2;
        out.requests += 1;
        let root = root_key(lanes.board);
        let mut item = with_entries(key_item(&root), root_entries);
        if compact {
            item.insert(LAYOUT_ATTR.into(), n(COMPACT_LAYOUT));
        }
        let mut conditions = vec!["#gn = :gn".to_owned()];
        let mut params = Params::new()
            .name("#gn", RESERVED_ATTR)
            .value(":gn", generation);
        for (&lane, s) in settled {
            if s.written > 0 {
                item.insert(watermark_attr(lane), n(s.written));
            }
            conditions.push(format!(
                "(attribute_not_exists(#w{lane}) OR #w{lane} <= :w{lane})"
            ));
            params = params
                .name(format!("#w{lane}"), watermark_attr(lane))
                .value(format!(":w{lane}"), s.written);
        }
        item.insert(GENERATION_ATTR.into(), n(generation));
        item.insert(RESERVED_ATTR.into(), n(generation));
        if target.entry_generation > 0 {
            item.insert(ENTRY_GENERATION_ATTR.into(), n(target.entry_generation));
        }
        let mut tx = vec![
            self.table
                .tx_put(item, Some(&conditions.join(" AND ")), params)?,
        ];
        // Every lane, so that a rank read that read the old root before this commits and its
        // lanes after sees the new generation on them (see `LANE_GENERATION_ATTR`).
        for lane in lanes.lanes() {
            let off_by = settled
                .get(&lane)
                .map_or(0, |s| (s.keys.len() as i64).saturating_sub(s.created));
            tx.push(self.lane_at_switch(
                lanes,
                lane,
                generation,
                paused.contains(&lane),
                off_by,
                target.widening.map(|(board, _)| SettingsChange::of(board)),
            )?);
        }
        if let Some((board, run)) = target.widening {
            tx.push(self.widening_switch(board, run)?);
        }
        match self.transact_switch(tx).await {
            Ok(()) => {
                out.generation = generation;
                out.entries = settled.values().map(|s| s.keys.len()).sum();
                Ok(Switch::Done)
            }
            Err(StoreError::TransactionCanceled { reasons })
                if reasons.first() == Some(&CancelReason::ConditionalCheckFailed) =>
            {
                let now = self.table.get_raw(&root).await?.unwrap_or_default();
                out.requests += 1;
                if now.number::<u64>(RESERVED_ATTR) != Some(generation) {
                    // A later build reserved a generation: it switches, not this one.
                    return Ok(Switch::Superseded);
                }
                let applied = root_watermarks(&now);
                Ok(Switch::Passed(
                    settled
                        .iter()
                        .filter(|(lane, s)| applied.get(**lane) > s.written)
                        .map(|(lane, _)| *lane)
                        .collect(),
                ))
            }
            Err(e) => Err(e),
        }
    }

    /// Reserves a generation no build used before (`gn` on the root, one UpdateItem): the new
    /// generation, and the one in service when it was reserved (none on a board no apply or
    /// build ever wrote to, which has no nodes).
    pub(super) async fn reserve_generation(
        self,
        id: &BoardId,
    ) -> Result<(u64, Option<u64>), StoreError> {
        let root = root_key(id);
        let reserved = self
            .table
            .update_request(&root, "ADD #gn :one")
            .params(Params::new().name("#gn", RESERVED_ATTR).value(":one", 1u64))?
            .return_values(aws_sdk_dynamodb::types::ReturnValue::AllNew)
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(rank index generation)", e))?;
        let item = reserved.attributes.unwrap_or_default();
        let generation = item
            .number(RESERVED_ATTR)
            .ok_or_else(|| StoreError::corrupt(format!("{} / {}", root.pk, root.sk), "no gn"))?;
        Ok((generation, item.number(GENERATION_ATTR)))
    }

    /// Deletes the nodes this rebuild wrote under a generation that will not serve. The
    /// rebuild's outcome does not depend on it: a failure is logged and leaves unused items.
    pub(super) async fn clear_nodes(
        self,
        id: &BoardId,
        generation: u64,
        keys: &[Key],
        out: &mut RebuildOutcome,
    ) {
        match self.table.delete_all_in_flight(keys, IN_FLIGHT).await {
            Ok(done) => {
                out.requests += done.requests;
                out.nodes_deleted += done.items;
            }
            Err(e) => tracing::warn!(board = %id, generation, error = %e,
                "rank index nodes of an unused generation left in the table"),
        }
    }

    /// Deletes every node of a retired generation: one Query per node partition (and one per
    /// further 1 MB page), then the deletes, 25 a request (the keys of a generation are held
    /// in memory, as the rebuild holds the board's). Failures are logged, as for
    /// [`Rank::clear_nodes`].
    pub(crate) async fn clear_generation(
        self,
        id: &BoardId,
        generation: u64,
        out: &mut RebuildOutcome,
    ) {
        match self.generation_nodes(id, generation, out).await {
            Ok(keys) => self.clear_nodes(id, generation, &keys, out).await,
            Err(e) => tracing::warn!(board = %id, generation, error = %e,
                "rank index nodes of a retired generation left in the table"),
        }
    }

    /// The keys of every node of `generation`, one Query per node partition and 1 MB page
    /// ([`IN_FLIGHT`] partitions at a time), and of its journal item.
    async fn generation_nodes(
        self,
        id: &BoardId,
        generation: u64,
        out: &mut RebuildOutcome,
    ) -> Result<Vec<Key>, StoreError> {
        let mut keys = vec![journal_key(id, generation)];
        let mut partitions = futures::stream::iter(0..NODE_PARTITIONS)
            .map(|partition| self.partition_nodes(id, generation, partition))
            .buffer_unordered(IN_FLIGHT);
        while let Some(found) = partitions.next().await {
            let (found, requests) = found?;
            keys.extend(found);
            out.requests += requests;
        }
        Ok(keys)
    }

    /// The keys of the nodes of `generation` in one node partition, and the Queries it took (one
    /// a 1 MB page).
    pub(super) async fn partition_nodes(
        self,
        id: &BoardId,
        generation: u64,
        partition: u8,
    ) -> Result<(Vec<Key>, u32), StoreError> {
        let pk = node_partition_pk(id, generation, partition);
        self.table
            .partition_keys(&pk, "Query(rank index nodes)")
            .await
    }

    /// A strongly consistent Query of the Score items of partition `pk`.
    pub(super) fn scores_query(
        self,
        pk: &str,
    ) -> Result<aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder, StoreError> {
        Ok(self
            .table
            .query_request(Index::Table)
            .key_condition_expression("pk = :pk AND begins_with(sk, :score)")
            .params(
                Params::new()
                    .value(":pk", pk)
                    .value(":score", entity::SCORE_PREFIX),
            )?
            .consistent_read(true))
    }

    /// Calls `each` with every Score item in the partitions `pks` (a board's, one a write
    /// shard: the attributes of `projection`), read strongly consistent a 1 MB page at a time,
    /// a shard after another: the requests made.
    pub(crate) async fn scan_scores(
        self,
        pks: Vec<String>,
        projection: &str,
        mut each: impl FnMut(&Item) -> Result<(), StoreError>,
    ) -> Result<u32, StoreError> {
        let mut requests = 0;
        for pk in pks {
            let query = self.scores_query(&pk)?.projection_expression(projection);
            requests += self
                .table
                .query_pages("Query(rank index build)", query, |out| {
                    out.items().iter().try_for_each(&mut each)
                })
                .await?;
        }
        Ok(requests)
    }

    /// The switch's transaction, sent again while it only meets plays in flight on its lanes
    /// (a condition that fails, or anything else, ends it).
    async fn transact_switch(
        self,
        tx: Vec<aws_sdk_dynamodb::types::TransactWriteItem>,
    ) -> Result<(), StoreError> {
        for attempt in Retry::ITEM_UPDATE.attempts() {
            match self
                .table
                .transact(tx.clone(), "TransactWriteItems(rank index switch)")
                .await
            {
                Err(StoreError::TransactionCanceled { reasons })
                    if !reasons.contains(&CancelReason::ConditionalCheckFailed)
                        && CancelReason::all_retryable(&reasons) =>
                {
                    tracing::debug!(attempt, ?reasons, "rank index switch met a play; again");
                }
                done => return done,
            }
            Retry::ITEM_UPDATE.pause(attempt).await;
        }
        Err(Retry::ITEM_UPDATE.exhausted())
    }
}

/// What [`Rank::build_rank_index`] wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RankBuildStats {
    /// Entries indexed.
    pub entries: usize,
    /// Node items written.
    pub nodes: usize,
    /// Items written in all (nodes and root).
    pub items: usize,
    /// Requests made (Query pages and BatchWriteItem calls).
    pub requests: u32,
}

impl Rank<'_> {
    /// Builds a board's rank index from its entries, safe while plays go on: for a board whose
    /// entries were imported, to repair one, or to load a benchmark (see
    /// [`Rank::rebuild_lane_index`]). A board made before the index is moved onto it by its
    /// migration, not built: [`StoreError::Invalid`].
    pub async fn build_rank_index(self, board: &Board) -> Result<RankBuildStats, StoreError> {
        if !board.indexed() {
            return Err(StoreError::Invalid(format!(
                "leaderboard {} was made before the rank index's layout 2; the migration moves \
                 it onto the index (season close's scheduled run)",
                board.board_id
            )));
        }
        let rebuilt = self.rebuild_lane_index(board).await?;
        Ok(RankBuildStats {
            entries: rebuilt.entries,
            nodes: rebuilt.nodes,
            items: rebuilt.items_written,
            requests: rebuilt.requests,
        })
    }
}
