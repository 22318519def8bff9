//! Opaque, tamper-evident pagination cursors.
//!
//! A cursor is `base64url(payload) "." base64url(tag)`, where the payload is the listing's name,
//! the partition it reads, the key to continue after, and the rank of the last entry shown, and
//! the tag is HMAC-SHA256 of the payload under the service's secret, truncated to 128 bits. A
//! cursor edited by hand fails the tag check; a genuine cursor of another listing or partition
//! fails the binding check. Either way the request is refused (400) before any read, so a cursor
//! can never steer a read to another partition.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::ground::error::StoreError;

/// The longest cursor accepted, in characters.
pub const MAX_CURSOR_LEN: usize = 2048;
const TAG_LEN: usize = 16;

/// Where a listing stopped: what the next page continues from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Position {
    /// The listing (`top`, `sessions`, `game_sessions`, ...).
    #[serde(rename = "l")]
    pub listing: String,
    /// The partition key value the listing reads.
    #[serde(rename = "p")]
    pub partition: String,
    /// The exclusive start key: attribute name to string value.
    #[serde(rename = "k")]
    pub start_key: BTreeMap<String, String>,
    /// How many entries came before (the rank of the last one shown, for ranked listings).
    #[serde(rename = "n")]
    pub offset: u64,
}

impl Position {
    pub fn exclusive_start_key(&self) -> std::collections::HashMap<String, AttributeValue> {
        start_key_item(&self.start_key)
    }
}

/// A start key kept as strings (a cursor's), as DynamoDB takes it.
pub(crate) fn start_key_item(
    key: &BTreeMap<String, String>,
) -> std::collections::HashMap<String, AttributeValue> {
    key.iter()
        .map(|(k, v)| (k.clone(), AttributeValue::S(v.clone())))
        .collect()
}

/// Signs and checks cursors with the service's secret.
#[derive(Clone)]
pub(crate) struct CursorCodec {
    secret: Vec<u8>,
}

impl CursorCodec {
    pub fn new(secret: &[u8]) -> Self {
        CursorCodec {
            secret: secret.to_vec(),
        }
    }

    fn mac(&self) -> Hmac<Sha256> {
        // HMAC accepts keys of any length.
        Hmac::<Sha256>::new_from_slice(&self.secret).unwrap_or_else(|_| {
            Hmac::<Sha256>::new_from_slice(b"leaderboard").expect("HMAC takes any key length")
        })
    }

    pub fn encode(&self, position: &Position) -> String {
        let payload = serde_json::to_vec(position).unwrap_or_default();
        let mut mac = self.mac();
        mac.update(&payload);
        let tag = mac.finalize().into_bytes();
        format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(&payload),
            URL_SAFE_NO_PAD.encode(&tag[..TAG_LEN])
        )
    }

    /// Checks a client's cursor and that it belongs to `listing` over `partition`.
    pub fn decode(
        &self,
        cursor: &str,
        listing: &str,
        partition: &str,
    ) -> Result<Position, StoreError> {
        if cursor.len() > MAX_CURSOR_LEN {
            return Err(StoreError::BadCursor);
        }
        let (payload, tag) = cursor.split_once('.').ok_or(StoreError::BadCursor)?;
        let payload = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| StoreError::BadCursor)?;
        let tag = URL_SAFE_NO_PAD
            .decode(tag)
            .map_err(|_| StoreError::BadCursor)?;
        if tag.len() != TAG_LEN {
            return Err(StoreError::BadCursor);
        }
        let mut mac = self.mac();
        mac.update(&payload);
        mac.verify_truncated_left(&tag)
            .map_err(|_| StoreError::BadCursor)?;
        let position: Position =
            serde_json::from_slice(&payload).map_err(|_| StoreError::BadCursor)?;
        if position.listing != listing || position.partition != partition {
            return Err(StoreError::BadCursor);
        }
        Ok(position)
    }
}

/// A position of the `top` listing of board `b1`, after 100 entries (for tests).
#[cfg(test)]
pub(crate) fn sample_position() -> Position {
    Position {
        listing: "top".into(),
        partition: "LEADERBOARD#b1".into(),
        start_key: [
            ("pk".to_owned(), "LEADERBOARD#b1".to_owned()),
            (
                "sk".to_owned(),
                "SCORE#0000000001#9999999999999#p1".to_owned(),
            ),
        ]
        .into(),
        offset: 100,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position() -> Position {
        sample_position()
    }

    #[test]
    fn round_trip() {
        let c = CursorCodec::new(b"secret");
        let s = c.encode(&position());
        assert_eq!(c.decode(&s, "top", "LEADERBOARD#b1").unwrap(), position());
    }

    #[test]
    fn any_edit_is_refused() {
        let c = CursorCodec::new(b"secret");
        let s = c.encode(&position());
        // Flip every character in turn: no edit passes.
        for i in 0..s.len() {
            let mut bytes = s.clone().into_bytes();
            bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
            let edited = String::from_utf8(bytes).unwrap();
            if edited != s {
                assert!(
                    c.decode(&edited, "top", "LEADERBOARD#b1").is_err(),
                    "edit at {i} accepted"
                );
            }
        }
        // Another secret, another listing or another partition: refused.
        assert!(
            CursorCodec::new(b"other")
                .decode(&s, "top", "LEADERBOARD#b1")
                .is_err()
        );
        assert!(c.decode(&s, "sessions", "LEADERBOARD#b1").is_err());
        assert!(c.decode(&s, "top", "LEADERBOARD#b2").is_err());
        for junk in ["", ".", "abc", "abc.def", &"A".repeat(5000)] {
            assert!(c.decode(junk, "top", "LEADERBOARD#b1").is_err());
        }
        // A forged payload with a truncated tag is refused.
        let (payload, tag) = s.split_once('.').unwrap();
        assert!(
            c.decode(&format!("{payload}.{}", &tag[..4]), "top", "LEADERBOARD#b1")
                .is_err()
        );
    }
}
