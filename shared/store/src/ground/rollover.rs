//! Rollover's arithmetic on board ids: the id of a recurring board's successor follows the
//! old one: a trailing date moves by the period (`daily_2026-11-21` -> `daily_2026-11-22`), a
//! trailing ISO week moves by a week (`weekly_2026-w47` -> `weekly_2026-w48`), a trailing number
//! counts up keeping its width (`season_3` -> `season_4`, `s_09` -> `s_10`), and an id without
//! any of these gets `_2`; and a board id's default series is the id without that tail. The
//! successor itself (its settings and times) is [`crate::ground::successor`]'s.

use chrono::{Datelike, Days, NaiveDate};
use leaderboard_keys::ids::{BoardId, SeriesId};

/// A board id's default series: the id without its trailing date, week or number, nor the
/// `_`, `-` or `.` before it (`daily_2026-11-26` -> `daily`, `weekly_2026-w48` -> `weekly`,
/// `season_3` -> `season`); an id with none of these, or nothing else, is its own series.
pub fn series_of(id: &BoardId) -> SeriesId {
    let (head, _) = split_tail(id.as_str());
    let head = head.trim_end_matches(['_', '-', '.']);
    SeriesId::parse(head).unwrap_or_else(|_| SeriesId::of_board(id))
}

/// The part of a board id that rollover moves on.
enum Tail {
    /// A trailing date, YYYY-MM-DD.
    Date(NaiveDate),
    /// A trailing ISO week, YYYY-wNN (`w` or `W`).
    Week { year: i32, week: u32, w: u8 },
    /// A trailing number of `digits` digits.
    Number { value: u64, digits: usize },
    /// None of these.
    None,
}

/// Splits `id` into its head and the tail rollover moves on.
fn split_tail(id: &str) -> (&str, Tail) {
    if id.len() >= 10 && id.is_char_boundary(id.len() - 10) {
        let (head, tail) = id.split_at(id.len() - 10);
        if let Ok(date) = NaiveDate::parse_from_str(tail, "%Y-%m-%d") {
            return (head, Tail::Date(date));
        }
    }
    if id.len() >= 8 && id.is_char_boundary(id.len() - 8) {
        let (head, tail) = id.split_at(id.len() - 8);
        let b = tail.as_bytes();
        if b[4] == b'-'
            && (b[5] == b'w' || b[5] == b'W')
            && let (Ok(year), Ok(week)) = (tail[..4].parse::<i32>(), tail[6..].parse::<u32>())
        {
            return (
                head,
                Tail::Week {
                    year,
                    week,
                    w: b[5],
                },
            );
        }
    }
    let digits = id.bytes().rev().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits <= 18 {
        let (head, tail) = id.split_at(id.len() - digits);
        if let Ok(value) = tail.parse() {
            return (head, Tail::Number { value, digits });
        }
    }
    (id, Tail::None)
}

/// The id after `id`, moving a trailing date by `days`.
pub fn next_id(id: &str, days: u64) -> Option<String> {
    match split_tail(id) {
        (head, Tail::Date(date)) => {
            let next = date.checked_add_days(Days::new(days))?;
            Some(format!("{head}{}", next.format("%Y-%m-%d")))
        }
        (head, Tail::Week { year, week, w }) => {
            let monday = NaiveDate::from_isoywd_opt(year, week, chrono::Weekday::Mon)?;
            let next = monday.checked_add_days(Days::new(7 * days.div_ceil(7)))?;
            let iso = next.iso_week();
            Some(format!(
                "{head}{:04}-{}{:02}",
                iso.year(),
                w as char,
                iso.week()
            ))
        }
        (head, Tail::Number { value, digits }) => {
            Some(format!("{head}{:0width$}", value + 1, width = digits))
        }
        (_, Tail::None) => Some(format!("{id}_2")),
    }
}

/// The successor's name: the old id's changing part replaced in the name where it appears
/// (`Season 3` -> `Season 4` when the id went `season_3` -> `season_4`), else the old name.
pub(crate) fn next_name(name: &str, old_id: &str, new_id: &str) -> String {
    let common = old_id
        .bytes()
        .zip(new_id.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let (old_part, new_part) = (&old_id[common..], &new_id[common..]);
    if !old_part.is_empty() && name.ends_with(old_part) {
        format!("{}{new_part}", &name[..name.len() - old_part.len()])
    } else {
        name.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_are_ids_without_what_rollover_moves() {
        for (id, series) in [
            ("daily_2026-11-26", "daily"),
            ("tetris-weekly-2026-w48", "tetris-weekly"),
            ("weekly_2026-W01", "weekly"),
            ("season_3", "season"),
            ("s09", "s"),
            ("launch", "launch"),
            ("2026-11-26", "2026-11-26"),
            ("42", "42"),
            ("cup_.7", "cup"),
        ] {
            assert_eq!(
                series_of(&BoardId::parse(id).unwrap()).as_str(),
                series,
                "{id}"
            );
        }
    }

    #[test]
    fn ids() {
        assert_eq!(next_id("season_3", 90).unwrap(), "season_4");
        assert_eq!(next_id("s_09", 90).unwrap(), "s_10");
        assert_eq!(next_id("daily_2026-11-21", 1).unwrap(), "daily_2026-11-22");
        assert_eq!(next_id("daily_2026-12-31", 1).unwrap(), "daily_2027-01-01");
        assert_eq!(
            next_id("weekly_2026-11-16", 7).unwrap(),
            "weekly_2026-11-23"
        );
        assert_eq!(next_id("weekly_2026-w47", 7).unwrap(), "weekly_2026-w48");
        assert_eq!(next_id("weekly_2026-W53", 7).unwrap(), "weekly_2027-W01");
        assert_eq!(next_id("weekly_2025-w52", 7).unwrap(), "weekly_2026-w01");
        assert_eq!(next_id("launch", 30).unwrap(), "launch_2");
        assert_eq!(next_id("launch_2", 30).unwrap(), "launch_3");
    }
}
