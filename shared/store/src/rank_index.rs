//! The stream-maintained rank index (see [`leaderboard_keys::rankindex`] for the structure):
//! applying Score changes from the stream exactly once, and building a quiet board's index in
//! one pass. Reading a rank from it is `rank_lookup`'s job.
//!
//! # Items
//! - Node `RANKNODE#<b>#<shard>#<prefix>` / `#NODE`: counters `c<label>`, tie sets `t<label>`
//!   (last level), and on the root (`prefix` empty) `applied`.
//! - Written count `RANKSEQ#<b>#<shard>` / `#WRITTEN`: `written`, added to by the submit path in
//!   the same transaction as every entry change.
//! - Marker `PLAYER#<p>` / `RANKED#<b>`: the Score sort key the index counts for the player
//!   (`rk`, absent when none) and the entry `version` it has applied.
//!
//! # Exactly once
//! A player's changes of a batch are folded over the marker (a change is new only if its
//! version is above the marker's; a removal only if it removes the counted key), and the net
//! node deltas, the root's `applied` and the new marker go in *one* transaction conditioned on
//! the marker read. A re-delivered, replayed or re-ordered change is recognised by its version
//! and does nothing; two deliveries racing are serialised by the marker's condition. Versions
//! come from the entry pointer (each change of a player's entry adds one), so nothing here
//! depends on the order of stream records across items.

use aws_sdk_dynamodb::types::{AttributeValue, TransactWriteItem};
use leaderboard_keys::KeyError;
use leaderboard_keys::entity;
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank_v2;
use leaderboard_keys::rankindex::{
    self, APPLIED_ATTR, CREATED_ATTR, IndexedKey, Layout, NodeCounts, NodeDelta, WRITTEN_ATTR,
    WRITTEN_SHARDS, count_attr, shard_of, ties_attr,
};
use leaderboard_keys::time::Timestamp;

use crate::items::{Item, ItemExt, key_item, n, s};
use crate::model::{Board, RankLayout};
use crate::rank_v2::LaneChangeItem;
use crate::request::{Params, WithParams};
use crate::retry::Retry;
use crate::{Store, StoreError};

/// One change of a player's entry, as the stream shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankChange {
    /// `true` for an INSERT or MODIFY (the new image), `false` for a REMOVE (the old image).
    pub upsert: bool,
    /// The Score item's sort key.
    pub score_sk: String,
    /// The Score item's `version`.
    pub version: u64,
}

/// What applying one player's changes did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RankApplyOutcome {
    /// Changes that moved the index.
    pub applied: usize,
    /// Changes the index had already (re-deliveries, replays) or that were superseded.
    pub already_applied: usize,
    /// Items written (marker and nodes), 0 if nothing changed.
    pub items_written: usize,
    /// Requests made.
    pub requests: u32,
    /// Changes left alone because the board's index is layout v2, kept from its lanes.
    pub other_layout: usize,
}

/// The marker as read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Marker {
    exists: bool,
    rk: Option<String>,
    version: u64,
}

/// Folds `changes` over the marker: the marker after them, and how many were new.
fn fold(start: &Marker, changes: &[RankChange]) -> (Marker, usize) {
    let mut state = start.clone();
    let mut applied = 0;
    for c in changes {
        if c.upsert {
            if c.version > state.version {
                state.rk = Some(c.score_sk.clone());
                state.version = c.version;
                applied += 1;
            }
        } else if state.rk.as_deref() == Some(c.score_sk.as_str()) && c.version >= state.version {
            state.rk = None;
            state.version = c.version;
            applied += 1;
        }
    }
    (state, applied)
}

/// A number attribute, 0 when absent or not a number.
pub(crate) fn num(item: &Item, attr: &str) -> i64 {
    item.number(attr).unwrap_or(0)
}

