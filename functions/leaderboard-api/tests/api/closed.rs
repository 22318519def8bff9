//! After close, the reads come from the snapshot.

use super::*;

#[tokio::test]
async fn after_close_the_reads_come_from_the_snapshot() {
    let h = harness("api_closed").await;
    let id = BoardId::parse("season_9").unwrap();
    let board = h.ended_board("season_9").await;
    let want = ranked(populate(&h, &board, 40).await, Order::Desc);
    let (_, live_top) = h.get("/leaderboards/season_9/scores?limit=40").await;
    let options = leaderboard_store::CloseOptions {
        page_size: 7,
        ..Default::default()
    };
    h.store
        .close()
        .close_board(&id, Timestamp::now(), &options)
        .await
        .unwrap();

    let (status, meta) = h.get("/leaderboards/season_9").await;
    assert_eq!(status, 200);
    assert_eq!(
        (meta["status"].as_str(), meta["playerCount"].as_u64()),
        (Some("closed"), Some(40))
    );
    assert_eq!(meta["nextLeaderboardId"], "season_10");
    // Top-N is the final standings, identical to the live ranking before the close, in pages.
    let (_, first) = h.get("/leaderboards/season_9/scores?limit=25").await;
    let c = first["nextCursor"].as_str().unwrap().to_owned();
    let (_, second) = h
        .get(&format!(
            "/leaderboards/season_9/scores?limit=25&cursor={c}"
        ))
        .await;
    assert!(second["nextCursor"].is_null());
    let mut finals = first["entries"].as_array().unwrap().clone();
    finals.extend(second["entries"].as_array().unwrap().iter().cloned());
    assert_eq!(json!(finals), live_top["entries"]);
    // A player's rank, the around window, and the results come from the snapshot.
    let p = &want[20].0;
    let (status, entry) = h.get(&format!("/leaderboards/season_9/players/{p}")).await;
    assert_eq!((status, exact_own(&entry, 40)), (200, finals[20].clone()));
    assert_eq!(entry["topPercent"], 52.5);
    let (_, around) = h
        .get(&format!("/leaderboards/season_9/players/{p}/around?n=2"))
        .await;
    let around: Vec<Value> = around["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| exact_own(e, 40))
        .collect();
    assert_eq!(json!(around), json!(finals[18..23]));
    let (status, results) = h.get(&format!("/players/{p}/results")).await;
    assert_eq!(status, 200);
    assert_eq!(
        results["results"],
        json!([{
            "leaderboardId": "season_9", "playerId": p.as_str(), "rank": 21,
            "score": want[20].1, "playerCount": 40, "attainedAt": want[20].2.to_string()
        }])
    );
    let (status, resp) = h.get("/leaderboards/season_9/players/nobody").await;
    assert_eq!((status, code(&resp)), (404, "not_found"));
    let (status, resp) = h.get("/leaderboards/season_9/players/nobody/around").await;
    assert_eq!((status, code(&resp)), (404, "not_found"));
    // The successor is open and empty.
    let (status, next) = h.get("/leaderboards/season_10/scores").await;
    assert_eq!((status, next["entries"].clone()), (200, json!([])));
}
