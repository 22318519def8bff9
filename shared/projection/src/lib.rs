//! The stream projection, the product part of the stream-projector Lambda (which adds its
//! handler, time budget and metrics) and of `lbctl replay`: a batch of the table's stream
//! keeps every Player's `lifetimeScore`, `gamesPlayed` and `lastPlayedAt` from the Session
//! INSERTs (seed 002: "update them via a Stream-driven projection"), and the boards' rank
//! index from the lanes' changes. A play is one Session however many boards it counted on, so
//! it adds one game and its score once. With the feature `streams-api`, [`stream_record`]
//! turns records read with the DynamoDB Streams API into the Lambda event records a batch is.
//!
//! # What a batch does
//! 1. **Sort out** ([`plan`], pure, no I/O): only `INSERT`s of `PLAYER#<p>` / `SESSION#<id>`
//!    count; every other record (other items, `MODIFY`, `REMOVE`, TTL deletions) is skipped at
//!    the cost of a string compare or two. A Session INSERT whose image does not map to the
//!    store's [`Session`] (or that names another player or session than its key, or has no
//!    numeric sequence number) is *poison*.
//! 2. **Group** the sessions by player, in stream order.
//! 3. **Write** one [`Projection::project_sessions`](leaderboard_store::Projection::project_sessions) per player, up to [`MAX_CONCURRENT_PLAYERS`] at
//!    a time: normally one UpdateItem per player, whatever the number of sessions.
//! 4. **Answer** a `DynamoDbEventResponse` whose `batchItemFailures` name every poisoned record
//!    and, for every player whose write failed, the player's first record of the batch.
//!
//! # Exactly once
//! Lambda delivers a batch at least once, and after a partial failure re-delivers from the
//! reported record with the lowest sequence number. The Player item's watermark
//! (`projectedSeq`, see `leaderboard_store::SequenceNumber`) makes that safe: a player's
//! sessions are counted in one conditional write per batch, so what is counted is always a
//! prefix of that player's sessions in stream order, and a re-delivered session is at or below
//! the watermark and skipped. This relies on DynamoDB Streams delivering the records of one
//! partition key (all of a player's sessions share `PLAYER#<p>`) in order, and on Lambda
//! processing a parent shard before its children. The records of a player whose write failed
//! are all at or after the player's first record, so the re-delivery brings all of them back;
//! records of other players that were applied come back too and cost a read, not a count.
//!
//! A poisoned record is never counted: it is reported on every delivery until the event source
//! mapping gives up on it (`MaximumRetryAttempts`, then its on-failure destination), and
//! sessions of the same player after it are counted (and move the watermark past it). A record
//! without a sequence number cannot be named: its failure has no `itemIdentifier`, which Lambda
//! takes as a failure of the whole batch (harmless: every re-delivered record is recognised).
//!
//! # The rank index
//! The same batches carry the lanes' changes, which keep the boards' rank index (see
//! [`rank_index`]): the Lambda's handler runs both halves over every batch and reports the
//! failures of both. Over an [`Announcing`] store, the index's half publishes `NewLeader` when
//! rank 1 of a board changes hands ([`leaders`]).
//!
//! Nothing here panics on input: with `panic = "abort"` a panic would fail the whole batch.

use std::collections::HashMap;
use std::future::Future;

use aws_lambda_events::event::dynamodb::EventRecord;
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};
use futures::StreamExt;
use leaderboard_keys::entity::{ItemKey, PLAYER_PREFIX, SESSION_PREFIX};
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::Session;
use leaderboard_store::{ProjectedSession, ProjectionOutcome, SequenceNumber, Store, StoreError};
use serde_dynamo::AttributeValue;

pub mod leaders;
pub mod rank_index;
#[cfg(feature = "streams-api")]
pub mod stream_record;
pub use leaders::Announcing;
pub use rank_index::LaneIndex;

/// How many players' writes of one batch run at once.
pub const MAX_CONCURRENT_PLAYERS: usize = 16;

