//! `lbctl export` against DynamoDB Local: a 20,000-entry board's standings, as CSV and as
//! JSON, equal the API's pages entry for entry; a closed board exports its final standings; to
//! a file, it says how many it wrote.

use crate::common;

use common::*;
use leaderboard_keys::rank::Order;
use leaderboard_store::Store;
use serde_json::Value;

/// Every entry the API lists for `board`, page by page (1,000 a page).
async fn api_entries(store: &Store, board: &str) -> Vec<Value> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/leaderboards/{board}/scores?limit=1000&cursor={c}"),
            None => format!("/leaderboards/{board}/scores?limit=1000"),
        };
        let (status, body) = api_get(store, &path).await;
        assert_eq!(status, 200, "{body}");
        all.extend(body["entries"].as_array().unwrap().iter().cloned());
        match body["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => return all,
        }
    }
}

fn csv_rows(text: &str) -> Vec<Vec<String>> {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(lbctl::export::CSV_HEADER));
    lines
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect()
}

fn as_csv(e: &Value) -> Vec<String> {
    vec![
        e["rank"].to_string(),
        e["playerId"].as_str().unwrap().to_owned(),
        e["name"].as_str().unwrap().to_owned(),
        e["score"].to_string(),
        e["attainedAt"].as_str().unwrap().to_owned(),
        String::new(),
    ]
}

#[tokio::test]
async fn a_20000_entry_board_exports_as_the_apis_pages_in_csv_and_json() {
    let (_table, store) = store("lbctl_export").await;
    board_with(&store, "big", Order::Desc, 999_999, entries(20_000, 5_000)).await;
    let api = api_entries(&store, "big").await;
    assert_eq!(api.len(), 20_000);

    let json = lbctl(&store, false, &["export", "big", "--format", "json"])
        .await
        .unwrap();
    let exported: Vec<Value> = serde_json::from_str(&json).unwrap();
    assert_eq!(exported, api);

    let csv = lbctl(&store, false, &["export", "big"]).await.unwrap();
    let rows = csv_rows(&csv);
    let want: Vec<Vec<String>> = api.iter().map(as_csv).collect();
    assert_eq!(rows, want);
}

#[tokio::test]
async fn a_closed_board_exports_its_final_standings_and_a_file_is_reported() {
    let (_table, store) = store("lbctl_export_closed").await;
    let (board, truth) = board_with(&store, "done", Order::Asc, 999, entries(1_234, 40)).await;
    close(&store, &board.board_id).await;
    let api = api_entries(&store, "done").await;
    let players: Vec<&str> = api
        .iter()
        .map(|e| e["playerId"].as_str().unwrap())
        .collect();
    let want: Vec<&str> = truth.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(players, want);

    let dir = std::env::temp_dir().join(format!("lbctl-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("done.json");
    let path = file.to_str().unwrap();
    let said = lbctl(
        &store,
        true,
        &["export", "done", "--format", "json", "--out", path],
    )
    .await
    .unwrap();
    let said: Value = serde_json::from_str(&said).unwrap();
    assert_eq!(said["entries"], 1_234);
    let exported: Vec<Value> = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(exported, api);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn an_empty_board_exports_a_header_or_an_empty_array_and_no_board_is_exit_code_3() {
    let (_table, store) = store("lbctl_export_empty").await;
    board_with(&store, "empty", Order::Desc, 999, Vec::new()).await;
    let csv = lbctl(&store, false, &["export", "empty"]).await.unwrap();
    assert_eq!(csv, format!("{}\n", lbctl::export::CSV_HEADER));
    let json = lbctl(&store, false, &["export", "empty", "--format", "json"])
        .await
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Vec<Value>>(&json).unwrap(),
        Vec::<Value>::new()
    );
    let e = lbctl(&store, false, &["export", "nowhere"])
        .await
        .unwrap_err();
    assert_eq!(e.exit_code(), 3);
}

#[test]
fn csv_fields_are_quoted_and_formulas_defused() {
    use lbctl::export::csv_field;
    assert_eq!(csv_field("Bob"), "Bob");
    assert_eq!(csv_field("Bob, the 2nd"), "\"Bob, the 2nd\"");
    assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    assert_eq!(csv_field("=HYPERLINK(1)"), "'=HYPERLINK(1)");
    assert_eq!(csv_field("-1,2"), "\"'-1,2\"");
}
