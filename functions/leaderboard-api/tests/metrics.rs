//! What the API's two functions report (docs/operating.md "Metrics"), read back from their EMF lines after
//! real requests on DynamoDB Local: one entry and one `Invocations` count per request, the
//! metrics and dimensions docs/operating.md documents, and no player's or board's id in any line.

use crate::common;

use common::{As, harness, request};
use leaderboard_api::{App, handle_reads, handle_writes};
use leaderboard_devkit::emf;
use leaderboard_keys::rank::Order;
use leaderboard_metrics::Sink;
use serde_json::{Value, json};

const PLAYERS: [&str; 2] = ["player-metrics-a1", "player-metrics-b2"];
const BOARD: &str = "weekly-metrics";

#[tokio::test]
async fn each_request_writes_its_entry_and_its_outcome() {
    let h = harness("metrics_api").await;
    h.board(BOARD, Order::Desc).await;
    h.play(PLAYERS[0], 500, &[BOARD]).await;
    h.play(PLAYERS[1], 300, &[BOARD]).await;
    let (sink, recorded) = Sink::recording();
    let api = App::new(h.store.clone()).with_metrics(sink);
    let [a, b] = PLAYERS;

    let reads = [
        format!("/leaderboards/{BOARD}/players/{a}"),
        format!("/leaderboards/{BOARD}/players/{b}/around?n=1"),
        format!("/leaderboards/{BOARD}/scores?playerIds={a},{b}"),
        format!("/leaderboards/{BOARD}"),
        "/leaderboards/no-such-board".to_owned(),
    ];
    // The own ranks each answer carries: those that say how fresh they are.
    let mut ranks = vec![];
    for path in &reads {
        let resp = handle_reads(&api, request("GET", path, As::Anonymous, None))
            .await
            .unwrap();
        let body: Value = serde_json::from_slice(resp.body().as_ref()).unwrap();
        let entries = match &body["entries"] {
            Value::Array(entries) => entries.clone(),
            _ => vec![body.clone()],
        };
        ranks.push(
            entries
                .iter()
                .filter(|e| e.get("rankExact").is_some())
                .count() as u64,
        );
    }
    // A write route, without a token: refused.
    let body = json!({"name": "Someone"});
    handle_writes(
        &api,
        request("PUT", "/players/me", As::Anonymous, Some(&body)),
    )
    .await
    .unwrap();

    let ids = [a, b, BOARD, "no-such-board"];
    let entries = emf::checked(&recorded.lines(), &ids, "leaderboard-api");
    assert_eq!(entries.len(), 12, "two lines per request");
    let requests: Vec<&Value> = entries.iter().skip(1).step_by(2).collect();
    let text =
        |name: &str| -> Vec<&str> { requests.iter().map(|e| e[name].as_str().unwrap()).collect() };
    assert_eq!(
        text("Outcome"),
        ["ok", "ok", "ok", "ok", "not_found", "unauthorized"]
    );
    assert_eq!(
        text("Route"),
        [
            "PlayerRank",
            "Around",
            "TopScores",
            "GetBoard",
            "GetBoard",
            "PutMe"
        ]
    );
    assert_eq!(
        text("FunctionName"),
        [["leaderboard-api"; 5].as_slice(), &["leaderboard-writes"]].concat()
    );
    let column = |name: &str| emf::column(&requests, name);
    assert_eq!(column("ClientErrors"), [0, 0, 0, 0, 1, 1]);
    assert_eq!(column("ServerErrors"), [0; 6]);
    assert_eq!(column("ColdStart"), [1, 0, 0, 0, 0, 0]);
    assert_eq!(&ranks[..3], [1, 2, 2], "the answers' own ranks");
    let answered: Vec<u64> = column("RanksExact")
        .iter()
        .zip(column("RanksWithinLag"))
        .map(|(exact, within)| exact + within)
        .collect();
    assert_eq!(answered, [ranks, vec![0]].concat());
}
