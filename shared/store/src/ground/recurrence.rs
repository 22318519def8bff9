//! How a board recurs: by a fixed period (`daily`, `weekly`, `season`), by the calendar month
//! (`monthly`, in UTC), or by a five-field cron expression in an IANA time zone
//! (`{"cron": "0 18 * * FRI", "timezone": "Europe/Berlin"}`). A successor starts when its
//! predecessor ends and ends at the next end its recurrence gives after that; a calendar end is
//! computed in its zone, so 18:00 in Berlin stays 18:00 in Berlin across daylight-saving
//! changes (a time the spring change skips is the first one after the gap; one the autumn
//! change repeats is its first).
//!
//! The zone database is compiled in (jiff's bundled tzdb), so an end is the same on every
//! machine whatever its system zone files.

use std::fmt;
use std::str::FromStr;

use croner::Cron;
use croner::parser::{CronParser, Seconds};
use jiff::tz::TimeZone;
use jiff::{ToSpan, Zoned};
use leaderboard_keys::time::Timestamp;
use serde::{Deserialize, Serialize};

/// Whether and how a board is followed by a successor when it closes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Recurrence {
    /// A one-off board.
    #[default]
    None,
    /// A new board every day.
    Daily,
    /// A new board every week.
    Weekly,
    /// A new board of the same length, numbered.
    Season,
    /// A new board every calendar month (in UTC): it ends on the same day of the next month at
    /// the same time, or on that month's last day when it is shorter.
    Monthly,
    /// A new board ending at each match of a cron expression in a time zone.
    Cron(CronSchedule),
}

/// The longest `cron` a schedule takes, in bytes.
pub const MAX_CRON_LEN: usize = 128;
/// The longest `timezone` a schedule takes, in bytes (IANA names are shorter).
pub const MAX_TIMEZONE_LEN: usize = 64;

/// A five-field cron expression (minute, hour, day of month, month, day of week; names like
/// `FRI` and `L` for a month's last day allowed) and the IANA zone it is read in.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CronSchedule {
    /// The expression, e.g. `0 18 * * FRI`.
    pub cron: String,
    /// The IANA zone it is read in, e.g. `Europe/Berlin` (or `UTC`).
    pub timezone: String,
}

impl CronSchedule {
    /// The expression and zone, parsed, or why they are not a schedule.
    fn parsed(&self) -> Result<(Cron, TimeZone), String> {
        if self.cron.len() > MAX_CRON_LEN || self.timezone.len() > MAX_TIMEZONE_LEN {
            return Err(format!(
                "a schedule's cron is at most {MAX_CRON_LEN} bytes and its timezone at most \
                 {MAX_TIMEZONE_LEN}"
            ));
        }
        let fields = self.cron.split_whitespace().count();
        if fields == 6 {
            return Err(format!(
                "cron {:?} has six fields: it takes five (minute hour day-of-month month \
                 day-of-week); a field of seconds would match less than a minute apart",
                self.cron
            ));
        }
        let cron = CronParser::builder()
            .seconds(Seconds::Disallowed)
            .build()
            .parse(&self.cron)
            .map_err(|e| format!("cron {:?} is not a five-field expression: {e}", self.cron))?;
        let zone = TimeZone::get(&self.timezone).map_err(|_| {
            format!(
                "timezone {:?} is not an IANA time zone (like Europe/Berlin or UTC)",
                self.timezone
            )
        })?;
        Ok((cron, zone))
    }

    /// The first match strictly after `at`, or why there is none (the expression is not one,
    /// or never matches again, like `0 0 30 2 *`).
    pub fn next_after(&self, at: Timestamp) -> Result<Timestamp, String> {
        let (cron, zone) = self.parsed()?;
        let from = zoned(at, zone)?;
        let next = cron.find_next_occurrence(&from, false).map_err(|_| {
            format!(
                "cron {:?} never matches (in {}) after {at}",
                self.cron, self.timezone
            )
        })?;
        timestamp(&next)
    }
}

/// `at` one calendar month later in UTC (clamped to the month's last day).
pub fn month_after(at: Timestamp) -> Result<Timestamp, String> {
    let next = zoned(at, TimeZone::UTC)?
        .checked_add(1.month())
        .map_err(|e| format!("no month after {at}: {e}"))?;
    timestamp(&next)
}

/// The days between the calendar dates of `from` and `to` in `recurrence`'s zone (UTC for
/// all but a cron schedule): how far a successor's id's trailing date moves.
pub fn calendar_days(recurrence: &Recurrence, from: Timestamp, to: Timestamp) -> u64 {
    let zone = match recurrence {
        Recurrence::Cron(c) => c.parsed().map(|(_, z)| z).unwrap_or(TimeZone::UTC),
        _ => TimeZone::UTC,
    };
    let date = |t: Timestamp| zoned(t, zone.clone()).map(|z| z.date());
    match (date(from), date(to)) {
        (Ok(a), Ok(b)) => a
            .until(b)
            .ok()
            .and_then(|span| span.get_days().try_into().ok())
            .unwrap_or(0),
        _ => 0,
    }
}

