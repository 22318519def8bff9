//! Erasure's pseudonyms: what stands in for an erased player where a record must outlive them.
//!
//! A closed board's final standings keep their ranks after a player is erased, with the
//! `playerId` replaced by a pseudonym, `erased_<16 hex digits>`: the first 64 bits of
//! HMAC-SHA256 of the playerId under the deployment's erasure secret. The same player always
//! gets the same pseudonym (so an erasure that is run again, or resumed, finds its own marker),
//! and without the secret a pseudonym cannot be turned back into a playerId, not even by
//! hashing every id one can guess. A pseudonym is a valid `playerId`, so every listing reads it
//! as one.
//!
//! ```
//! use leaderboard_keys::erasure::Pseudonym;
//! use leaderboard_keys::ids::PlayerId;
//!
//! let bob = PlayerId::parse("p_bob").unwrap();
//! let p = Pseudonym::of(b"a secret of the deployment", &bob);
//! assert!(p.as_str().starts_with("erased_"));
//! assert_eq!(p.as_str().len(), 7 + 16);
//! assert_eq!(p, Pseudonym::of(b"a secret of the deployment", &bob));
//! assert_ne!(p, Pseudonym::of(b"another secret", &bob));
//! assert_eq!(Pseudonym::parse(p.as_str()).unwrap(), p);
//! ```

use std::fmt;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::KeyError;
use crate::ids::PlayerId;

/// What every pseudonym starts with.
pub const PSEUDONYM_PREFIX: &str = "erased_";

/// How many hex digits follow the prefix.
const HEX_DIGITS: usize = 16;

/// An erased player's pseudonym: `erased_<16 lower-case hex digits>`.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct Pseudonym(String);

impl TryFrom<String> for Pseudonym {
    type Error = KeyError;
    fn try_from(s: String) -> Result<Pseudonym, KeyError> {
        Pseudonym::parse(&s)
    }
}

impl From<Pseudonym> for String {
    fn from(p: Pseudonym) -> String {
        p.0
    }
}

impl Pseudonym {
    /// The pseudonym of `player` under the erasure secret `secret`.
    pub fn of(secret: &[u8], player: &PlayerId) -> Pseudonym {
        let hex = keyed_hex(secret, &[player.as_str().as_bytes()], HEX_DIGITS);
        Pseudonym(format!("{PSEUDONYM_PREFIX}{hex}"))
    }

    /// Parses a stored pseudonym.
    pub fn parse(s: &str) -> Result<Pseudonym, KeyError> {
        let ok = s
            .strip_prefix(PSEUDONYM_PREFIX)
            .is_some_and(|hex| is_lower_hex(hex, HEX_DIGITS));
        if ok {
            Ok(Pseudonym(s.to_owned()))
        } else {
            Err(KeyError::malformed(
                s,
                "a pseudonym is erased_ and 16 lower-case hex digits",
            ))
        }
    }

    /// The pseudonym as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The pseudonym as the `playerId` a final standing shows.
    pub fn as_player_id(&self) -> PlayerId {
        match PlayerId::parse(&self.0) {
            Ok(p) => p,
            // `erased_` and hex digits are all id characters, 23 of them.
            Err(_) => unreachable_hmac(),
        }
    }
}

/// `sort_key` (a Score sort key, `SCORE#<rankKey>#<playerId>`) of `player` with the player
/// replaced by `pseudonym`: what a lane's change log records of a removed entry, so that the
/// rank index takes out the same digits and no lane holds the playerId. `None` when the key is
/// not `player`'s.
///
/// ```
/// use leaderboard_keys::erasure::{Pseudonym, pseudonymous_sort_key};
/// use leaderboard_keys::ids::PlayerId;
///
/// let bob = PlayerId::parse("p_bob").unwrap();
/// let p = Pseudonym::parse("erased_0123456789abcdef").unwrap();
/// assert_eq!(
///     pseudonymous_sort_key("SCORE#0000009850#8280899199999#p_bob", &bob, &p).unwrap(),
///     "SCORE#0000009850#8280899199999#erased_0123456789abcdef",
/// );
/// assert_eq!(pseudonymous_sort_key("SCORE#0000009850#8280899199999#p_bo", &bob, &p), None);
/// ```
pub fn pseudonymous_sort_key(
    sort_key: &str,
    player: &PlayerId,
    pseudonym: &Pseudonym,
) -> Option<String> {
    let rank_key = sort_key.strip_suffix(player.as_str())?.strip_suffix('#')?;
    Some(format!("{rank_key}#{pseudonym}"))
}

/// What the stack's key check holds: HMAC-SHA256 of a fixed text under the erasure secret, as
/// 64 hex digits. The functions keep it in the table; an operator's tool with another secret
/// finds it different and stops before it writes markers nothing looks up (or misses the
/// real ones). It says nothing of the secret.
///
/// ```
/// use leaderboard_keys::erasure::key_check;
///
/// assert_eq!(key_check(b"one secret"), key_check(b"one secret"));
/// assert_ne!(key_check(b"one secret"), key_check(b"another secret"));
/// assert_eq!(key_check(b"one secret").len(), 64);
/// ```
pub fn key_check(secret: &[u8]) -> String {
    keyed_hex(
        secret,
        &[b"leaderboard: the erasure secret's key check"],
        64,
    )
}

/// The first `digits` (even, at most 64) lower-case hex digits of HMAC-SHA256 of `message`'s
/// parts, in order, under `secret`: what every keyed hash of the table is stored as.
pub(crate) fn keyed_hex(secret: &[u8], message: &[&[u8]], digits: usize) -> String {
    // HMAC takes a key of any length; `new_from_slice` cannot fail for it.
    let mut mac = match Hmac::<Sha256>::new_from_slice(secret) {
        Ok(mac) => mac,
        Err(_) => unreachable_hmac(),
    };
    for part in message {
        mac.update(part);
    }
    let digest = mac.finalize().into_bytes();
    digest[..digits / 2]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `s` is exactly `digits` lower-case hex digits (what a keyed hash is stored as).
pub(crate) fn is_lower_hex(s: &str, digits: usize) -> bool {
    s.len() == digits
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cold]
fn unreachable_hmac() -> ! {
    unreachable!("HMAC accepts any key, and a pseudonym is a valid id")
}

impl fmt::Display for Pseudonym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pseudonyms_differ_by_player_and_parse_only_their_shape() {
        let key = b"k";
        let a = Pseudonym::of(key, &PlayerId::parse("a").unwrap());
        let b = Pseudonym::of(key, &PlayerId::parse("b").unwrap());
        assert_ne!(a, b);
        assert_eq!(a.as_player_id().as_str(), a.as_str());
        for bad in [
            "erased_",
            "erased_0123456789abcde",
            "erased_0123456789abcdef0",
            "erased_0123456789ABCDEF",
            "erasedx0123456789abcdef",
            "p_bob",
        ] {
            assert!(Pseudonym::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_pseudonym_never_changes_across_versions() {
        // An erasure run again must find its own marker, so the derivation is pinned:
        // HMAC-SHA256 (Python's hmac module gives the same 16 digits).
        let bob = PlayerId::parse("p_bob").unwrap();
        assert_eq!(
            Pseudonym::of(b"a secret of the deployment", &bob).as_str(),
            "erased_20010ff9220adbd3"
        );
    }
}