/// The marker item: the index counts `rk` (none when absent) for `player` on `board`, having
/// applied the entry's changes up to `version`.
fn marker_item(board: &BoardId, player: &PlayerId, version: u64, rk: Option<&str>) -> Item {
    let mut item = key_item(&entity::rank_marker(player, board));
    item.insert("leaderboardId".into(), s(board.as_str()));
    item.insert("playerId".into(), s(player.as_str()));
    item.insert("version".into(), n(version));
    if let Some(rk) = rk {
        item.insert("rk".into(), s(rk));
    }
    item
}

impl Store {
    async fn read_marker(&self, board: &BoardId, player: &PlayerId) -> Result<Marker, StoreError> {
        let out = self
            .get_request(&entity::rank_marker(player, board))
            .send()
            .await
            .map_err(|e| StoreError::sdk("GetItem(rank marker)", e))?;
        Ok(match out.item {
            None => Marker::default(),
            Some(item) => Marker {
                exists: true,
                rk: item.string("rk").map(str::to_owned),
                version: num(&item, "version").max(0) as u64,
            },
        })
    }

    /// Applies one player's Score changes on one board (in stream order) to the rank index,
    /// exactly once: see the module documentation.
    pub async fn apply_rank_changes(
        &self,
        board: &BoardId,
        player: &PlayerId,
        changes: &[RankChange],
    ) -> Result<RankApplyOutcome, StoreError> {
        let mut outcome = RankApplyOutcome::default();
        let Some(first) = changes.first() else {
            return Ok(outcome);
        };
        // A layout v2 board's index is kept from its lanes alone.
        if self.rank_layout(board).await? == RankLayout::V2 {
            outcome.other_layout = changes.len();
            return Ok(outcome);
        }
        let layout = IndexedKey::parse(&first.score_sk)?.layout();
        let shard = shard_of(player.as_str(), layout.node_shards);
        for attempt in Retry::RANK_APPLY.attempts() {
            let marker = self.read_marker(board, player).await?;
            outcome.requests += 1;
            let (end, applied) = fold(&marker, changes);
            outcome.applied = applied;
            outcome.already_applied = changes.len() - applied;
            if end.rk == marker.rk && end.version == marker.version {
                outcome.items_written = 0;
                return Ok(outcome);
            }
            let old = marker.rk.as_deref().map(IndexedKey::parse).transpose()?;
            let new = end.rk.as_deref().map(IndexedKey::parse).transpose()?;
            let mut nodes = rankindex::deltas(old.as_ref(), new.as_ref())?;
            if nodes.first().is_none_or(|n| n.level != 0) {
                nodes.insert(
                    0,
                    NodeDelta {
                        level: 0,
                        ..NodeDelta::default()
                    },
                );
            }
            let applied_versions = end.version - marker.version;
            let mut items = vec![self.marker_put(board, player, &marker, &end)?];
            for node in &nodes {
                let extra = (node.level == 0 && applied_versions > 0).then_some(applied_versions);
                let empty = node.counts.is_empty()
                    && node.tie_add.is_none()
                    && node.tie_remove.is_none()
                    && extra.is_none();
                if !empty {
                    items.push(self.node_update(board, shard, player, node, extra)?);
                }
            }
            outcome.items_written = items.len();
            let sent = self.transact(items, "TransactWriteItems(rank index)").await;
            outcome.requests += 1;
            match sent {
                Ok(()) => return Ok(outcome),
                Err(e) if e.worth_rereading() => {
                    tracing::debug!(attempt, error = %e, "rank index write failed; retrying");
                }
                Err(e) => return Err(e),
            }
            Retry::RANK_APPLY.pause(attempt).await;
        }
        Err(Retry::RANK_APPLY.exhausted())
    }

    fn marker_put(
        &self,
        board: &BoardId,
        player: &PlayerId,
        read: &Marker,
        end: &Marker,
    ) -> Result<TransactWriteItem, StoreError> {
        let item = marker_item(board, player, end.version, end.rk.as_deref());
        let (condition, params) = match (&read.exists, &read.rk) {
            (false, _) => ("attribute_not_exists(pk)", Params::new()),
            (true, Some(rk)) => (
                "version = :v AND rk = :rk",
                Params::new().value(":v", read.version).value(":rk", rk),
            ),
            (true, None) => (
                "version = :v AND attribute_not_exists(rk)",
                Params::new().value(":v", read.version),
            ),
        };
        self.tx_put(item, Some(condition), params)
    }

