//! Input meant to deceive or to break the store: names that impersonate or reorder text,
//! rollover ids that could not be continued, lifetime totals at their ceiling. Every refusal
//! leaves the table exactly as it was.

use crate::common;

use aws_sdk_dynamodb::types::AttributeValue;
use common::*;
use leaderboard_keys::rank::Order;
use leaderboard_store::model::{
    BoardStatus, LIFETIME_SCORE_CEILING, NewBoard, Operator, Recurrence,
};
use leaderboard_store::recurrence::CronSchedule;
use leaderboard_store::{
    CloseOptions, CloseProgress, ProjectedSession, SequenceNumber, StoreError,
};

fn is_invalid<T: std::fmt::Debug>(r: Result<T, StoreError>) -> bool {
    matches!(r, Err(StoreError::Invalid(_)))
}

/// Names that would look like another name, look empty, or reverse the text after them.
const DECEIVING_NAMES: [&str; 19] = [
    "Alice\u{202e}ecilA",    // right-to-left override
    "\u{2067}Alice\u{2069}", // right-to-left isolate
    "Al\u{200d}ice",         // zero-width joiner
    "Al\u{200b}ice",         // zero-width space
    "Alice\u{feff}",         // zero-width no-break space: not white space, trimming keeps it
    "Ali\u{ad}ce",           // soft hyphen: invisible unless the line breaks there
    "Alice\u{2028}Bob",      // line separator
    "Alice\u{e0041}",        // a tag character
    "\u{3164}",              // Hangul filler: a name that looks empty
    "Ali\u{115f}ce",         // Hangul choseong filler
    "Alice\u{1160}",         // Hangul jungseong filler
    "\u{ffa0}\u{ffa0}",      // halfwidth Hangul filler
    "\u{2800}",              // braille blank
    "Al\u{34f}ice",          // combining grapheme joiner: default-ignorable
    "Alice\u{17b4}",         // Khmer inherent vowel: default-ignorable
    "Ali\u{180b}ce",         // Mongolian free variation selector
    "Alice\u{fe0f}",         // an emoji selector after a letter: invisible
    "Alice\u{e0100}",        // variation selector 17
    "\u{2065}Alice",         // reserved default-ignorable
];

#[tokio::test]
async fn names_with_format_or_separator_characters_are_refused_and_nothing_is_written() {
    let (table, store) = store("names_deceiving").await;
    // GIVEN one player and one board
    store
        .players()
        .put_profile(&pid("p_a"), "Alice", None, at(0))
        .await
        .unwrap();
    board(&store, "b1", Order::Desc, Operator::Best).await;
    let before = table.dump().await;
    for bad in DECEIVING_NAMES {
        // WHEN a profile takes the name, for the existing player and for a new one
        for player in ["p_a", "p_new"] {
            let r = store
                .players()
                .put_profile(&pid(player), bad, None, at(7))
                .await;
            // THEN Invalid
            assert!(is_invalid(r), "{player} {bad:?}");
        }
        // AND a board of that name is refused too
        let mut nb = new_board("b_new", Order::Desc, Operator::Best, 100);
        nb.name = bad.to_owned();
        assert!(
            is_invalid(store.boards().create_board(nb, at(7)).await),
            "{bad:?}"
        );
    }
    // AND the table is exactly as it was
    assert_eq!(table.dump().await, before);
    // while printable text of every script, with emoji and combining marks, is kept as given
    for good in [
        "Zoë",
        "日本語の名前",
        "Flag \u{1f3f3}\u{fe0f}",
        "e\u{301}",
        "A\u{a0}B",
    ] {
        let p = store
            .players()
            .put_profile(&pid("p_a"), good, None, at(9))
            .await
            .unwrap();
        assert_eq!(p.name, good);
    }
}

fn session(seq: u64, score: u64) -> ProjectedSession {
    ProjectedSession {
        sequence_number: SequenceNumber::parse(&seq.to_string()).unwrap(),
        score,
        attained_at: at(seq),
    }
}

