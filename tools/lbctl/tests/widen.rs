//! `lbctl widen` against DynamoDB Local: the dry run's plan and cost, writing nothing; a run to
//! the end, after which the board verifies clean at its new width and lists as before; a
//! narrower maxScore refused with nothing written; a second run with nothing to do.

use crate::common;

use common::*;
use leaderboard_devkit::testing::ranked;
use leaderboard_keys::rank::Order;
use leaderboard_store::model::NewBoard;
use serde_json::Value;

#[tokio::test]
async fn widen_plans_runs_to_the_end_and_leaves_a_board_that_verifies() {
    let (table, store) = store("lbctl_widen").await;
    // lbctl widens at the time it runs: a board without an end, whose end no run ever meets.
    let open_ended = NewBoard {
        ends_at: None,
        ..new_board("wide", Order::Asc, 999)
    };
    let board = store
        .boards()
        .create_board(open_ended, at(0))
        .await
        .unwrap();
    let imported = entries(30, 20);
    store
        .boards()
        .import_entries(&board, &imported)
        .await
        .unwrap();
    let ranked = ranked(imported, Order::Asc);
    store.rank().build_rank_index(&board).await.unwrap();
    let before = table.dump().await;
    // The dry run: the plan, and nothing written.
    let plan: Value = serde_json::from_str(
        &lbctl(
            &store,
            true,
            &["widen", "wide", "--max-score", "99999", "--dry-run"],
        )
        .await
        .unwrap(),
    )
    .unwrap();
    assert_eq!(plan["change"], "rekey");
    assert_eq!(
        (plan["from"]["width"].as_u64(), plan["to"]["width"].as_u64()),
        (Some(3), Some(5))
    );
    assert_eq!(plan["entries"], 30);
    assert_eq!(plan["itemsToWrite"], 60);
    assert_eq!(plan["writeUnits"], 30 * (leaderboard_store::COPY_UNITS + 1));
    let text = lbctl(
        &store,
        false,
        &["widen", "wide", "--max-score", "99999", "--dry-run"],
    )
    .await
    .unwrap();
    assert!(text.contains("re-key 30 entries"), "{text}");
    // A narrower maxScore is a usage error.
    let narrower = lbctl(&store, true, &["widen", "wide", "--max-score", "99"]).await;
    assert_eq!(narrower.map_err(|e| e.exit_code()), Err(2));
    assert_eq!(table.dump().await, before, "nothing written");
    // The run, to the end.
    let done: Value = serde_json::from_str(
        &lbctl(
            &store,
            true,
            &[
                "widen",
                "wide",
                "--max-score",
                "99999",
                "--page",
                "7",
                "--grace",
                "0",
            ],
        )
        .await
        .unwrap(),
    )
    .unwrap();
    assert_eq!(done["maxScore"], 99_999);
    assert_eq!(done["entryGeneration"], 1);
    assert_eq!(done["entriesCopied"], 30);
    // The board verifies clean (keys, pointers, rank index) and lists in the same order.
    let (code, found, _) = verify_report(&store, &["wide"]).await;
    assert_eq!((code, found), (0, vec![]));
    let board = store
        .boards()
        .get_board(&board.board_id)
        .await
        .unwrap()
        .unwrap();
    let top = store
        .listings()
        .top_scores(&board, 100, None)
        .await
        .unwrap();
    let listed: Vec<_> = top.items.iter().map(|e| e.player_id.clone()).collect();
    let want: Vec<_> = ranked.iter().map(|(p, _, _)| p.clone()).collect();
    assert_eq!(listed, want);
    // A second run has nothing to do.
    let again = lbctl(
        &store,
        false,
        &["widen", "wide", "--max-score", "99999", "--dry-run"],
    )
    .await
    .unwrap();
    assert!(again.contains("nothing to do"), "{again}");
}

#[tokio::test]
async fn widen_a_column_plans_and_runs_to_a_board_that_verifies() {
    use leaderboard_keys::columns::Column;
    let (_table, store) = store("lbctl_widen_column").await;
    let new = NewBoard {
        ends_at: None,
        columns: vec![Column::new("time", Order::Asc, 999).unwrap()],
        ..new_board("race", Order::Desc, 999)
    };
    store.boards().create_board(new, at(0)).await.unwrap();
    for (i, (player, time)) in [("p_a", 500u64), ("p_b", 20), ("p_c", 999)]
        .iter()
        .enumerate()
    {
        let play = leaderboard_store::Play {
            subscores: [("time".to_owned(), *time)].into_iter().collect(),
            ..play_of(player, 7, "race", 1_000 * (i as u64 + 1))
        };
        let now = at(1_000 * (i as u64 + 1));
        store.plays().record_play(&play, now).await.unwrap();
    }
    let text = lbctl(
        &store,
        false,
        &["widen", "race", "--column", "time=99999", "--dry-run"],
    )
    .await
    .unwrap();
    assert!(text.contains("columns time 999 -> time 99999"), "{text}");
    assert!(text.contains("re-key 3 entries"), "{text}");
    let bad = lbctl(&store, false, &["widen", "race", "--column", "laps=9"]).await;
    assert_eq!(bad.map_err(|e| e.exit_code()), Err(2));
    let args = ["widen", "race", "--column", "time=99999", "--grace", "0"];
    let done: Value = serde_json::from_str(&lbctl(&store, true, &args).await.unwrap()).unwrap();
    assert_eq!(done["columns"][0]["max"], 99_999, "{done}");
    let rows: Value =
        serde_json::from_str(&lbctl(&store, true, &["browse", "race"]).await.unwrap()).unwrap();
    let order: Vec<_> = rows["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["playerId"].clone(), r["paddedColumns"][0].clone()))
        .collect();
    assert_eq!(
        order,
        [
            ("p_b".into(), "99979".into()),
            ("p_a".into(), "99499".into()),
            ("p_c".into(), "99000".into())
        ]
    );
    let (code, _, _) = verify_report(&store, &["race"]).await;
    assert_eq!(code, 0);
}