/// Where the projector writes a player's sessions: the store in production; tests wrap it to
/// inject failures.
pub trait Projection: Sync {
    /// Counts `sessions` (one player's, in stream order) exactly once; see
    /// [`Projection::project_sessions`](leaderboard_store::Projection::project_sessions) for the contract.
    fn project(
        &self,
        player: &PlayerId,
        sessions: &[ProjectedSession],
        now: Timestamp,
    ) -> impl Future<Output = Result<ProjectionOutcome, StoreError>> + Send;
}

impl Projection for Store {
    fn project(
        &self,
        player: &PlayerId,
        sessions: &[ProjectedSession],
        now: Timestamp,
    ) -> impl Future<Output = Result<ProjectionOutcome, StoreError>> + Send {
        self.projection().project_sessions(player, sessions, now)
    }
}

/// A record that cannot be projected and must be reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Poison {
    /// The record's sequence number as delivered (its `itemIdentifier`), if it has one.
    pub sequence_number: Option<String>,
    /// What is wrong with it.
    pub reason: String,
}

/// One player's sessions of a batch, in stream order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerGroup {
    /// The player.
    pub player: PlayerId,
    /// The sequence number of the player's first session in the batch, as delivered: the
    /// record to report if the player's write fails.
    pub first_sequence_number: String,
    /// The sessions to count.
    pub sessions: Vec<ProjectedSession>,
}

/// A batch sorted out: what to write, what to report, what was skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// One group per player, in the order of each player's first session.
    pub groups: Vec<PlayerGroup>,
    /// Poisoned records, in stream order.
    pub poisoned: Vec<Poison>,
    /// Records that are not Session INSERTs.
    pub skipped: usize,
    /// Session INSERTs to count (over all groups).
    pub sessions: usize,
}

/// What one record is to the projector.
enum Sorted {
    Skip,
    Session(PlayerId, String, ProjectedSession),
    Poison(Poison),
}

/// A string attribute of a record's keys or image.
fn string_attr<'a>(item: &'a serde_dynamo::Item, name: &str) -> Option<&'a str> {
    match item.inner().get(name) {
        Some(AttributeValue::S(s)) => Some(s),
        _ => None,
    }
}

/// A number attribute of a record's image that is a count.
fn count_attr(item: &serde_dynamo::Item, name: &str) -> Option<u64> {
    match item.inner().get(name) {
        Some(AttributeValue::N(n)) => n.parse().ok(),
        _ => None,
    }
}

/// Sorts out one record, taking its new image.
fn sort(record: &mut EventRecord) -> Sorted {
    if record.event_name != "INSERT" {
        return Sorted::Skip;
    }
    let change = &mut record.change;
    let seq = change.sequence_number.as_deref();
    let poison = |reason: String| {
        Sorted::Poison(Poison {
            sequence_number: seq.map(str::to_owned),
            reason,
        })
    };
    // The key, from `Keys` (always there in a real event) or else from the image.
    let (Some(pk), Some(sk)) = (
        string_attr(&change.keys, "pk").or_else(|| string_attr(&change.new_image, "pk")),
        string_attr(&change.keys, "sk").or_else(|| string_attr(&change.new_image, "sk")),
    ) else {
        return Sorted::Skip;
    };
    let (player, session_id) = match ItemKey::parse(pk, sk) {
        Ok(ItemKey::Session { player, session }) => (player, session),
        Ok(_) => return Sorted::Skip,
        // A key of the Session shape that does not parse is a session that cannot be counted;
        // any other unknown key is not ours.
        Err(e) if pk.starts_with(PLAYER_PREFIX) && sk.starts_with(SESSION_PREFIX) => {
            return poison(format!("session key: {e}"));
        }
        Err(_) => return Sorted::Skip,
    };
    let Some(seq) = seq else {
        return poison("no sequence number".into());
    };
    let sequence_number = match SequenceNumber::parse(seq) {
        Ok(s) => s,
        Err(e) => return poison(e.to_string()),
    };
    let seq = seq.to_owned();
    let session: Session = match serde_dynamo::from_item(std::mem::take(&mut change.new_image)) {
        Ok(s) => s,
        Err(e) => return poison_owned(seq, format!("session image: {e}")),
    };
    if session.player_id != player || session.session_id != session_id {
        let reason = format!(
            "session image is of {} / {}, its key of {player} / {session_id}",
            session.player_id, session.session_id
        );
        return poison_owned(seq, reason);
    }
    Sorted::Session(
        player,
        seq,
        ProjectedSession {
            sequence_number,
            score: session.score,
            attained_at: session.attained_at,
        },
    )
}

