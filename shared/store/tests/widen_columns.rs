//! Widening a tiebreak column on DynamoDB Local: a highest-first column of the same digits only
//! raises its `max`; a lowest-first one re-keys every entry while plays go on, the board then
//! ranks as before with values above the old `max` accepted; a column the board lacks, or a
//! narrower `max`, is refused writing nothing.

use crate::common;

use common::*;
use leaderboard_keys::columns::{Column, named};
use leaderboard_keys::rank::Order;
use leaderboard_store::model::{Board, NewBoard, Operator};
use leaderboard_store::widening::WideningStep;
use leaderboard_store::{Store, StoreError, WidenOptions, WidenProgress, WidenTo};

fn options() -> WidenOptions {
    WidenOptions {
        page: 15,
        grace: std::time::Duration::ZERO,
        now: at(0),
    }
}

/// A run's time (asc, at most `time_max`), then kills (desc, at most 50).
fn columns(time_max: u64) -> Vec<Column> {
    vec![
        Column::new("time", Order::Asc, time_max).unwrap(),
        Column::new("kills", Order::Desc, 50).unwrap(),
    ]
}

fn to(name: &str, max: u64) -> WidenTo {
    WidenTo {
        max_score: None,
        columns: vec![(name.to_owned(), max)],
    }
}

/// A board of 40 entries on 3 scores, their index built.
async fn board(store: &Store, id: &str) -> Board {
    let new = NewBoard {
        columns: columns(9_999),
        ..new_board(id, Order::Desc, Operator::Best, 999)
    };
    let board = store.boards().create_board(new, at(0)).await.unwrap();
    let entries: Vec<_> = (0..40u64)
        .map(|i| {
            (
                pid(&format!("p{i:02}")),
                i % 3,
                vec![(i * 37) % 10_000, i % 5],
                at(i),
            )
        })
        .collect();
    let boards = store.boards();
    boards
        .import_ranked_entries(&board, &entries)
        .await
        .unwrap();
    store.rank().build_rank_index(&board).await.unwrap();
    board
}

/// The board's listing as (player, score, subscores) lines.
async fn listed(store: &Store, board: &Board) -> Vec<String> {
    let page = store.listings().top_scores(board, 100, None).await.unwrap();
    let line = |e: &leaderboard_store::model::RankedEntry| {
        format!("{} {} {:?}", e.player_id, e.score, e.subscores)
    };
    page.items.iter().map(line).collect()
}

async fn play_with(store: &Store, player: &str, score: u64, id: &str, values: [u64; 2], ms: u64) {
    let mut p = play(player, score, &[id], sid(ms, 1));
    p.subscores = named(&columns(0), &values);
    store.plays().record_play(&p, at(ms)).await.unwrap();
}

#[tokio::test]
async fn a_highest_first_column_of_the_same_digits_only_raises_its_max() {
    let (t, store) = store("widen_column_raise").await;
    board(&store, "raised").await;
    let before = t.dump().await;
    let done = store
        .rank()
        .widen_step(&bid("raised"), to("kills", 99), &options())
        .await;
    let Ok(WidenProgress::Done(done)) = done else {
        panic!("{done:?}");
    };
    assert_eq!((done.columns[1].max, done.entry_generation), (99, 0));
    assert_eq!(stored_board(&store, "raised").await.columns, done.columns);
    // every key as it was: only the board item changed
    let after = t.dump().await;
    let not_board = |i: &&leaderboard_devkit::testing::RawItem| {
        leaderboard_devkit::testing::s(i, "sk") != Some("#METADATA")
    };
    assert!(
        before
            .iter()
            .filter(not_board)
            .eq(after.iter().filter(not_board))
    );
    play_with(&store, "p00", 2, "raised", [0, 99], 100_000).await;
    let first = store.listings().top_scores(&done, 1, None).await.unwrap();
    assert_eq!(first.items[0].player_id.as_str(), "p00");
}

#[tokio::test]
async fn a_lowest_first_column_re_keys_every_entry_while_plays_go_on() {
    let (t, store) = store("widen_column_rekey").await;
    board(&store, "timed").await;
    let before = listed(&store, &stored_board(&store, "timed").await).await;
    // WHEN its time column widens to 100,000, with a play during the copy that takes p01 to
    // the top (written in both generations' keys)
    let mut steps = Vec::new();
    let done = loop {
        match store
            .rank()
            .widen_step(&bid("timed"), to("time", 100_000), &options())
            .await
            .unwrap()
        {
            WidenProgress::Done(b) => break b,
            WidenProgress::Running { step, .. } => {
                if steps.is_empty() {
                    play_with(&store, "p01", 2, "timed", [0, 50], 50_000).await;
                }
                steps.push(step);
            }
        }
    };
    assert!(steps.contains(&WideningStep::Copy) && steps.contains(&WideningStep::Retire));
    assert_eq!((done.columns, done.entry_generation), (columns(100_000), 1));
    // THEN it lists and ranks as before, p01 first
    let done = stored_board(&store, "timed").await;
    let mut want: Vec<String> = before
        .iter()
        .filter(|l| !l.starts_with("p01 "))
        .cloned()
        .collect();
    want.insert(0, r#"p01 2 {"kills": 50, "time": 0}"#.to_owned());
    assert_eq!(listed(&store, &done).await, want);
    let before = want;
    for (i, line) in before.iter().enumerate() {
        let player = line.split(' ').next().unwrap();
        let ranked = store
            .listings()
            .player_rank(&done, &pid(player))
            .await
            .unwrap();
        assert_eq!(ranked.unwrap().rank, i as u64 + 1, "{player}");
    }
    let dump = t.dump().await;
    let in_partition = |pk: &str| {
        let pk = Some(pk);
        dump.iter()
            .filter(|i| leaderboard_devkit::testing::s(i, "pk") == pk)
            .filter(|i| {
                leaderboard_devkit::testing::s(i, "sk").is_some_and(|k| k.starts_with("SCORE#"))
            })
            .count()
    };
    assert_eq!(
        (
            in_partition("LEADERBOARD#timed"),
            in_partition("LEADERBOARD#timed#E1")
        ),
        (0, 40)
    );
    // AND a time above the old max counts, below every other of its score and kills
    play_with(&store, "late", 2, "timed", [50_000, 50], 200_000).await;
    let late = store
        .listings()
        .player_rank(&done, &pid("late"))
        .await
        .unwrap()
        .unwrap();
    let of_two = before
        .iter()
        .filter(|l| l.split(' ').nth(1) == Some("2"))
        .count();
    assert_eq!(late.rank, of_two as u64 + 1);
}

#[tokio::test]
async fn a_column_the_board_lacks_or_a_narrower_max_is_refused_writing_nothing() {
    let (t, store) = store("widen_column_refused").await;
    board(&store, "kept").await;
    let before = t.dump().await;
    for bad in [to("laps", 99), to("kills", 49), to("time", 9_998)] {
        let r = store
            .rank()
            .widen_step(&bid("kept"), bad.clone(), &options())
            .await;
        assert!(matches!(r, Err(StoreError::Invalid(_))), "{bad:?}: {r:?}");
    }
    assert_eq!(t.dump().await, before);
}