fn zoned(at: Timestamp, zone: TimeZone) -> Result<Zoned, String> {
    let ms = i64::try_from(at.as_millis()).map_err(|_| format!("{at} is out of range"))?;
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.to_zoned(zone))
        .map_err(|e| format!("{at} is out of range: {e}"))
}

fn timestamp(z: &Zoned) -> Result<Timestamp, String> {
    u64::try_from(z.timestamp().as_millisecond())
        .ok()
        .and_then(|ms| Timestamp::from_millis(ms).ok())
        .ok_or_else(|| format!("{} is out of range", z.timestamp()))
}

impl Recurrence {
    /// Whether the board has a successor.
    pub fn recurs(&self) -> bool {
        *self != Recurrence::None
    }

    /// The end of a successor starting at `starts_at`, a season being `season_ms` long (its
    /// predecessor's scheduled length); `None` for a board that does not recur.
    pub fn next_end(
        &self,
        season_ms: u64,
        starts_at: Timestamp,
    ) -> Result<Option<Timestamp>, String> {
        const DAY_MS: u64 = 86_400_000;
        Ok(Some(match self {
            Recurrence::None => return Ok(None),
            Recurrence::Daily => starts_at.plus_millis(DAY_MS),
            Recurrence::Weekly => starts_at.plus_millis(7 * DAY_MS),
            Recurrence::Season => starts_at.plus_millis(season_ms),
            Recurrence::Monthly => month_after(starts_at)?,
            Recurrence::Cron(c) => c.next_after(starts_at)?,
        }))
    }

    /// Checks a new board's recurrence: a cron schedule parses, names a zone, and matches
    /// after `starts_at`.
    pub fn check(&self, starts_at: Timestamp) -> Result<(), String> {
        match self {
            Recurrence::Cron(c) => c.next_after(starts_at).map(drop),
            _ => Ok(()),
        }
    }

    /// The API's word for a fixed recurrence, or `cron` for a schedule.
    pub fn word(&self) -> &'static str {
        match self {
            Recurrence::None => "none",
            Recurrence::Daily => "daily",
            Recurrence::Weekly => "weekly",
            Recurrence::Season => "season",
            Recurrence::Monthly => "monthly",
            Recurrence::Cron(_) => "cron",
        }
    }
}

impl fmt::Display for Recurrence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Recurrence::Cron(c) => write!(f, "cron {:?} in {}", c.cron, c.timezone),
            other => f.write_str(other.word()),
        }
    }
}

impl FromStr for Recurrence {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "none" => Recurrence::None,
            "daily" => Recurrence::Daily,
            "weekly" => Recurrence::Weekly,
            "season" => Recurrence::Season,
            "monthly" => Recurrence::Monthly,
            other => {
                return Err(format!(
                    "recurrence must be none, daily, weekly, season, monthly or \
                     {{\"cron\": ..., \"timezone\": ...}}, not {other:?}"
                ));
            }
        })
    }
}

impl Serialize for Recurrence {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Recurrence::Cron(c) => c.serialize(s),
            other => s.serialize_str(other.word()),
        }
    }
}

