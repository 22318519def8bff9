//! `lbctl ban | unban | remove | erase | audit` against DynamoDB Local: the admin routes'
//! operations with their audit items, the operator's `--by` as actor; each refusal writes
//! nothing.

use crate::common;

use common::*;
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::rank::Order;
use serde_json::Value;

async fn doc(store: &leaderboard_store::Store, args: &[&str]) -> Value {
    let text = lbctl(store, true, args)
        .await
        .unwrap_or_else(|e| panic!("{args:?}: {e}"));
    serde_json::from_str(&text).unwrap()
}

#[tokio::test]
async fn ban_unban_remove_erase_and_the_audit_trail() {
    let (table, store) = store("lbctl_moderate").await;
    let (board, truth) = board_with(&store, "season_1", Order::Desc, 999, entries(6, 6)).await;
    let ids: Vec<String> = truth.iter().map(|e| e.0.to_string()).collect();
    let entry = |p: &str| {
        let store = store.clone();
        let (b, p) = (board.board_id.clone(), PlayerId::parse(p).unwrap());
        async move { store.listings().entry_pointer(&b, &p).await.unwrap() }
    };

    // Refusals first: nothing written by any.
    let before = table.dump().await;
    for (args, code) in [
        (vec!["ban", &ids[0], "--reason", "   ", "--by", "ops"], 2),
        (vec!["ban", "bad#id", "--reason", "x", "--by", "ops"], 2),
        (vec!["ban", &ids[0], "--by", "ops"], 2),
        (vec!["remove", "season_1", "p_nobody", "--by", "ops"], 3),
        (vec!["remove", "nowhere", &ids[0], "--by", "ops"], 3),
        (vec!["audit", &ids[0], "--limit", "0"], 2),
    ] {
        let e = lbctl(&store, true, &args).await.unwrap_err();
        assert_eq!(e.exit_code(), code, "{args:?}: {e}");
        assert_eq!(table.dump().await, before, "{args:?} wrote something");
    }

    // A ban: the entry goes, the ban and its audit item stay.
    let banned = doc(
        &store,
        &[
            "ban",
            &ids[0],
            "--reason",
            "impossible scores",
            "--by",
            "ops_alice",
        ],
    )
    .await;
    assert_eq!(banned["removedFrom"], serde_json::json!(["season_1"]));
    assert!(entry(&ids[0]).await.is_none());
    let unbanned = doc(&store, &["unban", &ids[0], "--by", "ops_alice"]).await;
    assert_eq!(unbanned["lifted"], true);
    // A removal.
    let removed = doc(&store, &["remove", "season_1", &ids[1], "--by", "ops_bob"]).await;
    assert_eq!(removed["removed"], true);
    assert!(entry(&ids[1]).await.is_none());
    // The trail, newest first, each action's actor.
    let trail = doc(&store, &["audit", &ids[0]]).await;
    let actions: Vec<(&str, &str)> = trail
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["action"].as_str().unwrap(), i["actor"].as_str().unwrap()))
        .collect();
    assert_eq!(
        actions,
        [("unbanned", "ops_alice"), ("banned", "ops_alice")],
        "{trail}"
    );
    assert_eq!(trail[1]["reason"], "impossible scores");
    let trail = doc(&store, &["audit", &ids[1]]).await;
    assert_eq!(trail[0]["action"], "entry_removed");
    assert_eq!(trail[0]["leaderboardId"], "season_1");

    // An erasure: finished, the entry gone; the trail moves under the pseudonym.
    let receipt = doc(&store, &["erase", &ids[2], "--by", "ops_carol"]).await;
    assert!(receipt["finishedAt"].is_string(), "{receipt}");
    assert!(entry(&ids[2]).await.is_none());
    let pseudonym = receipt["pseudonym"].as_str().unwrap();
    let trail = doc(&store, &["audit", pseudonym]).await;
    assert_eq!(trail[0]["actor"], "ops_carol", "{trail}");
    // The others' entries are untouched.
    for p in &ids[3..] {
        assert!(entry(p).await.is_some(), "{p}");
    }
}
