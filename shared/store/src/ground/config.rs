//! Configuration, read once from the environment at start-up.
//!
//! - `TABLE_NAME`: the table (required).
//! - `CURSOR_SECRET`: the key that signs pagination cursors (required, at least
//!   [`MIN_CURSOR_SECRET_LEN`] characters). Anyone who knows it can forge a cursor, so it is never
//!   derived from anything public: a function refuses to start without one. The template
//!   generates one per stack in Secrets Manager and gives its ARN only to the functions that
//!   hand cursors out (see [`crate::secrets`]); the local stack makes one per run. A function
//!   that never hands a cursor out is not given it: its own listings page with cursors signed
//!   by a key made at start ([`private_key`]), which never leaves the process.
//! - `PLAYS_PER_MINUTE`: the most plays a player may have accepted in any 60 s (default
//!   [`DEFAULT_PLAYS_PER_MINUTE`], 0 turns the limit off, at most [`MAX_PLAYS_PER_MINUTE`]);
//!   read by the functions that record plays ([`plays_per_minute`]).
//! - `LANE_CAPS_FROM`: a board's plays a second from which its lanes are capped, so that a
//!   play's rank reads its own lane only (default [`DEFAULT_LANE_CAPS_FROM`]; 0 caps every
//!   board of more than one write shard; see `rank::lane_caps`); read by the functions that
//!   record plays ([`lane_caps_from`]).
//! - `ERASURE_SECRET`: the key of erased players' pseudonyms (required by the functions, at
//!   least [`MIN_CURSOR_SECRET_LEN`] characters, never changed once a player has been erased:
//!   an erasure's marker is found again by it). The template generates one per stack and gives
//!   its ARN to the functions that check or write erasure markers; the anonymous reads function
//!   is not given it. A store built without one (tests) uses [`DEV_ERASURE_SECRET`]. Read by
//!   [`erasure_secret`].
//! - The SDK's own variables (`AWS_REGION`, `AWS_ENDPOINT_URL`, credentials) choose the
//!   endpoint; nothing here names one.

use crate::ground::error::StoreError;

/// The shortest `CURSOR_SECRET` accepted, in bytes: 32 random alphanumeric characters carry
/// about 190 bits (the template's generated secret has 48).
pub const MIN_CURSOR_SECRET_LEN: usize = 32;

/// The default of `PLAYS_PER_MINUTE`.
pub const DEFAULT_PLAYS_PER_MINUTE: u32 = 60;

/// The largest `PLAYS_PER_MINUTE`: the rate log holds one time per play in the window, and a
/// thousand of them keep it a few kilobytes.
pub const MAX_PLAYS_PER_MINUTE: u32 = 1000;

/// Reads `PLAYS_PER_MINUTE` through `lookup` (the environment, or a map in tests): the rate
/// limit of plays a player may have accepted in any 60 s, 0 for none.
pub fn plays_per_minute(lookup: impl Fn(&str) -> Option<String>) -> Result<u32, StoreError> {
    let Some(v) = lookup("PLAYS_PER_MINUTE").filter(|v| !v.trim().is_empty()) else {
        return Ok(DEFAULT_PLAYS_PER_MINUTE);
    };
    v.trim()
        .parse::<u32>()
        .ok()
        .filter(|n| *n <= MAX_PLAYS_PER_MINUTE)
        .ok_or_else(|| {
            StoreError::Config(format!(
                "PLAYS_PER_MINUTE must be a whole number from 0 (no limit) to \
                 {MAX_PLAYS_PER_MINUTE}, not {v:?}"
            ))
        })
}

/// The default of `LANE_CAPS_FROM`: a sixth of the 3,000 plays a second at which reading
/// every lane on every rank fills a lane's partition, so that a board below it keeps the
/// tighter lag of lanes read.
pub const DEFAULT_LANE_CAPS_FROM: u64 = 500;

/// Reads `LANE_CAPS_FROM` through `lookup`: a board's plays a second from which its lanes are
/// capped (0: every board of more than one write shard).
pub fn lane_caps_from(lookup: impl Fn(&str) -> Option<String>) -> Result<u64, StoreError> {
    let Some(v) = lookup("LANE_CAPS_FROM").filter(|v| !v.trim().is_empty()) else {
        return Ok(DEFAULT_LANE_CAPS_FROM);
    };
    v.trim().parse::<u64>().map_err(|_| {
        StoreError::Config(format!(
            "LANE_CAPS_FROM must be a whole number of plays a second (0: every hot board), not \
             {v:?}"
        ))
    })
}

/// The erasure secret of a store built without one: tests and benchmarks only, since anyone
/// can read it here (the functions refuse to start without `ERASURE_SECRET`).
pub const DEV_ERASURE_SECRET: &[u8] = b"leaderboard-development-erasure-secret";

/// Reads `ERASURE_SECRET` through `lookup`: required, at least [`MIN_CURSOR_SECRET_LEN`]
/// characters, for the same reason as the cursor secret (a guessable key would let anyone
/// turn a pseudonym back into the playerId by hashing every id they can guess).
pub fn erasure_secret(lookup: impl Fn(&str) -> Option<String>) -> Result<Vec<u8>, StoreError> {
    let secret = lookup("ERASURE_SECRET").unwrap_or_default();
    if secret.len() < MIN_CURSOR_SECRET_LEN {
        return Err(StoreError::Config(format!(
            "ERASURE_SECRET must be a random secret of at least {MIN_CURSOR_SECRET_LEN} \
             characters (template.yaml generates one): erased players' pseudonyms are keyed by it"
        )));
    }
    Ok(secret.into_bytes())
}

