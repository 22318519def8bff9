//! Widening a live board (docs/widen.md) on DynamoDB Local: the plan, the raise of a board
//! whose keys stay, the begin (the board item's `widening`, the lanes' fence), plays and
//! removals writing both generations from then on, the copy raced by concurrent plays, and a
//! whole run of either order: the switch to the new width, the old generation retired, a score
//! above the old `maxScore` accepted. Refusals write nothing.

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use common::*;
use leaderboard_devkit::testing::{RawItem, n, s};
use leaderboard_keys::rank::{Order, RankKeySpec};
use leaderboard_keys::widen::{Widening, rekey};
use leaderboard_store::model::Operator;
use leaderboard_store::widening::WideningStep;
use leaderboard_store::{Store, StoreError, WidenOptions, WidenProgress};

/// `page` entries a step, and no grace after the switch (no read runs beside these runs).
fn options(page: usize) -> WidenOptions {
    WidenOptions {
        page,
        grace: std::time::Duration::ZERO,
        now: at(0),
    }
}

/// The board's Score items in partition `pk`, by sort key.
fn scores(dump: &[RawItem], pk: &str) -> BTreeMap<String, RawItem> {
    dump.iter()
        .filter(|i| s(i, "pk") == Some(pk) && s(i, "sk").is_some_and(|k| k.starts_with("SCORE#")))
        .map(|i| (s(i, "sk").unwrap().to_owned(), i.clone()))
        .collect()
}

/// Runs the widening of `id` to `max` until its copy is over, `page` entries a step.
async fn copy_all(store: &Store, id: &str, max: u64, page: usize) -> u64 {
    let mut copied = 0;
    loop {
        match store
            .rank()
            .widen_step(&bid(id), max, &options(page))
            .await
            .unwrap()
        {
            WidenProgress::Running {
                step: WideningStep::Copy,
                copied: c,
            } => copied += c,
            WidenProgress::Running { step, .. } => {
                assert_eq!(step, WideningStep::Index);
                return copied;
            }
            WidenProgress::Done(b) => panic!("done before the index step: {b:?}"),
        }
    }
}

/// Every entry in service has exactly its copy at the new width in generation 1, with the
/// same attributes, and generation 1 holds nothing else.
fn assert_copied(dump: &[RawItem], id: &str, from: RankKeySpec, to: RankKeySpec) {
    let old = scores(dump, &format!("LEADERBOARD#{id}"));
    let new = scores(dump, &format!("LEADERBOARD#{id}#E1"));
    let want: BTreeMap<String, &RawItem> = old
        .iter()
        .map(|(sk, item)| (rekey(&from, &to, sk).unwrap(), item))
        .collect();
    assert_eq!(
        new.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "generation 1 is generation 0 re-keyed"
    );
    for (sk, item) in &new {
        for attr in ["playerId", "score", "version", "attainedAt", "sessionId"] {
            assert_eq!(item.get(attr), want[sk].get(attr), "{sk} {attr}");
        }
        // A player's boards list each entry once: from its new item only.
        let player = s(item, "playerId").unwrap();
        assert_eq!(s(item, "gsi1pk"), Some(format!("PLAYER#{player}").as_str()));
        assert_eq!(s(item, "gsi1sk"), Some(format!("SCORE#{id}").as_str()));
        assert_eq!(s(want[sk], "gsi1pk"), None, "{sk}");
    }
}

#[tokio::test]
async fn the_plan_says_what_a_new_max_score_asks_and_costs() {
    let (_t, store) = store("widen_plan").await;
    let players: Vec<String> = (0..30).map(|i| format!("p{i}")).collect();
    imported_board(&store, "planned", Operator::Best, &players, 0..1_000, 7).await;
    let plan = store
        .rank()
        .widen_plan(&bid("planned"), 99_999_999_999, at(0))
        .await
        .unwrap();
    assert!(matches!(plan.widening, Widening::Rekey { .. }));
    assert_eq!(plan.entries, 30);
    assert_eq!(plan.items_to_write, 60);
    assert_eq!(plan.write_units, 30 * (leaderboard_store::COPY_UNITS + 1));
    let same = store
        .rank()
        .widen_plan(&bid("planned"), 9_999_999_999, at(0))
        .await
        .unwrap();
    assert_eq!(same.widening, Widening::AlreadyThere);
}

