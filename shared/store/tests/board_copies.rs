//! Plays deciding from a process's copy of a hot board, on DynamoDB Local, while another
//! process changes the board's settings: an admin's early end and a widening's new width and
//! maximum. A copy older than the settings never writes (the lane's settings version refuses
//! it, and the play decides again from the board as it is) and never refuses what the board
//! takes; plays racing a change are taken exactly when the board took them.

use crate::common;

use common::*;
use leaderboard_devkit::testing::{RawItem, n, s};
use leaderboard_keys::rank::Order;
use leaderboard_store::model::{Board, Operator};
use leaderboard_store::widening::WideningStep;
use leaderboard_store::{Store, StoreError, WidenOptions, WidenProgress};

/// A board of 4 write shards, open from T0 for a year.
async fn hot_board(store: &Store, id: &str, max_score: u64) -> Board {
    let mut nb = new_board(id, Order::Desc, Operator::Best, max_score);
    nb.write_shards = 4;
    store.boards().create_board(nb, at(0)).await.unwrap()
}

/// A second process over the same table: its own copies of boards (none yet).
fn other_process(table: &leaderboard_devkit::testing::TestTable) -> Store {
    store_with_client(table, table.client.clone())
}

/// `player`'s items in the dump: their Session items and entry pointers, and Score items.
fn written_for(dump: &[RawItem], player: &str) -> Vec<String> {
    dump.iter()
        .filter(|i| {
            s(i, "pk") == Some(&format!("PLAYER#{player}")) || s(i, "playerId") == Some(player)
        })
        .map(|i| format!("{} / {}", s(i, "pk").unwrap(), s(i, "sk").unwrap()))
        .collect()
}

/// The board's lanes' written counts, summed (every change of an entry adds one).
fn written_on_lanes(dump: &[RawItem], id: &str) -> u64 {
    dump.iter()
        .filter(|i| s(i, "pk").is_some_and(|pk| pk.starts_with(&format!("RANKSEQ#{id}"))))
        .filter_map(|i| n(i, "written"))
        .map(|w| w.parse::<u64>().unwrap())
        .sum()
}

#[tokio::test]
async fn a_copy_older_than_an_early_end_refuses_the_play_and_writes_nothing() {
    let (t, players) = store("copy_end").await;
    hot_board(&players, "copy_end", 1_000).await;
    // GIVEN a process that played on the board (so it keeps a copy of it)
    submit(&players, "p0", 10, &["copy_end"], 1_000).await;
    // WHEN another process ends the board now
    let admin = other_process(&t);
    let ended = admin
        .tournaments()
        .close_now(&bid("copy_end"), "admin", at(2_000))
        .await
        .unwrap();
    assert_eq!(ended.settings_version, 1);
    // THEN a play after the end, from the process with the old copy, is refused, as by the
    // board itself, and writes nothing
    let before = t.dump().await;
    let refused = players
        .plays()
        .record_play(&play("p1", 20, &["copy_end"], sid(3_000, 1)), at(3_000))
        .await;
    assert!(
        matches!(refused, Err(StoreError::BoardClosed { .. })),
        "{refused:?}"
    );
    assert_eq!(t.dump().await, before, "a refused play writes nothing");
    // AND every lane holds the board's version
    let lanes: Vec<_> = before
        .iter()
        .filter(|i| s(i, "pk").is_some_and(|pk| pk.starts_with("RANKSEQ#copy_end")))
        .collect();
    assert_eq!(lanes.len(), 10);
    assert!(lanes.iter().all(|l| n(l, "settingsVersion") == Some("1")));
}

