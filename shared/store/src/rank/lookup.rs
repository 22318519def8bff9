//! Reading a player's own rank from the rank index, in the order [`rank_index::settle`] needs:
//!
//! 1. **The root**, read by the caller with the entry pointer (`BatchGetItem`), or with the
//!    play's own read before its transaction, or else alone here (`GetItem`): the generation of
//!    the nodes, the entries it counts, and the watermarks the answer starts from.
//! 2. **The snapshot** (`BatchGetItem`, strongly consistent, one request; `rank::snapshot`):
//!    the nodes on the key's path below the root (7 at the default width; on the compact
//!    layout the first `FIRST_PATH_NODES`, and in a second request the rest of a longer path,
//!    a key with tiebreak columns, only where it has not ended in those), from the process's
//!    copy of a hot board's index where it holds one (`rank::index_copy`). Read after the
//!    root, every node holds at least the changes up to the root's watermarks; one that took a
//!    journal the root had not finished, or read some applier steps after the root, holds
//!    more, and every such change is one the lanes (read last) count in the lag, moving the
//!    count above the key by at most one (see `docs/rank-index.md`, "Reading a rank").
//! 3. **The tail** (`Select=COUNT` Query of at most [`TAIL_CAP`] keys), only when the snapshot
//!    says the key's group holds other players.
//! 4. **The lanes** (one consistent Query of their partition, 10 items of about 1.5 KB in all:
//!    one read unit; 10 items by key on a board whose lanes are not grouped yet), last: they
//!    hold every change the snapshot or the tail may have missed or held past the root's
//!    watermarks: the lag. And the generation the last rebuild's switch put in service: one
//!    newer than the root's says the nodes may have been read while a switch's deletion of
//!    theirs went on, and the read starts again from a fresh root (at most
//!    [`GENERATION_ROUNDS`] times). From a copy of a hot board's index whose lanes' caps
//!    still hold, only the player's own lane (one `GetItem`, 1 read unit) and any whose caps
//!    lapsed (in one `BatchGetItem` with it): the other lanes' written counts are taken at
//!    their next caps, never below what they are (`rank::lane_caps`), and a switch writes its
//!    generation on every lane.
//!
//! A board of at most [`EXACT_TOP`] entries (as the root counts them) is counted instead, with
//! the lanes read after for its size. Either way at most 3 requests besides the pointer's read
//! and at most 9 items read by key at the default width (the pointer, the root and 7 nodes)
//! and the lanes' Query, plus at most [`TAIL_CAP`] keys of the tail; a rank that may be
//! within the first [`EXACT_TOP`] and is not exact yet costs one capped count more (at most
//! [`EXACT_TOP`] keys, about 6 read units).

use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank_index::{
    self, CREATED_ATTR, CountedKey, ENTRY_GENERATION_ATTR, LanesRead, PathRead, TAIL_CAP,
    TailCount, TailRange, TailSide, Watermarks,
};
use leaderboard_keys::time::Timestamp;

use crate::ground::error::StoreError;
use crate::ground::freshness::{EXACT_TOP, Estimate, IndexView};
use crate::ground::items::{Item, ItemExt};
use crate::ground::model::Board;
use crate::rank::apply::item_counters;
use crate::rank::count::{Prefetch, RankCost};
use crate::rank::index_copy::IndexCopy;
use crate::rank::index_copy::RootBefore;
use crate::rank::lanes::{GROUPED_ATTR, LaneKeys, lanes_for, switched_since};
use crate::rank::snapshot::GENERATION_ROUNDS;
use crate::table::Table;

/// Entries the root counts: the sum of its counters.
pub(crate) fn root_entries(root: &Item) -> i64 {
    item_counters(root)
        .values()
        .fold(0i64, |s, c| s.saturating_add(*c))
}

/// What the snapshot's `path` and `watermarks`, the `tail` count and the `lanes` read last say
/// together about `key`'s rank on a board of `entries` entries ([`rank_index::settle`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn settled_estimate(
    board: &BoardId,
    player: &PlayerId,
    key: &CountedKey,
    path: &PathRead,
    watermarks: &Watermarks,
    tail: Option<&TailCount>,
    lanes: &LanesRead,
    entries: i64,
) -> Estimate {
    let settled = rank_index::settle(key, path, watermarks, tail, lanes);
    if settled.negative {
        tracing::error!(
            board = %board, player = %player, above = path.above, group = path.group,
            "rank index read gave a negative count: answering as not exact"
        );
    }
    Estimate::from_index(&IndexView {
        above: settled.above.min(i64::MAX as u64) as i64,
        entries,
        unapplied: (settled.lag.min(i64::MAX as u64 - 1) as i64)
            .saturating_add(i64::from(settled.negative)),
        own_unapplied: 0,
    })
}

/// Whether the index `root` counts the generation of entries `board` (as read) names: a
/// widening's switch between the board's read and the root's puts keys of another width in
/// the index, which a key of the board's cannot be ranked among. The read is refused as busy
/// (the caller reads the board again); it takes a request landing within that switch.
fn same_entries(board: &Board, root: &Item) -> Result<(), StoreError> {
    let counted = root.number(ENTRY_GENERATION_ATTR).unwrap_or(0u64);
    if counted != board.entry_generation {
        return Err(StoreError::Contention { attempts: 1 });
    }
    Ok(())
}

