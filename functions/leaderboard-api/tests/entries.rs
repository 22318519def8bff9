//! Entries people can show: every listed entry carries the player's display name as it was when
//! the entry last changed, and the metadata of the play that changed it. Plays go through the
//! submit-score handler, reads through the API handler, both on DynamoDB Local.

use crate::common;

use leaderboard_devkit::testing::{RawItem, s};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use serde_json::{Value, json};

use common::*;

impl Harness {
    async fn rename(&self, player: &str, name: &str) {
        let body = json!({ "name": name });
        let (status, profile) = self
            .call("PUT", "/players/me", As::Player(player), Some(&body))
            .await;
        assert_eq!((status, profile["name"].as_str()), (200, Some(name)));
    }

    /// `(playerId, name)` of every entry of a listing's `entries`.
    async fn names(&self, path: &str) -> Vec<(String, String)> {
        let (status, body) = self.get(path).await;
        assert_eq!(status, 200, "{path}: {body}");
        body["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let field = |f: &str| e[f].as_str().unwrap_or("<none>").to_owned();
                (field("playerId"), field("name"))
            })
            .collect()
    }

    /// The name and metadata of a player's entry on a board, from every route that lists it:
    /// top-N, the player's entry, around, and the player's entries across boards.
    async fn shown(&self, board: &str, player: &str) -> (String, Value) {
        let mut seen = Vec::new();
        let (_, top) = self.get(&format!("/leaderboards/{board}/scores")).await;
        let (_, own) = self
            .get(&format!("/leaderboards/{board}/players/{player}"))
            .await;
        let (_, around) = self
            .get(&format!("/leaderboards/{board}/players/{player}/around"))
            .await;
        let (_, across) = self.get(&format!("/players/{player}/scores")).await;
        for (entries, key) in [
            (&top["entries"], "playerId"),
            (&around["entries"], "playerId"),
            (&across["entries"], "leaderboardId"),
        ] {
            let want = if key == "playerId" { player } else { board };
            let entry = entries
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e[key] == want)
                .unwrap_or_else(|| panic!("{board}/{player} not listed: {entries}"));
            seen.push(entry.clone());
        }
        seen.push(own);
        let name = seen[0]["name"].clone();
        let metadata = seen[0].get("metadata").cloned().unwrap_or(Value::Null);
        for e in &seen {
            assert_eq!(
                (&e["name"], e.get("metadata").unwrap_or(&Value::Null)),
                (&name, &metadata),
                "routes disagree on {board}/{player}: {seen:?}"
            );
        }
        (name.as_str().unwrap().to_owned(), metadata)
    }
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(p, n)| (p.to_string(), n.to_string()))
        .collect()
}

