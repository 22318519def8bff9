//! The whole table after an erasure, read against the table of docs/data-rights.md ("Where a
//! player can be"): a player who touched every kind of item the table marks for this test (a
//! profile with a proven email, plays with an Idempotency-Key and metadata under a play rate
//! limit, a ban and its lift, a league's placement,
//! the lead of a board that then closed, entries copied by two widenings, one cut off by the
//! close, a play's subscores on a board of tiebreak columns that then closed, a tournament's
//! place) is found in each
//! of those kinds before the erasure, on DynamoDB Local with the projector applying the real
//! stream; after it a consistent scan of the whole table finds the id, the name, the email and
//! the metadata in no item, each pseudonymised kind names the pseudonym, and the subscores are
//! left only on the final standing, beside its score.

use crate::common;

use common::*;
use leaderboard_devkit::testing::RawItem;
use leaderboard_keys::ids::{BoardId, Email, IdempotencyKey, SessionId, TierName};
use leaderboard_keys::rank::Order;
use leaderboard_store::league::League;
use leaderboard_store::metadata::Metadata;
use leaderboard_store::model::{Operator, RankLayout, Recurrence};
use leaderboard_store::widening::WideningStep;
use leaderboard_store::{CloseOptions, CloseProgress, Play, Store, WidenOptions, WidenProgress};

const GONE: &str = "p_zed_everywhere";
const NAME: &str = "Zed Everywhere";
const EMAIL: &str = "zed@everywhere.example";
const META: &str = "zed-secret-loadout";
const DAY: u64 = 86_400_000;
/// The player's value of the `time` column on `race_1`: in no other item of the table.
const TIME: u64 = 4_242_424;

/// One row of the data-rights table: the item's key patterns, what erasure does there, and
/// whether this test covers it.
#[derive(Debug)]
struct Row {
    pk: String,
    sk: String,
    erasure: String,
    in_test: bool,
}

/// The rows of docs/data-rights.md's table of where a player can be.
fn rows() -> Vec<Row> {
    let path = format!("{}/../../docs/data-rights.md", env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(&path).unwrap();
    let rows: Vec<Row> = doc
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
            let keys: Vec<&str> = cells[0].split('`').skip(1).step_by(2).collect();
            Row {
                pk: keys[0].to_owned(),
                sk: keys[1].to_owned(),
                erasure: cells[2].to_owned(),
                in_test: cells[3].starts_with("yes"),
            }
        })
        .collect();
    assert!(rows.len() >= 15, "the table is read: {rows:?}");
    rows
}

/// Whether `text` matches `pattern`, each `<...>` in it standing for one or more characters.
fn glob(pattern: &str, text: &str) -> bool {
    let Some(open) = pattern.find('<') else {
        return pattern == text;
    };
    let close = pattern[open..]
        .find('>')
        .map_or(pattern.len(), |c| open + c + 1);
    let (literal, rest) = (&pattern[..open], &pattern[close..]);
    let Some(tail) = text.strip_prefix(literal) else {
        return false;
    };
    (1..=tail.len()).any(|n| tail.is_char_boundary(n) && glob(rest, &tail[n..]))
}

fn key_of(item: &RawItem) -> (String, String) {
    let s = |a: &str| {
        item.get(a)
            .and_then(|v| v.as_s().ok())
            .cloned()
            .unwrap_or_default()
    };
    (s("pk"), s("sk"))
}

/// Whether `item` holds any of `needles`.
fn holds(item: &RawItem, needles: &[&str]) -> bool {
    let text = format!("{item:?}");
    needles.iter().any(|n| text.contains(n))
}

const PLAYER: [&str; 4] = [GONE, NAME, EMAIL, META];

