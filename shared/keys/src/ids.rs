//! Validated identifiers: the only way a caller's string becomes part of a key.
//!
//! Every key of the table is a `#`-delimited path, and a delimiter inside a segment would let two
//! unrelated keys collide (seed 004: the delimiter is load-bearing). So `playerId`,
//! `leaderboardId` and `gameId` are 1 to 64 characters of `[A-Za-z0-9_.-]`: the delimiter `#`,
//! `/`, control characters and everything else are rejected before any key is built, with an
//! error that names the field. `sessionId` is a ULID.
//!
//! ```
//! use leaderboard_keys::ids::{PlayerId, BoardId};
//!
//! assert_eq!(PlayerId::parse("p_alice").unwrap().as_str(), "p_alice");
//! let err = BoardId::parse("season#3").unwrap_err();
//! assert_eq!(err.to_string(), "leaderboardId must not contain '#', the key delimiter");
//! ```

use std::fmt;

/// The longest `playerId`, `leaderboardId` or `gameId`.
pub const MAX_ID_LEN: usize = 64;

/// The longest email address (RFC 5321's path limit).
pub const MAX_EMAIL_LEN: usize = 254;

/// How far in the future a client-made ULID's timestamp may be.
pub const MAX_SESSION_CLOCK_SKEW_MS: u64 = 5 * 60 * 1000;

/// Why an identifier was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdProblem {
    /// No characters.
    Empty,
    /// More characters than allowed.
    TooLong {
        /// How many characters it has.
        len: usize,
        /// The most allowed.
        max: usize,
    },
    /// Contains `#`, the key delimiter.
    Delimiter,
    /// Contains `/`.
    Slash,
    /// Contains a control character.
    Control,
    /// Contains a character outside the allowed set.
    Character(char),
    /// Not a ULID (26 Crockford base32 characters, first one `0`..=`7`).
    NotUlid,
    /// A ULID whose timestamp is too far in the future.
    Future {
        /// Its timestamp.
        timestamp_ms: u64,
    },
    /// Not an email address (`local@domain`).
    NotEmail,
    /// Contains a character that is not printable ASCII.
    NotPrintable(char),
}

/// An identifier that broke a rule. The message names the field, so it can be shown to the
/// client as is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field} {problem}")]
pub struct IdError {
    /// The field's name as the API spells it (`playerId`, `leaderboardId`, ...).
    pub field: &'static str,
    /// What was wrong.
    pub problem: IdProblem,
}

impl fmt::Display for IdProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdProblem::Empty => f.write_str("must not be empty"),
            IdProblem::TooLong { len, max } => {
                write!(f, "is {len} characters long; at most {max} are allowed")
            }
            IdProblem::Delimiter => f.write_str("must not contain '#', the key delimiter"),
            IdProblem::Slash => f.write_str("must not contain '/'"),
            IdProblem::Control => f.write_str("must not contain control characters"),
            IdProblem::Character(c) => write!(
                f,
                "must contain only letters, digits, '_', '.' and '-', not {c:?}"
            ),
            IdProblem::NotUlid => f.write_str("must be a ULID (26 Crockford base32 characters)"),
            IdProblem::Future { timestamp_ms } => write!(
                f,
                "is a ULID whose time ({timestamp_ms} ms) is more than 5 minutes in the future"
            ),
            IdProblem::NotEmail => f.write_str("must be an email address like name@example.com"),
            IdProblem::NotPrintable(c) => write!(
                f,
                "must contain only printable ASCII characters (space to '~'), not {c:?}"
            ),
        }
    }
}

/// Refuses an empty `s` or one of more than `max` characters.
fn check_length(field: &'static str, s: &str, max: usize) -> Result<(), IdError> {
    let len = s.chars().count();
    let problem = match len {
        0 => IdProblem::Empty,
        len if len > max => IdProblem::TooLong { len, max },
        _ => return Ok(()),
    };
    Err(IdError { field, problem })
}

fn check_segment(field: &'static str, s: &str) -> Result<(), IdError> {
    let err = |problem| Err(IdError { field, problem });
    check_length(field, s, MAX_ID_LEN)?;
    for c in s.chars() {
        match c {
            'A'..='Z' | 'a'..='z' | '0'..='9' | '_' | '.' | '-' => {}
            '#' => return err(IdProblem::Delimiter),
            '/' => return err(IdProblem::Slash),
            c if c.is_control() => return err(IdProblem::Control),
            c => return err(IdProblem::Character(c)),
        }
    }
    Ok(())
}

