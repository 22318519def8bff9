//! The rank index against DynamoDB Local's real stream, through the real handler: a
//! 4,000-player board with heavy ties (300 scores, 40 distinct milliseconds, so many players
//! tie to the millisecond and rank by id), its index built from the board, then random plays
//! whose stream records are delivered with Lambda's retry semantics, with a partial-batch
//! failure, a whole replay and re-ordered re-deliveries. While the plays' changes are held
//! back, at least 1,000 sampled players (the first, the last, tied ones, everyone who just
//! played) must get a rank within its `rankLag` of their place in the full listing, exact in
//! the first 999, with no Query beyond a group's tail count and one capped count; after each
//! delivery, exactly their place from the index; and the index's own totals must match the
//! table.

use crate::common;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use common::*;
use futures::StreamExt;
use leaderboard_devkit::local::counting_client;
use leaderboard_devkit::stream::{StartingPosition, StreamReader};
use leaderboard_devkit::testing::{TestTable, s};
use leaderboard_keys::entity::ItemKey;
use leaderboard_keys::ids::{BoardId, PlayerId, SessionId};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::freshness::EXACT_TOP;
use leaderboard_store::model::{Board, RankedEntry};
use leaderboard_store::{Play, RankCost, Store};
use rand::Rng;
use rand::seq::IndexedRandom;

const PLAYERS: usize = 4_000;
/// Plays on top of the imported board, 8 at once: the changes the index is held back from (every
/// answer's lag is at most their number), then delivered, failed part-way and replayed.
const PLAYS: usize = 300;

/// Every entry's rank, from one full read of the board in rank order (the listing AP10 counts).
async fn listing(store: &Store, board: &BoardId) -> Vec<RankedEntry> {
    let board = store.boards().get_board(board).await.unwrap().unwrap();
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = store
            .listings()
            .top_scores(&board, 1000, cursor.as_deref())
            .await
            .unwrap();
        all.extend(page.items);
        cursor = page.next_cursor;
        if cursor.is_none() {
            return all;
        }
    }
}

/// Reads every sampled player's rank through a store whose client counts its requests, and
/// checks each answer against the listing. With `held_back` changes not delivered to the index,
/// every rank is within its `rankLag` (at most `held_back`) of the true rank, and exact in the
/// first `EXACT_TOP`; with none held back, every rank is exact from the index alone.
/// `playerCount` is the board's entries either way. Either way no lookup makes more than two
/// counting Queries (its group's tail and the capped count of the top) or reads more than
/// 1,100 keys with them.
async fn check_sample(
    table: &TestTable,
    board: &Board,
    all: &[RankedEntry],
    sample: &[PlayerId],
    held_back: u64,
) {
    let (client, counter) = counting_client(&table.endpoint);
    let store = &store_for(table, client);
    let truth: HashMap<&PlayerId, u64> = all.iter().map(|e| (&e.player_id, e.rank)).collect();
    let results: Vec<(PlayerId, RankedEntry, RankCost)> = futures::stream::iter(sample.iter())
        .map(|p| async move {
            let (entry, cost) = store
                .rank()
                .player_rank_counted(board, p)
                .await
                .unwrap()
                .unwrap_or_else(|| panic!("{p} has no entry"));
            (p.clone(), entry, cost)
        })
        .buffer_unordered(16)
        .collect()
        .await;
    assert!(results.len() >= 1_000);
    let entries = all.len() as u64;
    let mut lagging = 0;
    for (p, entry, cost) in &results {
        let f = entry.freshness.unwrap();
        let want = truth[p];
        assert!(
            entry.rank.abs_diff(want) <= f.rank_lag,
            "{p}: rank {} against {want}: {f:?}",
            entry.rank
        );
        assert!(f.rank_lag <= held_back, "{p}: {f:?}");
        assert_eq!(f.player_count, entries, "{p}: {f:?}");
        assert_eq!(f.rank_exact, f.rank_lag == 0, "{p}: {f:?}");
        if held_back == 0 || want <= EXACT_TOP {
            assert!(f.rank_exact, "{p} at {want}: {f:?}");
            assert_eq!(entry.rank, want, "{p}");
        }
        if held_back == 0 {
            // At most the tail count of the player's group (a score within 100 s).
            assert!(cost.count_queries <= 1, "{p}: {cost:?}");
        }
        // The tail count (at most 1,000 keys) and at most one capped count (100 more).
        assert!(
            cost.count_queries <= 2 && cost.keys_counted <= 1_000 + EXACT_TOP,
            "{p}: {cost:?}"
        );
        assert!(cost.requests <= 5, "{p}: {cost:?}");
        lagging += u64::from(f.rank_lag > 0);
    }
    // The interceptor saw no Query beyond the capped counts and each answer's one read of its
    // lanes.
    let queries: u32 = results.iter().map(|r| r.2.count_queries).sum();
    let ops = counter.snapshot();
    assert_eq!(
        ops.get("Query").copied().unwrap_or(0),
        u64::from(queries) + results.len() as u64,
        "{ops:?}"
    );
    if held_back > 0 {
        assert!(lagging > 0, "changes were held back, yet no answer said so");
    }
}