    fn node_update(
        &self,
        board: &BoardId,
        shard: u8,
        player: &PlayerId,
        node: &NodeDelta,
        applied: Option<u64>,
    ) -> Result<TransactWriteItem, StoreError> {
        let mut params = Params::new();
        let mut adds = Vec::new();
        for (i, (label, delta)) in node.counts.iter().enumerate() {
            params = params
                .name(format!("#c{i}"), count_attr(label))
                .value(format!(":c{i}"), delta);
            adds.push(format!("#c{i} :c{i}"));
        }
        if let Some(v) = applied {
            params = params.name("#applied", APPLIED_ATTR).value(":applied", v);
            adds.push("#applied :applied".into());
        }
        let me = AttributeValue::Ss(vec![player.to_string()]);
        if let Some(label) = &node.tie_add {
            params = params
                .name("#tadd", ties_attr(label))
                .attr(":me", me.clone());
            adds.push("#tadd :me".into());
        }
        let mut expression = String::new();
        if !adds.is_empty() {
            expression = format!("ADD {}", adds.join(", "));
        }
        if let Some(label) = &node.tie_remove {
            params = params.name("#tdel", ties_attr(label)).attr(":me", me);
            expression.push_str(" DELETE #tdel :me");
        }
        let key = entity::rank_node(board, shard, &node.prefix);
        self.tx_update(&key, expression.trim(), params)
    }

    /// The submit path's part of the index, in the play's transaction: add one to the player's
    /// written count (its lane), and one to its created count when the entry is the player's
    /// first (`old` is `None`) or take one from it when the entry is removed (`new` is `None`).
    /// On a layout v2 board, or one being moved onto it, the lane also records the change
    /// itself, `chg = {o: old sort key, n: new sort key}`, which its stream record carries to
    /// the index numbered by the `written` after the add.
    pub(crate) fn written_update(
        &self,
        board: &Board,
        player: &PlayerId,
        old: Option<&str>,
        new: Option<&str>,
    ) -> Result<TransactWriteItem, StoreError> {
        let shard = shard_of(player.as_str(), WRITTEN_SHARDS);
        let key = entity::rank_written(&board.leaderboard_id, shard);
        let mut params = Params::new().name("#w", WRITTEN_ATTR).value(":one", 1u64);
        let mut update = String::from("ADD #w :one");
        match (old, new) {
            (None, _) => {
                update.push_str(", #c :one");
                params = params.name("#c", CREATED_ATTR);
            }
            (Some(_), None) => {
                update.push_str(", #c :minus");
                params = params.name("#c", CREATED_ATTR).value(":minus", -1i64);
            }
            (Some(_), Some(_)) => {}
        }
        if board.rank_layout == RankLayout::V2 || board.rank_migrating {
            update.push_str(" SET #chg = :chg");
            params = params
                .name("#chg", rank_v2::CHANGE_ATTR)
                .value(":chg", LaneChangeItem { o: old, n: new })
                .name("#pause", rank_v2::PAUSE_ATTR)
                .value(":now", Timestamp::now().as_millis());
            // A live rebuild may hold the lane's plays back for a moment (see `rank_rebuild`):
            // the play fails this condition and retries like any other conflict.
            return self.tx_update_if(
                &key,
                &update,
                "attribute_not_exists(#pause) OR #pause < :now",
                params,
            );
        }
        // A board stored before v2: once its migration has started (the lane is logged), a
        // play that read the board before must read it again and record its change.
        self.tx_update_if(
            &key,
            &update,
            "attribute_not_exists(#log)",
            params.name("#log", rank_v2::LOGGED_ATTR),
        )
    }

