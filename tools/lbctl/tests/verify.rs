//! `lbctl verify` against DynamoDB Local: a healthy board passes; each kind of injected
//! corruption is reported with its key and exits 4; `--repair` fixes each, and a second
//! `verify` is clean.

use crate::common;

use aws_sdk_dynamodb::types::AttributeValue;
use common::*;
use leaderboard_devkit::testing::{RawItem, TestTable, n, s};
use leaderboard_keys::rank::Order;

async fn put(table: &TestTable, item: RawItem) {
    table
        .client
        .put_item()
        .table_name(&table.name)
        .set_item(Some(item))
        .send()
        .await
        .unwrap();
}

/// The board's Score items, in rank order.
async fn scores(table: &TestTable, board: &str) -> Vec<RawItem> {
    let pk = format!("LEADERBOARD#{board}");
    let mut items: Vec<RawItem> = table
        .dump()
        .await
        .into_iter()
        .filter(|i| {
            s(i, "pk") == Some(pk.as_str()) && s(i, "sk").is_some_and(|k| k.starts_with("SCORE#"))
        })
        .collect();
    items.sort_by(|a, b| s(b, "sk").cmp(&s(a, "sk")));
    items
}

async fn verify(store: &leaderboard_store::Store, board: &str) -> (i32, Vec<(String, String)>) {
    let (code, found, _) = verify_report(store, &[board]).await;
    (code, found)
}

