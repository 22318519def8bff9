//! Recounting players' totals from their Session items, on DynamoDB Local: sessions the
//! projection never saw (and some it saw twice) are recounted exactly, and the stream's records
//! after the recount (a dead-letter replay of old ones, new ones, their redeliveries) count once;
//! a recount paused after every page goes on to the same totals; a player who played too
//! recently, or who is erased, is refused and nothing is written.

use crate::common;

use common::*;
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::ids::SessionId;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::Operator;
use leaderboard_store::{
    PLAY_SETTLE, Play, ProjectedSession, Recount, RecountOutcome, RecountPages, SequenceNumber,
    Store,
};

const MINUTE: u64 = 60_000;

/// A play of `player` scoring `score` at `ms` after T0, as the projection sees it, numbered
/// `seq` in the stream.
async fn play(store: &Store, player: &str, score: u64, ms: u64, seq: u64) -> ProjectedSession {
    let now = at(ms);
    let play = Play {
        subscores: Default::default(),
        idempotency_key: None,
        metadata: None,
        player_id: pid(player),
        session_id: SessionId::from_parts(now.as_millis(), rand::random()).unwrap(),
        game_id: Some(gid("tetris")),
        score,
        duration_sec: None,
        board_ids: vec![bid("b")],
    };
    store.plays().record_play(&play, now).await.unwrap();
    ProjectedSession {
        sequence_number: SequenceNumber::parse(&seq.to_string()).unwrap(),
        score,
        attained_at: now,
    }
}

/// A recount of `player` started at `now`, read whole in one call.
async fn recount(store: &Store, player: &str, now: Timestamp) -> RecountOutcome {
    store
        .projection()
        .recount_player(Recount::start(pid(player), now), RecountPages::default())
        .await
        .unwrap()
}

async fn project(store: &Store, player: &str, sessions: &[ProjectedSession]) -> usize {
    store
        .projection()
        .project_sessions(&pid(player), sessions, at(0))
        .await
        .unwrap()
        .applied
}

/// The stored (lifetimeScore, gamesPlayed, lastPlayedAt).
async fn totals(table: &TestTable, player: &str) -> (u64, u64, String) {
    let item = table
        .raw(&format!("PLAYER#{player}"), "#METADATA")
        .await
        .expect("a profile");
    let num = |a: &str| item[a].as_n().unwrap().parse::<u64>().unwrap();
    (
        num("lifetimeScore"),
        num("gamesPlayed"),
        item["lastPlayedAt"].as_s().unwrap().clone(),
    )
}

async fn setup(label: &str) -> (TestTable, Store) {
    let (table, store) = store(label).await;
    board(&store, "b", Order::Desc, Operator::Best).await;
    (table, store)
}

#[tokio::test]
async fn sessions_the_stream_lost_or_repeated_are_recounted_and_later_records_count_once() {
    let (table, store) = setup("recount_exact").await;
    let mut sessions = Vec::new();
    for i in 0..6u64 {
        sessions.push(play(&store, "ada", 100 + i, i * 1_000, 100 * (i + 1)).await);
    }
    // The stream brings 1 and 2, loses 3 (its dead-letter queue holds it), brings 4, and 5
    // and 6 twice, the second time with 2 again.
    assert_eq!(project(&store, "ada", &sessions[0..2]).await, 2);
    assert_eq!(project(&store, "ada", &sessions[3..4]).await, 1);
    assert_eq!(project(&store, "ada", &sessions[4..6]).await, 2);
    let again = [
        sessions[1].clone(),
        sessions[4].clone(),
        sessions[5].clone(),
    ];
    assert_eq!(project(&store, "ada", &again).await, 0);
    let all: u64 = sessions.iter().map(|s| s.score).sum();
    assert_eq!(totals(&table, "ada").await.0, all - sessions[2].score);

    // Ten minutes on, the recount.
    let now = at(10 * MINUTE);
    let done = recount(&store, "ada", now).await;
    assert_eq!(
        done,
        RecountOutcome::Done {
            lifetime_score: all,
            games_played: 6
        }
    );
    assert_eq!(totals(&table, "ada").await, (all, 6, at(5_000).to_string()));

    // The dead-letter queue replayed, and every record delivered again: nothing counts.
    assert_eq!(project(&store, "ada", &sessions[2..3]).await, 0);
    assert_eq!(project(&store, "ada", &sessions).await, 0);
    // Plays after the recount count once, however often they come.
    let later = [
        play(&store, "ada", 7, 11 * MINUTE, 700).await,
        play(&store, "ada", 8, 11 * MINUTE + 1, 800).await,
    ];
    assert_eq!(project(&store, "ada", &later).await, 2);
    assert_eq!(project(&store, "ada", &later).await, 0);
    assert_eq!(project(&store, "ada", &sessions[2..3]).await, 0);
    assert_eq!(
        totals(&table, "ada").await,
        (all + 15, 8, at(11 * MINUTE + 1).to_string())
    );
}

