//! The rank index's half of the stream consumer: every lane record (a written count whose new
//! image carries `chg`, the change a play made) is grouped by board and the board's changes
//! applied a batch at a time with [`Rank::apply_lane_changes`](leaderboard_store::Rank::apply_lane_changes), which counts each change
//! exactly once by its lane's watermark. Boards of a batch are applied concurrently. Lanes of
//! a board made before the index and not yet moved onto it carry no `chg` and are skipped.

use std::collections::HashMap;
use std::future::Future;

use aws_lambda_events::event::dynamodb::EventRecord;
use aws_lambda_events::event::streams::DynamoDbBatchItemFailure;
use futures::StreamExt;
use leaderboard_keys::entity::ItemKey;
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank_index::change::ChangeMap;
use leaderboard_keys::rank_index::{CHANGE_ATTR, LaneChange, WIDE_CHANGE_ATTR, WRITTEN_ATTR};
use leaderboard_store::{LaneApplyOutcome, Store, StoreError};
use serde_dynamo::AttributeValue;

use crate::{count_attr, string_attr};

/// How many boards' batches of one stream batch are applied at once.
pub const MAX_CONCURRENT_BOARDS: usize = 4;

/// Where the index is kept: the store in production; tests wrap it to inject failures.
pub trait LaneIndex: Sync {
    /// Applies a board's lane changes (any order, repeats allowed) exactly once.
    fn apply_lanes(
        &self,
        board: &BoardId,
        changes: &[LaneChange],
    ) -> impl Future<Output = Result<LaneApplyOutcome, StoreError>> + Send;
}

impl LaneIndex for Store {
    fn apply_lanes(
        &self,
        board: &BoardId,
        changes: &[LaneChange],
    ) -> impl Future<Output = Result<LaneApplyOutcome, StoreError>> + Send {
        self.rank().apply_lane_changes(board, changes)
    }
}

/// One board's lane changes in a batch, with each change's record (to report).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardChanges {
    /// The board.
    pub board: BoardId,
    /// The changes, in stream order.
    pub changes: Vec<LaneChange>,
    /// Each change's sequence number, in the same order.
    pub sequence_numbers: Vec<Option<String>>,
}

/// A batch's lane changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LanePlan {
    /// One entry per board, in order of first appearance.
    pub boards: Vec<BoardChanges>,
    /// Lane records with a change that can't be read: their sequence numbers, reported.
    pub poisoned: Vec<Option<String>>,
}

/// The change a lane record carries: `None` for a record that is not a lane change (a lane of
/// a board not moved onto the index yet, another item, a removal of the lane item);
/// `Some(Err)` for one that can't be read.
fn lane_change(record: &EventRecord) -> Option<(BoardId, Result<LaneChange, String>)> {
    let change = &record.change;
    let (Some(pk), Some(sk)) = (
        string_attr(&change.keys, "pk"),
        string_attr(&change.keys, "sk"),
    ) else {
        return None;
    };
    let Ok(ItemKey::Lane { board, lane }) = ItemKey::parse(pk, sk) else {
        return None;
    };
    if !matches!(record.event_name.as_str(), "INSERT" | "MODIFY") {
        return None;
    }
    let image = change.new_image.inner();
    let chg = image.get(CHANGE_ATTR)?;
    let seq = count_attr(&change.new_image, WRITTEN_ATTR);
    let read = || -> Result<LaneChange, String> {
        let wide = image.get(WIDE_CHANGE_ATTR);
        let wide = wide.map(|w| change_map(WIDE_CHANGE_ATTR, w)).transpose()?;
        let seq = seq.ok_or("written is not a count")?;
        change_map(CHANGE_ATTR, chg)?
            .lane_change(lane, seq, wide.as_ref())
            .map_err(|e| e.to_string())
    };
    Some((board, read()))
}

/// The lane change map `attr` ([`ChangeMap`], the encoding the play wrote).
fn change_map(attr: &str, chg: &AttributeValue) -> Result<ChangeMap, String> {
    serde_dynamo::from_attribute_value(chg.clone())
        .map_err(|e| format!("{attr} is not a lane change: {e}"))
}

/// Sorts out a batch's lane changes (pure; the records are left as they are).
pub fn plan(records: &[EventRecord]) -> LanePlan {
    let mut out = LanePlan::default();
    let mut index: HashMap<BoardId, usize> = HashMap::new();
    for record in records {
        let Some((board, change)) = lane_change(record) else {
            continue;
        };
        let seq = record.change.sequence_number.clone();
        let change = match change {
            Ok(c) => c,
            Err(why) => {
                tracing::error!(
                    sequence_number = seq.as_deref().unwrap_or("-"),
                    %board,
                    why,
                    "lane record whose change can't be read"
                );
                out.poisoned.push(seq);
                continue;
            }
        };
        let i = *index.entry(board.clone()).or_insert_with(|| {
            out.boards.push(BoardChanges {
                board,
                changes: Vec::new(),
                sequence_numbers: Vec::new(),
            });
            out.boards.len() - 1
        });
        out.boards[i].changes.push(change);
        out.boards[i].sequence_numbers.push(seq);
    }
    out
}

