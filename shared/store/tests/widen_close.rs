//! A widening and the board's end, on DynamoDB Local: a board that ends within the run's grace
//! is refused a run (nothing written); a run the close cuts off, before its switch or after
//! it, leaves no second generation behind: the close deletes it and the run, every entry is
//! archived once with its TTL and listed once among its player's boards, and the closed board
//! refuses the run's resumption. An admin's removal on a widening board meets the erasure
//! check as on any other (its transaction holds the second generation's writes too).

use crate::common;

use std::time::Duration;

use common::*;
use leaderboard_devkit::testing::{RawItem, TestTable, s};
use leaderboard_store::model::Operator;
use leaderboard_store::widening::WideningStep;
use leaderboard_store::{CloseOptions, CloseProgress, Store, StoreError, WidenOptions};
use leaderboard_store::{WidenProgress, model::BoardStatus};

const WIDER: u64 = 99_999_999_999;
const ENDS: u64 = 365 * 86_400_000;
const PLAYERS: usize = 20;

fn options(now: u64) -> WidenOptions {
    WidenOptions {
        page: 5,
        grace: Duration::from_secs(60),
        now: at(now),
    }
}

/// A board of `PLAYERS` imported entries, its index built.
async fn widening_board(store: &Store, id: &str) -> Vec<String> {
    let players: Vec<String> = (0..PLAYERS).map(|i| format!("p{i:02}")).collect();
    imported_board(store, id, Operator::Best, &players, 0..1_000, 11).await;
    players
}

/// The board's items whose partition starts with `LEADERBOARD#<id>`, and are Score items.
fn score_items<'a>(dump: &'a [RawItem], pk: &str) -> Vec<&'a RawItem> {
    dump.iter()
        .filter(|i| s(i, "pk") == Some(pk) && s(i, "sk").is_some_and(|k| k.starts_with("SCORE#")))
        .collect()
}

/// Closes `id` once it has ended, and checks what the close leaves: `in_service` holds every
/// entry, archived with a TTL and listed among its player's boards, `other` nothing, and the
/// board no run.
async fn close_and_check(t: &TestTable, store: &Store, id: &str, in_service: &str, other: &str) {
    let progress = store
        .close()
        .close_board(&bid(id), at(ENDS + 1), &CloseOptions::default())
        .await
        .unwrap();
    assert!(
        matches!(progress, CloseProgress::Closed { player_count, .. } if player_count == PLAYERS as u64),
        "{progress:?}"
    );
    let dump = t.dump().await;
    assert!(score_items(&dump, other).is_empty(), "{other} is cleared");
    let kept = score_items(&dump, in_service);
    assert_eq!(kept.len(), PLAYERS);
    for item in &kept {
        assert!(item.contains_key("ttl"), "{item:?}");
        let player = s(item, "playerId").unwrap();
        assert_eq!(s(item, "gsi1pk"), Some(format!("PLAYER#{player}").as_str()));
    }
    // Each player's boards list this one once.
    let listed = dump
        .iter()
        .filter(|i| s(i, "gsi1sk") == Some(format!("SCORE#{id}").as_str()))
        .count();
    assert_eq!(listed, PLAYERS);
    let board = stored_board(store, id).await;
    assert_eq!(board.status, BoardStatus::Closed);
    assert_eq!(board.widening, None);
    // The closed board refuses the run, and writes nothing.
    let resumed = store
        .rank()
        .widen_step(&bid(id), WIDER, &options(ENDS + 2))
        .await;
    assert!(
        matches!(resumed, Err(StoreError::BoardClosed { .. })),
        "{resumed:?}"
    );
    assert_eq!(t.dump().await, dump, "nothing written");
}

