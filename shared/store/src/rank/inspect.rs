//! The rank index as stored, for an operator's check (`lbctl stats`, `lbctl verify`): a
//! board's score distribution from the index's upper levels (a bounded number of requests,
//! whatever the board's size), and its root, lanes and nodes, to check against the entries.
//! Never on a player's request path: the distribution's one route is an admin's
//! (`GET /admin/leaderboards/{boardId}/stats`).

use std::collections::BTreeMap;

use leaderboard_keys::entity::Key;
use leaderboard_keys::rank_index::compact::Entries;
use leaderboard_keys::rank_index::{
    Counters, GENERATION_ATTR, GROUP_DIGITS, MAX_LANES, node_key, root_key,
};
use serde::Serialize;

use crate::ground::error::StoreError;
use crate::ground::items::ItemExt;
use crate::ground::model::Board;
use crate::rank::Rank;
use crate::rank::apply::{item_counters, root_watermarks};
use crate::rank::compact::{is_compact, item_entries};
use crate::rank::count::RankCost;
use crate::rank::lanes::{lane_counts, lanes_lag, switched_since};

/// One lane of the board's rank index: the changes logged on it and those the index applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LaneLag {
    /// The lane (`0..10`).
    pub lane: u8,
    /// Changes logged on the lane.
    pub written: u64,
    /// Changes the index applied (`written` once it has caught up).
    pub applied: u64,
}

/// A board's entries counted by score prefix, from its rank index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScoreBuckets {
    /// The board's score digits (its width).
    pub score_digits: usize,
    /// Counts by prefix of the stored score digits (`maxScore - score` on an `asc` board), in
    /// key order; every prefix has the same length, at most `score_digits`.
    pub buckets: Vec<(String, i64)>,
    /// The board's entries, exactly (the lanes' created counts).
    pub entries: i64,
    /// Changes the index had not applied when read: its counts are behind by these.
    pub lag: u64,
    /// The requests made.
    pub requests: u32,
    /// Each lane's written and applied changes, lanes `0..10`.
    pub lanes: Vec<LaneLag>,
}

/// A board's rank index as its root and its lanes say, the root read first: for a check of
/// the index against the entries, which is exact only while the two agree (nothing pending).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexState {
    /// The generation of the nodes in service.
    pub generation: u64,
    /// The root's counters, by child label.
    pub root: Counters,
    /// Each lane's watermark: the last change the index applied (a lane never applied has
    /// none).
    pub watermarks: BTreeMap<u8, u64>,
    /// Each lane's written count: the last change recorded (a lane never written has none).
    pub written: BTreeMap<u8, u64>,
    /// The board's entries as the lanes count them (Σ created).
    pub entries: i64,
    /// The index is on the compact layout (3): only nodes two keys or more share are stored,
    /// with the counts layout 2 keeps for them.
    pub compact: bool,
}

impl IndexState {
    /// The lanes whose watermark differs from their written count, as (lane, applied,
    /// written): behind while the stream brings the changes, ahead never.
    pub fn pending(&self) -> Vec<(u8, u64, u64)> {
        (0..MAX_LANES)
            .filter_map(|lane| {
                let applied = self.watermarks.get(&lane).copied().unwrap_or(0);
                let written = self.written.get(&lane).copied().unwrap_or(0);
                (applied != written).then_some((lane, applied, written))
            })
            .collect()
    }
}

/// The most nodes one level of [`Rank::score_buckets`] reads: one `BatchGetItem`.
pub const BUCKET_NODES: usize = 100;