/// The store's settings.
#[derive(Clone)]
pub struct Config {
    /// The table name.
    pub table_name: String,
    /// The secret that signs cursors.
    pub cursor_secret: Vec<u8>,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("table_name", &self.table_name)
            .field("cursor_secret", &"<redacted>")
            .finish()
    }
}

impl Config {
    /// Reads the settings through `lookup` (the environment, or a map in tests).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, StoreError> {
        let table_name = lookup("TABLE_NAME")
            .filter(|t| !t.is_empty())
            .ok_or_else(|| StoreError::Config("TABLE_NAME is not set".into()))?;
        let cursor_secret = lookup("CURSOR_SECRET").unwrap_or_default();
        if cursor_secret.len() < MIN_CURSOR_SECRET_LEN {
            let what = if cursor_secret.is_empty() {
                "is not set".to_owned()
            } else {
                format!("is only {} bytes long", cursor_secret.len())
            };
            return Err(StoreError::Config(format!(
                "CURSOR_SECRET {what}: it signs pagination cursors and must be a random secret of \
                 at least {MIN_CURSOR_SECRET_LEN} characters (template.yaml generates one)"
            )));
        }
        let cursor_secret = cursor_secret.into_bytes();
        Ok(Config {
            table_name,
            cursor_secret,
        })
    }
}

/// A random key for one process, in place of a secret the function is not given: 48
/// alphanumeric characters, as the template's. What it keys never leaves the process.
pub(crate) fn private_key() -> String {
    use rand::Rng;
    use rand::distr::Alphanumeric;
    rand::rng()
        .sample_iter(Alphanumeric)
        .take(48)
        .map(char::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_erasure_secret_is_required_and_long() {
        let with = |v: Option<&str>| erasure_secret(|_| v.map(str::to_owned));
        assert!(matches!(with(None), Err(StoreError::Config(m)) if m.contains("ERASURE_SECRET")));
        assert!(with(Some("short")).is_err());
        assert_eq!(with(Some(&"k".repeat(32))).unwrap(), vec![b'k'; 32]);
    }

    #[test]
    fn lane_caps_from_defaults_to_500_and_refuses_what_is_not_a_rate() {
        let read = |v: Option<&str>| lane_caps_from(|_| v.map(str::to_owned));
        assert_eq!(read(None).unwrap(), DEFAULT_LANE_CAPS_FROM);
        assert_eq!(read(Some(" 0 ")).unwrap(), 0);
        assert_eq!(read(Some("2000")).unwrap(), 2_000);
        for bad in ["-1", "fast", "1.5"] {
            let e = read(Some(bad)).unwrap_err().to_string();
            assert!(e.contains("LANE_CAPS_FROM"), "{bad}: {e}");
        }
    }

    #[test]
    fn plays_per_minute_defaults_to_60_and_refuses_what_is_not_a_limit() {
        let read = |v: Option<&str>| plays_per_minute(|_| v.map(str::to_owned));
        assert_eq!(read(None).unwrap(), DEFAULT_PLAYS_PER_MINUTE);
        assert_eq!(read(Some("")).unwrap(), DEFAULT_PLAYS_PER_MINUTE);
        assert_eq!(read(Some("0")).unwrap(), 0);
        assert_eq!(read(Some(" 120 ")).unwrap(), 120);
        assert_eq!(read(Some("1000")).unwrap(), 1000);
        for bad in ["1001", "-1", "ten", "1.5"] {
            let e = read(Some(bad)).unwrap_err().to_string();
            assert!(e.contains("PLAYS_PER_MINUTE"), "{bad}: {e}");
        }
    }

    const SECRET: &str = "0123456789abcdef0123456789abcdef";

    fn with(table: Option<&str>, secret: Option<&str>) -> Result<Config, StoreError> {
        Config::from_lookup(|k| match k {
            "TABLE_NAME" => table.map(str::to_owned),
            "CURSOR_SECRET" => secret.map(str::to_owned),
            _ => None,
        })
    }

    #[test]
    fn table_name_is_required() {
        assert!(with(None, Some(SECRET)).is_err());
        assert!(with(Some(""), Some(SECRET)).is_err());
        let c = with(Some("t"), Some(SECRET)).unwrap();
        assert_eq!(c.table_name, "t");
        assert_eq!(c.cursor_secret, SECRET.as_bytes());
        assert!(!format!("{c:?}").contains(SECRET));
    }

    #[test]
    fn a_process_without_cursors_gets_its_own_random_key() {
        let a = private_key();
        assert_eq!(a.len(), 48);
        assert!(a.len() >= MIN_CURSOR_SECRET_LEN);
        assert_ne!(a, private_key());
    }

    #[test]
    fn a_real_cursor_secret_is_required_and_named_in_the_error() {
        for (secret, says) in [
            (None, "is not set"),
            (Some(""), "is not set"),
            (Some(&SECRET[1..]), "is only 31 bytes long"),
        ] {
            let e = with(Some("t"), secret).unwrap_err().to_string();
            assert!(e.contains("CURSOR_SECRET") && e.contains(says), "{e}");
        }
    }
}
