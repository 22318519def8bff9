//! Erasure on DynamoDB Local (contract §7): afterwards a scan of the whole table finds the
//! player's id and email nowhere, closed boards' final standings keep the rank under the
//! pseudonym, other players' ranks and counts are exact, plays racing the erasure leave nothing
//! behind, a second erasure writes nothing, an erasure interrupted after any of its writes
//! finishes when run again with the same receipt, and the stream projection never brings the
//! profile back.

use crate::common;

use std::time::Instant;

use aws_sdk_dynamodb::types::AttributeValue;
use common::*;
use leaderboard_devkit::local::{Failures, failing_client};
use leaderboard_devkit::testing::{RawItem, TestTable, s};
use leaderboard_keys::ids::{Email, IdempotencyKey};
use leaderboard_keys::rank::Order;
use leaderboard_store::model::Operator;
use leaderboard_store::{
    CloseOptions, ErasureReceipt, ProjectedSession, SequenceNumber, Store, StoreError,
};

const DAY: u64 = 86_400_000;
const GONE: &str = "p_gone_7f3";
const GONE_EMAIL: &str = "gone.player@example.com";

/// Whether any string anywhere in `value` contains `needle`.
fn holds(value: &AttributeValue, needle: &str) -> bool {
    match value {
        AttributeValue::S(s) => s.contains(needle),
        AttributeValue::Ss(v) => v.iter().any(|s| s.contains(needle)),
        AttributeValue::M(m) => m
            .iter()
            .any(|(k, v)| k.contains(needle) || holds(v, needle)),
        AttributeValue::L(l) => l.iter().any(|v| holds(v, needle)),
        _ => false,
    }
}

/// The items of the table that hold `needle` in a key or any attribute.
async fn holding(table: &TestTable, needle: &str) -> Vec<RawItem> {
    table
        .dump()
        .await
        .into_iter()
        .filter(|item| {
            item.iter()
                .any(|(k, v)| k.contains(needle) || holds(v, needle))
        })
        .collect()
}

/// Boards `live` (best, desc) and `sum` (increment) open for a year, and `past` (desc) ending
/// a day in and closed with the player third of four.
async fn boards_with_the_player(store: &Store, player: &str) {
    board(store, "live", Order::Desc, Operator::Best).await;
    board(store, "sum", Order::Desc, Operator::Increment).await;
    let mut past = new_board("past", Order::Desc, Operator::Best, 9_999_999_999);
    past.ends_at = Some(at(DAY));
    store.boards().create_board(past, at(0)).await.unwrap();
    for (i, other) in ["ann", "bo", "cy"].iter().enumerate() {
        let score = [500, 300, 100][i];
        submit(
            store,
            other,
            score,
            &["live", "sum", "past"],
            1_000 + i as u64,
        )
        .await;
    }
    submit(store, player, 200, &["live", "sum", "past"], 2_000).await;
    submit(store, player, 250, &["live", "sum"], DAY + 1_000).await;
    let closed = store
        .close()
        .close_board(&bid("past"), at(DAY + 2_000), &CloseOptions::default())
        .await
        .unwrap();
    assert!(format!("{closed:?}").starts_with("Closed"), "{closed:?}");
}

