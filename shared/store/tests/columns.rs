//! Tiebreak columns against DynamoDB Local: a board takes up to two on `best` and `latest`
//! and refuses the rest writing nothing; a play gives every column of each of its boards and
//! no other name, all or nothing; and a board ranks by score, then each column in its own
//! order, then earlier attainment, in every read (the model test: top-N, ranks, around
//! windows, friends, final standings; `best` and `latest`; 1 and 8 write shards).

use crate::common;

use common::*;
use leaderboard_keys::columns::{Column, Subscores};
use leaderboard_keys::rank::Order;
use leaderboard_store::model::{Board, NewBoard, Operator};
use leaderboard_store::{Store, StoreError};

fn column(name: &str, order: Order, max: u64) -> Column {
    Column::new(name, order, max).unwrap()
}

fn subs(pairs: &[(&str, u64)]) -> Subscores {
    pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
}

fn with_columns(id: &str, operator: Operator, columns: Vec<Column>) -> NewBoard {
    NewBoard {
        columns,
        ..new_board(id, Order::Desc, operator, 9_999)
    }
}

#[tokio::test]
async fn a_board_takes_two_columns_on_best_and_latest_and_refuses_the_rest_writing_nothing() {
    let (table, store) = store_without_stream("columns_boards").await;
    let time = column("time", Order::Asc, 99_999);
    let moves = column("moves", Order::Asc, 999);
    let before = table.dump().await;
    let refused = [
        with_columns("b", Operator::Increment, vec![time.clone()]),
        with_columns(
            "b",
            Operator::Best,
            vec![time.clone(), moves.clone(), column("x", Order::Desc, 9)],
        ),
        with_columns("b", Operator::Best, vec![time.clone(), time.clone()]),
        with_columns("b", Operator::Best, vec![column("score", Order::Desc, 9)]),
        with_columns("b", Operator::Best, vec![column("t", Order::Desc, 0)]),
        with_columns(
            "b",
            Operator::Latest,
            vec![column("t", Order::Desc, 1_000_000_000_001)],
        ),
    ];
    for new in refused {
        let r = store.boards().create_board(new.clone(), at(0)).await;
        assert!(matches!(r, Err(StoreError::Invalid(_))), "{new:?}: {r:?}");
    }
    assert_eq!(table.dump().await, before, "a refused board wrote");
    for (id, operator) in [("best", Operator::Best), ("latest", Operator::Latest)] {
        let new = with_columns(id, operator, vec![time.clone(), moves.clone()]);
        let board = store.boards().create_board(new, at(0)).await.unwrap();
        let stored = store.boards().get_board(&bid(id)).await.unwrap().unwrap();
        assert_eq!(stored, board);
        assert_eq!(stored.columns, [time.clone(), moves.clone()]);
    }
}