/// The string conversions of an identifier kept as its checked text: from a `String` through
/// `$parse` (serde reads it so), back into one, and shown as itself.
macro_rules! checked_string {
    ($name:ident, $parse:ident) => {
        impl TryFrom<String> for $name {
            type Error = IdError;
            fn try_from(s: String) -> Result<Self, IdError> {
                Self::$parse(&s)
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

checked_string!(SessionId, parse_stored);
checked_string!(IdempotencyKey, parse);
checked_string!(Email, parse);

macro_rules! segment_id {
    ($(#[$doc:meta])* $name:ident, $field:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            #[doc = concat!("The field name used in errors: `", $field, "`.")]
            pub const FIELD: &'static str = $field;

            /// Validates `s`: 1 to 64 characters of `[A-Za-z0-9_.-]`.
            pub fn parse(s: &str) -> Result<Self, IdError> {
                check_segment($field, s)?;
                Ok(Self(s.to_owned()))
            }

            /// The identifier as it appears in keys and in the API.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = IdError;
            fn try_from(s: String) -> Result<Self, IdError> {
                check_segment($field, &s)?;
                Ok(Self(s))
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

segment_id!(
    /// A player's id: the JWT `sub` claim, 1 to 64 characters of `[A-Za-z0-9_.-]`.
    PlayerId,
    "playerId"
);
segment_id!(
    /// A board's id (`season_3`, `daily_2026-11-21`), 1 to 64 characters of `[A-Za-z0-9_.-]`.
    BoardId,
    "leaderboardId"
);
segment_id!(
    /// A game's id, 1 to 64 characters of `[A-Za-z0-9_.-]`.
    GameId,
    "gameId"
);
segment_id!(
    /// A board series' id: a recurring board and its successors share it (`daily` for
    /// `daily_2026-11-26`), 1 to 64 characters of `[A-Za-z0-9_.-]`.
    SeriesId,
    "seriesId"
);

segment_id!(
    /// A league's tier name (`bronze`, `gold`), 1 to 64 characters of `[A-Za-z0-9_.-]`.
    TierName,
    "tier"
);

segment_id!(
    /// What a board's close grants a band of its final standings (`gold`, `top10pct`), 1 to 64
    /// characters of `[A-Za-z0-9_.-]`: the game's own name for the prize.
    RewardName,
    "reward"
);

segment_id!(
    /// A board's tiebreak column name (`time`, `moves`), 1 to 64 characters of
    /// `[A-Za-z0-9_.-]`: the key of its value in a play's and an entry's `subscores`.
    ColumnName,
    "column name"
);

impl SeriesId {
    /// The series named as a board is: every board id is a valid series id (the same rule).
    pub fn of_board(board: &BoardId) -> SeriesId {
        SeriesId(board.as_str().to_owned())
    }
}

/// Crockford's base32 alphabet, as ULIDs use it.
const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

fn crockford_value(c: u8) -> Option<u8> {
    let c = c.to_ascii_uppercase();
    CROCKFORD.iter().position(|&a| a == c).map(|p| p as u8)
}

/// A session's id: a ULID (48-bit millisecond timestamp, 80 random bits), kept in its canonical
/// upper-case form so that byte order is creation order.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct SessionId(String);

impl SessionId {
    /// The field name used in errors.
    pub const FIELD: &'static str = "sessionId";

    /// Validates a client's ULID, also checking that its timestamp is not more than 5 minutes
    /// after `now_ms`. Lower-case letters are accepted and canonicalised to upper case.
    pub fn parse(s: &str, now_ms: u64) -> Result<Self, IdError> {
        let id = Self::parse_stored(s)?;
        let ts = id.timestamp_ms();
        if ts > now_ms.saturating_add(MAX_SESSION_CLOCK_SKEW_MS) {
            return Err(IdError {
                field: Self::FIELD,
                problem: IdProblem::Future { timestamp_ms: ts },
            });
        }
        Ok(id)
    }

    /// Validates a ULID's form only (for ids read back from the table, whose clock check was
    /// done when they were written).
    pub fn parse_stored(s: &str) -> Result<Self, IdError> {
        let bad = || IdError {
            field: Self::FIELD,
            problem: IdProblem::NotUlid,
        };
        let b = s.as_bytes();
        // 26 characters of 5 bits is 130 bits: the first may only carry 3 (0..=7).
        if b.len() != 26 || crockford_value(b[0]).is_none_or(|v| v > 7) {
            return Err(bad());
        }
        let mut canon = String::with_capacity(26);
        for &c in b {
            let v = crockford_value(c).ok_or_else(bad)?;
            canon.push(CROCKFORD[v as usize] as char);
        }
        Ok(SessionId(canon))
    }

    /// The ULID of `timestamp_ms` and 80 bits of `randomness` (the high 48 bits of it are
    /// ignored). The caller supplies the randomness, so this crate stays free of I/O.
    pub fn from_parts(timestamp_ms: u64, randomness: u128) -> Result<Self, IdError> {
        if timestamp_ms >= 1 << 48 {
            return Err(IdError {
                field: Self::FIELD,
                problem: IdProblem::NotUlid,
            });
        }
        let value: u128 = ((timestamp_ms as u128) << 80) | (randomness & ((1u128 << 80) - 1));
        let mut s = String::with_capacity(26);
        for i in (0..26).rev() {
            s.push(CROCKFORD[((value >> (i * 5)) & 31) as usize] as char);
        }
        Ok(SessionId(s))
    }

    /// The ULID's timestamp, in milliseconds since the Unix epoch.
    pub fn timestamp_ms(&self) -> u64 {
        self.0.as_bytes()[..10].iter().fold(0u64, |acc, &c| {
            (acc << 5) | crockford_value(c).unwrap_or(0) as u64
        })
    }

    /// The canonical (upper-case) ULID.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The longest `Idempotency-Key`.
pub const MAX_IDEMPOTENCY_KEY_LEN: usize = 64;

/// A play's `Idempotency-Key` header: 1 to 64 printable ASCII characters (space to `~`), in
/// any format the client likes (a UUID, a counter, a hash). It names a play for its player:
/// retried with the same key, the play is the same one. It is the last part of its item's sort
/// key, after a fixed prefix, so a `#` in it cannot collide with another key.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// The field name used in errors.
    pub const FIELD: &'static str = "Idempotency-Key";

    /// Validates a key: 1 to 64 characters, each printable ASCII.
    pub fn parse(s: &str) -> Result<Self, IdError> {
        if let Some(c) = s.chars().find(|c| !(' '..='~').contains(c)) {
            return Err(IdError {
                field: Self::FIELD,
                problem: IdProblem::NotPrintable(c),
            });
        }
        // Printable ASCII only from here, so characters are bytes.
        check_length(Self::FIELD, s, MAX_IDEMPOTENCY_KEY_LEN)?;
        Ok(IdempotencyKey(s.to_owned()))
    }

    /// The key as the client sent it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A player's email address: the login lookup key of GSI1 (`PLAYER_EMAIL#<email>`) and of the
/// address's owner item. Lower-cased, so that one address has one key however it is typed
/// (`Alice@X.com` is `alice@x.com`): an address belongs to one player.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Email(String);

impl Email {
    /// The field name used in errors.
    pub const FIELD: &'static str = "email";

    /// Validates an address, lower-cased: `local@domain`, at most 254 characters, no
    /// whitespace, control characters, `#` or `/`.
    pub fn parse(s: &str) -> Result<Self, IdError> {
        let s = &s.to_lowercase();
        let field = Self::FIELD;
        let err = |problem| Err(IdError { field, problem });
        check_length(field, s, MAX_EMAIL_LEN)?;
        for c in s.chars() {
            match c {
                '#' => return err(IdProblem::Delimiter),
                '/' => return err(IdProblem::Slash),
                c if c.is_control() => return err(IdProblem::Control),
                c if c.is_whitespace() => return err(IdProblem::Character(c)),
                _ => {}
            }
        }
        match s.split_once('@') {
            Some((local, domain))
                if !local.is_empty()
                    && !domain.is_empty()
                    && !domain.contains('@')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.') =>
            {
                Ok(Email(s.to_owned()))
            }
            _ => err(IdProblem::NotEmail),
        }
    }

    /// The address.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(r: Result<PlayerId, IdError>) -> IdProblem {
        r.unwrap_err().problem
    }

    #[test]
    fn accepts_the_allowed_alphabet() {
        for ok in ["p", "p_alice", "A-Z.a_z-0.9", &"x".repeat(64)] {
            assert_eq!(PlayerId::parse(ok).unwrap().as_str(), ok);
        }
    }

    #[test]
    fn rejects_with_the_reason_and_the_field() {
        assert_eq!(problem(PlayerId::parse("")), IdProblem::Empty);
        assert_eq!(
            problem(PlayerId::parse(&"x".repeat(65))),
            IdProblem::TooLong { len: 65, max: 64 }
        );
        assert_eq!(problem(PlayerId::parse("a#b")), IdProblem::Delimiter);
        assert_eq!(problem(PlayerId::parse("a/b")), IdProblem::Slash);
        assert_eq!(problem(PlayerId::parse("a\u{0}b")), IdProblem::Control);
        assert_eq!(problem(PlayerId::parse("a\nb")), IdProblem::Control);
        assert_eq!(problem(PlayerId::parse("a\u{7f}")), IdProblem::Control);
        assert_eq!(problem(PlayerId::parse("a b")), IdProblem::Character(' '));
        assert_eq!(problem(PlayerId::parse("é")), IdProblem::Character('é'));
        let e = GameId::parse("a/b").unwrap_err();
        assert_eq!(e.to_string(), "gameId must not contain '/'");
        let e = BoardId::parse("").unwrap_err();
        assert_eq!(e.to_string(), "leaderboardId must not be empty");
    }

    #[test]
    fn serde_validates() {
        let ok: PlayerId = serde_json_like("p_1").unwrap();
        assert_eq!(ok.as_str(), "p_1");
        assert!(serde_json_like::<PlayerId>("p#1").is_err());
    }

    // A tiny serde round trip through `String` without pulling in serde_json.
    fn serde_json_like<T: TryFrom<String, Error = IdError>>(s: &str) -> Result<T, IdError> {
        T::try_from(s.to_owned())
    }

    #[test]
    fn ulid_round_trip_and_timestamp() {
        let id = SessionId::from_parts(1_719_100_800_000, 0x1234_5678_9abc_def0_1234).unwrap();
        assert_eq!(id.as_str().len(), 26);
        assert_eq!(id.timestamp_ms(), 1_719_100_800_000);
        assert_eq!(SessionId::parse_stored(id.as_str()).unwrap(), id);
        // Canonical upper case; lower case accepted.
        let lower = id.as_str().to_ascii_lowercase();
        assert_eq!(SessionId::parse_stored(&lower).unwrap(), id);
        // Byte order is time order.
        let later = SessionId::from_parts(1_719_100_800_001, 0).unwrap();
        assert!(later > id);
    }

    #[test]
    fn ulid_rules() {
        let now = 1_719_100_800_000;
        assert!(SessionId::parse("01HW0000000000000000000000", now).is_ok());
        for bad in [
            "",
            "01HW000000000000000000000",   // 25
            "01HW00000000000000000000000", // 27
            "01HW00000000000000000000U0",  // U is not Crockford
            "81HW0000000000000000000000",  // overflows 128 bits
            "01HW#000000000000000000000",
        ] {
            assert_eq!(
                SessionId::parse(bad, now).unwrap_err().problem,
                IdProblem::NotUlid,
                "{bad:?}"
            );
        }
        let soon = SessionId::from_parts(now + MAX_SESSION_CLOCK_SKEW_MS, 1).unwrap();
        assert!(SessionId::parse(soon.as_str(), now).is_ok());
        let future = SessionId::from_parts(now + MAX_SESSION_CLOCK_SKEW_MS + 1, 1).unwrap();
        assert!(matches!(
            SessionId::parse(future.as_str(), now).unwrap_err().problem,
            IdProblem::Future { .. }
        ));
        assert!(SessionId::from_parts(1 << 48, 0).is_err());
    }

    #[test]
    fn idempotency_keys_are_printable_ascii_up_to_64() {
        for ok in [
            "a",
            "550e8400-e29b-41d4-a716-446655440000",
            "retry #3 / play 7",
            &"~".repeat(64),
        ] {
            assert_eq!(IdempotencyKey::parse(ok).unwrap().as_str(), ok);
        }
        let problem = |s: &str| IdempotencyKey::parse(s).unwrap_err().problem;
        assert_eq!(problem(""), IdProblem::Empty);
        assert_eq!(
            problem(&"k".repeat(65)),
            IdProblem::TooLong { len: 65, max: 64 }
        );
        assert_eq!(problem("a\tb"), IdProblem::NotPrintable('\t'));
        assert_eq!(problem("clé"), IdProblem::NotPrintable('é'));
        assert_eq!(problem("a\u{7f}"), IdProblem::NotPrintable('\u{7f}'));
        let e = IdempotencyKey::parse("a\nb").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("Idempotency-Key must contain only printable"),
            "{e}"
        );
    }

    #[test]
    fn email_rules() {
        assert!(Email::parse("alice@x.com").is_ok());
        // One address, one key, however it is typed.
        assert_eq!(Email::parse("Alice@X.com").unwrap().as_str(), "alice@x.com");
        assert_eq!(
            Email::parse("ÉLODIE@x.com").unwrap().as_str(),
            "élodie@x.com"
        );
        for (bad, p) in [
            ("", IdProblem::Empty),
            ("alice", IdProblem::NotEmail),
            ("@x.com", IdProblem::NotEmail),
            ("alice@", IdProblem::NotEmail),
            ("a@b@c", IdProblem::NotEmail),
            ("a#b@x.com", IdProblem::Delimiter),
            ("a/b@x.com", IdProblem::Slash),
            ("a b@x.com", IdProblem::Character(' ')),
            ("a\tb@x.com", IdProblem::Control),
        ] {
            assert_eq!(Email::parse(bad).unwrap_err().problem, p, "{bad:?}");
        }
        let long = format!("{}@x.com", "a".repeat(250));
        assert!(matches!(
            Email::parse(&long).unwrap_err().problem,
            IdProblem::TooLong { .. }
        ));
    }
}
