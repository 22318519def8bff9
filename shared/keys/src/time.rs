//! Millisecond timestamps in the contract's one textual form, RFC 3339 UTC with milliseconds
//! (`2026-11-21T04:13:00.123Z`).
//!
//! The fixed form matters for keys: GSI2's open-board sort key starts with `endsAt`, and a fixed
//! width, always-UTC string sorts in time order. Input may use any RFC 3339 offset; it is
//! converted to UTC and truncated to the millisecond.
//!
//! ```
//! use leaderboard_keys::time::Timestamp;
//!
//! let t = Timestamp::parse_rfc3339("endsAt", "2026-11-21T05:13:00.123456+01:00").unwrap();
//! assert_eq!(t.to_string(), "2026-11-21T04:13:00.123Z");
//! assert_eq!(Timestamp::from_millis(1_719_100_800_000).unwrap().to_string(), "2024-06-23T00:00:00.000Z");
//! ```

use std::fmt;
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};

use crate::KeyError;

/// The last millisecond of year 9999: the largest time with a 4-digit-year RFC 3339 form.
pub const MAX_MILLIS: u64 = 253_402_300_799_999;

/// Milliseconds since the Unix epoch, from 1970 to the end of year 9999.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(u64);

impl Timestamp {
    /// The timestamp `ms` milliseconds after the epoch.
    pub fn from_millis(ms: u64) -> Result<Timestamp, KeyError> {
        if ms > MAX_MILLIS {
            Err(KeyError::TimeOutOfRange(ms))
        } else {
            Ok(Timestamp(ms))
        }
    }

    /// The current time, from the system clock.
    pub fn now() -> Timestamp {
        let ms = Utc::now().timestamp_millis();
        Timestamp(u64::try_from(ms).unwrap_or(0).min(MAX_MILLIS))
    }

    /// Milliseconds since the epoch.
    pub fn as_millis(self) -> u64 {
        self.0
    }

    /// Seconds since the epoch (DynamoDB's TTL unit), rounded down.
    pub fn as_secs(self) -> u64 {
        self.0 / 1000
    }

    /// Parses an RFC 3339 timestamp of `field`, with any offset, into UTC milliseconds.
    /// Times before 1970 are rejected.
    pub fn parse_rfc3339(field: &'static str, s: &str) -> Result<Timestamp, KeyError> {
        let bad = || KeyError::BadTimestamp {
            field,
            value: s.chars().take(64).collect(),
        };
        let t = DateTime::parse_from_rfc3339(s).map_err(|_| bad())?;
        let ms = u64::try_from(t.timestamp_millis()).map_err(|_| bad())?;
        Timestamp::from_millis(ms).map_err(|_| bad())
    }

    /// Adds `ms` milliseconds, saturating at the largest timestamp.
    pub fn plus_millis(self, ms: u64) -> Timestamp {
        Timestamp(self.0.saturating_add(ms).min(MAX_MILLIS))
    }
}

/// How long from now until a Lambda invocation's deadline, `deadline_ms` milliseconds after the
/// epoch as its context gives it: zero once it has passed, and `None` for 0, the context's "no
/// deadline" (the local stack calls the handlers directly, without one).
pub fn time_left(deadline_ms: u64) -> Option<Duration> {
    (deadline_ms > 0)
        .then(|| Duration::from_millis(deadline_ms.saturating_sub(Timestamp::now().as_millis())))
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // In range by construction, so the conversion cannot fail; fall back to the epoch
        // rather than panic.
        let t = DateTime::<Utc>::from_timestamp_millis(self.0 as i64).unwrap_or_default();
        f.write_str(&t.to_rfc3339_opts(SecondsFormat::Millis, true))
    }
}

impl serde::Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Timestamp {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Timestamp::parse_rfc3339("timestamp", &s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_left_before_a_deadline() {
        assert_eq!(time_left(0), None);
        assert_eq!(time_left(1), Some(Duration::ZERO));
        let left = time_left(Timestamp::now().as_millis() + 60_000).unwrap();
        assert!(
            left <= Duration::from_secs(60) && left > Duration::from_secs(30),
            "{left:?}"
        );
    }

    #[test]
    fn formats_fixed_width_utc_millis() {
        assert_eq!(Timestamp(0).to_string(), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            Timestamp(MAX_MILLIS).to_string(),
            "9999-12-31T23:59:59.999Z"
        );
        assert!(Timestamp::from_millis(MAX_MILLIS + 1).is_err());
    }

    #[test]
    fn parses_offsets_and_rejects_garbage() {
        let t = Timestamp::parse_rfc3339("startsAt", "2026-11-21T04:13:00Z").unwrap();
        assert_eq!(t.to_string(), "2026-11-21T04:13:00.000Z");
        let t2 = Timestamp::parse_rfc3339("startsAt", "2026-11-20T23:13:00-05:00").unwrap();
        assert_eq!(t, t2);
        for bad in ["", "2026-11-21", "yesterday", "1969-12-31T23:59:59Z"] {
            let e = Timestamp::parse_rfc3339("startsAt", bad).unwrap_err();
            assert!(
                matches!(
                    e,
                    KeyError::BadTimestamp {
                        field: "startsAt",
                        ..
                    }
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn text_order_is_time_order() {
        let a = Timestamp(999).to_string();
        let b = Timestamp(1000).to_string();
        let c = Timestamp(86_400_000 * 365 * 40).to_string();
        assert!(a < b && b < c);
    }
}