#[tokio::test]
async fn a_play_gives_every_column_of_each_board_and_no_other_or_writes_nothing() {
    let (table, store) = store_without_stream("columns_plays").await;
    let time = column("time", Order::Asc, 99_999);
    let new = with_columns("timed", Operator::Best, vec![time]);
    store.boards().create_board(new, at(0)).await.unwrap();
    board(&store, "plain", Order::Desc, Operator::Best).await;
    let before = table.dump().await;
    let cases: [(&[&str], Subscores); 6] = [
        (&["timed"], subs(&[])),
        (&["timed"], subs(&[("time", 5), ("moves", 1)])),
        (&["timed"], subs(&[("time", 100_000)])),
        (&["plain"], subs(&[("time", 5)])),
        // all or nothing: a column missing for one board, or a value no board ranks by
        (&["plain", "timed"], subs(&[])),
        (&["timed", "plain"], subs(&[("time", 5), ("moves", 1)])),
    ];
    for (i, (boards, given)) in cases.into_iter().enumerate() {
        let mut p = play("p_a", 10, boards, sid(i as u64, 1));
        p.subscores = given.clone();
        let r = store.plays().record_play(&p, at(1_000)).await;
        let out_of_range = given.get("time") == Some(&100_000);
        match r {
            Err(StoreError::SubscoreOutOfRange { .. }) if out_of_range => {}
            Err(StoreError::Invalid(why)) if !out_of_range => {
                assert!(why.contains("subscores"), "{why}")
            }
            other => panic!("{boards:?} {given:?}: {other:?}"),
        }
    }
    assert_eq!(table.dump().await, before, "a refused play wrote");
    // a play on a board with columns and one without gives the first its values
    let mut p = play("p_b", 10, &["timed", "plain"], sid(8, 1));
    p.subscores = subs(&[("time", 7)]);
    store.plays().record_play(&p, at(1_000)).await.unwrap();
    let plain = store
        .boards()
        .get_board(&bid("plain"))
        .await
        .unwrap()
        .unwrap();
    let entry = store
        .listings()
        .player_rank(&plain, &pid("p_b"))
        .await
        .unwrap();
    assert_eq!(entry.unwrap().subscores, Subscores::new());
    // the right values are taken and shown on the entry and the session
    let mut p = play("p_a", 10, &["timed"], sid(9, 1));
    p.subscores = subs(&[("time", 53_211)]);
    store.plays().record_play(&p, at(1_000)).await.unwrap();
    let timed = store
        .boards()
        .get_board(&bid("timed"))
        .await
        .unwrap()
        .unwrap();
    let entry = store
        .listings()
        .player_rank(&timed, &pid("p_a"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (entry.rank, entry.subscores),
        (2, subs(&[("time", 53_211)]))
    );
    let session = store
        .listings()
        .get_session(&pid("p_a"), &sid(9, 1))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(session.subscores, subs(&[("time", 53_211)]));
}

/// One play of the model: player, score, subscores (in column order), time.
type Played = (String, u64, Vec<u64>, u64);

/// The entries the contract keeps from `plays` on a board of `columns` and `operator`, in rank
/// order: `best` keeps each player's best tuple (the earlier of equal ones), `latest` the last.
fn model(columns: &[Column], operator: Operator, plays: &[Played]) -> Vec<Played> {
    let key = |p: &Played| {
        let mut k = vec![u64::MAX - p.1];
        for (c, v) in columns.iter().zip(&p.2) {
            k.push(match c.order {
                Order::Desc => u64::MAX - v,
                Order::Asc => *v,
            });
        }
        k.push(p.3);
        k
    };
    let mut kept: std::collections::BTreeMap<String, Played> = Default::default();
    for p in plays {
        let replace = match kept.get(&p.0) {
            None => true,
            Some(cur) => operator == Operator::Latest || key(p) < key(cur),
        };
        if replace {
            kept.insert(p.0.clone(), p.clone());
        }
    }
    let mut entries: Vec<Played> = kept.into_values().collect();
    entries.sort_by(|a, b| key(a).cmp(&key(b)).then(b.0.cmp(&a.0)));
    entries
}

/// What `board` answers for each read, as (rank, player) lines: top-N walked 4 at a time,
/// each player's rank and around window (n = 2), and every other player's friends listing.
async fn reads(store: &Store, board: &Board, players: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = store
            .listings()
            .top_scores(board, 4, cursor.as_deref())
            .await
            .unwrap();
        for e in &page.items {
            out.push(format!("top {} {} {:?}", e.rank, e.player_id, e.subscores));
        }
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    for p in players {
        let e = store.listings().player_rank(board, &pid(p)).await.unwrap();
        let e = e.unwrap();
        out.push(format!(
            "rank {} {p} exact {}",
            e.rank,
            e.freshness.unwrap().rank_exact
        ));
        let around = store
            .listings()
            .around_player(board, &pid(p), 2)
            .await
            .unwrap()
            .unwrap();
        let window: Vec<_> = around.iter().map(|e| e.player_id.to_string()).collect();
        out.push(format!("around {p} {window:?}"));
    }
    let friends: Vec<_> = players.iter().step_by(2).map(|p| pid(p)).collect();
    let (entries, _) = store.listings().entries_of(board, &friends).await.unwrap();
    for e in entries {
        out.push(format!("friend {} {}", e.rank, e.player_id));
    }
    out
}

/// What the model says the same reads answer.
fn model_reads(columns: &[Column], entries: &[Played], players: &[String]) -> Vec<String> {
    let mut out: Vec<String> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let named = leaderboard_keys::columns::named(columns, &e.2);
            format!("top {} {} {named:?}", i + 1, e.0)
        })
        .collect();
    for p in players {
        let at = entries.iter().position(|e| &e.0 == p).unwrap();
        out.push(format!("rank {} {p} exact true", at + 1));
        let window: Vec<_> = entries[at.saturating_sub(2)..(at + 3).min(entries.len())]
            .iter()
            .map(|e| e.0.clone())
            .collect();
        out.push(format!("around {p} {window:?}"));
    }
    let friends: Vec<&String> = players.iter().step_by(2).collect();
    for (i, e) in entries.iter().enumerate() {
        if friends.contains(&&e.0) {
            out.push(format!("friend {} {}", i + 1, e.0));
        }
    }
    out
}

