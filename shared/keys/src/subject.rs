//! A token's `sub` claim as a `playerId`: one rule for every identity provider.
//!
//! A `sub` that is already a valid `playerId` (1 to 64 characters of `[A-Za-z0-9_.-]`, as
//! Cognito's UUIDs are) is the player id, unchanged. Any other `sub` (Auth0's `auth0|abc`,
//! `google-oauth2|123`, an email, anything longer than 64 characters) becomes a readable part
//! and a hash: its first 38 characters with `|` turned into `.` and every other character
//! outside the set into `_`, then `-`, then the first 24 hex digits of the SHA-256 of the whole
//! `sub`. So `auth0|abc` is `auth0.abc-` followed by 24 hex digits. The hash keeps two different
//! subs apart even where their readable parts agree (`a|b`, `a_b` and `a.b` are three players),
//! and no valid `sub` can take another's id without a SHA-256 preimage.
//!
//! A valid `sub` that has the shape of a mapped id (1 to 38 characters, `-`, 24 lower-case hex
//! digits) is mapped too: an identity provider that lets a user choose their `sub` could
//! otherwise name one equal to another provider's mapped subject and play as that player. So an
//! id passed unchanged never has the mapped shape, and two subjects never share a player. A
//! valid `sub` of an erased player's pseudonym's shape (`erased_` and 16 hex digits, see
//! [`crate::erasure`]) is mapped for the same reason: a live player must never hold the id
//! that stands for an erased one in final standings, its audit trail and `/results`.
//!
//! ```
//! use leaderboard_keys::subject::player_id_of;
//!
//! assert_eq!(player_id_of("9f2c6a1e-4b7d-4c1f-8e2a-0d6b5c3a7e91").unwrap().as_str(),
//!            "9f2c6a1e-4b7d-4c1f-8e2a-0d6b5c3a7e91");
//! let auth0 = player_id_of("auth0|abc").unwrap();
//! assert!(auth0.as_str().starts_with("auth0.abc-"));
//! assert_eq!(auth0.as_str().len(), "auth0.abc-".len() + 24);
//! ```

use sha2::{Digest, Sha256};

use crate::erasure::Pseudonym;
use crate::ids::{IdError, IdProblem, PlayerId};

/// How many characters of a mapped `sub` are kept readable.
pub const READABLE_LEN: usize = 38;

/// How many hex digits of the SHA-256 end a mapped `sub` (96 bits).
pub const HASH_HEX_LEN: usize = 24;

/// The player id of a token whose `sub` claim is `sub` (see the module docs); an empty `sub`
/// has none.
pub fn player_id_of(sub: &str) -> Result<PlayerId, IdError> {
    if sub.is_empty() {
        return Err(IdError {
            field: PlayerId::FIELD,
            problem: IdProblem::Empty,
        });
    }
    if let Ok(id) = PlayerId::parse(sub)
        && !has_mapped_shape(sub)
        && Pseudonym::parse(sub).is_err()
    {
        return Ok(id);
    }
    let mut id: String = sub
        .chars()
        .take(READABLE_LEN)
        .map(|c| match c {
            'A'..='Z' | 'a'..='z' | '0'..='9' | '_' | '.' | '-' => c,
            '|' => '.',
            _ => '_',
        })
        .collect();
    id.push('-');
    let digest = Sha256::digest(sub.as_bytes());
    for byte in &digest[..HASH_HEX_LEN / 2] {
        id.push_str(&format!("{byte:02x}"));
    }
    PlayerId::parse(&id)
}

