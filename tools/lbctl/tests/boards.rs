//! `lbctl boards` against DynamoDB Local: every board newest first, or those of a status, a
//! game or a series, as many as asked for; ids refused with exit code 2.

use crate::common;

use common::*;
use leaderboard_keys::ids::{GameId, SeriesId};
use leaderboard_keys::rank::Order;
use leaderboard_store::model::Recurrence;
use serde_json::Value;

async fn listed(store: &leaderboard_store::Store, args: &[&str]) -> Vec<String> {
    let text = lbctl(store, true, args).await.unwrap();
    let boards: Vec<Value> = serde_json::from_str(&text).unwrap();
    boards
        .iter()
        .map(|b| b["leaderboardId"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn boards_list_newest_first_by_status_game_and_series() {
    let (_table, store) = store("lbctl_boards").await;
    // Oldest first, a minute apart.
    for (i, (id, game)) in [
        ("daily_2026-01-01", None),
        ("season_1", Some("chess")),
        ("daily_2026-01-02", None),
        ("cup", Some("chess")),
    ]
    .into_iter()
    .enumerate()
    {
        let mut nb = new_board(id, Order::Desc, 999);
        nb.game_id = game.map(|g| GameId::parse(g).unwrap());
        if id.starts_with("daily") {
            nb.recurrence = Recurrence::Daily;
            nb.ends_at = Some(at(86_400_000));
        }
        if id == "cup" {
            nb.series_id = Some(SeriesId::parse("cups").unwrap());
        }
        store
            .boards()
            .create_board(nb, at(i as u64 * 60_000))
            .await
            .unwrap();
    }
    close(
        &store,
        &leaderboard_keys::ids::BoardId::parse("season_1").unwrap(),
    )
    .await;
    let all = listed(&store, &["boards"]).await;
    assert_eq!(
        all,
        ["cup", "daily_2026-01-02", "season_1", "daily_2026-01-01"]
    );
    assert_eq!(listed(&store, &["boards", "--limit", "2"]).await, all[..2]);
    assert_eq!(listed(&store, &["boards", "--closed"]).await, ["season_1"]);
    assert_eq!(
        listed(&store, &["boards", "--open"]).await,
        ["cup", "daily_2026-01-02", "daily_2026-01-01"]
    );
    assert_eq!(
        listed(&store, &["boards", "--game", "chess"]).await,
        ["cup", "season_1"]
    );
    assert_eq!(
        listed(&store, &["boards", "--series", "daily", "--open"]).await,
        ["daily_2026-01-02", "daily_2026-01-01"]
    );
    assert_eq!(
        listed(&store, &["boards", "--series", "cups"]).await,
        ["cup"]
    );
    // Text: a header and one aligned line a board.
    let text = lbctl(&store, false, &["boards"]).await.unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("BOARD"), "{text}");
    assert_eq!(lines.len(), 5, "{text}");
    assert!(
        lines[1].starts_with("cup ") && lines[1].contains("cups"),
        "{text}"
    );
    let column = lines[0].find("SERIES").unwrap();
    assert!(
        lines[1..]
            .iter()
            .all(|l| l.len() > column && &l[column - 2..column] == "  "),
        "{text}"
    );
    // Ids that are not ids, and both statuses at once.
    for args in [
        vec!["boards", "--game", "a#b"],
        vec!["boards", "--series", "a/b"],
        vec!["boards", "--open", "--closed"],
    ] {
        let e = lbctl(&store, true, &args).await.unwrap_err();
        assert_eq!(e.exit_code(), 2, "{args:?}");
    }
}

#[tokio::test]
async fn boards_create_takes_the_apis_fields_and_refuses_what_it_refuses() {
    use leaderboard_keys::ids::BoardId;
    let (_table, store) = store("lbctl_boards_create").await;
    let get = |id: &str| {
        let store = store.clone();
        let id = BoardId::parse(id).unwrap();
        async move { store.boards().get_board(&id).await.unwrap() }
    };
    // From flags, with the API's defaults for the rest.
    let text = lbctl(
        &store,
        false,
        &[
            "boards",
            "create",
            "season_1",
            "--name",
            "Season 1",
            "--game",
            "chess",
            "--ends-at",
            "2027-03-01T00:00:00Z",
            "--recurrence",
            "season",
        ],
    )
    .await
    .unwrap();
    assert!(
        text.starts_with("created season_1 (Season 1, series season"),
        "{text}"
    );
    let season = get("season_1").await.unwrap();
    assert_eq!(season.name, "Season 1");
    assert_eq!(season.game_id, Some(GameId::parse("chess").unwrap()));
    assert_eq!(season.recurrence, Recurrence::Season);
    assert_eq!(season.order, Order::Desc);
    assert_eq!(season.max_score, 9_999_999_999);
    assert_eq!(
        season.ends_at,
        Some(
            leaderboard_keys::time::Timestamp::parse_rfc3339("t", "2027-03-01T00:00:00Z").unwrap()
        )
    );
    // From the API's body, a flag overriding one field; the board as JSON.
    let body =
        r#"{"name": "Coins", "operator": "increment", "maxScore": 1000000, "order": "desc"}"#;
    let json = lbctl(
        &store,
        true,
        &[
            "boards",
            "create",
            "coins",
            "--body",
            body,
            "--max-score",
            "500",
        ],
    )
    .await
    .unwrap();
    let shown: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(shown["leaderboardId"], "coins", "{json}");
    let coins = get("coins").await.unwrap();
    assert_eq!(coins.max_score, 500);
    assert_eq!(
        coins.operator,
        leaderboard_store::model::Operator::Increment
    );

    // A Friday cup in Berlin's time, of 64 players with 3 tries each.
    lbctl(
        &store,
        false,
        &[
            "boards",
            "create",
            "cup_1",
            "--name",
            "Cup",
            "--cron",
            "0 18 * * FRI",
            "--timezone",
            "Europe/Berlin",
            "--join-required",
            "--max-entrants",
            "64",
            "--max-attempts",
            "3",
            "--reward",
            "1=gold",
            "--reward",
            "2-10=silver",
            "--reward",
            "12.5%=badge",
        ],
    )
    .await
    .unwrap();
    let cup = get("cup_1").await.unwrap();
    assert_eq!(
        cup.recurrence.to_string(),
        "cron \"0 18 * * FRI\" in Europe/Berlin"
    );
    assert_eq!(
        (cup.join_required, cup.max_entrants, cup.max_attempts),
        (true, Some(64), Some(3))
    );
    assert!(cup.ends_at.is_some(), "its first Friday evening");
    assert_eq!(
        serde_json::to_value(&cup.rewards).unwrap(),
        serde_json::json!([{"ranks": [1, 1], "reward": "gold"}, {"ranks": [2, 10], "reward": "silver"},
               {"topPercent": 12.5, "reward": "badge"}])
    );

    // Refused with exit code 2 and nothing written: what the API refuses, and a board that
    // exists (left as it was).
    for args in [
        vec!["boards", "create", "nameless"],
        vec![
            "boards",
            "create",
            "typo",
            "--name",
            "T",
            "--body",
            r#"{"maxscore": 5}"#,
        ],
        vec![
            "boards",
            "create",
            "bad_op",
            "--name",
            "B",
            "--operator",
            "sum",
        ],
        vec![
            "boards",
            "create",
            "range",
            "--name",
            "R",
            "--min-score",
            "10",
            "--max-score",
            "5",
        ],
        vec!["boards", "create", "a#b", "--name", "Id"],
        vec![
            "boards",
            "create",
            "late",
            "--name",
            "L",
            "--ends-at",
            "tomorrow",
        ],
        vec![
            "boards",
            "create",
            "shards",
            "--name",
            "S",
            "--write-shards",
            "33",
        ],
        vec!["boards", "create", "notjson", "--body", "{"],
        vec![
            "boards",
            "create",
            "never",
            "--name",
            "N",
            "--cron",
            "0 0 30 2 *",
            "--timezone",
            "UTC",
        ],
        vec![
            "boards",
            "create",
            "season_1",
            "--name",
            "Again",
            "--max-score",
            "5",
        ],
    ] {
        let e = lbctl(&store, true, &args).await.unwrap_err();
        assert_eq!(e.exit_code(), 2, "{args:?}: {e}");
    }
    for id in [
        "nameless", "typo", "bad_op", "range", "late", "shards", "notjson", "never",
    ] {
        assert!(get(id).await.is_none(), "{id} was written");
    }
    assert_eq!(get("season_1").await.unwrap(), season);
    assert_eq!(
        listed(&store, &["boards"]).await,
        ["cup_1", "coins", "season_1"]
    );
}