fn kinds(found: &[(&str, &str)]) -> Vec<(String, String)> {
    found
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// Puts a copy of `board`'s Score item at rank `index + 1` at `score` (its key's time the
/// tests' T0), as `player`'s (the same player's without one): its sort key.
async fn score_item_copy(
    table: &TestTable,
    board: &str,
    index: usize,
    player: Option<&str>,
    score: u64,
) -> String {
    let mut item = scores(table, board).await[index].clone();
    let player = player.map_or_else(|| s(&item, "playerId").unwrap().to_owned(), str::to_owned);
    let sk = format!("SCORE#{score:03}#8232774399999#{player}");
    item.insert("sk".into(), AttributeValue::S(sk.clone()));
    item.insert("playerId".into(), AttributeValue::S(player));
    item.insert("score".into(), AttributeValue::N(score.to_string()));
    item.insert("attainedAt".into(), AttributeValue::S(at(0).to_string()));
    put(table, item).await;
    sk
}

/// Each kind of corruption, injected on its own board: the board's id and what verify says.
struct Corrupted {
    board: &'static str,
    found: Vec<(String, String)>,
}

/// Boards of 30 entries with their indexes built, one a corruption (and "healthy", "edited"),
/// each corrupted by hand as a bug or a hand edit would.
async fn corrupted(table: &TestTable, store: &leaderboard_store::Store) -> Vec<Corrupted> {
    let boards = [
        "healthy",
        "orphan",
        "stale",
        "twice",
        "edited",
        "counter",
        "watermark",
    ];
    for id in boards {
        let (board, _) = board_with(store, id, Order::Desc, 999, entries(30, 30)).await;
        store.rank().build_rank_index(&board).await.unwrap();
    }
    let root = |b: &str| format!("RANKV2#{b} #ROOT");
    let mut out = Vec::new();

    // An orphan: a Score item no player's pointer names (and one more than the lanes and the
    // index count).
    let sk = score_item_copy(table, "orphan", 4, Some("p_orphan"), 500).await;
    out.push(Corrupted {
        board: "orphan",
        found: kinds(&[
            ("no_pointer", &sk),
            ("entry_count", ""),
            ("index_count", &root("orphan")),
        ]),
    });

    // A stale pointer: the player's pointer names another key than their Score item's.
    let item = scores(table, "stale").await[7].clone();
    let (player, key) = (
        s(&item, "playerId").unwrap().to_owned(),
        s(&item, "sk").unwrap().to_owned(),
    );
    let mut pointer = table
        .raw(&format!("PLAYER#{player}"), "ENTRY#stale")
        .await
        .unwrap();
    pointer.insert(
        "scoreSk".into(),
        AttributeValue::S("SCORE#001#8232774399999#".to_owned() + &player),
    );
    put(table, pointer).await;
    out.push(Corrupted {
        board: "stale",
        found: kinds(&[("not_the_players_entry", &key)]),
    });

    // Two entries for one player: a second Score item of theirs, at another score.
    let sk = score_item_copy(table, "twice", 2, None, 1).await;
    out.push(Corrupted {
        board: "twice",
        found: kinds(&[
            ("not_the_players_entry", &sk),
            ("entry_count", ""),
            ("index_count", &root("twice")),
        ]),
    });

    // A hand edit: the item's score no longer what its key says.
    let item = scores(table, "edited").await[0].clone();
    let key = s(&item, "sk").unwrap().to_owned();
    table
        .update_raw("LEADERBOARD#edited", &key, "SET score = score + score")
        .await;
    out.push(Corrupted {
        board: "edited",
        found: kinds(&[("key_mismatch", &key)]),
    });

    // An index counter off by one, deep in the trie.
    let mut node = table
        .dump()
        .await
        .into_iter()
        .filter(|i| s(i, "pk").is_some_and(|pk| pk.starts_with("RANKV2#counter#")))
        .max_by_key(|i| s(i, "sk").map(str::len))
        .unwrap();
    let label = node.keys().find(|a| a.starts_with('c')).unwrap().clone();
    let count: i64 = n(&node, &label).unwrap().parse().unwrap();
    node.insert(label, AttributeValue::N((count + 1).to_string()));
    let key = format!("{} {}", s(&node, "pk").unwrap(), s(&node, "sk").unwrap());
    put(table, node).await;
    out.push(Corrupted {
        board: "counter",
        found: kinds(&[("index_count", &key)]),
    });

    // A watermark behind its lane: a change the index never applied.
    let mut root_item = table.raw("RANKV2#watermark", "#ROOT").await.unwrap();
    let lane = root_item
        .keys()
        .find(|a| a.starts_with('w') && n(&root_item, a).is_some_and(|w| w != "0"))
        .unwrap()
        .clone();
    let applied: u64 = n(&root_item, &lane).unwrap().parse().unwrap();
    root_item.insert(lane, AttributeValue::N((applied - 1).to_string()));
    put(table, root_item).await;
    out.push(Corrupted {
        board: "watermark",
        found: kinds(&[("watermark_behind", &root("watermark"))]),
    });
    out
}

#[tokio::test]
async fn each_kind_of_corruption_is_reported_with_its_key() {
    let (table, store) = store("lbctl_verify").await;
    let corruptions = corrupted(&table, &store).await;
    assert_eq!(verify(&store, "healthy").await, (0, vec![]));
    for c in &corruptions {
        assert_eq!(
            verify(&store, c.board).await,
            (4, c.found.clone()),
            "{}",
            c.board
        );
    }
    // Every open board at once: each board's problems, with its id.
    let (code, found, report) = verify_report(&store, &["--all"]).await;
    assert_eq!(code, 4);
    let want: Vec<(String, String)> = corruptions.iter().flat_map(|c| c.found.clone()).collect();
    let mut sorted = found.clone();
    sorted.sort();
    let mut want_sorted = want.clone();
    want_sorted.sort();
    assert_eq!(sorted, want_sorted);
    assert_eq!(report["boards"], 7);
    assert_eq!(report["entries"], 7 * 30 + 2);

    // Text: a line a problem.
    let e = lbctl(&store, false, &["verify", "edited"])
        .await
        .unwrap_err();
    assert_eq!(e.exit_code(), 4);
    // Refusals write nothing, --repair or not.
    let before = table.dump().await;
    for args in [
        vec!["verify"],
        vec!["verify", "healthy", "--all"],
        vec!["verify", "bad#id", "--repair"],
        vec!["verify", "--player", "bad#id", "--repair"],
        vec!["verify", "healthy", "--settle", "soon"],
    ] {
        let e = lbctl(&store, true, &args).await.unwrap_err();
        assert_eq!(e.exit_code(), 2, "{args:?}");
        assert_eq!(table.dump().await, before, "{args:?}");
    }
    let e = lbctl(&store, true, &["verify", "nowhere", "--repair"])
        .await
        .unwrap_err();
    assert_eq!(e.exit_code(), 3);
    assert_eq!(table.dump().await, before);
    let text = lbctl(&store, false, &["verify", "healthy"]).await.unwrap();
    assert!(
        text.contains("checked 1 board (30 entries) and 0 players: 0 problems, 0 repaired"),
        "{text}"
    );
}

#[tokio::test]
async fn repair_fixes_each_kind_and_a_second_verify_is_clean() {
    let (table, store) = store("lbctl_verify_repair").await;
    let corruptions = corrupted(&table, &store).await;
    for c in corruptions.iter().filter(|c| c.board != "edited") {
        let (code, found, report) = verify_report(&store, &[c.board, "--repair"]).await;
        // Deleting the second entry records a change on its lane: the index is then not
        // compared (it is rebuilt, whatever it counted).
        let want = match c.board {
            "twice" => c.found[..1].to_vec(),
            _ => c.found.clone(),
        };
        assert_eq!((code, &found), (0, &want), "{}", c.board);
        let repaired = report["violations"].as_array().unwrap();
        assert!(
            repaired.iter().all(|v| v["repaired"].is_string()),
            "{}: {report}",
            c.board
        );
        assert_eq!(verify(&store, c.board).await, (0, vec![]), "{}", c.board);
        // Again: nothing to do.
        let (code, found, _) = verify_report(&store, &[c.board, "--repair"]).await;
        assert_eq!((code, found), (0, vec![]), "{}", c.board);
    }
    // A player keeps one entry: the pointer's where it names one that exists.
    let twice = scores(&table, "twice").await;
    assert_eq!(twice.len(), 30);
    assert!(
        twice
            .iter()
            .all(|i| !s(i, "sk").unwrap().starts_with("SCORE#001#"))
    );
    // The orphan is its player's entry now; the stale pointer names the player's item.
    let orphan = table.raw("PLAYER#p_orphan", "ENTRY#orphan").await.unwrap();
    assert_eq!(
        s(&orphan, "scoreSk"),
        Some("SCORE#500#8232774399999#p_orphan")
    );
    assert_eq!(scores(&table, "orphan").await.len(), 31);

    // A hand-edited score is not repaired: which of key and item is right is for a person.
    let (code, found, report) = verify_report(&store, &["edited", "--repair"]).await;
    assert_eq!((code, found), (4, corruptions[3].found.clone()));
    assert!(report["violations"][0]["repaired"].is_null());
}

#[tokio::test]
async fn concurrent_repairs_of_a_second_entry_delete_it_once() {
    let (table, store) = store("lbctl_verify_race").await;
    let (board, _) = board_with(&store, "race", Order::Desc, 999, entries(10, 10)).await;
    store.rank().build_rank_index(&board).await.unwrap();
    let sk = score_item_copy(&table, "race", 2, None, 1).await;
    let id = board.board_id.clone();
    let repairs =
        futures::future::join_all((0..4).map(|_| store.entry_repair().repair_entry(&id, &sk)))
            .await;
    let removed = repairs
        .iter()
        .filter(|r| matches!(r, Ok(leaderboard_store::EntryRepair::Removed)))
        .count();
    let unchanged = repairs
        .iter()
        .filter(|r| matches!(r, Ok(leaderboard_store::EntryRepair::Unchanged)))
        .count();
    assert_eq!((removed, unchanged), (1, 3), "{repairs:?}");
    assert_eq!(scores(&table, "race").await.len(), 10);
    // The lane took the removal once: the lanes count one entry fewer, which the rebuild of
    // the repair run corrects to the entries.
    let state = store.rank().index_state(&board).await.unwrap();
    assert_eq!(state.entries, 9);
    assert_eq!(state.pending().len(), 1);
}

#[tokio::test]
async fn a_score_item_lost_under_its_pointer_is_found_by_player_and_put_back() {
    let (table, store) = store("lbctl_verify_lost").await;
    let (board, truth) = board_with(&store, "lost", Order::Desc, 999, entries(30, 30)).await;
    store.rank().build_rank_index(&board).await.unwrap();
    let player = truth[6].0.to_string();
    let item = scores(&table, "lost").await[6].clone();
    assert_eq!(s(&item, "playerId"), Some(player.as_str()));
    let sk = s(&item, "sk").unwrap().to_owned();
    table
        .client
        .delete_item()
        .table_name(&table.name)
        .key("pk", AttributeValue::S("LEADERBOARD#lost".into()))
        .key("sk", AttributeValue::S(sk.clone()))
        .send()
        .await
        .unwrap();
    // Found through the player's pointers, on the board named or on every open one.
    let lost = kinds(&[("lost_entry", sk.as_str())]);
    for args in [vec!["lost", "--player", &player], vec!["--player", &player]] {
        let (code, found, _) = verify_report(&store, &args).await;
        assert_eq!(found[..1], lost[..], "{args:?}");
        assert_eq!(code, 4, "{args:?}");
    }
    // Repaired: the item is back as it was, and the board verifies clean.
    let (code, found, report) =
        verify_report(&store, &["lost", "--player", &player, "--repair"]).await;
    assert_eq!((code, found), (0, lost));
    assert_eq!(
        report["violations"][0]["repaired"],
        "restored from the entry pointer"
    );
    assert_eq!(scores(&table, "lost").await[6], item);
    assert_eq!(verify(&store, "lost").await, (0, vec![]));
    let (code, found, _) = verify_report(&store, &["lost", "--player", &player, "--repair"]).await;
    assert_eq!((code, found), (0, vec![]));
}