/// The index's totals against the table: the root's counters sum to the number of entries, and
/// its watermarks to the lanes' written counts.
async fn check_totals(table: &TestTable, entries: usize) {
    let items = table.dump().await;
    let num = |i: &leaderboard_devkit::testing::RawItem, a: &str| -> i64 {
        i.get(a)
            .and_then(|v| v.as_n().ok())
            .map_or(0, |v| v.parse().unwrap())
    };
    let (mut root_entries, mut applied, mut written, mut scores) = (0, 0, 0, 0);
    for item in &items {
        let pk = s(item, "pk").unwrap();
        if pk == "RANKV2#big" && s(item, "sk").unwrap() == "#ROOT" {
            applied += item
                .iter()
                .filter(|(k, _)| k.starts_with('w'))
                .map(|(k, _)| num(item, k))
                .sum::<i64>();
            root_entries += item
                .iter()
                .filter(|(k, _)| k.starts_with('c'))
                .map(|(k, _)| num(item, k))
                .sum::<i64>();
        } else if matches!(ItemKey::parse(pk, s(item, "sk").unwrap()),
            Ok(ItemKey::Lane { board, .. }) if board.as_str() == "big")
        {
            written += num(item, "written");
        } else if pk == "LEADERBOARD#big" && s(item, "sk").unwrap().starts_with("SCORE#") {
            scores += 1;
        }
    }
    assert_eq!(scores, entries);
    assert_eq!(root_entries, entries as i64);
    assert_eq!(applied, written);
}

