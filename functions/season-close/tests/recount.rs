//! The scheduled run works a recount an operator asked for, on DynamoDB Local: players whose
//! sessions the projection never counted get their exact totals, within season close's policy
//! (the delete of a recounted busy player's item included), and a run after it does nothing.

use crate::common;

use common::*;
use leaderboard_keys::ids::{GameId, PlayerId, SessionId};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::{CloseOptions, Play, RECOUNT_PK};
use season_close::App;
use season_close::jobs::recount::RecountOutcome;

#[tokio::test]
async fn the_schedule_works_a_requested_recount_to_exact_totals_within_its_policy() {
    let (table, store) = store("close_recount").await;
    open_board(&store, "b").await;
    // Three players' plays, none projected (as after an outage past the stream's retention).
    let old = Timestamp::from_millis(Timestamp::now().as_millis() - 3_600_000).unwrap();
    for (i, p) in ["ann", "ben", "cat"].iter().enumerate() {
        for k in 0..2u64 {
            let now = old.plus_millis(i as u64 * 10 + k);
            let play = Play {
                subscores: Default::default(),
                idempotency_key: None,
                metadata: None,
                player_id: PlayerId::parse(p).unwrap(),
                session_id: SessionId::from_parts(now.as_millis(), rand::random()).unwrap(),
                game_id: Some(GameId::parse("tetris").unwrap()),
                score: 10 * (i as u64 + 1) + k,
                duration_sec: None,
                board_ids: vec![bid("b")],
            };
            store.plays().record_play(&play, now).await.unwrap();
        }
    }
    // A player left for later by an earlier run, whose time has come.
    let attr = aws_sdk_dynamodb::types::AttributeValue::S;
    table
        .client
        .put_item()
        .table_name(&table.name)
        .item("pk", attr(RECOUNT_PK.into()))
        .item("sk", attr("BUSY#ben".into()))
        .item("at", aws_sdk_dynamodb::types::AttributeValue::N("0".into()))
        .send()
        .await
        .unwrap();
    store
        .projection()
        .request_recount("ops", Timestamp::now())
        .await
        .unwrap();

    let (recorded, log) = recorded_store(&table);
    let app = App::new(recorded, CloseOptions::default());
    let summary = season_close::run(&app, None).await.unwrap();
    let recount = summary.outcome::<RecountOutcome>().unwrap();
    assert!(recount.done, "{summary:?}");
    assert!(recount.recounted >= 3, "{summary:?}");
    for (i, p) in ["ann", "ben", "cat"].iter().enumerate() {
        let item = table
            .raw(&format!("PLAYER#{p}"), "#METADATA")
            .await
            .unwrap();
        let base = 10 * (i as u64 + 1);
        assert_eq!(
            item["lifetimeScore"].as_n().unwrap(),
            &(2 * base + 1).to_string()
        );
        assert_eq!(item["gamesPlayed"].as_n().unwrap(), "2");
    }
    assert!(table.raw(RECOUNT_PK, "BUSY#ben").await.is_none());
    assert_within_policy(&log);
    assert!(
        log.touched()
            .contains(&("dynamodb:DeleteItem".to_owned(), RECOUNT_PK.to_owned()))
    );
    let again = season_close::run(&app, None).await.unwrap();
    let recount = again.outcome::<RecountOutcome>().unwrap();
    assert_eq!(recount.recounted, 0, "{again:?}");
}