fn poison_owned(sequence_number: String, reason: String) -> Sorted {
    Sorted::Poison(Poison {
        sequence_number: Some(sequence_number),
        reason,
    })
}

/// Sorts out a batch (the pure part of the handler): skips what is not a Session INSERT,
/// finds the poisoned records, and groups the sessions by player in stream order. Takes the
/// records' new images.
pub fn plan(records: &mut [EventRecord]) -> Plan {
    let mut out = Plan::default();
    let mut index: HashMap<PlayerId, usize> = HashMap::new();
    for record in records {
        match sort(record) {
            Sorted::Skip => out.skipped += 1,
            Sorted::Poison(p) => out.poisoned.push(p),
            Sorted::Session(player, seq, session) => {
                out.sessions += 1;
                match index.get(&player) {
                    Some(&i) => out.groups[i].sessions.push(session),
                    None => {
                        index.insert(player.clone(), out.groups.len());
                        out.groups.push(PlayerGroup {
                            player,
                            first_sequence_number: seq,
                            sessions: vec![session],
                        });
                    }
                }
            }
        }
    }
    out
}

pub fn failure(sequence_number: Option<String>) -> DynamoDbBatchItemFailure {
    let mut f = DynamoDbBatchItemFailure::default();
    f.item_identifier = sequence_number;
    f
}

/// Projects one batch at `now` and answers which records failed. Never fails as a whole: a
/// poisoned record or a failed player write is reported in `batchItemFailures`, and the rest of
/// the batch is applied.
pub async fn project<P: Projection>(
    projection: &P,
    records: Vec<EventRecord>,
    now: Timestamp,
) -> DynamoDbEventResponse {
    project_counted(projection, records, now).await.0
}

/// What [`project`] did with a batch's records, for its metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Projected {
    /// Sessions counted now.
    pub applied: usize,
    /// Sessions counted before (a re-delivery), skipped now.
    pub replayed: usize,
    /// Records that are not Session INSERTs.
    pub skipped: usize,
    /// Session records that cannot be projected.
    pub poisoned: usize,
}

