//! The run command's demo seeding on a stack that answers 503 to one play in ten
//! (`LOCAL_UNAVAILABLE_EVERY=10`, half of them after the play was saved): the seeding retries
//! as the docs tell every client to, with the same `sessionId`, finishes, and every play it
//! saved is counted once: no second session for a play whose answer was lost, and the
//! players' totals add up to the sessions saved.

use crate::support;

use std::time::{Duration, Instant};

use leaderboard_devkit::testing::{RawItem, TestTable};
use leaderboard_local::demo::{self, DemoSize};
use leaderboard_local::stack::Stack;

const PLAYS: usize = 120;

fn sessions(items: &[RawItem]) -> usize {
    let sk = |i: &RawItem| i.get("sk").and_then(|v| v.as_s().ok()).cloned();
    items
        .iter()
        .filter(|i| sk(i).is_some_and(|s| s.starts_with("SESSION#")))
        .count()
}

#[tokio::test]
async fn the_demo_seeds_through_503s_and_counts_every_play_once() {
    let settings = support::in_process_settings(&[
        ("TABLE_NAME", "leaderboard-demo-test"),
        ("LOCAL_UNAVAILABLE_EVERY", "10"),
    ]);
    let stack = Stack::start(settings).await.unwrap();
    let size = DemoSize {
        players: 12,
        plays: PLAYS,
        concurrency: 8,
        seed: 7,
    };
    let mut out = Vec::new();
    demo::run(&stack, size, &mut out).await.unwrap();
    let (before, after) = stack.unavailable_answered();
    assert!(
        before >= 5 && after >= 5,
        "503s: {before} before, {after} after"
    );

    let table = TestTable {
        client: leaderboard_devkit::local::client(stack.dynamodb_endpoint()),
        name: stack.table_name().to_owned(),
        endpoint: stack.dynamodb_endpoint().to_owned(),
    };
    let saved = sessions(&table.dump().await);
    // A play is refused only when the daily board ends while the demo seeds (at midnight UTC);
    // a retry that made a new session would show as more than one a play.
    assert!(
        saved > 0 && saved <= PLAYS,
        "{saved} sessions for {PLAYS} plays"
    );
    let api = leaderboard_local::client::ApiClient::new(stack.api_addr());
    let players: Vec<String> = std::iter::once(demo::DEMO_PLAYER.to_owned())
        .chain((1..12).map(|i| format!("p_{i:04}")))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    let counted = loop {
        let mut counted = 0;
        for p in &players {
            let profile = api.get(&format!("/players/{p}")).await.unwrap();
            counted += profile.body["gamesPlayed"].as_u64().unwrap_or(0) as usize;
        }
        if counted == saved || Instant::now() > deadline {
            break counted;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(
        counted, saved,
        "the players' gamesPlayed against the sessions saved"
    );
    stack.stop().await;
}
