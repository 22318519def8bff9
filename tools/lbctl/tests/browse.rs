//! `lbctl browse` against DynamoDB Local: a board with ties, in both orders, shown in key order
//! from any rank, each stored key's padded score and inverted time decoded beside the item's
//! own score and time; a key that disagrees with its item is flagged; after close the final
//! standings.

use crate::common;

use common::*;
use leaderboard_keys::pad::{Width, pad};
use leaderboard_keys::rank::{MAX_TIEBREAK_MILLIS, Order};
use serde_json::Value;

async fn rows(store: &leaderboard_store::Store, args: &[&str]) -> Vec<Value> {
    let text = lbctl(store, true, args).await.unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["entries"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_board_with_ties_is_shown_in_key_order_with_its_keys_decoded() {
    let (_table, store) = store("lbctl_browse").await;
    for (id, order) in [("browse_desc", Order::Desc), ("browse_asc", Order::Asc)] {
        let (_, truth) = board_with(&store, id, order, 99_999, entries(60, 9)).await;
        let all = rows(&store, &["browse", id, "--limit", "100"]).await;
        assert_eq!(all.len(), 60);
        for (i, (row, (player, score, at))) in all.iter().zip(&truth).enumerate() {
            assert_eq!(row["rank"], i as u64 + 1);
            assert_eq!(row["playerId"], player.as_str(), "{id} rank {}", i + 1);
            assert_eq!(row["score"], *score);
            assert_eq!(row["attainedAt"], at.to_string());
            let stored = match order {
                Order::Desc => *score,
                Order::Asc => 99_999 - score,
            };
            assert_eq!(row["paddedScore"], pad(stored, Width::fixed(5)).unwrap());
            let inverted = pad(MAX_TIEBREAK_MILLIS - at.as_millis(), Width::fixed(13)).unwrap();
            assert_eq!(row["invertedTime"], inverted);
            assert_eq!(
                row["sortKey"],
                format!(
                    "SCORE#{}#{inverted}#{player}",
                    row["paddedScore"].as_str().unwrap()
                )
            );
            assert!(row.get("mismatch").is_none(), "{row}");
        }
        // From a rank: the same rows, ranked the same.
        let page = rows(&store, &["browse", id, "--from", "17", "--limit", "5"]).await;
        assert_eq!(page, all[16..21]);
        let last = rows(&store, &["browse", id, "--from", "60", "--limit", "5"]).await;
        assert_eq!(last, all[59..]);
        assert!(
            rows(&store, &["browse", id, "--from", "61"])
                .await
                .is_empty()
        );
    }
    // The text: one line per entry under a header, every sort key starting in one column.
    let text = lbctl(&store, false, &["browse", "browse_desc", "--limit", "12"])
        .await
        .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("browse_desc (desc, maxScore 99999, open): ranks 1 to 12"),
        "{text}"
    );
    assert!(lines[1].starts_with("RANK  SORT KEY"), "{text}");
    assert_eq!(lines.len(), 14);
    let column = lines[1].find("SORT KEY").unwrap();
    for line in &lines[2..] {
        assert_eq!(line.find("SCORE#"), Some(column), "{text}");
        assert!(!line.contains('!'), "{line}");
    }
}

#[tokio::test]
async fn a_key_that_disagrees_with_its_item_is_flagged_and_a_closed_board_shows_its_finals() {
    let (table, store) = store("lbctl_browse_flag").await;
    let (board, truth) = board_with(&store, "flagged", Order::Desc, 999, entries(8, 8)).await;
    let all = rows(&store, &["browse", "flagged"]).await;
    let sk = all[2]["sortKey"].as_str().unwrap().to_owned();
    table
        .update_raw("LEADERBOARD#flagged", &sk, "SET score = score + score")
        .await;
    let after = rows(&store, &["browse", "flagged"]).await;
    let flagged: Vec<u64> = after
        .iter()
        .filter(|r| r.get("mismatch").is_some())
        .map(|r| r["rank"].as_u64().unwrap())
        .collect();
    assert_eq!(flagged, [3], "{after:?}");
    assert!(
        after[2]["mismatch"]
            .as_str()
            .unwrap()
            .contains(&format!("score {}", truth[2].1))
    );
    let text = lbctl(&store, false, &["browse", "flagged"]).await.unwrap();
    assert_eq!(
        text.lines()
            .filter(|l| l.contains("! the key says"))
            .count(),
        1,
        "{text}"
    );

    // After close: the final standings, by their FINAL# keys, from any rank.
    close(&store, &board.board_id).await;
    let finals = rows(
        &store,
        &["browse", "flagged", "--from", "3", "--limit", "4"],
    )
    .await;
    let players: Vec<&str> = finals
        .iter()
        .map(|r| r["playerId"].as_str().unwrap())
        .collect();
    let want: Vec<&str> = truth[2..6].iter().map(|e| e.0.as_str()).collect();
    assert_eq!(players, want);
    assert_eq!(finals[0]["sortKey"], "FINAL#0000000003");
    assert_eq!(finals[0]["rank"], 3);
    assert!(finals.iter().all(|r| r.get("mismatch").is_none()));
}

#[tokio::test]
async fn no_board_is_exit_code_3_and_a_bad_limit_2() {
    let (_table, store) = store("lbctl_browse_missing").await;
    let e = lbctl(&store, false, &["browse", "nowhere"])
        .await
        .unwrap_err();
    assert_eq!(e.exit_code(), 3);
    board_with(&store, "b", Order::Desc, 999, entries(3, 3)).await;
    for bad in ["0", "1001"] {
        let e = lbctl(&store, false, &["browse", "b", "--limit", bad])
            .await
            .unwrap_err();
        assert_eq!(e.exit_code(), 2, "{bad}");
    }
}

#[tokio::test]
async fn from_far_down_an_indexed_board_the_index_finds_the_rank_and_agrees_with_the_keys() {
    let (table, store) = store("lbctl_browse_seek").await;
    for (id, order) in [("seek_desc", Order::Desc), ("seek_asc", Order::Asc)] {
        // 3,000 entries on 50 scores, 20 a second: groups of tied keys, ties broken by player.
        let (board, truth) = board_with(&store, id, order, 999, entries(3_000, 50)).await;
        store.rank().build_rank_index(&board).await.unwrap();
        let want = |from: usize, n: usize| -> Vec<String> {
            truth
                .iter()
                .skip(from - 1)
                .take(n)
                .map(|e| e.0.to_string())
                .collect()
        };
        let players = |rows: Vec<Value>| -> Vec<String> {
            rows.iter()
                .map(|r| r["playerId"].as_str().unwrap().to_owned())
                .collect()
        };
        for from in [1_001usize, 1_500, 2_222, 2_999, 3_000] {
            let page = rows(
                &store,
                &["browse", id, "--from", &from.to_string(), "--limit", "7"],
            )
            .await;
            assert_eq!(page[0]["rank"], from as u64, "{id} {from}");
            assert_eq!(players(page), want(from, 7), "{id} from {from}");
        }
        assert!(
            rows(&store, &["browse", id, "--from", "3001"])
                .await
                .is_empty()
        );
        // Found by the index: its root, a node a level below (4 at width 3), the lanes, at
        // most one page of the group's keys above, and the page.
        let seeked = store
            .inspect()
            .stored_entries(&board, 2_222, 7)
            .await
            .unwrap();
        assert!((7..=8).contains(&seeked.requests), "{}", seeked.requests);
        // A change the index has not applied yet: the keys are passed instead, same answer.
        let lane = format!("RANKSEQ#{id}");
        table
            .update_raw(&lane, "#WRITTEN#03", "SET written = written + written")
            .await;
        let page = rows(&store, &["browse", id, "--from", "2222", "--limit", "7"]).await;
        assert_eq!(players(page), want(2_222, 7), "{id} lagging");
        let passed = store
            .inspect()
            .stored_entries(&board, 2_222, 7)
            .await
            .unwrap();
        // The seek's 6 reads (root, 4 nodes, lanes), then the keys above and the page.
        assert_eq!(passed.requests, 6 + 2);
    }
}

#[tokio::test]
async fn a_board_with_tiebreak_columns_shows_each_columns_digits_and_values() {
    use leaderboard_keys::columns::Column;
    let (_table, store) = store("lbctl_browse_columns").await;
    let new = leaderboard_store::model::NewBoard {
        columns: vec![Column::new("moves", Order::Asc, 999).unwrap()],
        ..new_board("puzzle", Order::Desc, 9_999)
    };
    store.boards().create_board(new, at(0)).await.unwrap();
    for (player, moves, ms) in [("p_a", 42u64, 1_000), ("p_b", 7, 2_000)] {
        let play = leaderboard_store::Play {
            subscores: [("moves".to_owned(), moves)].into_iter().collect(),
            ..play_of(player, 50, "puzzle", ms)
        };
        store.plays().record_play(&play, at(ms)).await.unwrap();
    }
    let all = rows(&store, &["browse", "puzzle"]).await;
    // Equal scores: fewer moves first, whatever the time.
    let got: Vec<_> = all
        .iter()
        .map(|r| {
            (
                r["playerId"].clone(),
                r["paddedColumns"].clone(),
                r["subscores"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "p_b".into(),
                serde_json::json!(["992"]),
                serde_json::json!({"moves": 7})
            ),
            (
                "p_a".into(),
                serde_json::json!(["957"]),
                serde_json::json!({"moves": 42})
            ),
        ]
    );
    assert!(all.iter().all(|r| r.get("mismatch").is_none()), "{all:?}");
    let text = lbctl(&store, false, &["browse", "puzzle"]).await.unwrap();
    assert!(text.contains("COLUMNS (padded = values)"), "{text}");
    assert!(text.contains("992 = moves 7"), "{text}");
}