impl<'de> Deserialize<'de> for Recurrence {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Given {
            Word(String),
            Schedule(serde_json::Value),
        }
        match Given::deserialize(d)? {
            Given::Word(w) => w.parse().map_err(serde::de::Error::custom),
            Given::Schedule(v) => serde_json::from_value(v)
                .map(Recurrence::Cron)
                .map_err(|e| {
                    serde::de::Error::custom(format!(
                        "recurrence {{\"cron\": ..., \"timezone\": ...}}: {e}"
                    ))
                }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        Timestamp::parse_rfc3339("t", s).unwrap()
    }

    fn cron(expr: &str, zone: &str) -> Recurrence {
        Recurrence::Cron(CronSchedule {
            cron: expr.into(),
            timezone: zone.into(),
        })
    }

    /// Successive ends from `start`, as RFC 3339 in UTC.
    fn ends(r: &Recurrence, start: &str, n: usize) -> Vec<String> {
        let (mut prev, mut start) = (at(start), at(start));
        let mut out = Vec::new();
        for _ in 0..n {
            let season = start.as_millis() - prev.as_millis();
            let end = r.next_end(season, start).unwrap().unwrap();
            out.push(end.to_string());
            (prev, start) = (start, end);
        }
        out
    }

    #[test]
    fn friday_evening_in_berlin_stays_at_18_local_across_both_changes() {
        let r = cron("0 18 * * FRI", "Europe/Berlin");
        // CET is UTC+1, CEST UTC+2: 2026's changes are on 29 March and 25 October.
        assert_eq!(
            ends(&r, "2026-03-20T17:00:00Z", 2),
            ["2026-03-27T17:00:00.000Z", "2026-04-03T16:00:00.000Z"]
        );
        assert_eq!(
            ends(&r, "2026-10-16T16:00:00Z", 2),
            ["2026-10-23T16:00:00.000Z", "2026-10-30T17:00:00.000Z"]
        );
    }

    #[test]
    fn new_york_times_skipped_or_repeated_by_a_change_end_once() {
        // 02:30 does not exist on 8 March 2026 (02:00 EST -> 03:00 EDT): that day's end is
        // the first time after the gap; 01:30 happens twice on 1 November: the first counts.
        let r = cron("30 2 * * *", "America/New_York");
        assert_eq!(
            ends(&r, "2026-03-07T07:30:00Z", 3),
            [
                "2026-03-08T07:00:00.000Z",
                "2026-03-09T06:30:00.000Z",
                "2026-03-10T06:30:00.000Z"
            ]
        );
        let r = cron("30 1 * * *", "America/New_York");
        assert_eq!(
            ends(&r, "2026-10-31T05:30:00Z", 2),
            ["2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"]
        );
    }

    #[test]
    fn monthly_ends_on_the_same_day_or_the_months_last() {
        assert_eq!(
            ends(&Recurrence::Monthly, "2026-11-01T00:00:00Z", 3),
            [
                "2026-12-01T00:00:00.000Z",
                "2027-01-01T00:00:00.000Z",
                "2027-02-01T00:00:00.000Z"
            ]
        );
        assert_eq!(
            ends(&Recurrence::Monthly, "2027-01-31T12:00:00Z", 1),
            ["2027-02-28T12:00:00.000Z"]
        );
    }

    #[test]
    fn expressions_that_never_match_or_match_under_a_minute_apart_are_refused() {
        let start = at("2026-01-15T00:00:00Z");
        for (expr, zone, why) in [
            ("0 0 30 2 *", "UTC", "never matches"),
            ("0 0 31 4,6,9,11 *", "Europe/Berlin", "never matches"),
            ("* * * * * *", "UTC", "six fields"),
            ("*/10 * * * * *", "UTC", "six fields"),
            ("0 18 * *", "UTC", "five-field"),
            ("61 * * * *", "UTC", "five-field"),
            ("0 18 * * FRI", "Europe/Atlantis", "IANA"),
            ("0 18 * * FRI", "", "IANA"),
        ] {
            let e = cron(expr, zone).check(start).unwrap_err();
            assert!(e.contains(why), "{expr} in {zone}: {e}");
        }
        assert!(cron("0 0 29 2 *", "UTC").check(start).is_ok());
        assert!(cron("* * * * *", "UTC").check(start).is_ok());
    }

    #[test]
    fn the_api_spells_a_recurrence_as_a_word_or_a_schedule() {
        for word in ["none", "daily", "weekly", "season", "monthly"] {
            let r: Recurrence = serde_json::from_value(serde_json::json!(word)).unwrap();
            assert_eq!(serde_json::to_value(&r).unwrap(), word);
        }
        let given = serde_json::json!({"cron": "0 18 * * FRI", "timezone": "Europe/Berlin"});
        let r: Recurrence = serde_json::from_value(given.clone()).unwrap();
        assert_eq!(r, cron("0 18 * * FRI", "Europe/Berlin"));
        assert_eq!(serde_json::to_value(&r).unwrap(), given);
        for bad in [
            serde_json::json!("hourly"),
            serde_json::json!({"cron": "0 18 * * FRI"}),
            serde_json::json!({"cron": "0 18 * * FRI", "timezone": "UTC", "tz": "UTC"}),
            serde_json::json!(7),
        ] {
            assert!(
                serde_json::from_value::<Recurrence>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_successors_id_moves_by_calendar_days_in_the_zone() {
        let r = cron("0 18 * * FRI", "Europe/Berlin");
        // 23 hours of UTC across the spring change are still one week of Berlin's dates.
        let days = calendar_days(&r, at("2026-03-27T17:00:00Z"), at("2026-04-03T16:00:00Z"));
        assert_eq!(days, 7);
        let days = calendar_days(
            &Recurrence::Monthly,
            at("2026-11-01T00:00:00Z"),
            at("2026-12-01T00:00:00Z"),
        );
        assert_eq!(days, 30);
    }
}
