//! Round trips against DynamoDB Local: every entity the store writes (boards, players, sessions,
//! Score entries and their pointers) reads back identically, and its raw item carries the
//! contract's key attributes exactly. Expected keys and attribute values are written out by hand
//! here, never built with the key crate.

use crate::common;

mod boards;
mod imports;
mod players;
mod sessions;

use aws_sdk_dynamodb::types::AttributeValue;
use common::*;
use leaderboard_devkit::testing::{RawItem, TestTable, n, s};
use leaderboard_keys::ids::{Email, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{
    Board, BoardOutcome, BoardStatus, Entry, NewBoard, Operator, Player, Recurrence, ScoreEntry,
    Session,
};
use leaderboard_store::{Play, Store};

fn ts(rfc3339: &str) -> Timestamp {
    Timestamp::parse_rfc3339("test", rfc3339).unwrap()
}

/// The key attributes (`pk` .. `gsi2sk`) an item carries, with their values, in that order.
fn keys_of(item: &RawItem) -> Vec<(&'static str, String)> {
    ["pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk"]
        .into_iter()
        .filter_map(|k| item.get(k).map(|v| (k, v.as_s().unwrap().clone())))
        .collect()
}

fn keys(pairs: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    pairs.iter().map(|(k, v)| (*k, (*v).to_owned())).collect()
}

/// Checks a player's entry on a board: the Score item at `score_sk` (keys and attributes), the
/// pointer `PLAYER#<p>` / `ENTRY#<b>`, and that AP4 and the pointer read back `want`;
/// `attained_at` is the raw attribute expected, by hand.
async fn check_entry(
    table: &TestTable,
    store: &Store,
    board: &str,
    player: &str,
    score_sk: &str,
    attained_at: &str,
    want: &ScoreEntry,
) {
    let pk = format!("LEADERBOARD#{board}");
    let raw = table
        .raw(&pk, score_sk)
        .await
        .unwrap_or_else(|| panic!("no Score item {pk} / {score_sk}"));
    assert_eq!(
        keys_of(&raw),
        keys(&[
            ("pk", &pk),
            ("sk", score_sk),
            ("gsi1pk", &format!("PLAYER#{player}")),
            ("gsi1sk", &format!("SCORE#{board}")),
        ])
    );
    assert_eq!(s(&raw, "leaderboardId"), Some(board));
    assert_eq!(s(&raw, "playerId"), Some(player));
    assert_eq!(
        n(&raw, "score"),
        Some(want.entry.score.to_string().as_str())
    );
    assert_eq!(s(&raw, "attainedAt"), Some(attained_at));
    assert_eq!(s(&raw, "sessionId"), Some(want.session_id.as_str()));
    // exactly one Score item of the player on the board
    let items = table.dump().await;
    let mine = items
        .iter()
        .filter(|i| s(i, "pk") == Some(pk.as_str()) && s(i, "gsi1pk") == s(&raw, "gsi1pk"))
        .count();
    assert_eq!(mine, 1, "{board} {player}");
    // the pointer
    let pointer_raw = table
        .raw(&format!("PLAYER#{player}"), &format!("ENTRY#{board}"))
        .await
        .unwrap();
    assert_eq!(s(&pointer_raw, "scoreSk"), Some(score_sk));
    assert!(!pointer_raw.contains_key("gsi1pk") && !pointer_raw.contains_key("gsi2pk"));
    let pointer = store
        .listings()
        .entry_pointer(&bid(board), &pid(player))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(pointer.score_sk, score_sk);
    assert_eq!(&pointer.score_entry(), want);
    // AP4 reads the same entry
    assert_eq!(
        store
            .listings()
            .player_entry(&bid(board), &pid(player))
            .await
            .unwrap(),
        Some(want.clone())
    );
}
