//! Leagues: a period's close. Each cohort closes like any board and moves its players (the
//! first `promote` up, the last `relegate` down, never past either end, none relegated in a
//! cohort of fewer than `promote + relegate`, ties at a cutoff broken by the earlier play);
//! the league board closes and rolls over only once its cohorts have; the next period places
//! each player by the tier the last period they played left them in. Also when every close
//! stops after each page and is resumed.

use std::collections::BTreeMap;

use leaderboard_keys::time::Timestamp;
use leaderboard_store::league::Movement::{self, Promoted, Relegated, Stayed};
use leaderboard_store::{CloseOptions, CloseProgress, Store};

use crate::common::*;
use crate::leagues::{league, league_board};

const DAY: u64 = 86_400_000;

/// Closes every due board at `now` as the close job does (a league after its cohorts), each
/// close a turn of `options` at a time, until none is due; the number of turns it took.
async fn close_all(store: &Store, now: Timestamp, options: &CloseOptions) -> usize {
    let mut turns = 0;
    loop {
        let due = store.close().due_boards(now).await.unwrap();
        if due.is_empty() {
            return turns;
        }
        for board in due {
            let progress = store
                .close()
                .close_board(&board, now, options)
                .await
                .unwrap();
            assert!(
                !matches!(
                    progress,
                    CloseProgress::Busy { .. } | CloseProgress::NotDue { .. }
                ),
                "{progress:?}"
            );
            turns += 1;
        }
        assert!(turns < 10_000, "the closes do not finish");
    }
}

/// Each player's (tier, movement) on the closed cohorts of period `l`, from their results.
async fn moves(store: &Store, players: &[&str], l: &str) -> BTreeMap<String, (String, Movement)> {
    let mut found = BTreeMap::new();
    for p in players {
        let page = store
            .listings()
            .player_results(&pid(p), 50, None)
            .await
            .unwrap();
        for r in page.items {
            if r.cohort_of == Some(bid(l)) {
                let tier = r.tier.unwrap().to_string();
                found.insert(p.to_string(), (tier, r.movement.unwrap()));
            }
        }
    }
    found
}

fn expect(rows: &[(&str, &str, Movement)]) -> BTreeMap<String, (String, Movement)> {
    rows.iter()
        .map(|(p, t, m)| (p.to_string(), (t.to_string(), *m)))
        .collect()
}

/// One play each, in order (so cohorts fill in that order), at `day` of the league's weeks.
async fn plays(store: &Store, l: &str, day: u64, scores: &[(&str, u64)]) -> Vec<String> {
    let mut tiers = Vec::new();
    for (i, (p, score)) in scores.iter().enumerate() {
        let out = submit(store, p, *score, &[l], day * DAY + 1_000 * i as u64).await;
        tiers.push(out.session.outcomes[0].tier.clone().unwrap().to_string());
    }
    tiers
}

async fn three_periods(label: &str, options: CloseOptions) {
    let (_table, store) = store_without_stream(label).await;
    let l1 = "cup_2026-w01";
    store
        .boards()
        .create_board(
            league_board(l1, league(&["bronze", "silver", "gold"], 6, 2, 2)),
            at(0),
        )
        .await
        .unwrap();
    // Period 1: everyone new, in bronze: cohorts of 6, 6 and 2. p02 and p03 tie at the
    // promotion cutoff: p02 played first, so ranks above and is promoted.
    let first = [
        ("p01", 60),
        ("p02", 50),
        ("p03", 50),
        ("p04", 40),
        ("p05", 30),
        ("p06", 20),
        ("p07", 10),
        ("p08", 20),
        ("p09", 30),
        ("p10", 40),
        ("p11", 50),
        ("p12", 60),
        ("p13", 5),
        ("p14", 7),
    ];
    assert!(
        plays(&store, l1, 1, &first)
            .await
            .iter()
            .all(|t| t == "bronze")
    );
    let players: Vec<&str> = first.iter().map(|(p, _)| *p).collect();
    let turns = close_all(&store, at(7 * DAY), &options).await;
    let l2 = "cup_2026-w02";
    let closed = store.boards().get_board(&bid(l1)).await.unwrap().unwrap();
    assert_eq!(
        closed.next_board_id,
        Some(bid(l2)),
        "the league rolled over"
    );
    assert_eq!(
        closed.player_count,
        Some(0),
        "a league board holds no entries"
    );
    for n in 1..=3 {
        let cohort = store
            .boards()
            .get_board(&bid(&format!("{l1}.bronze.{n}")))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(cohort.status.as_str(), "closed");
    }
    // The lowest tier relegates no one; a cohort of 2 (fewer than promote + relegate)
    // promotes its 2.
    assert_eq!(
        moves(&store, &players, l1).await,
        expect(&[
            ("p01", "bronze", Promoted),
            ("p02", "bronze", Promoted),
            ("p03", "bronze", Stayed),
            ("p04", "bronze", Stayed),
            ("p05", "bronze", Stayed),
            ("p06", "bronze", Stayed),
            ("p07", "bronze", Stayed),
            ("p08", "bronze", Stayed),
            ("p09", "bronze", Stayed),
            ("p10", "bronze", Stayed),
            ("p11", "bronze", Promoted),
            ("p12", "bronze", Promoted),
            ("p13", "bronze", Promoted),
            ("p14", "bronze", Promoted),
        ]),
        "{turns} turns"
    );
    // Period 2: the six promoted are placed in silver; p03 in bronze. p03..p10 but p03 skip it.
    let second = [
        ("p01", 1),
        ("p02", 2),
        ("p11", 30),
        ("p12", 40),
        ("p13", 90),
        ("p14", 80),
        ("p03", 5),
    ];
    let tiers = plays(&store, l2, 8, &second).await;
    assert_eq!(
        tiers,
        [
            "silver", "silver", "silver", "silver", "silver", "silver", "bronze"
        ]
    );
    close_all(&store, at(14 * DAY), &options).await;
    let second_players: Vec<&str> = second.iter().map(|(p, _)| *p).collect();
    assert_eq!(
        moves(&store, &second_players, l2).await,
        expect(&[
            ("p01", "silver", Relegated),
            ("p02", "silver", Relegated),
            ("p11", "silver", Stayed),
            ("p12", "silver", Stayed),
            ("p13", "silver", Promoted),
            ("p14", "silver", Promoted),
            ("p03", "bronze", Promoted),
        ])
    );
    // Period 3: each where the last period they played left them; p04 skipped period 2 and
    // plays where period 1 left them. The top tier promotes no one.
    let l3 = "cup_2026-w03";
    let third = [
        ("p13", 9),
        ("p14", 8),
        ("p01", 1),
        ("p11", 1),
        ("p04", 1),
        ("p03", 1),
    ];
    let tiers = plays(&store, l3, 15, &third).await;
    assert_eq!(
        tiers,
        ["gold", "gold", "bronze", "silver", "bronze", "silver"]
    );
    close_all(&store, at(21 * DAY), &options).await;
    let gold = moves(&store, &["p13", "p14"], l3).await;
    assert_eq!(
        gold,
        expect(&[("p13", "gold", Stayed), ("p14", "gold", Stayed)])
    );
}

#[tokio::test]
async fn three_periods_move_every_tier_once_by_the_cohorts_final_standings() {
    three_periods("league_close", CloseOptions::default()).await;
}

#[tokio::test]
async fn three_periods_closed_a_page_at_a_time_and_resumed_move_the_same() {
    let options = CloseOptions {
        page_size: 1,
        max_pages: Some(1),
        ..CloseOptions::default()
    };
    three_periods("league_close_paged", options).await;
}