impl Rank<'_> {
    /// `board`'s entries counted by score prefix, read from its rank index top down: the
    /// root's counters (the first two score digits), then, while fewer than `want` prefixes
    /// hold entries and they are at most [`BUCKET_NODES`], their nodes in one `BatchGetItem`, a
    /// level further (two digits more), never below the score's digits. Then the lanes, for the
    /// entries and the lag. Requests: 1 root, at most `ceil(width / 2) - 1` batches (4 at the
    /// default width), 1 lanes read; again from the root, at most twice more, when a rebuild
    /// switched generations meanwhile.
    pub async fn score_buckets(
        self,
        board: &Board,
        want: usize,
    ) -> Result<ScoreBuckets, StoreError> {
        if !board.indexed() {
            return Err(StoreError::Invalid(format!(
                "leaderboard {} is not on the rank index yet (the migration moves it)",
                board.board_id
            )));
        }
        let score_digits = usize::from(board.spec()?.width().digits());
        let mut requests = 0;
        for _ in 0..3 {
            let root = self.table.get_raw(&root_key(&board.board_id)).await?;
            requests += 1;
            let root = root.unwrap_or_default();
            let generation: u64 = root.number(GENERATION_ATTR).unwrap_or(0);
            let mut buckets: Vec<Bucket> = positive(item_entries(&root), "");
            while buckets.len() < want
                && buckets.len() <= BUCKET_NODES
                && buckets
                    .first()
                    .is_some_and(|b| b.prefix.len() < score_digits)
            {
                // A bucket of one key (the compact layout's) names its key: no node to read.
                let keys: Vec<_> = buckets
                    .iter()
                    .filter(|b| b.rest.is_none())
                    .map(|b| node_key(&board.board_id, generation, &b.prefix))
                    .collect();
                let mut found = self
                    .table
                    .batch_get(&keys, "BatchGetItem(index nodes)")
                    .await?;
                // A level of single-key buckets only (a small compact board) reads nothing.
                requests += u32::from(!keys.is_empty());
                buckets = buckets
                    .into_iter()
                    .flat_map(|b| match &b.rest {
                        Some(rest) => vec![b.deeper(rest, score_digits)],
                        None => {
                            let key = node_key(&board.board_id, generation, &b.prefix);
                            let node = found.take(&key).unwrap_or_default();
                            positive(item_entries(&node), &b.prefix)
                        }
                    })
                    .collect();
            }
            // A label of two digits may run past an odd score width into a tiebreak column's
            // digits: such buckets count under their score prefix (adjacent in key order).
            let mut merged: Vec<(String, i64)> = Vec::with_capacity(buckets.len());
            for b in buckets {
                let prefix = &b.prefix[..b.prefix.len().min(score_digits)];
                match merged.last_mut() {
                    Some((last, count)) if last == prefix => *count += b.count,
                    _ => merged.push((prefix.to_owned(), b.count)),
                }
            }
            let buckets = merged;
            let mut cost = RankCost::default();
            let lanes = self.table.read_lane_items(board, &mut cost).await?;
            requests += cost.requests;
            if switched_since(&lanes, &root) {
                continue;
            }
            let (written, entries) = lane_counts(&lanes);
            let applied = root_watermarks(&root).0;
            return Ok(ScoreBuckets {
                score_digits,
                buckets,
                entries,
                lag: lanes_lag(&lanes, &root),
                requests,
                lanes: (0..=u8::MAX)
                    .take(lanes.len())
                    .map(|lane| LaneLag {
                        lane,
                        written: written.get(&lane).copied().unwrap_or(0),
                        applied: applied.get(&lane).copied().unwrap_or(0),
                    })
                    .collect(),
            });
        }
        Err(StoreError::Contention { attempts: 3 })
    }

    /// `board`'s rank index as its root and lanes say: the root, then the lanes (one consistent
    /// read each; again, at most twice more, when a rebuild switched generations between them).
    pub async fn index_state(self, board: &Board) -> Result<IndexState, StoreError> {
        for _ in 0..3 {
            let root = self
                .table
                .get_raw(&root_key(&board.board_id))
                .await?
                .unwrap_or_default();
            let lanes = self
                .table
                .read_lane_items(board, &mut RankCost::default())
                .await?;
            if switched_since(&lanes, &root) {
                continue;
            }
            let (written, entries) = lane_counts(&lanes);
            return Ok(IndexState {
                generation: root.number(GENERATION_ATTR).unwrap_or(0),
                root: item_counters(&root),
                watermarks: root_watermarks(&root).0,
                written,
                entries,
                compact: is_compact(&root),
            });
        }
        Err(StoreError::Contention { attempts: 3 })
    }

    /// The counters of `board`'s index nodes at `prefixes` in `generation` (`None` for a node
    /// not stored), read consistent, 100 a `BatchGetItem`.
    pub async fn index_nodes(
        self,
        board: &Board,
        generation: u64,
        prefixes: &[String],
    ) -> Result<Vec<(String, Option<Counters>)>, StoreError> {
        let keys: Vec<Key> = prefixes
            .iter()
            .map(|p| node_key(&board.board_id, generation, p))
            .collect();
        let mut found = self
            .table
            .batch_get_all(&keys, "BatchGetItem(index nodes)")
            .await?;
        Ok(prefixes
            .iter()
            .zip(&keys)
            .map(|(p, k)| (p.clone(), found.take(k).map(|item| item_counters(&item))))
            .collect())
    }
}

/// Entries counted under a score prefix, and the rest of the one key when it is one and the
/// index names it (the compact layout).
struct Bucket {
    prefix: String,
    count: i64,
    rest: Option<String>,
}

impl Bucket {
    /// The bucket a level deeper (two digits, never past the score's `score_digits`) holding
    /// this one's one key, whose rest is `rest`.
    fn deeper(&self, rest: &str, score_digits: usize) -> Bucket {
        let width = GROUP_DIGITS.min(score_digits.saturating_sub(self.prefix.len()));
        let (label, rest) = rest.split_at(rest.len().min(width));
        Bucket {
            prefix: format!("{}{label}", self.prefix),
            count: self.count,
            rest: Some(rest.to_owned()),
        }
    }
}

/// The entries of a node at `prefix` that count something, as buckets.
fn positive(entries: Entries, prefix: &str) -> Vec<Bucket> {
    entries
        .into_iter()
        .filter(|(_, e)| e.count > 0)
        .map(|(label, e)| Bucket {
            prefix: format!("{prefix}{label}"),
            count: e.count,
            rest: e.rest.filter(|_| e.count == 1),
        })
        .collect()
}