/// [`project`], and what it did.
pub async fn project_counted<P: Projection>(
    projection: &P,
    mut records: Vec<EventRecord>,
    now: Timestamp,
) -> (DynamoDbEventResponse, Projected) {
    let total = records.len();
    let plan = plan(&mut records);
    drop(records);
    for p in &plan.poisoned {
        tracing::error!(
            sequence_number = p.sequence_number.as_deref().unwrap_or("-"),
            reason = %p.reason,
            "poisoned session record"
        );
    }
    let results: Vec<(&PlayerGroup, Result<ProjectionOutcome, StoreError>)> =
        futures::stream::iter(&plan.groups)
            .map(|g| async move { (g, projection.project(&g.player, &g.sessions, now).await) })
            .buffer_unordered(MAX_CONCURRENT_PLAYERS)
            .collect()
            .await;
    let mut failed: Vec<&PlayerGroup> = Vec::new();
    let (mut applied, mut replayed, mut writes, mut reads) = (0, 0, 0, 0);
    for (group, result) in results {
        match result {
            Ok(o) => {
                applied += o.applied;
                replayed += o.already_applied;
                writes += o.writes;
                reads += o.reads;
            }
            Err(e) => {
                tracing::error!(
                    player = %group.player,
                    sessions = group.sessions.len(),
                    first_sequence_number = %group.first_sequence_number,
                    error = %e,
                    retryable = e.is_retryable(),
                    "player projection failed; reported for re-delivery"
                );
                failed.push(group);
            }
        }
    }
    let mut response = DynamoDbEventResponse::default();
    response.batch_item_failures = plan
        .poisoned
        .iter()
        .map(|p| failure(p.sequence_number.clone()))
        .chain(
            failed
                .iter()
                .map(|g| failure(Some(g.first_sequence_number.clone()))),
        )
        .collect();
    tracing::info!(
        records = total,
        sessions = plan.sessions,
        players = plan.groups.len(),
        skipped = plan.skipped,
        poisoned = plan.poisoned.len(),
        failed_players = failed.len(),
        failures = response.batch_item_failures.len(),
        applied,
        replayed,
        writes,
        reads,
        "batch projected"
    );
    let projected = Projected {
        applied,
        replayed,
        skipped: plan.skipped,
        poisoned: plan.poisoned.len(),
    };
    (response, projected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    const SESSION_SK: &str = "SESSION#01KDWJ4M00ABCDEFGHJKMNPQRS";

    fn image(player: &str, sk: &str, score: Value) -> Value {
        json!({
            "pk": {"S": format!("PLAYER#{player}")},
            "sk": {"S": sk},
            "playerId": {"S": player},
            "sessionId": {"S": &sk["SESSION#".len()..]},
            "leaderboardIds": {"L": [{"S": "season_3"}]},
            "gameId": {"S": "tetris"},
            "score": score,
            "attainedAt": {"S": "2026-01-01T00:00:00.000Z"},
            "outcomes": {"L": [{"M": {
                "leaderboardId": {"S": "season_3"},
                "best": {"N": "10"}, "improved": {"BOOL": true}, "rank": {"N": "1"}
            }}]},
        })
    }

    fn record(name: &str, seq: Option<&str>, pk: &str, sk: &str, new_image: Value) -> EventRecord {
        let mut change = json!({
            "Keys": {"pk": {"S": pk}, "sk": {"S": sk}},
            "NewImage": new_image,
            "SizeBytes": 100,
            "StreamViewType": "NEW_AND_OLD_IMAGES",
        });
        if let Some(seq) = seq {
            change["SequenceNumber"] = json!(seq);
        }
        serde_json::from_value(json!({
            "eventID": "e", "eventName": name, "eventVersion": "1.1",
            "eventSource": "aws:dynamodb", "awsRegion": "us-east-1",
            "dynamodb": change,
        }))
        .unwrap()
    }

    fn session(player: &str, seq: &str, score: u64) -> EventRecord {
        record(
            "INSERT",
            Some(seq),
            &format!("PLAYER#{player}"),
            SESSION_SK,
            image(player, SESSION_SK, json!({"N": score.to_string()})),
        )
    }

    #[test]
    fn groups_sessions_by_player_in_stream_order() {
        let mut batch = vec![
            session("p1", "100", 5),
            session("p2", "101", 7),
            session("p1", "102", 11),
        ];
        let plan = plan(&mut batch);
        assert_eq!(plan.sessions, 3);
        assert_eq!(plan.skipped, 0);
        assert!(plan.poisoned.is_empty());
        let summary: Vec<(&str, &str, Vec<u64>)> = plan
            .groups
            .iter()
            .map(|g| {
                (
                    g.player.as_str(),
                    g.first_sequence_number.as_str(),
                    g.sessions.iter().map(|s| s.score).collect(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [("p1", "100", vec![5, 11]), ("p2", "101", vec![7])]
        );
        assert_eq!(
            plan.groups[0].sessions[1].sequence_number,
            SequenceNumber::parse("102").unwrap()
        );
    }

    #[test]
    fn skips_everything_but_session_inserts() {
        let img = image("p1", SESSION_SK, json!({"N": "1"}));
        let mut batch = vec![
            record("MODIFY", Some("1"), "PLAYER#p1", SESSION_SK, img.clone()),
            record("REMOVE", Some("2"), "PLAYER#p1", SESSION_SK, json!(null)),
            record("INSERT", Some("3"), "PLAYER#p1", "#METADATA", json!({})),
            record("INSERT", Some("4"), "LEADERBOARD#b", "#METADATA", json!({})),
            record("INSERT", Some("5"), "PLAYER#p1", "ENTRY#b", json!({})),
            record(
                "INSERT",
                Some("6"),
                "SOMETHING#else",
                "SESSION#x",
                json!({}),
            ),
            record("INSERT", Some("7"), "", "", json!({})),
        ];
        let plan = plan(&mut batch);
        assert_eq!(plan.skipped, 7);
        assert_eq!(plan.sessions, 0);
        assert!(plan.poisoned.is_empty());
    }

    #[test]
    fn poison_is_reported_by_its_sequence_number() {
        let mut wrong_player = image("p2", SESSION_SK, json!({"N": "1"}));
        wrong_player["pk"] = json!({"S": "PLAYER#p1"});
        let mut batch = vec![
            session("p1", "10", 1),
            record(
                "INSERT",
                Some("11"),
                "PLAYER#p1",
                SESSION_SK,
                image("p1", SESSION_SK, json!({"S": "12"})),
            ),
            record(
                "INSERT",
                Some("12"),
                "PLAYER#p1",
                SESSION_SK,
                image("p1", SESSION_SK, json!({"N": "-3"})),
            ),
            record("INSERT", Some("13"), "PLAYER#p1", SESSION_SK, json!({})),
            record("INSERT", Some("14"), "PLAYER#p1", SESSION_SK, wrong_player),
            record("INSERT", Some("15"), "PLAYER#p1", "SESSION#nope", json!({})),
            record("INSERT", Some("x16"), "PLAYER#p1", SESSION_SK, json!({})),
            record(
                "INSERT",
                None,
                "PLAYER#p1",
                SESSION_SK,
                image("p1", SESSION_SK, json!({"N": "1"})),
            ),
            session("p1", "17", 2),
        ];
        let plan = plan(&mut batch);
        let seqs: Vec<Option<&str>> = plan
            .poisoned
            .iter()
            .map(|p| p.sequence_number.as_deref())
            .collect();
        assert_eq!(
            seqs,
            [
                Some("11"),
                Some("12"),
                Some("13"),
                Some("14"),
                Some("15"),
                Some("x16"),
                None
            ]
        );
        assert_eq!(plan.sessions, 2);
        assert_eq!(plan.groups.len(), 1);
        assert_eq!(plan.groups[0].first_sequence_number, "10");
    }

    /// Fails every write of one player, as DynamoDB would after the SDK's own retries.
    struct FailFor(&'static str);

    impl Projection for FailFor {
        async fn project(
            &self,
            player: &PlayerId,
            sessions: &[ProjectedSession],
            _now: Timestamp,
        ) -> Result<ProjectionOutcome, StoreError> {
            if player.as_str() == self.0 {
                return Err(StoreError::Dynamo {
                    code: Some("InternalServerError".into()),
                    operation: "test",
                    message: "injected".into(),
                });
            }
            Ok(ProjectionOutcome {
                applied: sessions.len(),
                writes: 1,
                ..ProjectionOutcome::default()
            })
        }
    }

    #[tokio::test]
    async fn reports_poison_and_failed_players_by_their_first_record() {
        let batch = vec![
            session("p1", "100", 1),
            session("p2", "101", 1),
            record("INSERT", Some("102"), "PLAYER#p3", SESSION_SK, json!({})),
            session("p2", "103", 1),
            session("p4", "104", 1),
        ];
        let response = project(&FailFor("p2"), batch, Timestamp::now()).await;
        let ids: Vec<_> = response
            .batch_item_failures
            .iter()
            .map(|f| f.item_identifier.as_deref())
            .collect();
        assert_eq!(ids, [Some("102"), Some("101")]);
        let ok = project(
            &FailFor("nobody"),
            vec![session("p1", "1", 1)],
            Timestamp::now(),
        )
        .await;
        assert!(ok.batch_item_failures.is_empty());
        let empty = project(&FailFor("nobody"), Vec::new(), Timestamp::now()).await;
        assert!(empty.batch_item_failures.is_empty());
    }
}