#[tokio::test]
async fn a_recount_paused_after_every_page_goes_on_to_the_same_totals() {
    let (table, store) = setup("recount_pages").await;
    let mut want = 0;
    for i in 0..7u64 {
        want += play(&store, "bo", 10 * i + 1, i, i + 1).await.score;
    }
    // None of them reached the projection. Two sessions a page, paused after each page, the
    // progress kept as a checkpoint keeps it (JSON) and taken up again.
    let pages = RecountPages {
        max: 1,
        items: Some(2),
    };
    let mut progress = Recount::start(pid("bo"), at(10 * MINUTE));
    let mut pauses = 0;
    let outcome = loop {
        match store
            .projection()
            .recount_player(progress, pages)
            .await
            .unwrap()
        {
            RecountOutcome::Paused(p) => {
                pauses += 1;
                assert!(table.raw("PLAYER#bo", "#METADATA").await.is_none());
                progress = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
            }
            other => break other,
        }
    };
    assert!(pauses >= 3, "{pauses}");
    assert_eq!(
        outcome,
        RecountOutcome::Done {
            lifetime_score: want,
            games_played: 7
        }
    );
    assert_eq!(totals(&table, "bo").await, (want, 7, at(6).to_string()));
    // The same recount again (a run that died after writing it): the same totals.
    let same = recount(&store, "bo", at(10 * MINUTE)).await;
    assert_eq!(same, outcome);
    // Counted again, from the start, in one call: the same totals.
    let again = recount(&store, "bo", at(20 * MINUTE)).await;
    assert_eq!(again, outcome);
    assert_eq!(totals(&table, "bo").await, (want, 7, at(6).to_string()));
}

#[tokio::test]
async fn a_player_who_played_too_recently_or_is_erased_is_refused_and_nothing_is_written() {
    let (table, store) = setup("recount_refused").await;
    let s = play(&store, "cy", 5, 9 * MINUTE, 1).await;
    project(&store, "cy", &[s]).await;
    let before = table.raw("PLAYER#cy", "#METADATA").await;
    // Counted at 9 min, recounted at 10: the newest counted session is within 2 × PLAY_SETTLE.
    let busy = recount(&store, "cy", at(10 * MINUTE)).await;
    let settle = PLAY_SETTLE.as_millis() as u64;
    assert_eq!(
        busy,
        RecountOutcome::Busy(at(9 * MINUTE).plus_millis(2 * settle))
    );
    assert_eq!(table.raw("PLAYER#cy", "#METADATA").await, before);

    // An erased player: no profile comes back, nothing is written.
    play(&store, "dee", 5, 0, 1).await;
    store
        .moderation()
        .erase_player(&pid("dee"), "ops", at(MINUTE), None)
        .await
        .unwrap();
    let items = table.dump().await.len();
    let erased = recount(&store, "dee", at(10 * MINUTE)).await;
    assert_eq!(erased, RecountOutcome::Erased);
    assert!(table.raw("PLAYER#dee", "#METADATA").await.is_none());
    assert_eq!(table.dump().await.len(), items);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn recounts_racing_the_projection_leave_every_total_exact() {
    let (table, store) = setup("recount_race").await;
    // 20 players, 4 old sessions each, the projection saw only the first.
    let players: Vec<String> = (0..20).map(|i| format!("r{i:02}")).collect();
    let mut old = Vec::new();
    for p in &players {
        let mut mine = Vec::new();
        for i in 0..4u64 {
            mine.push(play(&store, p, i + 1, i, i + 1).await);
        }
        project(&store, p, &mine[..1]).await;
        old.push(mine);
    }
    // Each player's recount races their new sessions' projection (delivered twice) and a
    // replay of their old ones.
    let now = at(10 * MINUTE);
    let mut new = Vec::new();
    for p in &players {
        new.push(play(&store, p, 1_000, 11 * MINUTE, 10).await);
    }
    let tasks = players.iter().enumerate().map(|(i, p)| {
        let (store, p, old, new) = (store.clone(), p.clone(), old[i].clone(), new[i].clone());
        async move {
            let stream = async {
                project(&store, &p, std::slice::from_ref(&new)).await;
                project(&store, &p, &old).await;
                project(&store, &p, std::slice::from_ref(&new)).await;
            };
            let (recounted, ()) = tokio::join!(recount(&store, &p, now), stream);
            recounted
        }
    });
    let outcomes = futures::future::join_all(tasks).await;
    for (p, outcome) in players.iter().zip(outcomes) {
        let (score, games, _) = totals(&table, p).await;
        match outcome {
            // The recount wrote: every session counted once.
            RecountOutcome::Done { .. } => assert_eq!((score, games), (1_010, 5), "{p}"),
            // The new session was counted first, so the recount refused: the old ones the
            // stream lost are still missing, and the next recount (after it settles) finds them.
            RecountOutcome::Busy(_) => {
                assert_eq!((score, games), (1_001, 2), "{p}");
                let later = recount(&store, p, at(20 * MINUTE)).await;
                assert!(matches!(later, RecountOutcome::Done { .. }), "{later:?}");
                assert_eq!(totals(&table, p).await.0, 1_010, "{p}");
            }
            other => panic!("{p}: {other:?}"),
        }
    }
}