#[tokio::test]
async fn a_highest_first_board_of_the_same_width_only_raises_its_max_score() {
    let (t, store) = store("widen_raise").await;
    store
        .boards()
        .create_board(
            new_board("raised", Order::Desc, Operator::Best, 5_000),
            at(0),
        )
        .await
        .unwrap();
    submit(&store, "alice", 4_000, &["raised"], 1_000).await;
    let before = scores(&t.dump().await, "LEADERBOARD#raised");
    // WHEN it widens to 9,999 (four digits still)
    let WidenProgress::Done(board) = store
        .rank()
        .widen_step(&bid("raised"), 9_999, &options(40))
        .await
        .unwrap()
    else {
        panic!("a raise is one step");
    };
    // THEN only its maxScore moved, and a score above the old one is accepted
    assert_eq!(board.max_score, 9_999);
    assert_eq!(stored_board(&store, "raised").await.max_score, 9_999);
    assert_eq!(scores(&t.dump().await, "LEADERBOARD#raised"), before);
    submit(&store, "bob", 9_000, &["raised"], 2_000).await;
    let board = stored_board(&store, "raised").await;
    let top = store.listings().top_scores(&board, 2, None).await.unwrap();
    assert_eq!(top.items[0].player_id, pid("bob"));
}

#[tokio::test]
async fn refused_widenings_write_nothing() {
    let (t, store) = store("widen_refused").await;
    let players: Vec<String> = (0..5).map(|i| format!("p{i}")).collect();
    imported_board(&store, "kept", Operator::Best, &players, 0..1_000, 3).await;
    let before = t.dump().await;
    for (max, why) in [(9_999_999_998, "narrower"), (u64::MAX, "out of range")] {
        let refused = store
            .rank()
            .widen_step(&bid("kept"), max, &options(40))
            .await;
        assert!(
            matches!(refused, Err(StoreError::Invalid(_))),
            "{why}: {refused:?}"
        );
        assert!(
            store
                .rank()
                .widen_plan(&bid("kept"), max, at(0))
                .await
                .is_err(),
            "{why}"
        );
    }
    let missing = store
        .rank()
        .widen_step(&bid("nowhere"), 99, &options(40))
        .await;
    assert!(
        matches!(missing, Err(StoreError::NotFound { .. })),
        "{missing:?}"
    );
    assert_eq!(t.dump().await, before, "nothing written");
    // A run under way refuses another maxScore, and an import.
    store
        .rank()
        .widen_step(&bid("kept"), 99_999_999_999, &options(40))
        .await
        .unwrap();
    let during = t.dump().await;
    let other = store
        .rank()
        .widen_step(&bid("kept"), 999_999_999_999, &options(40))
        .await;
    assert!(matches!(other, Err(StoreError::Invalid(_))), "{other:?}");
    let board = stored_board(&store, "kept").await;
    let import = store
        .boards()
        .import_entries(&board, &[(pid("late"), 5, at(9))])
        .await;
    assert!(matches!(import, Err(StoreError::Invalid(_))), "{import:?}");
    assert_eq!(t.dump().await, during, "nothing written");
}

