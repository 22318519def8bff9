//! `lbctl recount` against DynamoDB Local: one player's totals, or every player's, equal the
//! totals built from their sessions, whatever the totals said before.

use crate::common;

use common::*;
use leaderboard_devkit::testing::n;
use leaderboard_keys::ids::{BoardId, GameId, PlayerId, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_store::Play;
use serde_json::Value;

#[tokio::test]
async fn recounted_totals_equal_the_sessions() {
    let (table, store) = store("lbctl_recount").await;
    board_with(&store, "season_1", Order::Desc, 999, Vec::new()).await;
    // Three players, 1, 2 and 3 plays of scores 10, 20, 30..., a second apart, at T0.
    let mut want = Vec::new();
    let mut ms = 0;
    for (i, player) in ["p_a", "p_b", "p_c"].into_iter().enumerate() {
        let (mut sum, mut count) = (0u64, 0u64);
        for k in 0..=i {
            ms += 1_000;
            let score = 10 * (k as u64 + 1) + i as u64;
            let play = Play {
                subscores: Default::default(),
                idempotency_key: None,
                metadata: None,
                player_id: PlayerId::parse(player).unwrap(),
                session_id: SessionId::from_parts(T0 + ms, ms as u128).unwrap(),
                game_id: Some(GameId::parse("tetris").unwrap()),
                score,
                duration_sec: Some(60),
                board_ids: vec![BoardId::parse("season_1").unwrap()],
            };
            store.plays().record_play(&play, at(ms)).await.unwrap();
            sum += score;
            count += 1;
        }
        want.push((player, sum, count));
    }
    let totals = |p: &str| {
        let table = table.clone();
        let pk = format!("PLAYER#{p}");
        async move {
            let raw = table.raw(&pk, "#METADATA").await.unwrap();
            (
                n(&raw, "lifetimeScore").unwrap().parse::<u64>().unwrap(),
                n(&raw, "gamesPlayed").unwrap().parse::<u64>().unwrap(),
            )
        }
    };
    // One player.
    let (player, sum, count) = want[2];
    let text = lbctl(&store, true, &["recount", player]).await.unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (doc["lifetimeScore"].as_u64(), doc["gamesPlayed"].as_u64()),
        (Some(sum), Some(count))
    );
    assert_eq!(totals(player).await, (sum, count));
    // Totals gone wrong (a hand edit), then every player recounted.
    table
        .update_raw(
            "PLAYER#p_c",
            "#METADATA",
            "SET lifetimeScore = lifetimeScore + lifetimeScore",
        )
        .await;
    let text = lbctl(&store, true, &["recount", "--all", "--by", "ops_alice"])
        .await
        .unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["done"], true, "{doc}");
    assert_eq!(doc["recounted"], 3, "{doc}");
    for (player, sum, count) in want {
        assert_eq!(totals(player).await, (sum, count), "{player}");
    }
    // Refusals write nothing.
    let before = table.dump().await;
    for args in [
        vec!["recount"],
        vec!["recount", "bad#id"],
        vec!["recount", "p_a", "--all"],
    ] {
        let e = lbctl(&store, true, &args).await.unwrap_err();
        assert_eq!(e.exit_code(), 2, "{args:?}");
        assert_eq!(table.dump().await, before, "{args:?}");
    }
}
