//! The friends listing (contract §6): the entries of up to [`MAX_PLAYER_IDS`] chosen players on
//! one board, in rank order, each with its board-wide rank and how fresh it is, at a cost that
//! does not grow with the board.
//!
//! - **A closed board** answers from the players' season results (`BatchGetItem`s, 100 keys a
//!   request): final, exact.
//! - **An open indexed board** reads, in the order a single rank reads them (`rank::lookup`):
//!   1. the entry pointers and the index's root (`BatchGetItem`s, 100 keys a request);
//!   2. on a board the root counts at most [`EXACT_TOP`] entries: the top page, one Query of at
//!      most [`EXACT_TOP`] keys (sort key and player id), which ranks every listed player
//!      exactly when it holds the whole board; then the lanes for its size, and done;
//!   3. the snapshots: the root and the union of the players' path nodes, in consistent
//!      `BatchGetItem`s of up to `SNAPSHOT_NODES` nodes a request (players in rank order share
//!      their upper nodes): at most `ceil(players × 7 / 99)` = 8 requests for 100 players at
//!      the default width;
//!   4. a tail count for each player whose group holds others (rare: one score within 100 s),
//!      all of them together reading at most [`TAIL_BUDGET`] keys: a player past it is
//!      answered from the index, the rest of the group in `rankLag`;
//!   5. the lanes, once, last;
//!   6. the top page (if step 2 did not read it) when some answer is not exact and may be within
//!      the first [`EXACT_TOP`]: it makes every such answer exact at once, where a rank lookup
//!      makes one capped count per player.
//! - **An open board made before the index** (until the migration moves it) ranks each player
//!   as [`Listings::player_rank`] does: one capped count a player.

use std::collections::BTreeSet;

use leaderboard_keys::entity::{self, Key, SCORE_PREFIX, SCORE_UPPER_BOUND};
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::rank_index::{
    self, CountedKey, PathRead, TAIL_CAP, TailCount, TailSide, Watermarks,
};

use crate::features::listings::Listings;
use crate::ground::error::StoreError;
use crate::ground::freshness::{EXACT_TOP, Estimate, TopPercent};
use crate::ground::items::{Item, ItemExt, from_item, key_string};
use crate::ground::model::{Board, BoardStatus, EntryPointer, RankedEntry, SeasonResult};
use crate::rank::count::{Prefetch, RankCost};
use crate::rank::entry::own_entry;
use crate::rank::lanes::{LaneKeys, lanes_for, switched_since};
use crate::rank::lookup::{root_entries, settled_estimate};
use crate::rank::snapshot::{GENERATION_ROUNDS, SNAPSHOT_NODES, path_nodes};
use crate::table::merge::Direction;

/// The most players one friends listing names.
pub const MAX_PLAYER_IDS: usize = 100;

/// The keys the tail counts of one listing may read together, whatever the number of players
/// and however many share their score: with the top page's [`EXACT_TOP`], a listing counts at
/// most 1,100 keys, as one rank lookup does (its tail's `TAIL_CAP` and its top count).
pub const TAIL_BUDGET: u64 = 1_000;

/// What a listing's answers are settled from: each player's path and the watermarks its
/// snapshot read, each player's tail count (if any), and the lanes read last.
type FriendsReads = (
    Vec<(PathRead, Watermarks)>,
    Vec<Option<TailCount>>,
    Vec<Item>,
);

/// The top of a board as one Query read it: sort keys and player ids, best first.
struct TopPage {
    keys: Vec<(String, String)>,
    /// The page holds the board's last entry.
    complete: bool,
}

impl TopPage {
    /// Other players' entries above `sort_key`, when the page reaches it (the page is a prefix
    /// of the descending keys, so every key above it is then on the page).
    fn counted_above(&self, sort_key: &str, player: &PlayerId) -> Option<u64> {
        let reaches = self.complete
            || self
                .keys
                .last()
                .is_some_and(|(last, _)| last.as_str() <= sort_key);
        reaches.then(|| {
            self.keys
                .iter()
                .filter(|(k, p)| k.as_str() > sort_key && p != player.as_str())
                .count() as u64
        })
    }
}