/// What a batch's lane changes came to.
#[derive(Debug, Default)]
pub struct Indexed {
    /// The records to report.
    pub failures: Vec<DynamoDbBatchItemFailure>,
    /// Changes of a board's leader published (`NewLeader`, over an `Announcing` store).
    pub leaders_announced: usize,
}

/// Applies a batch's lane changes, and answers the records to report: the poisoned ones and
/// the first record of every board whose write failed. A lane whose change is missing stops
/// there and its board's repair is requested (the repair's rebuild takes the lane's later
/// changes from the board's entries), so the stream is never held back by a lost record; only
/// when that request could not be written is the first record after the gap reported, so that
/// its re-delivery asks again.
pub async fn index<L: LaneIndex>(lanes: &L, plan: &LanePlan) -> Indexed {
    let results: Vec<(&BoardChanges, Result<LaneApplyOutcome, StoreError>)> =
        futures::stream::iter(&plan.boards)
            .map(|b| async move { (b, lanes.apply_lanes(&b.board, &b.changes).await) })
            .buffer_unordered(MAX_CONCURRENT_BOARDS)
            .collect()
            .await;
    let mut failures: Vec<Option<String>> = plan.poisoned.clone();
    let (mut applied, mut replayed, mut items, mut leaders) = (0, 0, 0, 0);
    for (board, result) in results {
        match result {
            Ok(o) => {
                applied += o.applied;
                replayed += o.already_applied;
                items += o.items_written;
                leaders += o.leaders_announced;
                for gap in &o.gaps {
                    tracing::error!(board = %board.board, lane = gap.lane, missing = gap.expected,
                        found = gap.found, repair_requested = o.repair_requested,
                        "rank index lane stopped at a missing change");
                    if o.repair_requested {
                        // The repair takes the lane's later changes: the stream goes on.
                        continue;
                    }
                    let at = board
                        .changes
                        .iter()
                        .position(|c| c.lane == gap.lane && c.seq == gap.found);
                    failures.push(at.and_then(|i| board.sequence_numbers[i].clone()));
                }
            }
            Err(e) => {
                tracing::error!(board = %board.board, error = %e,
                    "rank index write failed; reported for re-delivery");
                failures.push(board.sequence_numbers.first().cloned().flatten());
            }
        }
    }
    if !plan.boards.is_empty() {
        tracing::info!(
            boards = plan.boards.len(),
            applied,
            replayed,
            items_written = items,
            leaders_announced = leaders,
            failures = failures.len(),
            "rank index batch"
        );
    }
    Indexed {
        failures: failures.into_iter().map(crate::failure).collect(),
        leaders_announced: leaders,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use leaderboard_keys::rank_index::CountedKey;
    use serde_json::{Value, json};

    const K1: &str = "SCORE#0000000010#8232774399999#p1";
    const K2: &str = "SCORE#0000000020#8232774399998#p1";

    /// The change a play writes is the one this side reads: one encoding (`ChangeMap`), its
    /// fields the names the template's stream filter tests.
    #[test]
    fn a_written_change_reads_back_and_names_the_filters_fields() {
        use leaderboard_keys::rank_index::change::{NEW_FIELD, OLD_FIELD};
        let written = ChangeMap {
            o: Some(K1.into()),
            n: Some(K2.into()),
            s: Some(20),
            g: 0,
        };
        let av: AttributeValue = serde_dynamo::to_attribute_value(&written).unwrap();
        let AttributeValue::M(fields) = &av else {
            panic!("{av:?}")
        };
        let mut names: Vec<&str> = fields.keys().map(String::as_str).collect();
        names.sort();
        assert_eq!(names, [NEW_FIELD, OLD_FIELD, "s"], "g is left out at 0");
        let read = change_map(CHANGE_ATTR, &av).unwrap();
        assert_eq!(read, written);
        let change = read.lane_change(5, 3, None).unwrap();
        assert_eq!(
            (change.old, change.new, change.score, change.generation),
            (
                Some(CountedKey::parse(K1).unwrap()),
                Some(CountedKey::parse(K2).unwrap()),
                Some(20),
                0
            )
        );
    }

    fn lane(seq: &str, pk: &str, new_image: Value) -> EventRecord {
        serde_json::from_value(json!({
            "eventID": "e", "eventName": "MODIFY", "eventVersion": "1.1",
            "eventSource": "aws:dynamodb", "awsRegion": "us-east-1",
            "dynamodb": {
                "Keys": {"pk": {"S": pk}, "sk": {"S": "#WRITTEN"}},
                "NewImage": new_image, "SequenceNumber": seq,
                "SizeBytes": 100, "StreamViewType": "NEW_AND_OLD_IMAGES",
            },
        }))
        .unwrap()
    }

    /// An index that answers every board with the same gap, its repair recorded or not.
    struct Gapped {
        repair_requested: bool,
    }

    impl LaneIndex for Gapped {
        async fn apply_lanes(
            &self,
            _: &BoardId,
            changes: &[LaneChange],
        ) -> Result<LaneApplyOutcome, StoreError> {
            Ok(LaneApplyOutcome {
                applied: 1,
                gaps: vec![leaderboard_keys::rank_index::Gap {
                    lane: 3,
                    expected: 2,
                    found: changes[1].seq,
                }],
                repair_requested: self.repair_requested,
                ..LaneApplyOutcome::default()
            })
        }
    }

    #[tokio::test]
    async fn a_gap_is_reported_only_when_its_repair_was_not_recorded() {
        let batch = [
            lane(
                "1",
                "RANKSEQ#a#03",
                json!({"written": {"N": "1"}, "chg": {"M": {"n": {"S": K1}}}}),
            ),
            lane(
                "7",
                "RANKSEQ#a#03",
                json!({"written": {"N": "3"},
                "chg": {"M": {"o": {"S": K1}, "n": {"S": K2}}}}),
            ),
        ];
        let plan = plan(&batch);
        let recorded = index(
            &Gapped {
                repair_requested: true,
            },
            &plan,
        )
        .await
        .failures;
        assert!(recorded.is_empty(), "{recorded:?}");
        let lost = index(
            &Gapped {
                repair_requested: false,
            },
            &plan,
        )
        .await
        .failures;
        let reported: Vec<&str> = lost
            .iter()
            .map(|f| f.item_identifier.as_deref().unwrap_or("-"))
            .collect();
        assert_eq!(reported, ["7"], "the record after the gap comes again");
    }

    #[test]
    fn lane_changes_are_grouped_by_board_and_unreadable_ones_reported() {
        let batch = [
            lane(
                "1",
                "RANKSEQ#a#03",
                json!({"written": {"N": "1"}, "chg": {"M": {"n": {"S": K1}}}}),
            ),
            // a lane of a board not moved onto the index: no change recorded, not ours
            lane("2", "RANKSEQ#b#03", json!({"written": {"N": "4"}})),
            lane(
                "3",
                "RANKSEQ#a#03",
                json!({"written": {"N": "2"},
                "chg": {"M": {"o": {"S": K1}, "n": {"S": K2}}}}),
            ),
            lane(
                "4",
                "RANKSEQ#c#01",
                json!({"written": {"N": "1"}, "chg": {"M": {"n": {"S": "SCORE#x"}}}}),
            ),
            lane("5", "RANKSEQ#c#02", json!({"chg": {"M": {"n": {"S": K1}}}})),
            lane(
                "6",
                "RANKSEQ#c#02",
                json!({"written": {"N": "1"}, "chg": {"S": K1}}),
            ),
        ];
        let plan = plan(&batch);
        assert_eq!(
            plan.poisoned,
            [Some("4".into()), Some("5".into()), Some("6".into())]
        );
        assert_eq!(plan.boards.len(), 1);
        let a = &plan.boards[0];
        assert_eq!(a.board.as_str(), "a");
        assert_eq!(a.sequence_numbers, [Some("1".into()), Some("3".into())]);
        let key = |k: &str| Some(CountedKey::parse(k).unwrap());
        assert_eq!(
            a.changes,
            [
                LaneChange {
                    lane: 3,
                    seq: 1,
                    old: None,
                    new: key(K1),
                    score: None,
                    ..LaneChange::default()
                },
                LaneChange {
                    lane: 3,
                    seq: 2,
                    old: key(K1),
                    new: key(K2),
                    score: None,
                    ..LaneChange::default()
                },
            ]
        );
    }

    #[test]
    fn a_widening_boards_change_carries_its_keys_at_the_new_width() {
        const W1: &str = "SCORE#00000000007#8232774399999#p_a";
        const W2: &str = "SCORE#00000000009#8232774399999#p_a";
        let batch = [
            lane(
                "1",
                "RANKSEQ#a#03",
                json!({"written": {"N": "1"}, "chg": {"M": {"o": {"S": K1}, "n": {"S": K2}}},
                "chgw": {"M": {"o": {"S": W1}, "n": {"S": W2}, "g": {"N": "1"}}}}),
            ),
            // Left from another generation's run: not this change's.
            lane(
                "2",
                "RANKSEQ#a#03",
                json!({"written": {"N": "2"}, "chg": {"M": {"n": {"S": K1}, "g": {"N": "1"}}},
                "chgw": {"M": {"n": {"S": W1}, "g": {"N": "1"}}}}),
            ),
        ];
        let plan = plan(&batch);
        assert!(plan.poisoned.is_empty());
        let [first, second] = &plan.boards[0].changes[..] else {
            panic!("two changes");
        };
        let key = |k: &str| Some(CountedKey::parse(k).unwrap());
        assert_eq!(first.wide, Some((key(W1), key(W2))));
        assert_eq!(first.in_generation(1).unwrap().new, key(W2));
        assert_eq!(first.in_generation(0).unwrap().new, key(K2));
        assert_eq!((second.generation, &second.wide), (1, &None));
        assert_eq!(second.in_generation(2), None);
    }
}