/// A play of `player` on `boards`, with `key` as its Idempotency-Key.
async fn play(
    store: &Store,
    player: &str,
    score: u64,
    ms: u64,
    boards: &[&str],
    key: Option<&str>,
) {
    let play = Play {
        subscores: Default::default(),
        player_id: pid(player),
        session_id: SessionId::from_parts(T0 + ms, rand::random()).unwrap(),
        idempotency_key: key.map(|k| IdempotencyKey::parse(k).unwrap()),
        game_id: None,
        score,
        duration_sec: Some(60),
        board_ids: boards.iter().map(|b| BoardId::parse(b).unwrap()).collect(),
        metadata: key.map(|_| Metadata::parse(serde_json::json!({ "loadout": META })).unwrap()),
    };
    store.plays().record_play(&play, at(ms)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_erased_player_is_in_no_item_of_the_whole_table() {
    let sc = Scenario::new("erased_everywhere").await;
    let store = &sc.store;
    let rows = rows();
    // Every item that held the player at some point before the erasure.
    let mut seen: Vec<RawItem> = Vec::new();
    let mut look = async |sc: &Scenario| {
        seen.extend(
            sc.table
                .dump()
                .await
                .into_iter()
                .filter(|i| holds(i, &PLAYER)),
        );
    };

    let email = Email::parse(EMAIL).unwrap();
    store
        .players()
        .put_profile(&pid(GONE), NAME, Some(&email), at(500))
        .await
        .unwrap();
    for (i, other) in (0..4).map(player_name).enumerate() {
        play(
            store,
            &other,
            100 + 10 * i as u64,
            1_000 + i as u64,
            &BOARDS,
            None,
        )
        .await;
    }
    // The player's plays go through a play rate limit, which logs them on their rate item.
    let limited = store.clone().with_plays_per_minute(60);
    play(&limited, GONE, 5_000, 2_000, &BOARDS, Some("zed-retry-1")).await;
    let (ops, now) = (pid("p_ops"), at(3_000));
    let reason = format!("cheating, reported by {EMAIL}");
    store
        .moderation()
        .ban_player(&pid(GONE), &reason, &ops, now)
        .await
        .unwrap();
    look(&sc).await;
    assert!(
        store
            .moderation()
            .unban_player(&pid(GONE), &ops, at(4_000))
            .await
            .unwrap()
    );
    // Back, and leading the two boards ranked high to low; and placed in a league's cohort.
    play(&limited, GONE, 5_000, 5_000, &BOARDS, Some("zed-retry-2")).await;
    let mut league = new_board("cup_2026-w01", Order::Desc, Operator::Best, RankLayout::V2);
    league.recurrence = Recurrence::Weekly;
    league.league = Some(League {
        tiers: ["low", "high"]
            .map(|t| TierName::parse(t).unwrap())
            .to_vec(),
        cohort_size: 10,
        promote: 1,
        relegate: 1,
    });
    store.boards().create_board(league, at(0)).await.unwrap();
    play(store, GONE, 7, 5_500, &["cup_2026-w01"], None).await;
    // A board ranked by points, then the faster time, which closes: the player's subscores on
    // its session, entry, pointer, final standing and result; and, its winner, their reward.
    let race = leaderboard_store::model::NewBoard {
        columns: serde_json::from_value(
            serde_json::json!([{"name": "time", "order": "asc", "max": 9_999_999}]),
        )
        .unwrap(),
        rewards: serde_json::from_value(serde_json::json!([{"ranks": [1, 1], "reward": "gold"}]))
            .unwrap(),
        ..new_board("race_1", Order::Desc, Operator::Best, RankLayout::V2)
    };
    store.boards().create_board(race, at(0)).await.unwrap();
    let timed = Play {
        subscores: [("time".to_owned(), TIME)].into_iter().collect(),
        session_id: SessionId::from_parts(T0 + 5_600, rand::random()).unwrap(),
        idempotency_key: None,
        player_id: pid(GONE),
        game_id: None,
        score: 9,
        duration_sec: Some(60),
        board_ids: vec![BoardId::parse("race_1").unwrap()],
        metadata: None,
    };
    store.plays().record_play(&timed, at(5_600)).await.unwrap();
    // A tournament the player joined and played: their place on it.
    let cup = leaderboard_store::model::NewBoard {
        join_required: true,
        max_entrants: Some(8),
        max_attempts: Some(2),
        ..new_board("trial_1", Order::Desc, Operator::Best, RankLayout::V2)
    };
    store.boards().create_board(cup, at(0)).await.unwrap();
    let trial = BoardId::parse("trial_1").unwrap();
    store
        .tournaments()
        .join_board(&trial, &pid(GONE), at(5_650))
        .await
        .unwrap();
    play(store, GONE, 3, 5_700, &["trial_1"], None).await;
    // A hot board, which closes: the player's entry on their write shard, their last change
    // on their lane kept apart (one of 32, a write shard's).
    let surge = leaderboard_store::model::NewBoard {
        write_shards: 32,
        ..new_board("surge_1", Order::Desc, Operator::Best, RankLayout::V2)
    };
    store.boards().create_board(surge, at(0)).await.unwrap();
    play(store, GONE, 11, 5_750, &["surge_1"], None).await;
    deliver(store, &sc.stream().await).await;
    look(&sc).await;

    // Widenings: daily_1's copied whole (it stays open), season_1's begun and then cut off by
    // the board's close.
    let options = WidenOptions {
        page: 2,
        grace: std::time::Duration::ZERO,
        now: at(6_000),
    };
    let daily = BoardId::parse(BOARDS[1]).unwrap();
    loop {
        match store
            .rank()
            .widen_step(&daily, 99_999_999_999, &options)
            .await
            .unwrap()
        {
            WidenProgress::Running {
                step: WideningStep::Copy,
                ..
            } => {}
            WidenProgress::Running {
                step: WideningStep::Index,
                ..
            } => break,
            other => panic!("the copy went past its end: {other:?}"),
        }
    }
    let season = BoardId::parse(BOARDS[0]).unwrap();
    for _ in 0..2 {
        store
            .rank()
            .widen_step(&season, 99_999_999_999, &options)
            .await
            .unwrap();
    }
    look(&sc).await;
    let end = at(366 * DAY);
    let (race, surge) = (
        BoardId::parse("race_1").unwrap(),
        BoardId::parse("surge_1").unwrap(),
    );
    for board in [season.clone(), race, surge] {
        let closed = store
            .close()
            .close_board(&board, end, &CloseOptions::default())
            .await
            .unwrap();
        assert!(matches!(closed, CloseProgress::Closed { .. }), "{closed:?}");
    }
    deliver(store, &sc.stream().await).await;
    look(&sc).await;

    // Before: the subscores are on the session, the pointer, the final standing and the result.
    let time = TIME.to_string();
    let timed: Vec<String> = seen
        .iter()
        .filter(|i| holds(i, &[&time]))
        .map(|i| key_of(i).1.split('#').next().unwrap_or_default().to_owned())
        .collect();
    for kind in ["SESSION", "ENTRY", "FINAL", "RESULT"] {
        assert!(
            timed.iter().any(|k| k == kind),
            "no subscores in {kind}: {timed:?}"
        );
    }
    // Before: the player is in every kind of item the table marks for this test.
    for row in rows.iter().filter(|r| r.in_test) {
        assert!(
            seen.iter().any(|i| {
                let (pk, sk) = key_of(i);
                glob(&row.pk, &pk) && glob(&row.sk, &sk)
            }),
            "the player never was in {row:?}"
        );
    }

    let receipt = store
        .moderation()
        .erase_player(&pid(GONE), "player", at(366 * DAY + 1), None)
        .await
        .unwrap();
    assert!(receipt.finished(), "{receipt:?}");
    deliver(store, &sc.stream().await).await;

    // After: nowhere, and the pseudonym where the table says the item keeps the rank.
    let after = sc.table.dump().await;
    let left: Vec<_> = after.iter().filter(|i| holds(i, &PLAYER)).collect();
    assert!(left.is_empty(), "the player is left in {left:?}");
    let pseudonym = receipt.pseudonym.to_string();
    // The subscores stay only where the score does: the final standing, under the pseudonym.
    let timed: Vec<_> = after.iter().filter(|i| holds(i, &[&time])).collect();
    assert_eq!(timed.len(), 1, "{timed:?}");
    assert!(key_of(timed[0]).1.starts_with("FINAL#"), "{timed:?}");
    assert!(holds(timed[0], &[&pseudonym]), "{timed:?}");
    for row in rows
        .iter()
        .filter(|r| r.in_test && r.erasure.starts_with("pseudonymised"))
    {
        assert!(
            after.iter().any(|i| {
                let (pk, sk) = key_of(i);
                glob(&row.pk, &pk) && glob(&row.sk, &sk) && holds(i, &[&pseudonym])
            }),
            "no pseudonym in {row:?}"
        );
    }
}