/// The lanes as a rank read them: the items read (every lane's, or its own lane's only), what
/// they say of the player's lane and the others', and the board's entries.
pub(crate) struct RankLanes {
    /// The items read.
    pub(crate) items: Vec<Item>,
    /// Every lane's written count (the others' bounded by their caps where only its own lane
    /// was read) and the player's lane's latest change.
    pub(crate) lanes: LanesRead,
    /// Σ created.
    pub(crate) entries: i64,
}

impl Table {
    /// The own rank of `player`'s entry at `score_sk` on an indexed board: see the module
    /// documentation. `before` is the root as read with the pointer, or nothing (the snapshot
    /// reads it, under the generation this process last saw), or that the player's play has
    /// just changed the entry, so that the index most likely does not hold its key yet.
    pub(crate) async fn indexed_rank(
        &self,
        board: &Board,
        player: &PlayerId,
        score_sk: &str,
        before: Prefetch,
        cost: &mut RankCost,
    ) -> Result<Estimate, StoreError> {
        let (mut root, just_played, mut copy) = match before {
            Prefetch::Root(root) => (Some(root), false, None),
            Prefetch::AfterPlay(RootBefore::Read(root)) => (Some(root), true, None),
            Prefetch::AfterPlay(RootBefore::Copy(copy)) => {
                (Some(copy.root().clone()), true, Some(copy))
            }
            Prefetch::Nothing => (None, false, None),
        };
        let id = &board.board_id;
        let key = CountedKey::parse(score_sk)?;
        // A copy counting other entries than the board's (a widening's switch since) is
        // dropped: the snapshot reads the root afresh.
        if let (Some(c), Some(r)) = (&copy, &root)
            && same_entries(board, r).is_err()
        {
            c.spoil();
            (copy, root) = (None, None);
        }
        let prefetched = root.is_some();
        // A small board: counting it (at most 100 keys, about 6 read units) costs less than
        // the snapshot, and is exact. (Not complete, the board has grown past what the root
        // counts: the index answers, and this count stands in for the top's.)
        let mut top_count = None;
        if let Some(root) = &root {
            same_entries(board, root)?;
        }
        if let Some(root) = &root
            && let Some(exact) = self
                .count_small_board(board, player, score_sk, root, &mut top_count, cost)
                .await?
        {
            return Ok(exact);
        }
        let mut sized = prefetched;
        for _ in 0..GENERATION_ROUNDS {
            let (path, watermarks, used) = self
                .path_snapshot(board, &key, root.take(), &mut copy, cost)
                .await?;
            same_entries(board, &used)?;
            if !sized {
                sized = true;
                if let Some(exact) = self
                    .count_small_board(board, player, score_sk, &used, &mut top_count, cost)
                    .await?
                {
                    return Ok(exact);
                }
            }
            let tail = match TailSide::for_key(&key, &path, just_played) {
                Some(side) => Some(
                    self.count_tail(board, player, &key, side, TAIL_CAP, cost)
                        .await?,
                ),
                None => None,
            };
            let read = self
                .rank_lanes(board, player, copy.as_deref(), cost)
                .await?;
            if switched_since(&read.items, &used) {
                // The nodes may have been read during their deletion: again, from a fresh
                // root (`path_snapshot` reads it), and without the copy of them.
                if let Some(c) = copy.take() {
                    c.spoil();
                }
                continue;
            }
            let (lanes, entries) = (read.lanes, read.entries);
            let estimate = settled_estimate(
                id,
                player,
                &key,
                &path,
                &watermarks,
                tail.as_ref(),
                &lanes,
                entries,
            );
            if !estimate.worth_counting() {
                return Ok(estimate);
            }
            let (counted, complete) = match top_count {
                Some(count) => count,
                None => {
                    self.count_above_capped(board, player, score_sk, EXACT_TOP, cost)
                        .await?
                }
            };
            return Ok(estimate.with_count(counted, complete));
        }
        Err(StoreError::Contention {
            attempts: GENERATION_ROUNDS as u32,
        })
    }

    /// On a board `root` counts at most [`EXACT_TOP`] entries on, the capped count of the keys
    /// above: the exact rank when it reached their end (then the lanes give the board's size),
    /// else kept in `top_count` for the top's count (the board has grown past what the root
    /// counted). `None`, and nothing read, for a larger board.
    async fn count_small_board(
        &self,
        board: &Board,
        player: &PlayerId,
        score_sk: &str,
        root: &Item,
        top_count: &mut Option<(u64, bool)>,
        cost: &mut RankCost,
    ) -> Result<Option<Estimate>, StoreError> {
        if root_entries(root) > EXACT_TOP as i64 {
            return Ok(None);
        }
        let (counted, complete) = self
            .count_above_capped(board, player, score_sk, EXACT_TOP, cost)
            .await?;
        if !complete {
            *top_count = Some((counted, complete));
            return Ok(None);
        }
        let (_, entries) = self.read_lanes(board, player, cost).await?;
        let entries = (entries.max(0) as u64).max(counted.saturating_add(1));
        Ok(Some(Estimate::exact(counted, entries)))
    }