#[tokio::test]
async fn a_board_ending_within_the_grace_is_refused_a_run() {
    let (t, store) = store("widen_near_end").await;
    widening_board(&store, "ending").await;
    let before = t.dump().await;
    let refused = store
        .rank()
        .widen_step(&bid("ending"), WIDER, &options(ENDS - 30_000))
        .await;
    assert!(
        matches!(&refused, Err(StoreError::Invalid(why)) if why.contains("grace")),
        "{refused:?}"
    );
    let plan = store
        .rank()
        .widen_plan(&bid("ending"), WIDER, at(ENDS - 30_000))
        .await;
    assert!(matches!(plan, Err(StoreError::Invalid(_))), "{plan:?}");
    assert_eq!(t.dump().await, before, "nothing written");
    // Outside the grace, the run begins.
    let begun = store
        .rank()
        .widen_step(&bid("ending"), WIDER, &options(ENDS - 61_000))
        .await
        .unwrap();
    assert!(matches!(begun, WidenProgress::Running { .. }), "{begun:?}");
}

#[tokio::test]
async fn a_close_clears_a_run_it_cut_off_before_its_switch() {
    let (t, store) = store("widen_cut_copy").await;
    widening_board(&store, "cut").await;
    // Begun, and two pages of five copied: ten entries' GSI1 keys moved to their copies.
    for _ in 0..3 {
        store
            .rank()
            .widen_step(&bid("cut"), WIDER, &options(0))
            .await
            .unwrap();
    }
    let dump = t.dump().await;
    assert_eq!(score_items(&dump, "LEADERBOARD#cut#E1").len(), 10);
    assert_eq!(
        stored_board(&store, "cut").await.widening.unwrap().step,
        WideningStep::Copy
    );
    close_and_check(&t, &store, "cut", "LEADERBOARD#cut", "LEADERBOARD#cut#E1").await;
}

#[tokio::test]
async fn a_close_clears_a_run_it_cut_off_after_its_switch() {
    let (t, store) = store("widen_cut_retire").await;
    widening_board(&store, "late").await;
    // Every step up to the switch; the old generation not yet retired.
    let zero_grace = |now| WidenOptions {
        page: 50,
        grace: Duration::ZERO,
        now: at(now),
    };
    loop {
        let step = store
            .rank()
            .widen_step(&bid("late"), WIDER, &zero_grace(0))
            .await
            .unwrap();
        if step
            == (WidenProgress::Running {
                step: WideningStep::Retire,
                copied: 0,
            })
        {
            break;
        }
    }
    let board = stored_board(&store, "late").await;
    assert_eq!(board.entry_generation, 1);
    assert_eq!(
        score_items(&t.dump().await, "LEADERBOARD#late").len(),
        PLAYERS
    );
    close_and_check(
        &t,
        &store,
        "late",
        "LEADERBOARD#late#E1",
        "LEADERBOARD#late",
    )
    .await;
}

#[tokio::test]
async fn a_removal_on_a_widening_board_of_a_player_being_erased_is_refused_as_erased() {
    let (t, store) = store("widen_removal_erased").await;
    let players = widening_board(&store, "wide").await;
    // Begun and copying: a removal writes both generations.
    for _ in 0..2 {
        store
            .rank()
            .widen_step(&bid("wide"), WIDER, &options(0))
            .await
            .unwrap();
    }
    assert!(stored_board(&store, "wide").await.widening.is_some());
    // The player's erasure has begun: its marker is there.
    let player = pid(&players[0]);
    let marker = leaderboard_keys::entity::erasure(&store.pseudonym(&player));
    use aws_sdk_dynamodb::types::AttributeValue;
    t.client
        .put_item()
        .table_name(&t.name)
        .item("pk", AttributeValue::S(marker.pk.clone()))
        .item("sk", AttributeValue::S(marker.sk.clone()))
        .send()
        .await
        .unwrap();
    let before = t.dump().await;
    let removed = store
        .moderation()
        .remove_entry(&bid("wide"), &player, &pid("ops"), at(1))
        .await;
    assert!(
        matches!(removed, Err(StoreError::Erased { .. })),
        "{removed:?}"
    );
    assert_eq!(t.dump().await, before, "nothing written");
    // Another player's removal goes through, on both generations.
    let other = pid(&players[1]);
    assert!(
        store
            .moderation()
            .remove_entry(&bid("wide"), &other, &pid("ops"), at(1))
            .await
            .unwrap()
    );
}
