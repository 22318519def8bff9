//! Leagues: placing players in cohorts. Players' first plays racing from many clients fill
//! cohorts of exactly `cohortSize`, oldest first, and put no player in two; a player's own
//! plays racing take one seat; later plays count on the same cohort; a play naming a cohort
//! itself, or a league outside its window, is refused and writes nothing.

use std::collections::{BTreeMap, BTreeSet};

use leaderboard_devkit::testing::TestTable;
use leaderboard_store::league::League;
use leaderboard_store::{Store, StoreError};

use crate::common::*;
use crate::leagues::{league, league_board};

/// What the table holds for league board `l`: each cohort's players by their placements, its
/// Score items' players, its listing item, and each tier's cursor.
#[derive(Debug, Default)]
struct Census {
    placed: BTreeMap<String, BTreeSet<String>>,
    scored: BTreeMap<String, BTreeSet<String>>,
    listed: BTreeSet<String>,
    boards: BTreeSet<String>,
    cursors: BTreeMap<String, (u64, u64)>,
}

async fn census(table: &TestTable, l: &str) -> Census {
    let mut c = Census::default();
    let text = |i: &leaderboard_devkit::testing::RawItem, k: &str| {
        i.get(k)
            .and_then(|v| v.as_s().ok())
            .cloned()
            .unwrap_or_default()
    };
    let num = |i: &leaderboard_devkit::testing::RawItem, k: &str| -> u64 {
        i.get(k)
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    let cohort_prefix = format!("LEADERBOARD#{l}.");
    for item in table.dump().await {
        let (pk, sk) = (text(&item, "pk"), text(&item, "sk"));
        if sk.starts_with("LEAGUE#") {
            let player = pk.trim_start_matches("PLAYER#").to_owned();
            c.placed
                .entry(text(&item, "cohortId"))
                .or_default()
                .insert(player);
        } else if pk.starts_with(&cohort_prefix) && sk.starts_with("SCORE#") {
            let cohort = pk.trim_start_matches("LEADERBOARD#").to_owned();
            c.scored
                .entry(cohort)
                .or_default()
                .insert(text(&item, "playerId"));
        } else if pk.starts_with(&cohort_prefix) && sk == "#METADATA" {
            assert_eq!(text(&item, "cohortOf"), l, "{item:?}");
            c.boards
                .insert(pk.trim_start_matches("LEADERBOARD#").to_owned());
        } else if pk == format!("LEADERBOARD#{l}") && sk.starts_with("COHORT#") {
            c.listed.insert(text(&item, "cohortId"));
        } else if pk == format!("LEADERBOARD#{l}") && sk.starts_with("COHORTS#") {
            let tier = sk.trim_start_matches("COHORTS#").to_owned();
            c.cursors
                .insert(tier, (num(&item, "number"), num(&item, "members")));
        }
    }
    c
}

async fn create(store: &Store, l: &str, league: League) {
    let board = league_board(l, league);
    store.boards().create_board(board, at(0)).await.unwrap();
}

/// `players` first plays on league board `l` from `clients` clients at once, each client
/// playing its share one after another.
async fn race(store: &Store, l: &str, players: usize, clients: usize) {
    let tasks = (0..clients).map(|client| {
        let store = store.clone();
        let l = l.to_owned();
        tokio::spawn(async move {
            for i in (client..players).step_by(clients) {
                let p = play(&format!("p{i:05}"), 100 + i as u64, &[&l], sid(i as u64, 7));
                store
                    .plays()
                    .commit_play(&p, at(1_000 + i as u64))
                    .await
                    .unwrap();
            }
        })
    });
    for task in futures::future::join_all(tasks).await {
        task.unwrap();
    }
}

/// Checks that every cohort's placements are its entries, that each player is in one cohort,
/// and returns each cohort's size, in cohort order of the tier `tier`.
fn sizes(c: &Census, l: &str, tier: &str, players: usize) -> Vec<usize> {
    assert_eq!(
        c.placed, c.scored,
        "each cohort's placements are its entries"
    );
    assert_eq!(c.boards, c.listed, "every cohort board is listed");
    assert_eq!(c.boards, c.placed.keys().cloned().collect::<BTreeSet<_>>());
    let everyone: usize = c.placed.values().map(BTreeSet::len).sum();
    let distinct: BTreeSet<&String> = c.placed.values().flatten().collect();
    assert_eq!(
        (everyone, distinct.len()),
        (players, players),
        "each player in one cohort"
    );
    (1..=c.boards.len())
        .map(|n| c.placed[&format!("{l}.{tier}.{n}")].len())
        .collect()
}

#[tokio::test]
async fn two_thousand_first_plays_from_sixteen_clients_fill_forty_cohorts_of_fifty() {
    let (table, store) = store_without_stream("league_race_2000").await;
    let l = "race_2026-w01";
    create(&store, l, league(&["bronze", "silver"], 50, 5, 5)).await;
    race(&store, l, 2_000, 16).await;
    let c = census(&table, l).await;
    assert_eq!(sizes(&c, l, "bronze", 2_000), vec![50; 40]);
    assert_eq!(c.cursors, BTreeMap::from([("bronze".to_owned(), (40, 50))]));
}

#[tokio::test]
async fn thirty_five_racing_into_cohorts_of_ten_leave_ten_ten_ten_five() {
    let (table, store) = store_without_stream("league_race_35").await;
    let l = "small_2026-w01";
    create(&store, l, league(&["bronze", "silver"], 10, 2, 2)).await;
    race(&store, l, 35, 16).await;
    let c = census(&table, l).await;
    assert_eq!(sizes(&c, l, "bronze", 35), vec![10, 10, 10, 5]);
    assert_eq!(c.cursors, BTreeMap::from([("bronze".to_owned(), (4, 5))]));
}

#[tokio::test]
async fn a_players_racing_plays_take_one_seat_and_later_plays_count_on_the_same_cohort() {
    let (table, store) = store_without_stream("league_same_player").await;
    let l = "own_2026-w01";
    create(&store, l, league(&["bronze", "gold"], 10, 2, 2)).await;
    submit(&store, "first", 5, &[l], 500).await;
    let tries = (0..8u64).map(|i| {
        let p = play("ann", 10 + i, &[l], sid(1_000 + i, 1));
        let store = store.clone();
        async move { store.plays().record_play(&p, at(1_000 + i)).await.unwrap() }
    });
    let outcomes = futures::future::join_all(tries).await;
    for o in &outcomes {
        let result = &o.session.outcomes[0];
        assert_eq!(
            result.board_id,
            bid(l),
            "the outcome names the league asked for"
        );
        assert_eq!(result.cohort_id, Some(bid(&format!("{l}.bronze.1"))));
        assert_eq!(result.tier.as_ref().map(|t| t.as_str()), Some("bronze"));
    }
    let later = submit(&store, "ann", 99, &[l], 9_000).await;
    assert_eq!(later.session.outcomes[0].rank, 1);
    let c = census(&table, l).await;
    assert_eq!(sizes(&c, l, "bronze", 2), vec![2]);
    assert_eq!(c.cursors["bronze"], (1, 2), "one seat for the racing plays");
    let cohort = store
        .boards()
        .get_board(&bid(&format!("{l}.bronze.1")))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(cohort.cohort_of, Some(bid(l)));
    assert_eq!(cohort.tier.as_ref().map(|t| t.as_str()), Some("bronze"));
    assert!(!cohort.is_league());
}

#[tokio::test]
async fn a_play_naming_a_cohort_or_a_league_outside_its_window_writes_nothing() {
    let (table, store) = store_without_stream("league_refused_plays").await;
    let l = "shut_2026-w01";
    create(&store, l, league(&["bronze", "gold"], 10, 2, 2)).await;
    submit(&store, "ann", 5, &[l], 500).await;
    let before = table.dump().await;
    let cohort = format!("{l}.bronze.1");
    let named = play("bob", 7, &[&cohort], sid(600, 2));
    let e = store
        .plays()
        .record_play(&named, at(600))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, StoreError::Invalid(m) if m.contains("is a cohort of the league")),
        "{e}"
    );
    assert_eq!(table.dump().await, before);
    let late = play("bob", 7, &[l], sid(8 * 86_400_000, 3));
    let e = store
        .plays()
        .record_play(&late, at(8 * 86_400_000))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, StoreError::BoardClosed { board, .. } if board == &bid(l)),
        "{e}"
    );
    assert_eq!(table.dump().await, before);
}