#[tokio::test]
async fn every_listing_names_its_entries_as_they_were_when_they_last_changed() {
    let h = harness("api_names").await;
    let b = h.board("names_b", Order::Desc).await;
    h.board("names_c", Order::Desc).await;
    // An entry written before names were kept has none stored: it shows its playerId.
    let old = PlayerId::parse("p_old").unwrap();
    let at = Timestamp::from_millis(Timestamp::now().as_millis() - 60_000).unwrap();
    h.store
        .boards()
        .import_entries(&b, &[(old.clone(), 5, at)])
        .await
        .unwrap();
    h.store.rank().build_rank_index(&b).await.unwrap();
    h.rename("p_alice", "Alice").await;
    h.play("p_alice", 100, &["names_b", "names_c"]).await;
    h.play("p_bob", 50, &["names_b"]).await;

    let want = pairs(&[("p_alice", "Alice"), ("p_bob", "p_bob"), ("p_old", "p_old")]);
    assert_eq!(h.names("/leaderboards/names_b/scores").await, want);
    assert_eq!(
        h.names("/leaderboards/names_b/players/p_bob/around?n=1")
            .await,
        want
    );
    for (board, player, name) in [
        ("names_b", "p_alice", "Alice"),
        ("names_c", "p_alice", "Alice"),
        ("names_b", "p_bob", "p_bob"),
        ("names_b", "p_old", "p_old"),
    ] {
        assert_eq!(h.shown(board, player).await.0, name, "{board}/{player}");
    }
    // The stored Score items carry the names they were written with, p_old's none.
    let mut stored: Vec<(Option<String>, Option<String>)> = h
        .table
        .dump()
        .await
        .iter()
        .filter(|i| s(i, "pk") == Some("LEADERBOARD#names_b"))
        .filter(|i| s(i, "sk").is_some_and(|k| k.starts_with("SCORE#")))
        .map(|i: &RawItem| {
            (
                s(i, "playerId").map(str::to_owned),
                s(i, "name").map(str::to_owned),
            )
        })
        .collect();
    stored.sort();
    assert_eq!(
        stored,
        [
            (Some("p_alice".into()), Some("Alice".into())),
            (Some("p_bob".into()), Some("p_bob".into())),
            (Some("p_old".into()), None),
        ]
    );

    // Renamed: only the entries that change from now on take the new names.
    h.rename("p_alice", "Alicia").await;
    h.rename("p_bob", "Bobby").await;
    h.play("p_alice", 200, &["names_b"]).await; // better: b changes
    h.play("p_alice", 10, &["names_c"]).await; // worse: c is kept as it was
    assert_eq!(h.shown("names_b", "p_alice").await.0, "Alicia");
    assert_eq!(h.shown("names_c", "p_alice").await.0, "Alice");
    assert_eq!(h.shown("names_b", "p_bob").await.0, "p_bob");
    h.play("p_bob", 60, &["names_b"]).await;
    assert_eq!(
        h.names("/leaderboards/names_b/scores").await,
        pairs(&[
            ("p_alice", "Alicia"),
            ("p_bob", "Bobby"),
            ("p_old", "p_old"),
        ])
    );

    // After close the final standings keep the names, on every route that reads them.
    let id = BoardId::parse("names_b").unwrap();
    let after_end = Timestamp::now().plus_millis(2 * 86_400_000);
    h.store
        .close()
        .close_board(&id, after_end, &Default::default())
        .await
        .unwrap();
    let closed = pairs(&[
        ("p_alice", "Alicia"),
        ("p_bob", "Bobby"),
        ("p_old", "p_old"),
    ]);
    assert_eq!(h.names("/leaderboards/names_b/scores").await, closed);
    assert_eq!(
        h.names("/leaderboards/names_b/players/p_bob/around?n=1")
            .await,
        closed
    );
    let (_, own) = h.get("/leaderboards/names_b/players/p_bob").await;
    assert_eq!(
        (own["name"].as_str(), own["rank"].as_u64()),
        (Some("Bobby"), Some(2))
    );
}

