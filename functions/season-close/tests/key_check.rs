//! The erasure secret's key check, kept by season close on DynamoDB Local: the first run
//! writes it under the function's secret (lbctl compares its own with it), later runs leave it,
//! and a run whose secret differs leaves the check as it is and closes boards all the same.

use crate::common;

use common::*;
use leaderboard_store::model::Recurrence;
use leaderboard_store::{CloseOptions, KeyCheck};
use season_close::{App, run};

#[tokio::test]
async fn the_first_run_writes_the_check_and_no_run_replaces_it() {
    let (table, store) = store("close_key_check").await;
    assert_eq!(
        store.moderation().erasure_key_check().await.unwrap(),
        KeyCheck::Absent
    );
    run(&App::new(store.clone(), CloseOptions::default()), None)
        .await
        .unwrap();
    assert_eq!(
        store.moderation().erasure_key_check().await.unwrap(),
        KeyCheck::Matches
    );
    let kept = table.raw("STACK", "#ERASURE_KEY_CHECK").await.unwrap();

    // A function deployed with another secret: the check stays, the board closes.
    let other = store
        .clone()
        .with_erasure_secret(b"another-erasure-secret-of-32-characters-or-more");
    assert_eq!(
        other.moderation().erasure_key_check().await.unwrap(),
        KeyCheck::Differs
    );
    ended_board(&other, "after", Recurrence::None, HOUR, 3).await;
    let summary = run(&App::new(other, CloseOptions::default()), None)
        .await
        .unwrap();
    assert_eq!(summary.close().closed.len(), 1, "{summary:?}");
    assert_eq!(
        table.raw("STACK", "#ERASURE_KEY_CHECK").await.unwrap(),
        kept
    );
}
