//! A lane's latest change as its item stores it (in [`CHANGE_ATTR`], and in
//! [`super::WIDE_CHANGE_ATTR`] at a widening board's new width): one encoding, which a play
//! writes, and one reading of it ([`ChangeMap::lane_change`]), which both readers use (the
//! projector from the lane's stream record, a rank read from the lane itself). And the stream
//! filter that lets exactly the records the projector counts reach it, built from the same
//! names, which `template.yaml`'s event source mapping must equal (`local/src/template.rs`
//! tests it).

use serde::{Deserialize, Serialize};

use super::{CHANGE_ATTR, CountedKey, LaneChange};
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

/// A lane change map's parts: the old and new keys as the index counts them, the new score
/// and the entry generation.
type ChangeKeys = (Option<CountedKey>, Option<CountedKey>, Option<u64>, u64);

impl ChangeMap {
    /// Its keys parsed, with its score and generation.
    fn decoded(&self) -> Result<ChangeKeys, KeyError> {
        let parse = |k: &Option<String>| k.as_deref().map(CountedKey::parse).transpose();
        Ok((parse(&self.o)?, parse(&self.n)?, self.s, self.g))
    }

    /// The change the index counts from a lane item (or its stream record): this map, numbered
    /// `seq` (the lane's written count) in `lane`, with `wide`, a widening board's same change
    /// at the new width. The wide change belongs to this one only when it is of the next
    /// generation: a `chgw` an earlier widening left beside a later change is not this change's.
    /// One part that can't be read makes the whole change unreadable.
    pub fn lane_change(
        &self,
        lane: u8,
        seq: u64,
        wide: Option<&ChangeMap>,
    ) -> Result<LaneChange, KeyError> {
        let (old, new, score, generation) = self.decoded()?;
        let wide = match wide.map(ChangeMap::decoded).transpose()? {
            Some((o, n, _, g)) if Some(g) == generation.checked_add(1) => Some((o, n)),
            _ => None,
        };
        Ok(LaneChange {
            lane,
            seq,
            old,
            new,
            score,
            generation,
            wide,
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn map(o: &str, n: &str, g: u64) -> ChangeMap {
        ChangeMap {
            o: Some(o.to_owned()),
            n: Some(n.to_owned()),
            s: Some(7),
            g,
        }
    }

    const OLD: &str = "SCORE#0000000005#0000000000001#p1";
    const NEW: &str = "SCORE#0000000007#0000000000002#p1";
    const WIDE_OLD: &str = "SCORE#000000000005#0000000000001#p1";
    const WIDE_NEW: &str = "SCORE#000000000007#0000000000002#p1";

    #[test]
    fn a_wide_change_of_the_next_generation_is_the_same_change() {
        let change = map(OLD, NEW, 2)
            .lane_change(3, 9, Some(&map(WIDE_OLD, WIDE_NEW, 3)))
            .unwrap();
        assert_eq!((change.lane, change.seq, change.generation), (3, 9, 2));
        assert_eq!(change.score, Some(7));
        let (o, n) = change.wide.unwrap();
        assert_eq!(o.unwrap(), CountedKey::parse(WIDE_OLD).unwrap());
        assert_eq!(n.unwrap(), CountedKey::parse(WIDE_NEW).unwrap());
        assert_eq!(change.new.unwrap(), CountedKey::parse(NEW).unwrap());
    }

    #[test]
    fn a_wide_change_of_another_generation_is_left_behind() {
        for g in [0, 2, 4] {
            let change = map(OLD, NEW, 2)
                .lane_change(0, 1, Some(&map(WIDE_OLD, WIDE_NEW, g)))
                .unwrap();
            assert_eq!(change.wide, None, "chgw of generation {g}");
        }
        assert_eq!(map(OLD, NEW, 2).lane_change(0, 1, None).unwrap().wide, None);
    }

    #[test]
    fn an_unreadable_part_makes_the_change_unreadable() {
        let bad = map("SCORE#x", NEW, 3);
        assert!(bad.lane_change(0, 1, None).is_err());
        assert!(map(OLD, NEW, 2).lane_change(0, 1, Some(&bad)).is_err());
    }
}