/// A sample: the first, the last, everyone in `must`, players tied with another on score, and
/// random others, at least 1,000 in all.
fn sample(all: &[RankedEntry], must: &BTreeSet<String>) -> Vec<PlayerId> {
    let mut by_score: BTreeMap<u64, Vec<&PlayerId>> = BTreeMap::new();
    let mut by_moment: BTreeMap<(u64, Timestamp), Vec<&PlayerId>> = BTreeMap::new();
    for e in all {
        by_score.entry(e.score).or_default().push(&e.player_id);
        by_moment
            .entry((e.score, e.attained_at))
            .or_default()
            .push(&e.player_id);
    }
    let mut chosen: BTreeSet<PlayerId> = BTreeSet::new();
    chosen.insert(all[0].player_id.clone());
    chosen.insert(all[all.len() - 1].player_id.clone());
    chosen.extend(must.iter().map(|p| pid(p)));
    // Tied players: the first, the last and one in the middle of 150 groups tied on score,
    // and every player of 100 groups tied to the millisecond (ranked by id).
    for group in by_score.values().filter(|g| g.len() > 1).take(150) {
        chosen.extend([group[0], group[group.len() / 2], group[group.len() - 1]].map(Clone::clone));
    }
    for group in by_moment.values().filter(|g| g.len() > 1).take(100) {
        chosen.extend(group.iter().map(|p| (*p).clone()));
    }
    let mut rng = rand::rng();
    while chosen.len() < 1_100 {
        chosen.insert(all.choose(&mut rng).unwrap().player_id.clone());
    }
    chosen.into_iter().collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ranks_from_the_index_equal_counted_ranks_at_4k_players() {
    let table = TestTable::on_process_local("rank_index").await;
    let store = store_for(&table, table.client.clone());
    let board_id = BoardId::parse("big").unwrap();
    let board = open_v2_board(&store, "big").await;
    assert!(board.rank_index);
    let mut reader =
        StreamReader::for_table(&table.endpoint, &table.name, StartingPosition::TrimHorizon)
            .await
            .unwrap();

    // 1. 4,000 entries: 300 distinct scores and 40 distinct milliseconds, so most players tie
    // on score and many to the millisecond (then the player id decides).
    let entries: Vec<(PlayerId, u64, Timestamp)> = {
        let mut rng = rand::rng();
        (0..PLAYERS)
            .map(|i| {
                (
                    pid(&format!("r{i:05}")),
                    rng.random_range(0..300) * 1_000,
                    at(rng.random_range(0..40)),
                )
            })
            .collect()
    };
    let clock = std::time::Instant::now();
    let step = |what: &str| eprintln!("{:>7.1} s  {what}", clock.elapsed().as_secs_f64());
    store
        .boards()
        .import_entries(&board, &entries)
        .await
        .unwrap();
    step("imported");
    // The import's lanes carry no change: the index is built from the board instead (the
    // real-stream path is what the plays below take).
    let records = reader.read_to_end().await.unwrap();
    assert!(records.len() >= 2 * PLAYERS);
    // Before delivery the index has applied nothing: the answer says how far off it may be.
    let all = listing(&store, &board_id).await;
    let (entry, _) = store
        .rank()
        .player_rank_counted(&board, &entries[0].0)
        .await
        .unwrap()
        .unwrap();
    let f = entry.freshness.unwrap();
    let want = all
        .iter()
        .find(|e| e.player_id == entries[0].0)
        .unwrap()
        .rank;
    assert!(
        entry.rank.abs_diff(want) <= f.rank_lag,
        "{entry:?} against {want}"
    );
    assert!(f.rank_lag <= PLAYERS as u64);
    let built = store.rank().build_rank_index(&board).await.unwrap();
    assert_eq!(built.entries, PLAYERS);
    step("index built");
    check_totals(&table, PLAYERS).await;
    let all = listing(&store, &board_id).await;
    check_sample(&table, &board, &all, &sample(&all, &BTreeSet::new()), 0).await;
    step("sample checked");

    // 2. Random plays on top (existing and new players, better and worse scores), 8 at once.
    let plays: Vec<(PlayerId, u64, u64)> = {
        let mut rng = rand::rng();
        (0..PLAYS)
            .map(|i| {
                let p = rng.random_range(0..PLAYERS + 200);
                (
                    pid(&format!("r{p:05}")),
                    rng.random_range(0..320) * 1_000,
                    100 + i as u64 / 3,
                )
            })
            .collect()
    };
    let players: BTreeSet<String> = plays.iter().map(|p| p.0.to_string()).collect();
    futures::stream::iter(&plays)
        .map(|(p, score, ms)| {
            let store = &store;
            let board_id = &board_id;
            async move {
                let now = at(*ms);
                let play = Play {
                    subscores: Default::default(),
                    idempotency_key: None,
                    metadata: None,
                    player_id: p.clone(),
                    session_id: SessionId::from_parts(now.as_millis(), rand::random()).unwrap(),
                    game_id: None,
                    score: *score,
                    duration_sec: None,
                    board_ids: vec![board_id.clone()],
                };
                store.plays().record_play(&play, now).await.unwrap();
            }
        })
        .buffer_unordered(8)
        .collect::<Vec<()>>()
        .await;
    step("played");
    let first_new = format!("r{PLAYERS:05}");
    let entries_now = PLAYERS + players.iter().filter(|p| **p >= first_new).count();
    let records = reader.read_to_end().await.unwrap();
    // Not delivered yet: every answer within its lag of the truth, the top exact.
    let all = listing(&store, &board_id).await;
    let busy = sample(&all, &players);
    check_sample(&table, &board, &all, &busy, PLAYS as u64).await;
    step("sample checked, held back");

    // A partial-batch failure: the second index write fails once; Lambda re-delivers from the
    // first failed record.
    let failing = FailOnce {
        lane_fail_at: 2,
        ..FailOnce::none(&store)
    };
    let retries = deliver(&failing, &records).await;
    step("delivered with failures");
    assert!(retries > 0);
    check_totals(&table, entries_now).await;
    let all = listing(&store, &board_id).await;
    let after = sample(&all, &players);
    check_sample(&table, &board, &all, &after, 0).await;
    step("sample checked");

    // 3. Replays: the whole batch again, then its second half before its first (an older batch
    // retried after a newer one). Nothing moves.
    let before = table.dump().await;
    deliver(&store, &records).await;
    let half = records.len() / 2;
    deliver(&store, &records[half..]).await;
    deliver(&store, &records[..half]).await;
    let replayed = table.dump().await;
    step("replayed");
    let changed: Vec<_> = before
        .iter()
        .zip(&replayed)
        .filter(|(a, b)| a != b)
        .map(|(a, _)| format!("{:?} / {:?}", s(a, "pk"), s(a, "sk")))
        .collect();
    assert_eq!(before.len(), replayed.len());
    // No item changed, the index's included: the ranks read from it are those checked above.
    assert!(changed.is_empty(), "replays changed {changed:?}");

    // 4. A play while the index is caught up: the rank in its outcome comes from the index,
    // exact although the index has not applied the play itself (no capped count: the play's
    // BatchGetItem, which brings the index's root, and TransactWriteItems, then the path's
    // nodes in one BatchGetItem, at most one tail count (right after a play a group of one may
    // be another player's), the lanes' Query, and the UpdateItem that keeps the rank in the
    // Session), and is the player's place in the listing after the write.
    let (client, counter) = counting_client(&table.endpoint);
    let counted = store_for(&table, client);
    let player = after[after.len() / 2].clone();
    let now = at(20_000);
    let play = Play {
        subscores: Default::default(),
        idempotency_key: None,
        metadata: None,
        player_id: player.clone(),
        session_id: SessionId::from_parts(now.as_millis(), rand::random()).unwrap(),
        game_id: None,
        score: 150_500,
        duration_sec: None,
        board_ids: vec![board_id.clone()],
    };
    let outcome = counted.plays().record_play(&play, now).await.unwrap();
    let ops = counter.snapshot();
    assert!(
        (1..=2).contains(&ops.get("Query").copied().unwrap_or(0)),
        "{ops:?}"
    );
    assert_eq!(ops.get("TransactGetItems"), None, "{ops:?}");
    assert_eq!(ops.get("BatchGetItem"), Some(&2), "{ops:?}");
    assert_eq!(ops.get("UpdateItem"), Some(&1), "{ops:?}");
    let all = listing(&store, &board_id).await;
    let want = all.iter().position(|e| e.player_id == player).unwrap() as u64 + 1;
    assert_eq!(outcome.session.outcomes[0].rank, want);
    let f = outcome.session.outcomes[0].freshness.unwrap();
    assert!(f.rank_exact && f.rank_lag == 0, "{f:?}");
    assert_eq!(f.player_count, all.len() as u64);
}