/// Checks a listing's players: 1 to [`MAX_PLAYER_IDS`], no one twice.
fn check_players(players: &[PlayerId]) -> Result<(), StoreError> {
    if players.is_empty() || players.len() > MAX_PLAYER_IDS {
        return Err(StoreError::Invalid(format!(
            "playerIds must list 1 to {MAX_PLAYER_IDS} players"
        )));
    }
    let mut seen = BTreeSet::new();
    if let Some(twice) = players.iter().find(|p| !seen.insert(p.as_str())) {
        return Err(StoreError::Invalid(format!(
            "playerIds lists {twice} twice"
        )));
    }
    Ok(())
}

/// Groups keys (in rank order) into snapshots of at most [`SNAPSHOT_NODES`] path nodes each,
/// neighbours together so that they share their upper nodes: the index ranges of each group.
pub(crate) fn snapshot_groups(keys: &[CountedKey]) -> Vec<std::ops::Range<usize>> {
    let mut groups = Vec::new();
    let mut start = 0;
    let mut nodes = BTreeSet::new();
    for (i, key) in keys.iter().enumerate() {
        let path: Vec<String> = path_nodes(key).collect();
        let new = path.iter().filter(|p| !nodes.contains(*p)).count();
        if i > start && nodes.len() + new > SNAPSHOT_NODES {
            groups.push(start..i);
            start = i;
            nodes.clear();
        }
        nodes.extend(path);
    }
    if start < keys.len() {
        groups.push(start..keys.len());
    }
    groups
}

/// Makes the ranks of `entries` (listed in key order) strictly increase, as the true ranks do.
/// Two neighbours answered differently (one counted exactly, the other from the index with its
/// group in its lag) can show out of order; a rank that is not exact is then moved next to its
/// neighbour's, with the larger of the two lags. That stays sound: the entry's true rank lies
/// beyond its neighbour's true rank, which lies within the neighbour's lag of its answer, and
/// the move is toward the entry's true rank. Exact ranks never move.
fn in_rank_order(entries: &mut [RankedEntry]) {
    fn freshness(e: &RankedEntry) -> (bool, u64) {
        e.freshness
            .map_or((true, 0), |f| (f.rank_exact, f.rank_lag))
    }
    fn move_to(e: &mut RankedEntry, rank: u64, neighbour_lag: u64) {
        e.rank = rank;
        if let Some(f) = &mut e.freshness {
            f.rank_lag = f.rank_lag.max(neighbour_lag);
            f.player_count = f.player_count.max(rank);
            f.top_percent = TopPercent::of(rank, f.player_count);
        }
    }
    for i in (1..entries.len()).rev() {
        let (next, (_, next_lag)) = (entries[i].rank, freshness(&entries[i]));
        if !freshness(&entries[i - 1]).0 && entries[i - 1].rank >= next {
            move_to(&mut entries[i - 1], next.saturating_sub(1).max(1), next_lag);
        }
    }
    for i in 1..entries.len() {
        let (prev, (_, prev_lag)) = (entries[i - 1].rank, freshness(&entries[i - 1]));
        if !freshness(&entries[i]).0 && entries[i].rank <= prev {
            move_to(&mut entries[i], prev + 1, prev_lag);
        }
    }
}

