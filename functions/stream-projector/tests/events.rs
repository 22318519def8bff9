//! The sample events of `events/stream-projector/`: each is a Lambda DynamoDB event (what
//! `cargo lambda invoke --data-file` sends), and each does what its README line says.

use crate::common;

use std::collections::BTreeMap;

use aws_lambda_events::event::dynamodb::Event;
use common::*;
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::time::Timestamp;
use stream_projector::project;

fn load(name: &str) -> Event {
    let path = leaderboard_devkit::repo_root()
        .join("events/stream-projector")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_sample_is_a_lambda_dynamodb_event() {
    let dir = leaderboard_devkit::repo_root().join("events/stream-projector");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 7, "{names:?}");
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    for name in &names {
        let event = load(name);
        assert!(!event.records.is_empty(), "{name}");
        for r in &event.records {
            assert_eq!(r.event_source.as_deref(), Some("aws:dynamodb"), "{name}");
            assert!(r.change.sequence_number.is_some(), "{name}");
            assert!(r.event_source_arn.is_some(), "{name}");
        }
        assert!(
            readme.contains(&format!("`{name}`")),
            "{name} is listed in the README"
        );
    }
    let ttl = load("ttl-remove.json");
    let who = ttl.records[0].user_identity.as_ref().unwrap();
    assert_eq!(
        (who.type_.as_str(), who.principal_id.as_str()),
        ("Service", "dynamodb.amazonaws.com")
    );
}

#[tokio::test]
async fn the_samples_project_as_described() {
    let table = TestTable::new("samples").await;
    let (store, counter) = counted_store(&table);
    let now = Timestamp::now();

    // Skipped: no request at all, nothing reported.
    for name in [
        "insert-non-session.json",
        "modify-session.json",
        "remove-session.json",
        "ttl-remove.json",
    ] {
        let response = project(&store, load(name).records, now).await;
        assert!(failures(&response).is_empty(), "{name}");
    }
    assert_eq!(counter.total(), 0);

    // The poisoned Session INSERT is reported by its sequence number.
    let poisoned = load("poisoned-session-insert.json");
    let want = vec![seq(&poisoned.records[0]).to_owned()];
    assert_eq!(
        failures(&project(&store, poisoned.records, now).await),
        want
    );
    assert_eq!(counter.total(), 0);

    // The captured plays: Alice 9850 (three boards) and 9900, Bob 5100 (two boards); one
    // UpdateItem per player, and (both profiles are new) one GetItem each of the erasure
    // marker.
    let captured = load("captured-plays.json");
    assert!(failures(&project(&store, captured.records.clone(), now).await).is_empty());
    assert_eq!(cost(&counter), (2, 2, 4));
    let players: BTreeMap<String, (u64, u64)> = table
        .dump()
        .await
        .iter()
        .map(|i| {
            let num = |a: &str| {
                leaderboard_devkit::testing::n(i, a)
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            (
                leaderboard_devkit::testing::s(i, "playerId")
                    .unwrap()
                    .to_owned(),
                (num("lifetimeScore"), num("gamesPlayed")),
            )
        })
        .collect();
    assert_eq!(
        players,
        BTreeMap::from([
            ("p_alice".into(), (19_750, 2)),
            ("p_bob".into(), (5_100, 1))
        ])
    );

    // The single Session INSERT is the first of the capture: already counted.
    assert!(failures(&project(&store, load("session-insert.json").records, now).await).is_empty());
    assert_eq!(table.dump().await.len(), 2);
}