    /// Step 3: the other players' keys of `key`'s group on `side` of it, at most `cap` (a
    /// lookup's is [`TAIL_CAP`]; the friends listing's share a budget).
    pub(crate) async fn count_tail(
        &self,
        board: &Board,
        player: &PlayerId,
        key: &CountedKey,
        side: TailSide,
        cap: u64,
        cost: &mut RankCost,
    ) -> Result<TailCount, StoreError> {
        let ranges = TailRange::of(key);
        let (lo, hi) = match side {
            TailSide::Above => ranges.above,
            TailSide::Below => ranges.below,
        };
        let (counted, complete) = self
            .count_others(
                board,
                player,
                (&lo, &hi),
                cap,
                "Query(rank index tail)",
                cost,
            )
            .await?;
        Ok(TailCount {
            side,
            counted,
            complete,
        })
    }

    /// Step 4: every lane's written count, the player's lane's latest change, and the board's
    /// entries (Σ created).
    async fn read_lanes(
        &self,
        board: &Board,
        player: &PlayerId,
        cost: &mut RankCost,
    ) -> Result<(LanesRead, i64), StoreError> {
        let items = self.read_lane_items(board, cost).await?;
        let own = LaneKeys::of(board).lane_of(player);
        Ok(lanes_for(&items, own, board.entry_generation))
    }

    /// The lanes for `player`'s rank, read last: with `copy` holding caps that still hold on
    /// most lanes, the player's lane and those whose caps lapsed (one `GetItem`, or one
    /// `BatchGetItem` of them), the others bounded by their caps; else every lane, and a copy
    /// without a view of them tends them and keeps it.
    pub(crate) async fn rank_lanes(
        &self,
        board: &Board,
        player: &PlayerId,
        copy: Option<&IndexCopy>,
        cost: &mut RankCost,
    ) -> Result<RankLanes, StoreError> {
        let lane_keys = LaneKeys::of(board);
        let own = lane_keys.lane_of(player);
        let now = Timestamp::now().as_millis();
        // One rank a process tends the lanes twice a term (`LaneView::TEND_EVERY`); the
        // others bound them by the view kept meanwhile.
        let view = copy.and_then(IndexCopy::lanes);
        let every = copy.map(IndexCopy::tend_every).unwrap_or_default();
        let tending = view.as_ref().is_some_and(|v| v.claim_tending(every));
        if !tending && let Some(view) = view {
            let (mut written, lapsed) = view.bounds(own, now);
            // A lane whose term ended before the tend that rolls it is read with the player's
            // own (a tend comes every half term, but only after the play that claimed it); a
            // view most of whose caps lapsed (a quiet board's) is read in full.
            if lapsed.len() < usize::from(lane_keys.count) / 2 {
                let read: Vec<u8> = std::iter::once(own).chain(lapsed).collect();
                let items = self.lanes_by_key(lane_keys, &read).await?;
                cost.requests += 1;
                cost.items += read.len() as u64;
                if !items.iter().any(|item| item.contains_key(GROUPED_ATTR)) {
                    let mut by_lane = vec![Item::new(); usize::from(lane_keys.count)];
                    for (&lane, item) in read.iter().zip(&items) {
                        by_lane[usize::from(lane)] = item.clone();
                    }
                    let (mut lanes, _) = lanes_for(&by_lane, own, board.entry_generation);
                    for &lane in &read {
                        written.insert(lane, lanes.written.get(&lane).copied().unwrap_or(0));
                    }
                    lanes.written = written;
                    let read_created = items
                        .iter()
                        .map(|item| item.number(CREATED_ATTR).unwrap_or(0i64))
                        .fold(0i64, i64::saturating_add);
                    return Ok(RankLanes {
                        entries: view.created_but(&read).saturating_add(read_created),
                        items,
                        lanes,
                    });
                }
            }
        }
        let items = self.read_lane_items(board, cost).await?;
        // A copy's rank that read every lane (the one tending them, or one whose view has
        // most of its caps lapsed, or none) leaves them for its play to tend: a rank only reads.
        if let Some(copy) = copy {
            copy.offer_lanes(items.clone());
        }
        let (lanes, entries) = lanes_for(&items, own, board.entry_generation);
        Ok(RankLanes {
            items,
            lanes,
            entries,
        })
    }

    /// Tends the lanes a rank from `copy` read all of, if it left any (`rank_lanes`): after
    /// the play's rank, in the function that writes plays. The board's heat is measured since
    /// the copy's view, and the view after replaces it.
    pub(crate) async fn tend_offered(&self, board: &Board, copy: &IndexCopy) {
        let Some(items) = copy.take_offered() else {
            return;
        };
        let keys = LaneKeys::of(board).all();
        let previous = copy.lanes();
        let view = self
            .tend_lanes(board, &keys, &items, previous.as_deref(), copy.hot_rate())
            .await;
        copy.keep_lanes(view);
    }
}