#[tokio::test]
async fn lifetime_score_saturates_at_its_ceiling_and_stays_exactly_once() {
    let (table, store) = store("lifetime_ceiling").await;
    let p = pid("p_max");
    let top = 999_999_999_999_999_999; // the largest maxScore
    // WHEN 19 sessions at the largest score are projected one batch each (19 x top > u64::MAX)
    for seq in 1..=19 {
        let o = store
            .projection()
            .project_sessions(&p, &[session(seq, top)], at(0))
            .await
            .unwrap();
        assert_eq!(o.applied, 1);
    }
    // THEN the total stopped at the ceiling and every session was counted
    let player = store.players().get_player(&p).await.unwrap().unwrap();
    assert_eq!(player.lifetime_score, LIFETIME_SCORE_CEILING);
    assert_eq!(player.games_played, 19);
    let raw = table.raw("PLAYER#p_max", "#METADATA").await.unwrap();
    assert_eq!(raw["lifetimeScore"].as_n().unwrap(), &i64::MAX.to_string());
    // WHEN the whole stream is delivered again in one batch
    let sessions: Vec<_> = (1..=19).map(|seq| session(seq, top)).collect();
    let o = store
        .projection()
        .project_sessions(&p, &sessions, at(0))
        .await
        .unwrap();
    // THEN nothing is counted twice
    assert_eq!((o.applied, o.already_applied), (0, 19));
    let again = store.players().get_player(&p).await.unwrap().unwrap();
    assert_eq!(
        (again.lifetime_score, again.games_played),
        (LIFETIME_SCORE_CEILING, 19)
    );
    // AND a batch that only partly fits saturates in one go, counting all its sessions
    let q = pid("p_near");
    store
        .projection()
        .project_sessions(&q, &[session(1, top), session(2, top)], at(0))
        .await
        .unwrap();
    let near = store.players().get_player(&q).await.unwrap().unwrap();
    assert_eq!((near.lifetime_score, near.games_played), (2 * top, 2));
    let many: Vec<_> = (3..=40).map(|seq| session(seq, top)).collect();
    store
        .projection()
        .project_sessions(&q, &many, at(0))
        .await
        .unwrap();
    let full = store.players().get_player(&q).await.unwrap().unwrap();
    assert_eq!(
        (full.lifetime_score, full.games_played),
        (LIFETIME_SCORE_CEILING, 40)
    );
}

#[tokio::test]
async fn a_stored_total_beyond_any_integer_reads_as_the_ceiling_and_keeps_counting() {
    let (table, store) = store("lifetime_stored").await;
    let p = pid("p_old");
    store
        .players()
        .put_profile(&p, "Old", None, at(0))
        .await
        .unwrap();
    // GIVEN a total written before the ceiling existed, beyond u64 (DynamoDB holds 38 digits)
    for stored in ["1".to_owned() + &"0".repeat(30), "-5".to_owned()] {
        table
            .client
            .update_item()
            .table_name(&table.name)
            .key("pk", AttributeValue::S("PLAYER#p_old".into()))
            .key("sk", AttributeValue::S("#METADATA".into()))
            .update_expression("SET lifetimeScore = :v")
            .expression_attribute_values(":v", AttributeValue::N(stored.clone()))
            .send()
            .await
            .unwrap();
        // THEN the profile reads, saturated (a negative total reads as 0)
        let want = if stored.starts_with('-') {
            0
        } else {
            LIFETIME_SCORE_CEILING
        };
        let player = store.players().get_player(&p).await.unwrap().unwrap();
        assert_eq!(player.lifetime_score, want, "{stored}");
    }
    // AND a new session is counted on top of what reads as the stored total
    store
        .projection()
        .project_sessions(&p, &[session(1, 42)], at(0))
        .await
        .unwrap();
    let player = store.players().get_player(&p).await.unwrap().unwrap();
    assert_eq!((player.lifetime_score, player.games_played), (42, 1));
}

const DAY: u64 = 86_400_000;

fn daily(id: &str) -> NewBoard {
    let mut nb = new_board(id, Order::Desc, Operator::Best, 100);
    nb.recurrence = Recurrence::Daily;
    nb.ends_at = Some(at(DAY));
    nb
}

