//! Leagues: a league board's settings are checked at creation (each rule refused with nothing
//! written) and shown as given.

use leaderboard_keys::ids::TierName;
use leaderboard_keys::rank::Order;
use leaderboard_store::StoreError;
use leaderboard_store::league::League;
use leaderboard_store::model::{NewBoard, Operator, Recurrence};

use crate::common::*;

pub fn league(tiers: &[&str], cohort_size: u32, promote: u32, relegate: u32) -> League {
    League {
        tiers: tiers.iter().map(|t| TierName::parse(t).unwrap()).collect(),
        cohort_size,
        promote,
        relegate,
    }
}

/// A weekly league board `id` with `league`, open for a week from T0.
pub fn league_board(id: &str, league: League) -> NewBoard {
    let mut nb = new_board(id, Order::Desc, Operator::Best, 9_999_999_999);
    nb.recurrence = Recurrence::Weekly;
    nb.ends_at = Some(at(7 * 86_400_000));
    nb.league = Some(league);
    nb
}

#[tokio::test]
async fn each_rule_of_a_league_is_refused_and_writes_nothing() {
    let (table, store) = store_without_stream("league_refused").await;
    let before = table.dump().await;
    let good = || league(&["bronze", "silver", "gold"], 10, 2, 3);
    let eleven: Vec<String> = (0..11).map(|i| format!("t{i}")).collect();
    let eleven: Vec<&str> = eleven.iter().map(String::as_str).collect();
    let mut one_off = league_board("l_2026-w01", good());
    one_off.recurrence = Recurrence::None;
    let mut sharded = league_board("l_2026-w01", good());
    sharded.write_shards = 4;
    let long_tier = "t".repeat(50);
    let cases: Vec<(NewBoard, &str)> = vec![
        (one_off, "a league needs a recurring board"),
        (sharded, "a league takes writeShards 1"),
        (
            league_board("l_2026-w01", league(&["gold"], 10, 1, 1)),
            "2 to 10 tiers",
        ),
        (
            league_board("l_2026-w01", league(&eleven, 10, 1, 1)),
            "2 to 10 tiers",
        ),
        (
            league_board("l_2026-w01", league(&["a", "b", "a"], 10, 1, 1)),
            "names a twice",
        ),
        (
            league_board("l_2026-w01", league(&["a", "b"], 1, 0, 0)),
            "cohortSize must be 2 to 100",
        ),
        (
            league_board("l_2026-w01", league(&["a", "b"], 101, 0, 0)),
            "cohortSize must be 2 to 100",
        ),
        (
            league_board("l_2026-w01", league(&["a", "b"], 10, 6, 0)),
            "league.promote must be 0 to half",
        ),
        (
            league_board("l_2026-w01", league(&["a", "b"], 10, 0, 6)),
            "league.relegate must be 0 to half",
        ),
        (
            league_board("l_2026-w01", league(&["a", &long_tier], 10, 1, 1)),
            "no room for the ids of its cohorts",
        ),
    ];
    for (nb, says) in cases {
        let e = store.boards().create_board(nb, at(0)).await.unwrap_err();
        assert!(
            matches!(&e, StoreError::Invalid(m) if m.contains(says)),
            "{e} does not say {says}"
        );
        assert_eq!(table.dump().await, before, "{says}");
    }
    // A successor whose id grows past the room its cohorts need is refused at creation too.
    let id = format!("{}_9", "x".repeat(64 - 2 - ".gold.999999".len()));
    let e = store
        .boards()
        .create_board(
            league_board(&id, league(&["gold", "blue"], 10, 1, 1)),
            at(0),
        )
        .await
        .unwrap_err();
    assert!(
        e.to_string().contains("no room for the ids of its cohorts"),
        "{e}"
    );
    assert_eq!(table.dump().await, before);
}

#[tokio::test]
async fn a_league_board_shows_its_settings_and_its_successor_keeps_them() {
    let (_table, store) = store_without_stream("league_created").await;
    let created = store
        .boards()
        .create_board(
            league_board("l_2026-w01", league(&["bronze", "gold"], 50, 5, 5)),
            at(0),
        )
        .await
        .unwrap();
    assert!(created.is_league());
    let got = store
        .boards()
        .get_board(&bid("l_2026-w01"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got, created);
    assert_eq!(got.league, Some(league(&["bronze", "gold"], 50, 5, 5)));
    let next = leaderboard_store::successor::successor(&got)
        .unwrap()
        .unwrap();
    assert_eq!(next.board_id, bid("l_2026-w02"));
    assert_eq!(next.league, got.league);
}