impl Listings<'_> {
    /// The entries of `players` on `board` that exist, in rank order, each ranked board-wide
    /// with its freshness (see the module documentation), and what the ranks cost.
    pub async fn entries_of(
        self,
        board: &Board,
        players: &[PlayerId],
    ) -> Result<(Vec<RankedEntry>, RankCost), StoreError> {
        check_players(players)?;
        let id = &board.board_id;
        let mut cost = RankCost::default();
        if board.status == BoardStatus::Closed {
            let keys: Vec<Key> = players
                .iter()
                .map(|p| entity::season_result(p, id))
                .collect();
            let mut found = self
                .store
                .table
                .batch_get_all(&keys, "BatchGetItem(friends results)")
                .await?;
            cost.requests += keys.len().div_ceil(crate::table::batch::BATCH_GET_SIZE) as u32;
            cost.items += keys.len() as u64;
            let mut entries = keys
                .iter()
                .filter_map(|k| found.take(k))
                .map(|i| from_item::<SeasonResult>(i).map(SeasonResult::into_ranked))
                .collect::<Result<Vec<_>, _>>()?;
            entries.sort_by_key(|e| e.rank);
            return Ok((entries, cost));
        }
        let indexed = board.indexed();
        let mut keys: Vec<Key> = players.iter().map(|p| entity::entry(p, id)).collect();
        if indexed {
            keys.push(rank_index::root_key(id));
        }
        let mut found = self
            .store
            .table
            .batch_get_all(&keys, "BatchGetItem(friends pointers)")
            .await?;
        cost.requests += keys.len().div_ceil(crate::table::batch::BATCH_GET_SIZE) as u32;
        cost.items += keys.len() as u64;
        let root = if indexed {
            found.take(&keys[players.len()])
        } else {
            None
        };
        let mut pointers = keys[..players.len()]
            .iter()
            .filter_map(|k| found.take(k))
            .map(|item| from_item::<EntryPointer>(item)?.on_board(board))
            .collect::<Result<Vec<_>, _>>()?;
        // Rank order: descending sort keys.
        pointers.sort_by(|a, b| b.score_sk.cmp(&a.score_sk));
        let estimates = if indexed {
            self.indexed_estimates(board, &pointers, root.unwrap_or_default(), &mut cost)
                .await?
        } else {
            let mut estimates = Vec::with_capacity(pointers.len());
            for p in &pointers {
                let (estimate, c) = self
                    .store
                    .table
                    .own_rank(board, &p.entry.player_id, &p.score_sk, Prefetch::Nothing)
                    .await?;
                cost = cost.plus(c);
                estimates.push(estimate);
            }
            estimates
        };
        let mut entries: Vec<RankedEntry> = pointers
            .iter()
            .zip(estimates)
            .map(|(p, estimate)| own_entry(p, &estimate).0)
            .collect();
        in_rank_order(&mut entries);
        Ok((entries, cost))
    }

    /// Steps 2 to 6 of the module documentation for `pointers` (in rank order) on an indexed
    /// board, given the root read with them.
    async fn indexed_estimates(
        self,
        board: &Board,
        pointers: &[EntryPointer],
        root: Item,
        cost: &mut RankCost,
    ) -> Result<Vec<Estimate>, StoreError> {
        if pointers.is_empty() {
            return Ok(Vec::new());
        }
        let id = &board.board_id;
        let mut top = None;
        if root_entries(&root) <= EXACT_TOP as i64 {
            let page = self.top_page(board, cost).await?;
            if page.complete {
                // The entries alone: any lane's view counts them.
                let (_, entries) = lanes_for(
                    &self.store.table.read_lane_items(board, cost).await?,
                    0,
                    board.entry_generation,
                );
                return Ok(pointers
                    .iter()
                    .map(|p| {
                        let above = page
                            .counted_above(&p.score_sk, &p.entry.player_id)
                            .unwrap_or(0);
                        Estimate::exact(above, (entries.max(0) as u64).max(above + 1))
                    })
                    .collect());
            }
            top = Some(page);
        }
        let keys = pointers
            .iter()
            .map(|p| CountedKey::parse(&p.score_sk))
            .collect::<Result<Vec<_>, _>>()?;
        let (reads, tails, lanes) = self
            .friends_reads(board, pointers, &keys, root, cost)
            .await?;
        let lane_keys = LaneKeys::of(board);
        let mut estimates: Vec<Estimate> = keys
            .iter()
            .zip(&reads)
            .zip(&tails)
            .zip(pointers)
            .map(|(((key, (path, watermarks)), tail), p)| {
                let own = lane_keys.lane_of(&p.entry.player_id);
                let (lanes, entries) = lanes_for(&lanes, own, board.entry_generation);
                settled_estimate(
                    id,
                    &p.entry.player_id,
                    key,
                    path,
                    watermarks,
                    tail.as_ref(),
                    &lanes,
                    entries,
                )
            })
            .collect();
        if estimates.iter().any(Estimate::worth_counting) {
            let page = match top {
                Some(page) => page,
                None => self.top_page(board, cost).await?,
            };
            for (estimate, p) in estimates.iter_mut().zip(pointers) {
                if estimate.worth_counting()
                    && let Some(counted) = page.counted_above(&p.score_sk, &p.entry.player_id)
                {
                    *estimate = estimate.with_count(counted, true);
                }
            }
        }
        Ok(estimates)
    }

    /// Steps 3 to 5 of the module documentation: the players' snapshots (each group's nodes
    /// read after `root`), their tails within the budget, and the lanes; again from a fresh
    /// root when the lanes say a switch retired a generation the snapshots read (see
    /// `switched_since`).
    async fn friends_reads(
        self,
        board: &Board,
        pointers: &[EntryPointer],
        keys: &[CountedKey],
        mut root: Item,
        cost: &mut RankCost,
    ) -> Result<FriendsReads, StoreError> {
        for _ in 0..GENERATION_ROUNDS {
            let mut reads = Vec::with_capacity(keys.len());
            let mut roots = Vec::new();
            for group in snapshot_groups(keys) {
                // Each group's nodes are read after the root read with the pointers.
                let (paths, watermarks, used) = self
                    .store
                    .table
                    .paths_snapshot(board, &keys[group], Some(root.clone()), cost)
                    .await?;
                reads.extend(paths.into_iter().map(|path| (path, watermarks.clone())));
                roots.push(used);
            }
            let mut tails = Vec::with_capacity(keys.len());
            let mut budget = TAIL_BUDGET;
            for ((key, (path, _)), p) in keys.iter().zip(&reads).zip(pointers) {
                tails.push(match TailSide::for_key(key, path, false) {
                    // Past the budget a player's group is left uncounted: the answer is the
                    // index's, the group's other entries in its lag.
                    Some(side) if budget > 0 => {
                        let before = cost.keys_counted;
                        let cap = budget.min(TAIL_CAP);
                        let tail = self
                            .store
                            .table
                            .count_tail(board, &p.entry.player_id, key, side, cap, cost)
                            .await?;
                        budget = budget.saturating_sub(cost.keys_counted - before);
                        Some(tail)
                    }
                    _ => None,
                });
            }
            let lanes = self.store.table.read_lane_items(board, cost).await?;
            if roots.iter().any(|used| switched_since(&lanes, used)) {
                root = self.store.table.root_item(&board.board_id, cost).await?;
                continue;
            }
            return Ok((reads, tails, lanes));
        }
        Err(StoreError::Contention {
            attempts: GENERATION_ROUNDS as u32,
        })
    }

    /// The board's first [`EXACT_TOP`] entries' sort keys and player ids: one consistent Query
    /// a write shard of at most [`EXACT_TOP`] entries, merged (100 entries of at most about
    /// 1.3 KB each, metadata included, fit in one page). The page holds the board's last entry
    /// when it holds fewer than [`EXACT_TOP`], as a single Query's page says by ending without
    /// a next key.
    async fn top_page(self, board: &Board, cost: &mut RankCost) -> Result<TopPage, StoreError> {
        let pks = board.score_pks();
        let want = EXACT_TOP as usize;
        let items = self
            .store
            .table
            .read_merged_projected(
                &pks,
                (SCORE_PREFIX, SCORE_UPPER_BOUND),
                Direction::Down,
                None,
                want,
                Some("sk, playerId"),
            )
            .await?;
        cost.count_queries += 1;
        cost.requests += pks.len() as u32;
        cost.keys_counted += items.len() as u64;
        let complete = items.len() < want;
        let keys = items
            .iter()
            .map(|item| {
                (
                    key_string(item, "sk"),
                    item.string("playerId").unwrap_or_default().to_owned(),
                )
            })
            .collect();
        Ok(TopPage { keys, complete })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pid(s: &str) -> PlayerId {
        PlayerId::parse(s).unwrap()
    }

    #[test]
    fn players_are_one_to_a_hundred_and_distinct() {
        assert!(check_players(&[]).is_err());
        let hundred: Vec<PlayerId> = (0..100).map(|i| pid(&format!("p{i}"))).collect();
        assert!(check_players(&hundred).is_ok());
        let mut more = hundred.clone();
        more.push(pid("p100"));
        assert!(check_players(&more).is_err());
        let twice = [pid("a"), pid("b"), pid("a")];
        match check_players(&twice) {
            Err(StoreError::Invalid(why)) => assert!(why.contains("a twice"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn snapshots_hold_at_most_99_nodes_and_neighbours_share_theirs() {
        use leaderboard_keys::rank::{Order, RankKeySpec};
        let spec = RankKeySpec::new(Order::Desc, 9_999_999_999).unwrap();
        let key = |score: u64, i: u64| {
            let sk = spec
                .score_sort_key(score, 1_700_000_000_000 + i, &pid(&format!("p{i}")))
                .unwrap();
            CountedKey::parse(&sk).unwrap()
        };
        // 100 scattered keys, in rank order: 7 nodes each, few shared.
        let mut keys: Vec<CountedKey> = (0..100)
            .map(|i| key((i * 7_919_113_337) % 9_999_999_999, i))
            .collect();
        keys.sort_by(|a, b| b.digits().cmp(a.digits()));
        let groups = snapshot_groups(&keys);
        assert_eq!(groups.first().map(|g| g.start), Some(0));
        assert_eq!(groups.last().map(|g| g.end), Some(100));
        for (g, next) in groups.iter().zip(groups.iter().skip(1)) {
            assert_eq!(g.end, next.start);
        }
        for g in &groups {
            let nodes: BTreeSet<String> = keys[g.clone()].iter().flat_map(path_nodes).collect();
            assert!(nodes.len() <= SNAPSHOT_NODES, "{g:?}: {}", nodes.len());
        }
        assert!(groups.len() <= 8, "{}", groups.len());
        // 100 keys of one score share every node but the last few: one snapshot.
        let close: Vec<CountedKey> = (0..100).map(|i| key(5_000, i)).collect();
        assert_eq!(
            snapshot_groups(&close),
            vec![std::ops::Range { start: 0, end: 100 }]
        );
    }

    #[test]
    fn ranks_not_exact_move_next_to_their_neighbours_and_exact_ones_never() {
        use crate::ground::freshness::Freshness;
        let entry = |rank: u64, exact: bool, lag: u64| RankedEntry {
            subscores: Default::default(),
            rank,
            player_id: pid(&format!("p{rank}")),
            name: String::new(),
            score: 1,
            attained_at: leaderboard_keys::time::Timestamp::from_millis(1).unwrap(),
            metadata: None,
            freshness: Some(Freshness {
                rank_exact: exact,
                rank_lag: lag,
                player_count: 3_000,
                top_percent: TopPercent::of(rank, 3_000),
            }),
        };
        // Truly 900, 901, 1_500, 1_501, 1_502: the index puts the second and the last two at
        // the top of their groups.
        let mut listed = vec![
            entry(900, true, 0),
            entry(1, false, 2_999),
            entry(1_500, true, 0),
            entry(1_001, false, 2_000),
            entry(1_001, false, 2_000),
        ];
        in_rank_order(&mut listed);
        let shown: Vec<(u64, u64)> = listed
            .iter()
            .map(|e| (e.rank, e.freshness.unwrap().rank_lag))
            .collect();
        assert_eq!(
            shown,
            [
                (900, 0),
                (901, 2_999),
                (1_500, 0),
                (1_501, 2_000),
                (1_502, 2_000)
            ]
        );
        let truth = [900, 901, 1_500, 1_501, 1_502];
        for (e, t) in listed.iter().zip(truth) {
            assert!(e.rank.abs_diff(t) <= e.freshness.unwrap().rank_lag);
        }
        // An answer shown too low before an exact one moves up to just above it.
        let mut listed = vec![entry(1_200, false, 500), entry(1_000, true, 0)];
        in_rank_order(&mut listed);
        assert_eq!((listed[0].rank, listed[1].rank), (999, 1_000));
    }

    #[test]
    fn a_top_page_ranks_only_the_keys_it_reaches_past() {
        let page = |complete| TopPage {
            keys: vec![
                ("s9".into(), "a".into()),
                ("s7".into(), "b".into()),
                ("s5".into(), "c".into()),
            ],
            complete,
        };
        let open = page(false);
        assert_eq!(open.counted_above("s6", &pid("x")), Some(2));
        assert_eq!(open.counted_above("s7", &pid("b")), Some(1));
        // The player's own key, wherever it is, is not counted.
        assert_eq!(open.counted_above("s6", &pid("a")), Some(1));
        // Below the page's last key: not known from it, unless it holds the whole board.
        assert_eq!(open.counted_above("s4", &pid("x")), None);
        assert_eq!(open.counted_above("s5", &pid("c")), Some(2));
        assert_eq!(page(true).counted_above("s4", &pid("x")), Some(3));
    }
}