/// Every other player's rank and the count on `board`, as the store answers them.
async fn ranks(store: &Store, board: &str, players: &[&str]) -> Vec<(String, u64, u64)> {
    let b = stored_board(store, board).await;
    let mut out = Vec::new();
    for p in players {
        let e = store
            .listings()
            .player_rank(&b, &pid(p))
            .await
            .unwrap()
            .unwrap();
        let count = e.freshness.as_ref().map_or(0, |f| f.player_count);
        out.push((p.to_string(), e.rank, count));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_erased_player_is_nowhere_but_a_pseudonym_in_final_standings() {
    let (table, store) = store_without_stream("erase_all").await;
    let store = store.with_plays_per_minute(60);
    boards_with_the_player(&store, GONE).await;
    store
        .players()
        .put_profile(
            &pid(GONE),
            "Gone Player",
            Some(&Email::parse(GONE_EMAIL).unwrap()),
            at(DAY),
        )
        .await
        .unwrap();
    let mut keyed = play(GONE, 7, &["live"], sid(DAY + 5_000, 9));
    keyed.idempotency_key = Some(IdempotencyKey::parse("retry-1").unwrap());
    store
        .plays()
        .record_play(&keyed, at(DAY + 5_000))
        .await
        .unwrap();
    let others = ["ann", "bo", "cy"];
    let live_before = ranks(&store, "live", &others).await;
    // A recount run waits for the player's plays to settle (its item names them).
    table
        .update_raw("RECOUNT", &format!("BUSY#{GONE}"), "REMOVE x")
        .await;

    // Eight plays of the player race the erasure: each commits before its marker (and is
    // erased) or is refused; none leaves anything behind.
    let racing: Vec<_> = (0..8u64)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                let p = play(
                    GONE,
                    1_000 + i,
                    &["live", "sum"],
                    sid(DAY + 10_000 + i, i.into()),
                );
                store.plays().record_play(&p, at(DAY + 10_000 + i)).await
            })
        })
        .collect();
    let receipt = store
        .moderation()
        .erase_player(&pid(GONE), "ops", at(DAY + 10_000), None)
        .await
        .unwrap();
    for r in racing {
        match r.await.unwrap() {
            Ok(_) | Err(StoreError::Erased { .. }) | Err(StoreError::RateLimited { .. }) => {}
            Err(e) => panic!("a racing play failed otherwise: {e}"),
        }
    }
    assert!(receipt.finished(), "{receipt:?}");
    assert_eq!(receipt.pseudonym, store.pseudonym(&pid(GONE)));

    // Nothing holds the id or the email; the final standing holds the pseudonym, unnamed.
    assert_eq!(holding(&table, GONE).await, Vec::<RawItem>::new());
    assert_eq!(holding(&table, GONE_EMAIL).await, Vec::<RawItem>::new());
    let standings = store
        .listings()
        .final_standings(&bid("past"), 10, None)
        .await
        .unwrap();
    let shown: Vec<_> = standings
        .items
        .iter()
        .map(|e| (e.rank, e.player_id.to_string()))
        .collect();
    let pseudonym = receipt.pseudonym.to_string();
    assert_eq!(
        shown,
        vec![
            (1, "ann".to_string()),
            (2, "bo".to_string()),
            (3, pseudonym.clone()),
            (4, "cy".to_string())
        ]
    );
    let third = table
        .raw("LEADERBOARD#past", "FINAL#0000000003")
        .await
        .unwrap();
    assert_eq!(s(&third, "playerId"), Some(pseudonym.as_str()));
    assert!(!third.contains_key("name"), "{third:?}");

    // The other players' ranks on the open board close up by one where the player was above,
    // and the count drops by one.
    let live_after = ranks(&store, "live", &others).await;
    let expected: Vec<_> = live_before
        .iter()
        .map(|(p, rank, count)| {
            let above = *rank > 3 || (p == "cy");
            (p.clone(), if above { rank - 1 } else { *rank }, count - 1)
        })
        .collect();
    assert_eq!(live_after, expected);

    // The receipt counts what went, by kind.
    let removed = &receipt.removed;
    assert_eq!(removed.get("profile"), Some(&1));
    assert_eq!(removed.get("emailOwner"), Some(&1));
    assert_eq!(removed.get("finalStandings"), Some(&1));
    assert_eq!(removed.get("seasonResults"), Some(&1));
    assert_eq!(removed.get("idempotencyKeys"), Some(&1));
    assert_eq!(removed.get("playRate"), Some(&1));
    assert_eq!(removed.get("recountWaits"), Some(&1));
    // live and sum live, past archived: three pointers and three Score items.
    assert_eq!(removed.get("entryPointers"), Some(&3));
    assert_eq!(removed.get("scores"), Some(&3));
    assert!(
        removed.get("sessions").copied().unwrap_or(0) >= 3,
        "{removed:?}"
    );

    // A second erasure writes nothing and answers the same receipt.
    let before = table.dump().await;
    let again = store
        .moderation()
        .erase_player(&pid(GONE), "ops", at(DAY + 20_000), None)
        .await
        .unwrap();
    assert_eq!(again, receipt);
    assert_eq!(table.dump().await, before);

    // The id is refused from now on, with nothing written.
    let late = store
        .plays()
        .record_play(
            &play(GONE, 5, &["live"], sid(DAY + 30_000, 1)),
            at(DAY + 30_000),
        )
        .await;
    assert!(matches!(late, Err(StoreError::Erased { .. })), "{late:?}");
    let profile = store
        .players()
        .put_profile(&pid(GONE), "Back", None, at(DAY + 30_000))
        .await;
    assert!(
        matches!(profile, Err(StoreError::Erased { .. })),
        "{profile:?}"
    );
    assert_eq!(table.dump().await, before);

    // Sessions still in the stream do not bring the profile back.
    let in_flight = ProjectedSession {
        sequence_number: SequenceNumber::parse("900").unwrap(),
        score: 200,
        attained_at: at(2_000),
    };
    store
        .projection()
        .project_sessions(&pid(GONE), &[in_flight], at(DAY + 40_000))
        .await
        .unwrap();
    assert_eq!(table.dump().await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_erasure_interrupted_after_any_write_finishes_when_run_again() {
    let (table, store) = store_without_stream("erase_resume").await;
    boards_with_the_player(&store, GONE).await;
    store
        .players()
        .put_profile(
            &pid(GONE),
            "Gone",
            Some(&Email::parse(GONE_EMAIL).unwrap()),
            at(DAY),
        )
        .await
        .unwrap();
    store
        .moderation()
        .ban_player(&pid(GONE), "smurfing", &pid("ops"), at(DAY + 3_000))
        .await
        .unwrap();
    // A board closed before the close dropped its checkpoint's cursor on finishing keeps the
    // sort key of the last entry it snapshotted: here the player's.
    let pointer = table
        .raw(&format!("PLAYER#{GONE}"), "ENTRY#past")
        .await
        .unwrap();
    table
        .client
        .update_item()
        .table_name(&table.name)
        .key("pk", AttributeValue::S("LEADERBOARD#past".into()))
        .key("sk", AttributeValue::S("#METADATA".into()))
        .update_expression("SET closeCursor = :c")
        .expression_attribute_values(":c", pointer["scoreSk"].clone())
        .send()
        .await
        .unwrap();
    // Out of time before anything but the marker: blocked, listed as pending, nothing gone.
    let started = store
        .moderation()
        .erase_player(&pid(GONE), "ops", at(DAY + 4_000), Some(Instant::now()))
        .await
        .unwrap();
    assert!(!started.finished());
    assert!(started.removed.is_empty(), "{started:?}");
    assert_eq!(
        store
            .moderation()
            .continue_erasures(at(DAY + 4_000), Some(Instant::now()))
            .await
            .unwrap(),
        0
    );
    // Each run lets one more write through, then fails every write after it.
    let mut runs = 0;
    let receipt: ErasureReceipt = loop {
        runs += 1;
        assert!(runs < 40, "the erasure does not progress");
        let writes_pass = Failures {
            operation: "TransactWriteItems",
            first: 2,
            count: u64::MAX / 2,
        };
        let cut = store_with_client(&table, failing_client(&table.endpoint, writes_pass));
        match cut
            .moderation()
            .erase_player(&pid(GONE), "ops", at(DAY + 5_000), None)
            .await
        {
            Ok(r) if r.finished() => break r,
            Ok(r) => panic!("unfinished without a deadline: {r:?}"),
            Err(_) => {}
        }
    };
    assert!(runs > 3, "{runs} runs");
    assert_eq!(holding(&table, GONE).await, Vec::<RawItem>::new());
    assert_eq!(holding(&table, GONE_EMAIL).await, Vec::<RawItem>::new());
    // The counts are exact although every run but the last failed part-way: two open entries
    // were removed by the ban before, so one archived pointer and Score item remain to count.
    let removed = &receipt.removed;
    assert_eq!(removed.get("entryPointers"), Some(&1), "{removed:?}");
    assert_eq!(removed.get("scores"), Some(&1), "{removed:?}");
    assert_eq!(removed.get("ban"), Some(&1), "{removed:?}");
    assert_eq!(removed.get("sessions"), Some(&2), "{removed:?}");
    assert_eq!(removed.get("profile"), Some(&1), "{removed:?}");
    assert_eq!(receipt.started_at, at(DAY + 4_000));
    // The pending listing is gone with the id.
    assert_eq!(
        store
            .moderation()
            .continue_erasures(at(DAY + 6_000), None)
            .await
            .unwrap(),
        0
    );
}
