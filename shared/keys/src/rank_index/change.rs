//! A lane's latest change as its item stores it (in [`CHANGE_ATTR`], and in
//! [`super::WIDE_CHANGE_ATTR`] at a widening board's new width): one encoding, which a play writes and
//! both readers decode (the projector from the lane's stream record, a rank read from the lane
//! itself). And the stream filter that lets exactly the records the projector counts reach it,
//! built from the same names, which `template.yaml`'s event source mapping must equal
//! (`local/src/template.rs` tests it).

use serde::{Deserialize, Serialize};

use super::{CHANGE_ATTR, CountedKey};
use crate::KeyError;
use crate::entity::{LANE_PREFIX, SCORE_PREFIX, SESSION_PREFIX};

/// A lane's latest change: the entry's old and new sort keys (`o` absent for a first entry,
/// `n` absent for a removal), its new score `s` (what `NewLeader` says of a new leader without
/// a read), and the generation of entries whose keys they are (`g`, absent for 0). A widening
/// board's change is recorded at the new width too, in [`super::WIDE_CHANGE_ATTR`] (generation
/// `g + 1`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeMap {
    /// The old sort key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub o: Option<String>,
    /// The new sort key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<String>,
    /// The new score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s: Option<u64>,
    /// The generation of entries the keys are of.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub g: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The field of a [`ChangeMap`] holding the old sort key.
pub const OLD_FIELD: &str = "o";
/// The field of a [`ChangeMap`] holding the new sort key.
pub const NEW_FIELD: &str = "n";

/// A lane change as its readers take it: the old and new keys as the index counts them, the
/// new score and the entry generation.
pub type ChangeKeys = (Option<CountedKey>, Option<CountedKey>, Option<u64>, u64);

impl ChangeMap {
    /// Its keys parsed, with its score and generation.
    pub fn decoded(&self) -> Result<ChangeKeys, KeyError> {
        let parse = |k: &Option<String>| k.as_deref().map(CountedKey::parse).transpose();
        Ok((parse(&self.o)?, parse(&self.n)?, self.s, self.g))
    }
}

/// The event source mapping's filter patterns for the projector (`FilterCriteria`), as JSON:
/// a Session's INSERT (a play to count into its player's totals), and a lane whose new image
/// carries a change with a new or an old Score key (a change for the rank index). Lanes of
/// boards not moved onto the index carry none and stay out, and so do the Score items' own
/// records.
pub fn stream_filters() -> [String; 3] {
    let session = format!(
        r#"{{"eventName":["INSERT"],"dynamodb":{{"Keys":{{"sk":{{"S":[{{"prefix":"{SESSION_PREFIX}"}}]}}}}}}}}"#
    );
    let lane = |field: &str| {
        format!(
            r#"{{"dynamodb":{{"Keys":{{"pk":{{"S":[{{"prefix":"{LANE_PREFIX}"}}]}}}},"NewImage":{{"{CHANGE_ATTR}":{{"M":{{"{field}":{{"S":[{{"prefix":"{SCORE_PREFIX}"}}]}}}}}}}}}}}}"#
        )
    };
    [session, lane(NEW_FIELD), lane(OLD_FIELD)]
}