#[tokio::test]
async fn a_recurring_board_whose_successor_id_would_be_too_long_is_refused_and_nothing_is_written()
{
    let (table, store) = store("rollover_refused").await;
    let before = table.dump().await;
    // 64 characters that end in 9 (the next needs 65), and 63 without a number (`_2` makes 65)
    for id in [format!("{}_9", "s".repeat(62)), "p".repeat(63)] {
        // WHEN it is created as a daily board
        let r = store.boards().create_board(daily(&id), at(0)).await;
        // THEN Invalid, saying why
        match r {
            Err(StoreError::Invalid(why)) => assert!(why.contains("cannot recur"), "{why}"),
            other => panic!("{id}: {other:?}"),
        }
    }
    // AND nothing was written
    assert_eq!(table.dump().await, before);
    // AND a recurring board without endsAt is refused too: it would never close nor recur
    for recurrence in [Recurrence::Daily, Recurrence::Weekly, Recurrence::Season] {
        let mut endless = new_board("endless", Order::Desc, Operator::Best, 100);
        endless.recurrence = recurrence.clone();
        endless.ends_at = None;
        match store.boards().create_board(endless, at(0)).await {
            Err(StoreError::Invalid(why)) => assert!(why.contains("needs endsAt"), "{why}"),
            other => panic!("{recurrence:?}: {other:?}"),
        }
    }
    assert_eq!(table.dump().await, before);
    // AND so is a cron schedule that never matches, matches under a minute apart, does not
    // parse or names no zone
    for (cron, zone, why) in [
        ("0 0 30 2 *", "UTC", "never matches"),
        ("*/5 * * * * *", "UTC", "less than a minute apart"),
        ("0 18 * * FRIDAYS", "Europe/Berlin", "five-field"),
        ("0 18 * * FRI", "Europe/Berlin ", "IANA"),
    ] {
        let mut scheduled = new_board("scheduled", Order::Desc, Operator::Best, 100);
        scheduled.recurrence = Recurrence::Cron(CronSchedule {
            cron: cron.into(),
            timezone: zone.into(),
        });
        match store.boards().create_board(scheduled, at(0)).await {
            Err(StoreError::Invalid(e)) => assert!(e.contains(why), "{cron}: {e}"),
            other => panic!("{cron} in {zone}: {other:?}"),
        }
    }
    assert_eq!(table.dump().await, before);
    // while the same ids are fine on boards that do not recur
    let plain = new_board(&"p".repeat(63), Order::Desc, Operator::Best, 100);
    store.boards().create_board(plain, at(0)).await.unwrap();
}

#[tokio::test]
async fn a_rollover_that_fails_anyway_closes_the_board_and_says_why_on_it() {
    let (_table, store) = store("rollover_failed").await;
    // GIVEN a daily board whose successor (`_9`, 64 characters) is valid but whose successor's
    // successor (`_10`, 65) cannot be
    let first = format!("{}_8", "s".repeat(62));
    store
        .boards()
        .create_board(daily(&first), at(0))
        .await
        .unwrap();
    let options = CloseOptions::default();
    let closed = store
        .close()
        .close_board(&bid(&first), at(DAY), &options)
        .await
        .unwrap();
    let second = format!("{}_9", "s".repeat(62));
    assert!(
        matches!(closed, CloseProgress::Closed { next: Some(ref n), .. } if n.as_str() == second)
    );
    // WHEN the successor closes
    let closed = store
        .close()
        .close_board(&bid(&second), at(2 * DAY), &options)
        .await
        .unwrap();
    // THEN it is closed without a successor, and the board says why
    assert!(
        matches!(closed, CloseProgress::Closed { next: None, .. }),
        "{closed:?}"
    );
    let board = stored_board(&store, &second).await;
    assert_eq!(board.status, BoardStatus::Closed);
    assert_eq!(board.next_board_id, None);
    let why = board.rollover_error.expect("rolloverError is set");
    assert!(why.contains("not a valid leaderboardId"), "{why}");
    // AND the first board says nothing of the kind
    assert_eq!(stored_board(&store, &first).await.rollover_error, None);
    // AND closing it again changes nothing
    let again = store
        .close()
        .close_board(&bid(&second), at(3 * DAY), &options)
        .await
        .unwrap();
    assert!(matches!(again, CloseProgress::Closed { next: None, .. }));
}
