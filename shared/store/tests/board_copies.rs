//! Plays deciding from a process's copy of a hot board, on DynamoDB Local, while another
//! process changes the board's settings: an admin's early end and a widening's new width and
//! maximum. A copy older than the settings never writes (the lane's settings version refuses
//! it, and the play decides again from the board as it is) and never refuses what the board
//! takes; plays racing a change are taken exactly when the board took them, and plays racing a
//! whole widening leave each entry once, in the new generation.

use crate::common;

use common::*;
use leaderboard_devkit::testing::{RawItem, n, s};
use leaderboard_keys::entity;
use leaderboard_keys::rank::Order;
use leaderboard_keys::rank_index::MAX_LANES;
use leaderboard_store::model::{Board, Operator};
use leaderboard_store::widening::WideningStep;
use leaderboard_store::{Store, StoreError, WidenOptions, WidenProgress};

/// A board of 32 write shards (and as many lanes, each of which a settings change writes in
/// its transaction), open from T0 for a year.
async fn wide_board(store: &Store, id: &str, max_score: u64) -> Board {
    let mut nb = new_board(id, Order::Desc, Operator::Best, max_score);
    nb.write_shards = 32;
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

/// The items of hot board `id`'s lanes (kept apart, a partition key each) in the dump.
fn lanes_in<'a>(dump: &'a [RawItem], id: &str) -> Vec<&'a RawItem> {
    let keys: Vec<_> = (0..MAX_LANES)
        .map(|lane| entity::lane(&bid(id), lane))
        .collect();
    dump.iter()
        .filter(|i| {
            keys.iter()
                .any(|k| s(i, "pk") == Some(&k.pk) && s(i, "sk") == Some(&k.sk))
        })
        .collect()
}

/// The board's lanes' written counts, summed (every change of an entry adds one).
fn written_on_lanes(dump: &[RawItem], id: &str) -> u64 {
    lanes_in(dump, id)
        .into_iter()
        .filter_map(|i| n(i, "written"))
        .map(|w| w.parse::<u64>().unwrap())
        .sum()
}

#[tokio::test]
async fn a_copy_older_than_an_early_end_refuses_the_play_and_writes_nothing() {
    let (t, players) = store("copy_end").await;
    wide_board(&players, "copy_end", 1_000).await;
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
    // AND every lane (a write shard's) holds the board's version
    let lanes = lanes_in(&before, "copy_end");
    assert_eq!(lanes.len(), 32);
    assert!(lanes.iter().all(|l| n(l, "settingsVersion") == Some("1")));
}

#[tokio::test]
async fn plays_racing_an_early_end_are_taken_exactly_when_the_board_took_them() {
    let (t, players) = store("copy_race").await;
    wide_board(&players, "copy_race", 1_000).await;
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
    wide_board(&first, "copy_widen", 999).await;
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

#[tokio::test]
async fn plays_from_a_copy_racing_a_whole_widening_leave_each_entry_once_in_the_new_generation() {
    let (t, players) = store_without_stream("copy_widen_race").await;
    wide_board(&players, "copy_wrace", 999).await;
    for i in 0..12u64 {
        submit(
            &players,
            &format!("w{i}"),
            10 + i,
            &["copy_wrace"],
            1_000 + i,
        )
        .await;
    }
    // WHEN the process with the copy keeps playing (scores up to 1,499: above the old maximum
    // refused until the switch) while another widens the board to 99,999 from start to end
    let widening = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let racing: Vec<_> = (0..3u64)
        .map(|w| {
            let (players, widening) = (players.clone(), widening.clone());
            tokio::spawn(async move {
                let (mut i, mut taken, mut refused) = (0u64, 0u64, 0u64);
                while i < 10 || widening.load(std::sync::atomic::Ordering::SeqCst) {
                    let p = format!("w{}", (w * 5 + i * 7) % 14);
                    let score = (w * 389 + i * 211) % 1_500;
                    let ms = 10_000 + w * 100_000 + i;
                    let out = players
                        .plays()
                        .record_play(&play(&p, score, &["copy_wrace"], sid(ms, 3)), at(ms))
                        .await;
                    match out {
                        Ok(_) => taken += 1,
                        Err(StoreError::ScoreOutOfRange { .. }) if score > 999 => refused += 1,
                        Err(e) => panic!("{p} {score}: {e:?}"),
                    }
                    i += 1;
                }
                (taken, refused)
            })
        })
        .collect();
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let widened = widen_all(&other_process(&t), "copy_wrace", 99_999).await;
    widening.store(false, std::sync::atomic::Ordering::SeqCst);
    let mut taken = 0;
    for r in racing {
        taken += r.await.unwrap().0;
    }
    assert!(taken >= 20, "{taken} plays taken");
    // THEN every player's entry is once on the board, in the new generation, the one their
    // pointer names
    let dump = t.dump().await;
    let new_pks = widened.generation_score_pks(1);
    let scores: Vec<&RawItem> = dump
        .iter()
        .filter(|i| s(i, "sk").is_some_and(|k| k.starts_with("SCORE#")))
        .filter(|i| s(i, "pk").is_some_and(|pk| pk.starts_with("LEADERBOARD#copy_wrace")))
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    for item in &scores {
        let (pk, p) = (s(item, "pk").unwrap(), s(item, "playerId").unwrap());
        assert!(new_pks.iter().any(|k| k == pk), "{p}'s entry in {pk}");
        assert!(seen.insert(p.to_owned()), "{p} twice");
        let pointer = players
            .listings()
            .entry_pointer(&bid("copy_wrace"), &pid(p))
            .await
            .unwrap()
            .unwrap();
        // (A pointer not moved since the switch keeps the old width's key: the same entry.)
        let stored = (n(item, "score"), s(item, "sessionId"));
        let score = pointer.entry.score.to_string();
        let pointed = (Some(score.as_str()), Some(pointer.session_id.as_str()));
        assert_eq!(stored, pointed, "{p}");
    }
    assert!(seen.len() >= 12, "{seen:?}");
    // AND a score above the old maximum from the process's copy is taken now
    let out = submit(&players, "w_last", 1_499, &["copy_wrace"], 900_000).await;
    assert!(out.session.outcomes[0].improved);
}