#[tokio::test]
async fn plays_racing_an_early_end_are_taken_exactly_when_the_board_took_them() {
    let (t, players) = store("copy_race").await;
    hot_board(&players, "copy_race", 1_000).await;
    submit(&players, "warm", 1, &["copy_race"], 1_000).await;
    let admin = other_process(&t);
    // WHEN 40 plays (each a new player, at times on both sides of the end) race the early
    // end at 30 s, from the process with the copy
    let racing = (0..40u64).map(|i| {
        let players = players.clone();
        async move {
            let ms = 10_000 + i * 1_000;
            let p = format!("r{i}");
            let out = players
                .plays()
                .record_play(&play(&p, i, &["copy_race"], sid(ms, 7)), at(ms))
                .await;
            (p, ms, out)
        }
    });
    let end = async {
        tokio::task::yield_now().await;
        admin
            .tournaments()
            .close_now(&bid("copy_race"), "admin", at(30_000))
            .await
            .unwrap()
    };
    let (outcomes, ended) = tokio::join!(futures::future::join_all(racing), end);
    // THEN every play was taken or refused as a whole: taken ones are on the board and on the
    // lanes, refused ones (after the end, by its end) wrote nothing
    let dump = t.dump().await;
    let mut taken = 1;
    for (p, ms, out) in &outcomes {
        match out {
            Ok(_) => {
                taken += 1;
                assert!(!written_for(&dump, p).is_empty(), "{p}");
            }
            Err(StoreError::BoardClosed { .. }) => {
                assert!(*ms >= 30_000, "{p} at {ms} refused before the end");
                assert_eq!(written_for(&dump, p), Vec::<String>::new(), "{p}");
            }
            Err(e) => panic!("{p}: {e:?}"),
        }
    }
    assert_eq!(written_on_lanes(&dump, "copy_race"), taken);
    assert_eq!(ended.settings_version, 1);
    // AND after the end no play at or past it is taken, whatever lane it writes
    for i in 0..20u64 {
        let p = format!("late{i}");
        let out = players
            .plays()
            .record_play(&play(&p, i, &["copy_race"], sid(40_000, 9)), at(40_000))
            .await;
        assert!(matches!(out, Err(StoreError::BoardClosed { .. })), "{p}");
    }
    assert_eq!(written_on_lanes(&t.dump().await, "copy_race"), taken);
}

/// Widens board `id` to `max` from start to end, in `store`.
async fn widen_all(store: &Store, id: &str, max: u64) -> Board {
    let options = WidenOptions {
        page: 100,
        grace: std::time::Duration::ZERO,
        now: at(0),
    };
    let mut steps = Vec::new();
    loop {
        match store.rank().widen_step(&bid(id), max, &options).await {
            Ok(WidenProgress::Done(b)) => {
                assert!(steps.contains(&WideningStep::Index), "{steps:?}");
                return *b;
            }
            Ok(WidenProgress::Running { step, .. }) => steps.push(step),
            Err(e) => panic!("{steps:?}: {e:?}"),
        }
    }
}

#[tokio::test]
async fn a_copy_read_before_a_widening_writes_the_new_generation_and_takes_the_new_maximum() {
    let (t, first) = store("copy_widen").await;
    hot_board(&first, "copy_widen", 999).await;
    let second = other_process(&t);
    // GIVEN two processes that played on the board before it widened
    submit(&first, "p0", 500, &["copy_widen"], 1_000).await;
    submit(&second, "p1", 400, &["copy_widen"], 1_000).await;
    // WHEN a third widens it to 99,999 (a new generation of entries)
    let widened = widen_all(&other_process(&t), "copy_widen", 99_999).await;
    assert_eq!((widened.entry_generation, widened.max_score), (1, 99_999));
    assert_eq!(widened.settings_version, 1);
    // THEN a play from the first process's old copy lands in the new generation, not the old
    submit(&first, "p2", 600, &["copy_widen"], 2_000).await;
    let dump = t.dump().await;
    let old_pk = Board {
        entry_generation: 0,
        ..widened.clone()
    }
    .score_pk(&pid("p2"));
    let new_pk = widened.score_pk(&pid("p2"));
    let p2_scores: Vec<_> = written_for(&dump, "p2")
        .into_iter()
        .filter(|k| k.contains("SCORE#"))
        .collect();
    assert_eq!(p2_scores.len(), 1, "{p2_scores:?}");
    assert!(
        p2_scores[0].starts_with(&format!("{new_pk} / ")),
        "{p2_scores:?}"
    );
    assert_ne!(old_pk, new_pk);
    // AND a score above the old maximum from the second process's old copy is taken
    let out = submit(&second, "p3", 50_000, &["copy_widen"], 3_000).await;
    assert!(out.session.outcomes[0].improved, "{out:?}");
    let top = second
        .listings()
        .top_scores(&widened, 10, None)
        .await
        .unwrap();
    let listed: Vec<_> = top
        .items
        .iter()
        .map(|e| (e.player_id.to_string(), e.score))
        .collect();
    assert_eq!(
        listed,
        [("p3", 50_000), ("p2", 600), ("p0", 500), ("p1", 400)].map(|(p, s)| (p.to_owned(), s))
    );
}
