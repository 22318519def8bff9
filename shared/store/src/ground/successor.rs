//! Rollover: the successor of a recurring board, with a predictable id.
//!
//! The successor has the same settings, starts when the old board ends, and lasts one period
//! (`daily` one day, `weekly` seven, `season` as long as the old board did). Its id follows the
//! old one: a trailing date moves by the period (`daily_2026-11-21` -> `daily_2026-11-22`), a
//! trailing ISO week moves by a week (`weekly_2026-w47` -> `weekly_2026-w48`), a trailing number
//! counts up keeping its width (`season_3` -> `season_4`, `s_09` -> `s_10`), and an id without
//! any of these gets `_2` ([`crate::ground::rollover`]'s arithmetic).
//!
//! A successor id must be a valid id too (at most 64 characters): board creation refuses a
//! recurring board whose successor's id would not be, and a close that meets one anyway (a
//! number that gains a digit, `season_9` -> `season_10`) records why on the board
//! (`rolloverError`) and logs it as an error, instead of stopping quietly.

use leaderboard_keys::ids::BoardId;

use crate::ground::model::{Board, NewBoard, Recurrence};
use crate::ground::names::MAX_NAME_LEN;
use crate::ground::recurrence::calendar_days;
use crate::ground::rollover::{next_id, next_name};

const DAY_MS: u64 = 86_400_000;