/// Whether `id` looks like a mapped `sub`: 1 to [`READABLE_LEN`] characters, `-`, then
/// [`HASH_HEX_LEN`] lower-case hex digits.
fn has_mapped_shape(id: &str) -> bool {
    let Some(split) = id.len().checked_sub(HASH_HEX_LEN + 1) else {
        return false;
    };
    let (readable, rest) = id.split_at(split);
    (1..=READABLE_LEN).contains(&readable.len())
        && rest.starts_with('-')
        && rest[1..]
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_ids_pass_unchanged() {
        for sub in [
            "p_alice",
            "9f2c6a1e-4b7d-4c1f-8e2a-0d6b5c3a7e91",
            &"x".repeat(64),
            "a.b",
        ] {
            assert_eq!(player_id_of(sub).unwrap().as_str(), sub);
        }
        assert!(player_id_of("").is_err());
    }

    #[test]
    fn other_subs_map_to_a_readable_part_and_a_hash() {
        // a known answer: the first 24 hex digits of SHA-256("auth0|abc")
        assert_eq!(
            player_id_of("auth0|abc").unwrap().as_str(),
            "auth0.abc-c5d09a77163332e87cd67f4f"
        );
        let google = player_id_of("google-oauth2|123").unwrap();
        assert!(
            google.as_str().starts_with("google-oauth2.123-"),
            "{google:?}"
        );
        // the hash is of the whole sub: a long one keeps 38 readable characters
        let long = format!("{}|{}", "a".repeat(40), "b".repeat(40));
        let id = player_id_of(&long).unwrap();
        assert_eq!(id.as_str().len(), READABLE_LEN + 1 + HASH_HEX_LEN);
        assert!(id.as_str().starts_with(&"a".repeat(38)));
        // non-ASCII and every other character become one '_' each
        let email = player_id_of("zoë@example.com").unwrap();
        assert!(email.as_str().starts_with("zo__example.com-"), "{email:?}");
        // a 65-character valid-looking sub is hashed too
        assert_ne!(
            player_id_of(&"y".repeat(65)).unwrap().as_str(),
            "y".repeat(65)
        );
    }

    #[test]
    fn a_valid_sub_shaped_like_a_mapped_one_is_mapped_too() {
        let mapped = player_id_of("auth0|abc").unwrap();
        // A provider that lets a user choose that very string as their sub gets another player.
        let lookalike = player_id_of(mapped.as_str()).unwrap();
        assert_ne!(lookalike, mapped);
        assert!(has_mapped_shape(lookalike.as_str()));
        assert!(has_mapped_shape(mapped.as_str()));
        // Ids of other shapes pass unchanged: Cognito's UUIDs, upper-case or short hashes, a
        // readable part too long to be one.
        for sub in [
            "9f2c6a1e-4b7d-4c1f-8e2a-0d6b5c3a7e91",
            "auth0.abc-C5D09A77163332E87CD67F4F",
            "auth0.abc-c5d09a77163332e87cd67f4",
            &format!("{}-c5d09a77163332e87cd67f4f", "a".repeat(39)),
            "-c5d09a77163332e87cd67f4f",
        ] {
            assert!(!has_mapped_shape(sub), "{sub}");
            assert_eq!(player_id_of(sub).unwrap().as_str(), sub);
        }
    }

    #[test]
    fn a_sub_shaped_like_a_pseudonym_is_mapped() {
        let pseudonym = "erased_0123456789abcdef";
        let mapped = player_id_of(pseudonym).unwrap();
        assert_ne!(mapped.as_str(), pseudonym);
        assert!(Pseudonym::parse(mapped.as_str()).is_err());
        assert!(mapped.as_str().starts_with("erased_0123456789abcdef-"));
        // Near misses are ids like any other.
        for sub in [
            "erased_0123456789ABCDEF",
            "erased_0123456789abcde",
            "erased_x",
        ] {
            assert_eq!(player_id_of(sub).unwrap().as_str(), sub);
        }
    }

    #[test]
    fn different_subs_never_share_a_player() {
        let subs = ["a|b", "a_b", "a.b", "a b", "a\u{0}b", "a#b", "a/b", "a|b "];
        let ids: std::collections::BTreeSet<String> = subs
            .iter()
            .map(|s| player_id_of(s).unwrap().as_str().to_owned())
            .collect();
        assert_eq!(ids.len(), subs.len());
        // and the same sub is always the same player
        assert_eq!(
            player_id_of("auth0|abc").unwrap(),
            player_id_of("auth0|abc").unwrap()
        );
    }
}