#[tokio::test]
async fn every_read_and_the_final_standings_rank_by_score_then_columns_then_time() {
    let (_table, store) = store_without_stream("columns_model").await;
    let players: Vec<String> = (0..9).map(|i| format!("p{i}")).collect();
    let orders = [
        vec![(Order::Desc, 9)],
        vec![(Order::Asc, 9)],
        vec![(Order::Desc, 5), (Order::Asc, 999)],
        vec![(Order::Asc, 5), (Order::Desc, 99)],
    ];
    for (n, cols) in orders.iter().enumerate() {
        let columns: Vec<Column> = cols
            .iter()
            .enumerate()
            .map(|(i, (o, max))| column(&format!("c{i}"), *o, *max))
            .collect();
        for (op, operator) in [("best", Operator::Best), ("latest", Operator::Latest)] {
            let mut boards = Vec::new();
            for shards in [1u8, 8] {
                let id = format!("m{n}_{op}_{shards}");
                let new = NewBoard {
                    write_shards: shards,
                    ..with_columns(&id, operator, columns.clone())
                };
                boards.push(store.boards().create_board(new, at(0)).await.unwrap());
            }
            let ids: Vec<String> = boards.iter().map(|b| b.board_id.to_string()).collect();
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            // Two scores for nine players, column values that tie often, two rounds: ties of
            // score, of every column, and of score and columns (the time decides).
            let mut played: Vec<Played> = Vec::new();
            for round in 0..2u64 {
                for (i, p) in players.iter().enumerate() {
                    let i = i as u64;
                    let score = 10 + (i + round) % 2;
                    let values: Vec<u64> = cols
                        .iter()
                        .enumerate()
                        .map(|(c, (_, max))| (i * (c as u64 + 2) + round) % 3 % (max + 1))
                        .collect();
                    let ms = 1_000 * (round * 100 + i / 3) + 1;
                    let mut pl = play(p, score, &ids, sid(ms, rand::random()));
                    pl.subscores = leaderboard_keys::columns::named(&columns, &values);
                    store.plays().record_play(&pl, at(ms)).await.unwrap();
                    played.push((p.clone(), score, values, ms));
                }
            }
            let entries = model(&columns, operator, &played);
            let want = model_reads(&columns, &entries, &players);
            for b in &boards {
                store.rank().build_rank_index(b).await.unwrap();
                assert_eq!(reads(&store, b, &players).await, want, "{}", b.board_id);
            }
            // closed: the final standings are the model's, with the subscores
            let want: Vec<String> = entries
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let named = leaderboard_keys::columns::named(&columns, &e.2);
                    format!("{} {} {} {named:?}", i + 1, e.0, e.1)
                })
                .collect();
            for b in &boards {
                assert_eq!(standings(&store, b).await, want, "{}", b.board_id);
            }
        }
    }
}