    /// Adds `counts[shard]` to the written and created counts (bulk import of new entries:
    /// before its items are written, so that a failure leaves the index looking behind, never
    /// ahead).
    pub(crate) async fn add_written(
        &self,
        board: &BoardId,
        counts: &[u64; WRITTEN_SHARDS as usize],
    ) -> Result<(), StoreError> {
        for (shard, &count) in counts.iter().enumerate() {
            if count == 0 {
                continue;
            }
            self.update_request(
                &entity::rank_written(board, shard as u8),
                "ADD #w :n, #c :n",
            )
            .params(
                Params::new()
                    .name("#w", WRITTEN_ATTR)
                    .name("#c", CREATED_ATTR)
                    .value(":n", count),
            )?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(rank written)", e))?;
        }
        Ok(())
    }
}

/// What [`Store::build_rank_index`] wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RankBuildStats {
    /// Entries indexed.
    pub entries: usize,
    /// Node items written.
    pub nodes: usize,
    /// Items written in all (nodes, markers, written counts).
    pub items: usize,
    /// Requests made (Query pages and BatchWriteItem calls).
    pub requests: u32,
}

impl Store {
    /// Builds a board's rank index from its entries, and marks the board indexed: for a board
    /// made before the index existed, to repair one, or to load a benchmark.
    ///
    /// A layout v2 board is rebuilt with [`Store::rebuild_lane_index`], safe while plays go on.
    ///
    /// A v1 board's nodes, markers and written counts are computed in one pass and put whole
    /// (replacing what was there), which is right **only on a quiet board**: no plays recorded
    /// and no stream records of its entries pending while it runs. An indexed v1 board whose
    /// lanes move during the scan is refused ([`StoreError::Invalid`]) before anything is
    /// written, and again after the writes if plays came in meanwhile (the index may then be
    /// wrong until built again on a quiet board). A board made before the index has no lanes,
    /// so its quiet is the caller's to ensure.
    pub async fn build_rank_index(&self, board: &Board) -> Result<RankBuildStats, StoreError> {
        if board.rank_layout == RankLayout::V2 {
            if !board.rank_index {
                return Err(StoreError::Invalid(format!(
                    "leaderboard {} has layout v2 but no index; v2 boards are indexed from \
                     their creation",
                    board.leaderboard_id
                )));
            }
            let rebuilt = self.rebuild_lane_index(board).await?;
            return Ok(RankBuildStats {
                entries: rebuilt.entries,
                nodes: rebuilt.nodes,
                items: rebuilt.items_written,
                requests: rebuilt.requests,
            });
        }
        use std::collections::BTreeMap;
        let id = &board.leaderboard_id;
        let layout = Layout::for_score_digits(board.spec()?.width().digits() as usize);
        let mut stats = RankBuildStats::default();
        let mut nodes: BTreeMap<(u8, String), NodeCounts> = BTreeMap::new();
        let mut applied = vec![0u64; layout.node_shards as usize];
        let mut written = [0u64; WRITTEN_SHARDS as usize];
        let mut created = [0u64; WRITTEN_SHARDS as usize];
        let mut items: Vec<Item> = Vec::new();
        let lanes_before = self.lane_counts(id).await?;
        stats.requests += 1;
        stats.requests += self
            .scan_scores(id, "sk, playerId, version", |item| {
                let sk = crate::items::key_string(item, "sk");
                let key = IndexedKey::parse(&sk)?;
                let player = PlayerId::parse(key.player()).map_err(KeyError::from)?;
                let version = num(item, "version").max(1) as u64;
                let written_shard = shard_of(key.player(), WRITTEN_SHARDS) as usize;
                written[written_shard] += version;
                created[written_shard] += 1;
                stats.entries += 1;
                let shard = shard_of(key.player(), layout.node_shards);
                for level in 0..layout.levels {
                    let node = nodes
                        .entry((shard, key.prefix(level).to_owned()))
                        .or_default();
                    let label = key.label(level).to_owned();
                    *node.counts.entry(label.clone()).or_default() += 1;
                    if level == layout.levels - 1 {
                        node.ties
                            .entry(label)
                            .or_default()
                            .insert(key.player().to_owned());
                    }
                }
                applied[shard as usize] += version;
                items.push(marker_item(id, &player, version, Some(&sk)));
                Ok(())
            })
            .await?;
        // Plays move an indexed board's lanes: compared with what they held, a lane that moved
        // says the board is not quiet.
        let quiet = |lanes: [u64; WRITTEN_SHARDS as usize],
                     held: &[u64; WRITTEN_SHARDS as usize]| {
            if !board.rank_index || lanes == *held {
                return Ok(());
            }
            Err(StoreError::Invalid(format!(
                "leaderboard {id} took plays while its v1 rank index was being built; a v1 \
                 index is built on a quiet board only: build it again when no plays come in"
            )))
        };
        quiet(self.lane_counts(id).await?, &lanes_before)?;
        stats.requests += 1;
        stats.nodes = nodes.len();
        for ((shard, prefix), node) in nodes {
            let mut item = key_item(&entity::rank_node(id, shard, &prefix));
            for (label, count) in node.counts {
                item.insert(count_attr(&label), n(count));
            }
            for (label, ids) in node.ties {
                item.insert(
                    ties_attr(&label),
                    AttributeValue::Ss(ids.into_iter().collect()),
                );
            }
            if prefix.is_empty() {
                item.insert(APPLIED_ATTR.into(), n(applied[shard as usize]));
            }
            items.push(item);
        }
        for (shard, count) in written.iter().enumerate() {
            let mut item = key_item(&entity::rank_written(id, shard as u8));
            item.insert(WRITTEN_ATTR.into(), n(count));
            item.insert(CREATED_ATTR.into(), n(created[shard]));
            items.push(item);
        }
        let put = self.put_all(items).await?;
        stats.items = put.items;
        stats.requests += put.requests;
        quiet(self.lane_counts(id).await?, &written)?;
        stats.requests += 1;
        self.update_request(&entity::board(id), "SET rankIndex = :t")
            .params(Params::new().value(":t", true))?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(board rank index)", e))?;
        stats.requests += 1;
        Ok(stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn up(sk: &str, version: u64) -> RankChange {
        RankChange {
            upsert: true,
            score_sk: sk.into(),
            version,
        }
    }
    fn rm(sk: &str, version: u64) -> RankChange {
        RankChange {
            upsert: false,
            score_sk: sk.into(),
            version,
        }
    }
    fn marker(rk: Option<&str>, version: u64) -> Marker {
        Marker {
            exists: true,
            rk: rk.map(str::to_owned),
            version,
        }
    }

    #[test]
    fn a_change_counts_once_in_either_record_order() {
        let start = marker(Some("A"), 1);
        // The play's REMOVE and INSERT, in both orders, and again.
        for changes in [
            vec![rm("A", 1), up("B", 2)],
            vec![up("B", 2), rm("A", 1)],
            vec![rm("A", 1), up("B", 2), rm("A", 1), up("B", 2)],
        ] {
            let (end, applied) = fold(&start, &changes);
            assert_eq!(end.rk.as_deref(), Some("B"));
            assert_eq!(end.version, 2);
            assert!(applied >= 1);
        }
        // Replayed after a later change: nothing moves.
        let later = marker(Some("C"), 3);
        let (end, applied) = fold(&later, &[rm("A", 1), up("B", 2), rm("B", 2)]);
        assert_eq!((end, applied), (later, 0));
        // A removal of what is counted.
        let (end, applied) = fold(&marker(Some("B"), 2), &[rm("B", 2)]);
        assert_eq!((end.rk, end.version, applied), (None, 2, 1));
        // A first entry.
        let (end, _) = fold(&Marker::default(), &[up("A", 1)]);
        assert_eq!((end.rk.as_deref(), end.version), (Some("A"), 1));
    }
}