#[tokio::test]
async fn metadata_is_kept_on_the_play_and_on_the_entries_it_changed() {
    let h = harness("api_metadata").await;
    h.board("md_b", Order::Desc).await;
    h.board("md_c", Order::Desc).await;
    let red = json!({"car": "red", "laps": [1, 2.5, -3], "ghost": {"id": "r-1", "ok": true},
                     "none": null, "empty": {}, "text": ""});
    let body = json!({"score": 100, "gameId": "tetris", "leaderboardIds": ["md_b", "md_c"],
                      "metadata": red});
    let (status, first) = h.post("p_alice", None, &body).await;
    assert_eq!(status, 200, "{first}");
    // An empty object says nothing and is dropped; the rest is kept as sent.
    let mut red = red;
    red.as_object_mut().unwrap().remove("empty");
    for board in ["md_b", "md_c"] {
        assert_eq!(h.shown(board, "p_alice").await.1, red, "{board}");
    }
    let sid = first["sessionId"].as_str().unwrap();
    let (_, session) = h.get(&format!("/players/p_alice/sessions/{sid}")).await;
    assert_eq!(session["metadata"], red);
    // Stored as a DynamoDB map on the Session, the Score item and the pointer.
    let dump = h.table.dump().await;
    let maps = dump
        .iter()
        .filter(|i| i.get("metadata").is_some_and(|m| m.is_m()))
        .count();
    assert_eq!(maps, 1 + 2 * 2, "the session, and two items per board");

    // A repeat of the session id is the first play; with other metadata it is another play,
    // refused. Neither changes anything.
    let mut repeat = body.clone();
    repeat["sessionId"] = json!(sid);
    let (status, again) = h.post("p_alice", None, &repeat).await;
    assert_eq!((status, &again["duplicate"]), (200, &json!(true)));
    repeat["metadata"] = json!({"car": "green"});
    let (status, again) = h.post("p_alice", None, &repeat).await;
    assert_eq!(
        (status, &again["error"]["code"]),
        (409, &json!("idempotency_mismatch"))
    );
    assert_eq!(h.table.dump().await, dump);

    // The shorthand's play changes md_b: md_b shows its metadata, md_c still the first.
    let blue = json!({"car": "blue"});
    let (status, _) = h
        .post(
            "p_alice",
            Some("md_b"),
            &json!({"score": 150, "gameId": "tetris", "metadata": blue}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(h.shown("md_b", "p_alice").await.1, blue);
    assert_eq!(h.shown("md_c", "p_alice").await.1, red);
    // A play without metadata that changes md_b leaves it none; one with metadata that does
    // not change md_c (a worse score on a `best` board) leaves md_c's as it was.
    h.play("p_alice", 200, &["md_b"]).await;
    assert_eq!(h.shown("md_b", "p_alice").await.1, Value::Null);
    let (_, top) = h.get("/leaderboards/md_b/scores").await;
    assert!(top["entries"][0].get("metadata").is_none(), "{top}");
    let worse = json!({"score": 1, "gameId": "tetris", "leaderboardIds": ["md_c"],
                       "metadata": {"car": "grey"}});
    let (_, kept) = h.post("p_alice", None, &worse).await;
    assert_eq!(kept["results"][0]["improved"], false);
    assert_eq!(h.shown("md_c", "p_alice").await.1, red);
    let sid = kept["sessionId"].as_str().unwrap();
    let (_, session) = h.get(&format!("/players/p_alice/sessions/{sid}")).await;
    assert_eq!(session["metadata"], json!({"car": "grey"}));
}

#[tokio::test]
async fn metadata_that_is_not_a_small_object_is_refused_and_writes_nothing() {
    let h = harness("api_metadata_refused").await;
    h.board("md_x", Order::Desc).await;
    h.play("p_alice", 10, &["md_x"]).await;
    let before = h.table.dump().await;
    let keys: serde_json::Map<String, Value> =
        (0..65).map(|i| (format!("k{i}"), json!(i))).collect();
    let refused = [
        json!([1]),
        json!("red"),
        json!(7),
        json!(true),
        json!({"replay": "x".repeat(1_012)}), // 1,025 bytes serialised
        json!({"a": {"b": {"c": {"d": {}}}}}),
        Value::Object(keys),
        json!({"": 1}),
        json!({"n": 1e300}),
    ];
    for metadata in refused {
        for board in [None, Some("md_x")] {
            let mut body = json!({"score": 20, "gameId": "tetris", "metadata": metadata});
            // The board's route names its board in the path.
            if board.is_none() {
                body["leaderboardIds"] = json!(["md_x"]);
            }
            let (status, err) = h.post("p_alice", board, &body).await;
            assert_eq!(
                (status, code(&err)),
                (400, "invalid_request"),
                "{metadata}: {err}"
            );
            let message = err["error"]["message"].as_str().unwrap();
            assert!(message.starts_with("metadata "), "{message}");
            assert_eq!(h.table.dump().await, before, "{metadata} wrote");
        }
    }
    // At the limit it is accepted: 1,024 bytes serialised.
    let full = json!({"replay": "x".repeat(1_011)});
    assert_eq!(serde_json::to_vec(&full).unwrap().len(), 1_024);
    let body = json!({"score": 20, "gameId": "tetris", "leaderboardIds": ["md_x"],
                      "metadata": full});
    let (status, out) = h.post("p_alice", None, &body).await;
    assert_eq!(status, 200, "{out}");
    assert_eq!(h.shown("md_x", "p_alice").await.1, full);
}