#[tokio::test]
async fn after_the_begin_every_change_writes_both_generations_and_the_lanes_both_widths() {
    let (t, store) = store("widen_both").await;
    let players: Vec<String> = (0..20).map(|i| format!("p{i}")).collect();
    imported_board(&store, "both", Operator::Best, &players, 0..1_000, 5).await;
    let from = stored_board(&store, "both").await.spec().unwrap();
    let to = RankKeySpec::new(Order::Desc, 99_999_999_999).unwrap();
    // WHEN the run begins
    let begun = store
        .rank()
        .widen_step(&bid("both"), to.max_score(), &options(40))
        .await
        .unwrap();
    assert_eq!(
        begun,
        WidenProgress::Running {
            step: WideningStep::Copy,
            copied: 0
        }
    );
    let board = stored_board(&store, "both").await;
    assert_eq!(
        board.max_score,
        from.max_score(),
        "maxScore moves at the switch only"
    );
    let run = board.widening.clone().unwrap();
    assert_eq!((run.generation, run.max_score), (1, to.max_score()));
    let dump = t.dump().await;
    let lanes: Vec<&RawItem> = dump
        .iter()
        .filter(|i| s(i, "pk") == Some("RANKSEQ#both"))
        .collect();
    assert_eq!(lanes.len(), 10);
    assert!(
        lanes.iter().all(|l| n(l, "widening") == Some("1")),
        "every lane fenced"
    );
    // AND a player improves, a new one plays, one is removed
    submit(&store, "p3", 5_000, &["both"], 400_000).await;
    submit(&store, "newcomer", 10, &["both"], 400_001).await;
    assert!(
        store
            .moderation()
            .remove_entry(&bid("both"), &pid("p4"), &pid("admin"), at(400_002))
            .await
            .unwrap()
    );
    // THEN generation 1 holds the three changes at the new width
    let dump = t.dump().await;
    let new = scores(&dump, "LEADERBOARD#both#E1");
    let by_player = |p: &str| new.values().filter(|i| s(i, "playerId") == Some(p)).count();
    assert_eq!(
        (by_player("p3"), by_player("newcomer"), by_player("p4")),
        (1, 1, 0)
    );
    assert_eq!(new.len(), 2, "the others are the copy's to bring");
    let listed = |pk: &str| {
        scores(&dump, pk)
            .values()
            .filter(|i| s(i, "gsi1pk") == Some("PLAYER#p3"))
            .count()
    };
    assert_eq!(
        (listed("LEADERBOARD#both"), listed("LEADERBOARD#both#E1")),
        (0, 1)
    );
    // AND the lane of the newcomer's play records it at both widths
    let entry = store
        .listings()
        .entry_pointer(&bid("both"), &pid("newcomer"))
        .await
        .unwrap()
        .unwrap();
    let wide = rekey(&from, &to, &entry.score_sk).unwrap();
    assert!(new.contains_key(&wide));
    let lane = dump
        .iter()
        .find(|i| {
            s(i, "pk") == Some("RANKSEQ#both")
                && format!("{:?}", i.get("chg")).contains(&entry.score_sk)
        })
        .expect("the newcomer's lane");
    let chgw = format!("{:?}", lane.get("chgw"));
    assert!(chgw.contains(&wide) && chgw.contains("\"g\""), "{chgw}");
    // AND the copy brings the rest, the moved and removed entries as they are now
    copy_all(&store, "both", to.max_score(), 40).await;
    assert_copied(&t.dump().await, "both", from, to);
}

#[tokio::test]
async fn the_copy_raced_by_concurrent_plays_ends_with_each_entry_once_at_the_new_width() {
    let (t, store) = store_without_stream("widen_race").await;
    let players: Vec<String> = (0..30).map(|i| format!("p{i}")).collect();
    imported_board(&store, "race", Operator::Latest, &players, 0..1_000, 9).await;
    let from = stored_board(&store, "race").await.spec().unwrap();
    let to = RankKeySpec::new(Order::Desc, 99_999_999_999).unwrap();
    // WHEN 4 players' sessions post plays (old players moving, new ones arriving) from before
    // the run begins until its copy, 10 entries a step, is over
    let copying = Arc::new(AtomicBool::new(true));
    let plays: Vec<_> = (0..4u64)
        .map(|w| {
            let (store, copying) = (store.clone(), copying.clone());
            tokio::spawn(async move {
                let mut i = 0u64;
                while i < 10 || copying.load(Ordering::SeqCst) {
                    // Mostly the board's players, whose entries the copy reads: every play
                    // moves its entry (`latest`, a later time); a few new ones.
                    let player = format!("p{}", (w * 53 + i * 7) % 34);
                    let ms = 400_000 + w * 100_000 + i;
                    submit(&store, &player, (w * 131 + i * 17) % 1_000, &["race"], ms).await;
                    i += 1;
                }
                i
            })
        })
        .collect();
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let copied = copy_all(&store, "race", to.max_score(), 5).await;
    copying.store(false, Ordering::SeqCst);
    let mut played = 0;
    for p in plays {
        played += p.await.unwrap();
    }
    // THEN generation 1 is generation 0 at the new width: no entry lost, none twice
    assert!(
        copied > 0 && played >= 40,
        "{copied} copied, {played} plays"
    );
    assert_copied(&t.dump().await, "race", from, to);
    let board = stored_board(&store, "race").await;
    assert_eq!(board.widening.unwrap().step, WideningStep::Index);
    assert_eq!(board.max_score, from.max_score());
}

