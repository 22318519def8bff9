//! Writes the sample events of `events/stream-projector/`: records a few plays through the
//! store on DynamoDB Local, reads the table's real stream with the devkit reader, and saves the
//! records in the Lambda event shape; then derives the edge cases from them (see the folder's
//! README). Run with `cargo run -p stream-projector --example capture_events` (it starts
//! DynamoDB Local itself unless `DYNAMODB_ENDPOINT` names one).

use std::path::Path;

use leaderboard_devkit::stream::{StartingPosition, StreamReader, event};
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::ids::{BoardId, GameId, PlayerId, SessionId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{Metadata, NewBoard, Operator, Recurrence};
use leaderboard_store::{Config, Play, Store};
use serde_json::{Value, json};

/// 2026-01-01T00:00:00Z.
const T0: u64 = 1_767_225_600_000;

fn at(ms: u64) -> Timestamp {
    Timestamp::from_millis(T0 + ms).unwrap()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let table = TestTable::new("capture").await;
    let store = Store::new(
        table.client.clone(),
        &Config {
            table_name: table.name.clone(),
            cursor_secret: b"capture".to_vec(),
        },
    );
    for board in ["season_3", "daily_2026-01-01", "weekly_2026-w01"] {
        store
            .boards()
            .create_board(
                NewBoard {
                    order: Order::Desc,
                    operator: Operator::Best,
                    max_score: 9_999_999_999,
                    starts_at: Some(at(0)),
                    ends_at: Some(at(86_400_000)),
                    recurrence: Recurrence::None,
                    game_id: Some(GameId::parse("tetris")?),
                    ..NewBoard::named(BoardId::parse(board)?, board.to_owned())
                },
                at(0),
            )
            .await?;
    }
    // Alice: 9850 on three boards, then 9900 on season_3 (replaces her entry there); Bob: 5100
    // on two boards.
    let plays = [
        (
            "p_alice",
            9850,
            vec!["season_3", "daily_2026-01-01", "weekly_2026-w01"],
            60_000,
        ),
        ("p_bob", 5100, vec!["season_3", "daily_2026-01-01"], 90_000),
        ("p_alice", 9900, vec!["season_3"], 120_000),
    ];
    for (i, (player, score, boards, ms)) in plays.into_iter().enumerate() {
        let play = Play {
            subscores: Default::default(),
            idempotency_key: None,
            // The first play carries metadata, as games may send it: a map on the Session.
            metadata: (i == 0)
                .then(|| Metadata::parse(json!({"character": "mage", "replayId": "r-0001"})))
                .transpose()?,
            player_id: PlayerId::parse(player)?,
            session_id: SessionId::from_parts(T0 + ms, 0x5eed_0000 + i as u128)?,
            game_id: None,
            score,
            duration_sec: Some(285),
            board_ids: boards
                .into_iter()
                .map(BoardId::parse)
                .collect::<Result<_, _>>()?,
        };
        store.plays().record_play(&play, at(ms)).await?;
    }

    let mut reader =
        StreamReader::for_table(&table.endpoint, &table.name, StartingPosition::TrimHorizon)
            .await?;
    let records = reader.read_to_end().await?;
    let json_records: Vec<Value> = records
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<_, _>>()?;
    // Serialised through aws_lambda_events, then tidied to the shape Lambda sends.
    let records: Vec<Value> = json_records.into_iter().map(tidy).collect();

    let is = |r: &Value, name: &str, sk_prefix: &str| {
        r["eventName"] == name
            && r["dynamodb"]["Keys"]["sk"]["S"]
                .as_str()
                .is_some_and(|sk| sk.starts_with(sk_prefix))
    };
    let session = records
        .iter()
        .find(|r| is(r, "INSERT", "SESSION#"))
        .ok_or("no session insert")?
        .clone();
    // One INSERT of each other item type a play writes: board, entry pointer, Score item.
    let non_session: Vec<Value> = ["#METADATA", "ENTRY#", "SCORE#"]
        .iter()
        .filter_map(|prefix| records.iter().find(|r| is(r, "INSERT", prefix)).cloned())
        .collect();
    let next_seq = |offset: u128| -> String {
        let last: u128 = records
            .last()
            .and_then(|r| r["dynamodb"]["SequenceNumber"].as_str())
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        format!("{:021}", last + offset)
    };
    let image = session["dynamodb"]["NewImage"].clone();

    let mut modify = session.clone();
    modify["eventID"] = json!("hand-made-modify-0001");
    modify["eventName"] = json!("MODIFY");
    modify["dynamodb"]["OldImage"] = image.clone();
    modify["dynamodb"]["NewImage"]["durationSec"] = json!({"N": "286"});
    modify["dynamodb"]["SequenceNumber"] = json!(next_seq(1));

    let mut remove = session.clone();
    remove["eventID"] = json!("hand-made-remove-0001");
    remove["eventName"] = json!("REMOVE");
    remove["dynamodb"]["OldImage"] = image.clone();
    remove["dynamodb"]
        .as_object_mut()
        .ok_or("dynamodb")?
        .remove("NewImage");
    remove["dynamodb"]["SequenceNumber"] = json!(next_seq(2));

    let mut ttl = remove.clone();
    ttl["eventID"] = json!("hand-made-ttl-0001");
    ttl["dynamodb"]["OldImage"]["ttl"] = json!({"N": (T0 / 1000 + 86_400).to_string()});
    ttl["dynamodb"]["SequenceNumber"] = json!(next_seq(3));
    ttl["userIdentity"] = json!({"type": "Service", "principalId": "dynamodb.amazonaws.com"});

    let mut poisoned = session.clone();
    poisoned["eventID"] = json!("hand-made-poison-0001");
    poisoned["dynamodb"]["NewImage"]["score"] = json!({"S": "lots"});
    poisoned["dynamodb"]["SequenceNumber"] = json!(next_seq(4));

    let dir = leaderboard_devkit::repo_root().join("events/stream-projector");
    std::fs::create_dir_all(&dir)?;
    write(&dir, "captured-plays.json", records.clone())?;
    write(&dir, "session-insert.json", vec![session])?;
    write(&dir, "insert-non-session.json", non_session)?;
    write(&dir, "modify-session.json", vec![modify])?;
    write(&dir, "remove-session.json", vec![remove])?;
    write(&dir, "ttl-remove.json", vec![ttl])?;
    write(&dir, "poisoned-session-insert.json", vec![poisoned])?;
    println!(
        "wrote {} captured records (stream {}) and the derived events to {}",
        records.len(),
        reader.stream_arn(),
        dir.display()
    );
    Ok(())
}

/// The record as Lambda sends it: no null or empty optional fields.
fn tidy(mut r: Value) -> Value {
    if let Some(o) = r.as_object_mut() {
        o.retain(|_, v| !v.is_null());
    }
    if let Some(d) = r["dynamodb"].as_object_mut() {
        d.retain(|_, v| !v.is_null() && v.as_object().is_none_or(|m| !m.is_empty()));
    }
    r
}

fn write(dir: &Path, name: &str, records: Vec<Value>) -> Result<(), Box<dyn std::error::Error>> {
    // Checked: what is written is a Lambda DynamoDB event.
    let text = serde_json::to_string_pretty(&json!({ "Records": records }))?;
    let parsed: aws_lambda_events::event::dynamodb::Event = serde_json::from_str(&text)?;
    let _ = event(parsed.records);
    std::fs::write(dir.join(name), text + "\n")?;
    Ok(())
}