/// The successor of `board`, `Ok(None)` if it does not recur or never ends, or why it can have
/// none (its id has no valid successor).
pub fn successor(board: &Board) -> Result<Option<NewBoard>, String> {
    let Some(ends_at) = board.ends_at else {
        return Ok(None);
    };
    // A season lasts as long as its predecessor was scheduled to (an admin may have ended it
    // early: `scheduledEndsAt`).
    let scheduled = board.scheduled_ends_at.unwrap_or(ends_at);
    let season_ms = scheduled
        .as_millis()
        .saturating_sub(board.starts_at.as_millis());
    let Some(next_end) = board.recurrence.next_end(season_ms, ends_at)? else {
        return Ok(None);
    };
    // A trailing date moves by the calendar days the board ran (in its schedule's zone), a
    // season's by its length.
    let days = match board.recurrence {
        Recurrence::Season => season_ms / DAY_MS,
        Recurrence::Daily => 1,
        Recurrence::Weekly => 7,
        _ => calendar_days(&board.recurrence, board.starts_at, ends_at),
    };
    let old = board.board_id.as_str();
    let id = next_id(old, days.max(1)).ok_or_else(|| {
        format!("the {old} board's id has no next one (its date or week is out of range)")
    })?;
    let board_id = BoardId::parse(&id).map_err(|e| {
        format!("the successor of {old} would be {id:?}, which is not a valid leaderboardId: {e}")
    })?;
    // A name that would outgrow the limit keeps the old name rather than stop the rollover.
    let name = Some(next_name(&board.name, old, &id))
        .filter(|n| n.chars().count() <= MAX_NAME_LEN)
        .unwrap_or_else(|| board.name.clone());
    Ok(Some(NewBoard {
        board_id,
        name,
        order: board.order,
        operator: board.operator,
        max_score: board.max_score,
        min_score: board.min_score,
        min_duration_sec: board.min_duration_sec,
        starts_at: Some(ends_at),
        ends_at: Some(next_end),
        recurrence: board.recurrence.clone(),
        writers: board.writers,
        game_id: board.game_id.clone(),
        // A successor starts on the rank index's current layout, whatever its predecessor had.
        rank_layout: Default::default(),
        series_id: Some(board.series()),
        // A hot board's successor is as hot.
        write_shards: board.write_shards,
        league: board.league.clone(),
        columns: board.columns.clone(),
        // A tournament's successor has its rules, each period with its own entrants.
        join_required: board.join_required,
        max_entrants: board.max_entrants,
        max_attempts: board.max_attempts,
        rewards: board.rewards.clone(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::model::{BoardStatus, Operator, RankLayout, Writers};
    use leaderboard_keys::columns::Column;
    use leaderboard_keys::rank::Order;
    use leaderboard_keys::time::Timestamp;

    fn board(id: &str, recurrence: Recurrence, start: &str, end: Option<&str>) -> Board {
        let t = |s| Timestamp::parse_rfc3339("t", s).unwrap();
        Board {
            board_id: BoardId::parse(id).unwrap(),
            name: "Season 3".into(),
            order: Order::Asc,
            operator: Operator::Latest,
            max_score: 999,
            min_score: 5,
            min_duration_sec: Some(30),
            starts_at: t(start),
            ends_at: end.map(t),
            scheduled_ends_at: None,
            recurrence,
            writers: Writers::Servers,
            game_id: None,
            status: BoardStatus::Closed,
            created_at: t(start),
            closed_at: None,
            player_count: Some(3),
            next_board_id: None,
            rollover_error: None,
            rank_index: true,
            rank_layout: RankLayout::V2,
            series_id: None,
            rank_migrating: false,
            lanes_grouped: true,
            lanes: 10,
            settings_version: 0,
            write_shards: 4,
            league: None,
            cohort_of: None,
            tier: None,
            entry_generation: 0,
            widening: None,
            columns: vec![Column::new("time", Order::Asc, 99_999).unwrap()],
            join_required: true,
            max_entrants: Some(64),
            max_attempts: Some(3),
            rewards: serde_json::from_str(r#"[{"ranks":[1,1],"reward":"gold"}]"#).unwrap(),
        }
    }

    #[test]
    fn successors_keep_the_settings_and_follow_on() {
        let b = board(
            "season_3",
            Recurrence::Season,
            "2026-09-01T00:00:00Z",
            Some("2026-12-01T00:00:00Z"),
        );
        let next = successor(&b).unwrap().unwrap();
        assert_eq!(next.board_id.as_str(), "season_4");
        assert_eq!(next.name, "Season 4");
        assert_eq!(next.starts_at, b.ends_at);
        assert_eq!(
            next.ends_at.unwrap().to_string(),
            "2027-03-02T00:00:00.000Z"
        );
        assert_eq!(
            (
                next.order,
                next.operator,
                next.max_score,
                next.min_score,
                next.min_duration_sec,
                next.rank_layout,
                next.write_shards
            ),
            (
                Order::Asc,
                Operator::Latest,
                999,
                5,
                Some(30),
                RankLayout::V2,
                4
            )
        );
        assert_eq!(next.columns, b.columns);
        assert_eq!(next.rewards, b.rewards);
        let rules = (next.join_required, next.max_entrants, next.max_attempts);
        assert_eq!(
            rules,
            (true, Some(64), Some(3)),
            "a tournament's rules recur"
        );
        let d = board(
            "daily_2026-11-21",
            Recurrence::Daily,
            "2026-11-21T00:00:00Z",
            Some("2026-11-22T00:00:00Z"),
        );
        let next = successor(&d).unwrap().unwrap();
        assert_eq!(next.board_id.as_str(), "daily_2026-11-22");
        assert_eq!(
            next.ends_at.unwrap().to_string(),
            "2026-11-23T00:00:00.000Z"
        );
        assert!(
            successor(&board(
                "x",
                Recurrence::None,
                "2026-11-21T00:00:00Z",
                Some("2026-11-22T00:00:00Z")
            ))
            .unwrap()
            .is_none()
        );
        let never_ends = board("x", Recurrence::Daily, "2026-11-21T00:00:00Z", None);
        assert!(successor(&never_ends).unwrap().is_none());
    }

    #[test]
    fn ids_that_cannot_be_continued_say_why() {
        let (start, end) = ("2026-11-21T00:00:00Z", Some("2026-11-22T00:00:00Z"));
        // 64 characters ending in 9: the next number needs 65
        let nines = format!("{}_9", "s".repeat(62));
        let e = successor(&board(&nines, Recurrence::Daily, start, end)).unwrap_err();
        assert!(e.contains("not a valid leaderboardId"), "{e}");
        // 63 characters without a number: `_2` makes 65
        let plain = "p".repeat(63);
        assert!(successor(&board(&plain, Recurrence::Season, start, end)).is_err());
        // the day after 9999-12-31 has a five-digit year, which no id can hold
        let last = board("daily_9999-12-31", Recurrence::Daily, start, end);
        assert!(successor(&last).is_err());
        // a 64-character id whose number keeps its width continues
        let wide = format!("{}_09", "w".repeat(61));
        let next = successor(&board(&wide, Recurrence::Weekly, start, end))
            .unwrap()
            .unwrap();
        assert_eq!(next.board_id.as_str().len(), 64);
    }

    #[test]
    fn a_name_that_would_outgrow_its_limit_stays_as_it_was() {
        let mut b = board(
            "season_9",
            Recurrence::Season,
            "2026-09-01T00:00:00Z",
            Some("2026-12-01T00:00:00Z"),
        );
        b.name = format!("{} 9", "n".repeat(126));
        let next = successor(&b).unwrap().unwrap();
        assert_eq!(next.board_id.as_str(), "season_10");
        assert_eq!(next.name, b.name);
    }
}
