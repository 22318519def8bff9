//! What submit-score reports (docs/operating.md "Metrics"), read back from its EMF lines after real plays
//! on DynamoDB Local: one entry and one `Invocations` count per play, the metrics and
//! dimensions docs/operating.md documents, and no player's, session's or board's id as a dimension.

use crate::common;

use lambda_http::{Context, RequestExt};
use leaderboard_devkit::emf;
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_metrics::Sink;
use leaderboard_store::model::Operator;
use leaderboard_store::{Config, Store, new_session_id};
use serde_json::{Value, json};
use submit_score::{App, handle};

const PLAYER: &str = "player-metrics-7f3a";

#[tokio::test]
async fn each_play_writes_its_entry_and_its_outcome() {
    let table = TestTable::without_stream("metrics").await;
    let store = Store::new(
        table.client.clone(),
        &Config {
            table_name: table.name.clone(),
            cursor_secret: b"t".to_vec(),
        },
    );
    for board in ["weekly-m", "daily-m"] {
        common::open_board(&store, board, Order::Desc, Operator::Best, 1_000_000).await;
    }
    let session = new_session_id(Timestamp::now()).unwrap();
    let session = session.as_str();
    let (sink, recorded) = Sink::recording();
    let app = App::new(store).with_metrics(sink);
    let play = |body: Value| {
        let mut context = Context::default();
        context.deadline = Timestamp::now().as_millis() + 600_000;
        common::request("/sessions", Some(PLAYER), &body.to_string()).with_lambda_context(context)
    };
    let plays = [
        // Accepted on two boards, both entries new; then its repeat.
        json!({"leaderboardIds": ["weekly-m", "daily-m"], "gameId": "tetris", "score": 500, "sessionId": session}),
        json!({"leaderboardIds": ["weekly-m", "daily-m"], "gameId": "tetris", "score": 500, "sessionId": session}),
        // Accepted, improving neither entry.
        json!({"leaderboardIds": ["weekly-m"], "gameId": "tetris", "score": 10}),
        // Refused: an unknown board, then a negative score.
        json!({"leaderboardIds": ["no-such-board"], "gameId": "tetris", "score": 10}),
        json!({"leaderboardIds": ["weekly-m"], "gameId": "tetris", "score": -1}),
    ];
    let mut codes = vec![];
    for body in plays {
        let resp = handle(&app, play(body)).await.unwrap();
        let answer: Value = serde_json::from_slice(resp.body().as_ref()).unwrap();
        codes.push(answer["error"]["code"].as_str().map(str::to_owned));
    }
    assert_eq!(codes[..3], [None, None, None]);

    let ids = [PLAYER, session, "weekly-m", "daily-m", "no-such-board"];
    let entries = emf::checked(&recorded.lines(), &ids, "submit-score");

    // Two lines per play, the count first.
    assert_eq!(entries.len(), 10);
    let outcomes: Vec<&str> = entries
        .iter()
        .step_by(2)
        .map(|e| e["Outcome"].as_str().unwrap())
        .collect();
    let refused: Vec<&str> = codes[3..].iter().map(|c| c.as_deref().unwrap()).collect();
    assert_eq!(outcomes[..3], ["accepted", "duplicate", "accepted"]);
    assert_eq!(outcomes[3..], refused[..]);
    assert_eq!(refused, ["not_found", "score_out_of_range"]);

    let play_entries: Vec<&Value> = entries.iter().skip(1).step_by(2).collect();
    let column = |name: &str| emf::column(&play_entries, name);
    assert_eq!(column("ColdStart"), [1, 0, 0, 0, 0]);
    assert_eq!(column("Accepted"), [1, 0, 1, 0, 0]);
    assert_eq!(column("Duplicates"), [0, 1, 0, 0, 0]);
    assert_eq!(column("Refused"), [0, 0, 0, 1, 1]);
    assert_eq!(column("Boards"), [2, 2, 1, 0, 0]);
    assert_eq!(column("EntriesChanged"), [2, 0, 0, 0, 0]);
    assert_eq!(column("Attempts"), [1, 1, 1, 0, 0]);
    // Each board's rank, exact on a quiet board or within the index's lag: one per board.
    let ranks: Vec<u64> = column("RanksExact")
        .iter()
        .zip(column("RanksWithinLag"))
        .map(|(exact, within)| exact + within)
        .collect();
    assert_eq!(ranks, [2, 2, 1, 0, 0]);
    for e in &play_entries {
        assert!(e["Duration"].as_f64().is_some_and(|ms| ms >= 0.0), "{e}");
    }
}
