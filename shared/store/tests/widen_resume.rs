//! A widening (docs/widen.md) cut short at every write it makes and resumed, on DynamoDB Local:
//! whichever request failed, running it again ends with the board at its new width, each entry
//! once in the new generation, none left in the old, every rank exact. And the copy's version
//! check at the exact point it matters: a play that moves an entry between the copy's read of
//! it and its transaction.

use crate::common;

use std::collections::BTreeMap;

use common::*;
use leaderboard_devkit::local::{Failures, failing_client, gated_client};
use leaderboard_devkit::testing::{RawItem, TestTable, s};
use leaderboard_keys::rank::Order;
use leaderboard_store::model::Operator;
use leaderboard_store::{Store, WidenOptions, WidenProgress};

const ENTRIES: u64 = 12;
const MAX: u64 = 99_999;

/// 5 entries a step, no grace after the switch (no read runs beside these runs).
fn options() -> WidenOptions {
    WidenOptions {
        page: 5,
        grace: std::time::Duration::ZERO,
        now: at(0),
    }
}

/// A lowest-first board of `ENTRIES` imported entries, its index built.
async fn board_of(store: &Store, id: &str) {
    let board = store
        .boards()
        .create_board(new_board(id, Order::Asc, Operator::Best, 999), at(0))
        .await
        .unwrap();
    let entries: Vec<_> = (0..ENTRIES)
        .map(|i| (pid(&format!("p{i}")), (i * 83) % 1_000, at(i * 1_000)))
        .collect();
    store
        .boards()
        .import_entries(&board, &entries)
        .await
        .unwrap();
    store.rank().build_rank_index(&board).await.unwrap();
}

/// Runs the widening of `id` until it is done, or fails (`Err`: the failure).
async fn run(store: &Store, id: &str) -> Result<(), String> {
    loop {
        match store.rank().widen_step(&bid(id), MAX, &options()).await {
            Ok(WidenProgress::Done(_)) => return Ok(()),
            Ok(WidenProgress::Running { .. }) => {}
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// The board's Score items in partition `pk`, by player.
fn by_player(dump: &[RawItem], pk: &str) -> BTreeMap<String, usize> {
    let mut players = BTreeMap::new();
    for i in dump
        .iter()
        .filter(|i| s(i, "pk") == Some(pk) && s(i, "sk").is_some_and(|k| k.starts_with("SCORE#")))
    {
        *players
            .entry(s(i, "playerId").unwrap().to_owned())
            .or_insert(0) += 1;
    }
    players
}

/// The board widened whole: at its new width on generation 1, each entry there once, the old
/// generation gone, listed lowest first and ranked exactly as listed.
async fn assert_widened(table: &TestTable, store: &Store, id: &str, players: u64) {
    let board = stored_board(store, id).await;
    assert_eq!(
        (
            board.max_score,
            board.entry_generation,
            board.widening.is_none()
        ),
        (MAX, 1, true),
        "{id}"
    );
    // The board's two partitions, not the whole table: the cut runs below make a board each.
    let (old_pk, new_pk) = (format!("LEADERBOARD#{id}"), format!("LEADERBOARD#{id}#E1"));
    let old = table.partition(&old_pk).await;
    assert!(by_player(&old, &old_pk).is_empty(), "{id}");
    let new = by_player(&table.partition(&new_pk).await, &new_pk);
    assert_eq!(new.len() as u64, players, "{id}: {new:?}");
    assert!(new.values().all(|n| *n == 1), "{id}: {new:?}");
    let top = store
        .listings()
        .top_scores(&board, 100, None)
        .await
        .unwrap();
    assert!(
        top.items.windows(2).all(|w| w[0].score <= w[1].score),
        "{id}"
    );
    for (i, e) in top.items.iter().enumerate() {
        let ranked = store
            .listings()
            .player_rank(&board, &e.player_id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(ranked.rank, i as u64 + 1, "{id} {}", e.player_id);
    }
}

#[tokio::test]
async fn a_run_cut_at_any_write_and_run_again_ends_widened() {
    let (table, store) = store_without_stream("widen_resume").await;
    // How many writes a whole run makes.
    board_of(&store, "clean").await;
    let (counting, counter) = leaderboard_devkit::local::counting_client(&table.endpoint);
    let counted = store_with_client(&table, counting);
    run(&counted, "clean").await.unwrap();
    let writes: u64 = counter
        .snapshot()
        .iter()
        .filter(|(op, _)| WRITES.split('|').any(|w| w == op.as_str()))
        .map(|(_, n)| n)
        .sum();
    assert_widened(&table, &store, "clean", ENTRIES).await;
    assert!(writes > 20, "{writes} writes");
    // WHEN a run's writes fail from its n-th on (as if it stopped just before it: its own
    // retries fail too), for every n, and a run starts again from the board as it was left
    let mut cut = 0;
    for n in 1..=writes {
        let id = format!("cut_{n}");
        board_of(&store, &id).await;
        let failing = store_with_client(
            &table,
            failing_client(
                &table.endpoint,
                Failures {
                    operation: WRITES,
                    first: n,
                    count: u64::MAX / 2,
                },
            ),
        );
        cut += u64::from(run(&failing, &id).await.is_err());
        run(&store, &id).await.unwrap();
        // THEN the board is widened whole
        assert_widened(&table, &store, &id, ENTRIES).await;
    }
    assert_eq!(cut, writes, "every cut run stopped at its failure");
}

/// The operations that write.
const WRITES: &str = "UpdateItem|TransactWriteItems|BatchWriteItem|PutItem|DeleteItem";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_play_between_the_copys_read_and_its_transaction_is_not_undone() {
    let (table, store) = store_without_stream("widen_gate").await;
    board_of(&store, "gated").await;
    store
        .rank()
        .widen_step(&bid("gated"), MAX, &options())
        .await
        .unwrap();
    // The copy's first transaction waits, its page read; p9 (on that page: the worst scores
    // come first in key order) moves meanwhile, to the best score.
    let (client, gate) = gated_client(&table.endpoint, "TransactWriteItems:REMOVE #g1pk");
    let gated = store_with_client(&table, client);
    let copying = tokio::spawn(async move {
        gated
            .rank()
            .widen_step(&bid("gated"), MAX, &options())
            .await
            .unwrap()
    });
    assert!(gate.reached().await);
    let moved = submit(&store, "p9", 0, &["gated"], 500_000).await;
    assert_eq!(moved.session.outcomes[0].best, 0);
    gate.release();
    copying.await.unwrap();
    // THEN, the run over, p9 has one entry (its new one), as has everyone
    run(&store, "gated").await.unwrap();
    assert_widened(&table, &store, "gated", ENTRIES).await;
    let board = stored_board(&store, "gated").await;
    let p9 = store
        .listings()
        .player_rank(&board, &pid("p9"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (p9.score, p9.rank),
        (0, 2),
        "after p0, at 0 since the start"
    );
}