/// `board` closed, and its final standings as (rank, player, score, subscores) lines; each
/// player's result checked against their standing.
async fn standings(store: &Store, board: &Board) -> Vec<String> {
    let end = leaderboard_keys::time::Timestamp::from_millis(T0 + 366 * 86_400_000).unwrap();
    while !matches!(
        store
            .close()
            .close_board(&board.board_id, end, &Default::default())
            .await
            .unwrap(),
        leaderboard_store::CloseProgress::Closed { .. }
    ) {}
    let page = store
        .listings()
        .final_standings(&board.board_id, 100, None)
        .await
        .unwrap();
    // Each player's season result carries the values it was ranked by, as the standing does.
    for e in &page.items {
        let results = store
            .listings()
            .player_results(&e.player_id, 100, None)
            .await
            .unwrap();
        let mine = results
            .items
            .iter()
            .find(|r| r.entry.board_id == board.board_id);
        let mine = mine.unwrap();
        assert_eq!((mine.rank, &mine.entry.subscores), (e.rank, &e.subscores));
    }
    page.items
        .iter()
        .map(|e| format!("{} {} {} {:?}", e.rank, e.player_id, e.score, e.subscores))
        .collect()
}

#[tokio::test]
async fn ties_down_to_a_column_are_ranked_exactly_from_the_index_with_one_read_more() {
    use leaderboard_devkit::local::counting_client;
    let (table, _) = store_without_stream("columns_deep").await;
    let (client, counter) = counting_client(&table.endpoint);
    let store = store_with_client(&table, client);
    // points, then the shorter time (7 digits), then more kills (3): 199 players on 1 point
    // in two times, so their paths share 16 digits (8 nodes); one alone on 3 points
    let columns = vec![
        column("time", Order::Asc, 9_999_999),
        column("kills", Order::Desc, 999),
    ];
    let board = store
        .boards()
        .create_board(with_columns("deep", Operator::Best, columns.clone()), at(0))
        .await
        .unwrap();
    let mut keys = Vec::new();
    for i in 0..200u64 {
        let (player, score) = if i == 0 {
            ("top".to_owned(), 3)
        } else {
            (format!("p{i:03}"), 1)
        };
        let values = [1_000_000 + i % 2, i % 7];
        let mut p = play(&player, score, &["deep"], sid(i, 1));
        p.subscores = leaderboard_keys::columns::named(&columns, &values);
        let out = store.plays().record_play(&p, at(1_000 + i)).await.unwrap();
        let spec = board.spec().unwrap();
        keys.push((
            player,
            spec.score_sort_key_with(
                score,
                &values,
                out.session.attained_at.as_millis(),
                &p.player_id,
            )
            .unwrap(),
        ));
    }
    store.rank().build_rank_index(&board).await.unwrap();
    let mut requests = std::collections::BTreeMap::new();
    for (player, mine) in &keys {
        counter.reset();
        let e = store
            .listings()
            .player_rank(&board, &pid(player))
            .await
            .unwrap()
            .unwrap();
        let truth = keys.iter().filter(|(_, k)| k > mine).count() as u64 + 1;
        let f = e.freshness.unwrap();
        assert_eq!((e.rank, f.rank_exact), (truth, true), "{player}");
        let batches = counter.snapshot().get("BatchGetItem").copied().unwrap_or(0);
        requests.insert(player.clone(), batches);
    }
    // the one alone ends its path at the root; the tied ones read on past 7 nodes
    let tied = requests["p001"];
    assert_eq!(requests["top"] + 1, tied, "{requests:?}");
    assert!(requests.values().all(|n| *n <= tied), "{requests:?}");
}