#[tokio::test]
async fn a_whole_run_switches_either_order_to_the_new_width_and_retires_the_old_entries() {
    let (t, store) = store("widen_whole").await;
    for (id, order) in [("whole_desc", Order::Desc), ("whole_asc", Order::Asc)] {
        let board = store
            .boards()
            .create_board(new_board(id, order, Operator::Best, 999), at(0))
            .await
            .unwrap();
        let entries: Vec<_> = (0..40u64)
            .map(|i| (pid(&format!("p{i}")), (i * 37) % 1_000, at(i * 1_000)))
            .collect();
        store
            .boards()
            .import_entries(&board, &entries)
            .await
            .unwrap();
        store.rank().build_rank_index(&board).await.unwrap();
        let listed = |b| {
            let store = store.clone();
            async move {
                let page = store.listings().top_scores(&b, 100, None).await.unwrap();
                page.items
                    .iter()
                    .map(|e| (e.player_id.to_string(), e.score))
                    .collect::<Vec<_>>()
            }
        };
        let before = listed(stored_board(&store, id).await).await;
        let cursor = store
            .listings()
            .top_scores(&stored_board(&store, id).await, 10, None)
            .await
            .unwrap()
            .next_cursor
            .unwrap();
        // WHEN it widens to 99,999 with a play during the copy
        let mut steps = Vec::new();
        let done = loop {
            match store
                .rank()
                .widen_step(&bid(id), 99_999, &options(15))
                .await
                .unwrap()
            {
                WidenProgress::Done(b) => break b,
                WidenProgress::Running { step, .. } => {
                    if steps.is_empty() {
                        submit(&store, "p3", 500, &[id], 100_000).await;
                    }
                    steps.push(step);
                }
            }
        };
        // THEN it went through every step and is at the new width on generation 1
        for step in [
            WideningStep::Copy,
            WideningStep::Index,
            WideningStep::Retire,
        ] {
            assert!(steps.contains(&step), "{id}: {steps:?}");
        }
        assert_eq!((done.max_score, done.entry_generation), (99_999, 1), "{id}");
        assert_eq!(done.widening, None, "{id}");
        // AND it lists as it did, but for p3's play, and ranks every player where listed
        let after = listed(*done.clone()).await;
        let mut want = before.clone();
        let p3 = want.iter().position(|(p, _)| p == "p3").unwrap();
        if order.is_better(500, want[p3].1) {
            want.remove(p3);
            let at = want
                .iter()
                .position(|(_, s)| order.is_better(500, *s))
                .unwrap_or(want.len());
            want.insert(at, ("p3".into(), 500));
        }
        assert_eq!(after, want, "{id}");
        for (i, (p, _)) in after.iter().enumerate() {
            let ranked = store
                .listings()
                .player_rank(&done, &pid(p))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(ranked.rank, i as u64 + 1, "{id} {p}");
        }
        // AND the old generation is gone, the new one holds each entry once
        let dump = t.dump().await;
        assert!(
            scores(&dump, &format!("LEADERBOARD#{id}")).is_empty(),
            "{id}"
        );
        assert_eq!(
            scores(&dump, &format!("LEADERBOARD#{id}#E1")).len(),
            40,
            "{id}"
        );
        // AND a score above the old maxScore counts: first when higher ranks first
        submit(&store, "late", 50_000, &[id], 200_000).await;
        let ranked = store
            .listings()
            .player_rank(&done, &pid("late"))
            .await
            .unwrap()
            .unwrap();
        let want_rank = if order == Order::Desc { 1 } else { 41 };
        assert_eq!(ranked.rank, want_rank, "{id}");
        // AND a top-N cursor of before the switch is refused, not read in the new order
        let stale = store.listings().top_scores(&done, 10, Some(&cursor)).await;
        assert!(
            matches!(stale, Err(StoreError::BadCursor)),
            "{id}: {stale:?}"
        );
        // AND a second run finds nothing to do
        let again = store
            .rank()
            .widen_step(&bid(id), 99_999, &options(15))
            .await
            .unwrap();
        assert!(matches!(again, WidenProgress::Done(_)), "{id}");
    }
}
