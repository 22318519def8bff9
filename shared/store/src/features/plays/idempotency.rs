//! Safe retries of a play: a repeat is the same play, and a reused id with another play is
//! refused.
//!
//! A play is named by its `sessionId` (a ULID), or by an `Idempotency-Key` of the client's
//! choosing (1 to 64 printable ASCII characters, a UUID included). A key is kept as an item of
//! its own, `PLAYER#<playerId>` / `IDEMPOTENCY#<key>`, naming the session its first play wrote:
//! it is read with the play's one `BatchGetItem` and put in the play's transaction on
//! condition that it does not exist, so two requests with one key race like two with one
//! session id, and exactly one of them writes. The key item expires after
//! [`IDEMPOTENCY_KEY_TTL_SECS`] (DynamoDB's TTL), as payment APIs' keys do; a `sessionId`
//! never expires.
//!
//! A repeat must be the same play: the same score, boards (in any order), metadata, subscores,
//! and, where the repeat names them, `gameId` and `durationSec`. Anything else is
//! [`StoreError::IdempotencyMismatch`] and writes nothing, so a client that reuses an id by
//! mistake hears of it instead of being answered with another play's outcome.
//!
//! The play's read leaves the Session out: a repeat is found when the play is refused
//! (`Plays::repeat_or`) or when its transaction's put of the Session fails on its condition,
//! and is answered with the first outcome either way.

use aws_sdk_dynamodb::types::TransactWriteItem;
use leaderboard_keys::entity;
use leaderboard_keys::ids::{IdempotencyKey, PlayerId, SessionId};
use leaderboard_keys::time::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::features::plays::Plays;
use crate::features::plays::{Play, PlayState, Recorded};
use crate::ground::error::StoreError;
use crate::ground::items::to_item;
use crate::ground::model::Session;
use crate::table::request::Params;

/// How long an `Idempotency-Key` names its play: 7 days.
pub const IDEMPOTENCY_KEY_TTL_SECS: u64 = 7 * 24 * 3600;

/// The item of an `Idempotency-Key`: the session its first play wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct KeyedSession {
    pub(crate) player_id: PlayerId,
    pub(crate) idempotency_key: IdempotencyKey,
    pub(crate) session_id: SessionId,
    /// When DynamoDB may delete it (epoch seconds).
    pub(crate) ttl: u64,
}

impl Plays<'_> {
    /// The transaction item that puts `play`'s key, naming its session, on condition that the
    /// key is new.
    pub(crate) fn tx_put_key(
        self,
        play: &Play,
        key: &IdempotencyKey,
        now: Timestamp,
    ) -> Result<TransactWriteItem, StoreError> {
        let item = KeyedSession {
            player_id: play.player_id.clone(),
            idempotency_key: key.clone(),
            session_id: play.session_id.clone(),
            ttl: now.as_millis() / 1000 + IDEMPOTENCY_KEY_TTL_SECS,
        };
        let key = entity::idempotency(&play.player_id, key);
        self.store.table.tx_put(
            to_item(&item, &key, None, None)?,
            Some("attribute_not_exists(pk)"),
            Params::new(),
        )
    }
}

/// Whether the recorded `session` is the play `play` repeats: `Ok` when it is, else the
/// mismatch naming the first thing that differs.
pub(crate) fn same_play(session: &Session, play: &Play) -> Result<(), StoreError> {
    let differs = |what| {
        Err(StoreError::IdempotencyMismatch {
            session: session.session_id.clone(),
            what,
        })
    };
    if session.score != play.score {
        return differs("score");
    }
    let mut asked: Vec<_> = play.board_ids.iter().collect();
    let mut recorded: Vec<_> = session.board_ids.iter().collect();
    asked.sort();
    recorded.sort();
    if asked != recorded {
        return differs("leaderboardIds");
    }
    let same_metadata = match (&session.metadata, &play.metadata) {
        (None, None) => true,
        (Some(a), Some(b)) => same_object(a.as_map(), b.as_map()),
        _ => false,
    };
    if !same_metadata {
        return differs("metadata");
    }
    if session.subscores != play.subscores {
        return differs("subscores");
    }
    if play.game_id.as_ref().is_some_and(|g| *g != session.game_id) {
        return differs("gameId");
    }
    if play.duration_sec.is_some() && play.duration_sec != session.duration_sec {
        return differs("durationSec");
    }
    Ok(())
}

/// JSON equality that reads numbers by value: DynamoDB keeps a number's value, not its
/// spelling, so `1.0` sent comes back as `1`.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_value(x, y))
        }
        (Value::Object(x), Value::Object(y)) => same_object(x, y),
        _ => a == b,
    }
}

/// [`same_value`] of two objects: the same keys, each with the same value.
fn same_object(x: &Map<String, Value>, y: &Map<String, Value>) -> bool {
    x.len() == y.len()
        && x.iter()
            .all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
}

impl Plays<'_> {
    /// A refused play that repeats one recorded before is answered with that one's outcome,
    /// whatever its boards or its window say now; any other is refused. The Session is read
    /// only here (one consistent `GetItem`): a new play's read leaves it out, and its
    /// transaction's put of the Session on condition that it does not exist catches a repeat
    /// that gets that far.
    pub(super) async fn repeat_or(
        self,
        refusal: StoreError,
        play: &Play,
        attempt: u32,
    ) -> Result<Recorded, StoreError> {
        let key = entity::session(&play.player_id, &play.session_id);
        match self.store.table.get::<Session>(&key).await? {
            Some(session) => {
                same_play(&session, play)?;
                Ok(Recorded::Duplicate(session, attempt))
            }
            None => Err(refusal),
        }
    }

    /// The Session the play's `Idempotency-Key` names, if the key was used before (then one
    /// consistent `GetItem` more: only a repeat pays it).
    pub(super) async fn recorded(
        self,
        play: &Play,
        state: &mut PlayState,
    ) -> Result<Option<Session>, StoreError> {
        let (Some(keyed), Some(key)) = (&state.keyed, &play.idempotency_key) else {
            return Ok(None);
        };
        match self
            .store
            .table
            .get(&entity::session(&play.player_id, keyed))
            .await?
        {
            Some(session) => Ok(Some(session)),
            // The key and its session are written in one transaction.
            None => {
                let key = entity::idempotency(&play.player_id, key);
                Err(StoreError::corrupt(
                    format!("{} / {}", key.pk, key.sk),
                    format!("the key names session {keyed}, which does not exist"),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::model::Metadata;
    use leaderboard_keys::ids::{BoardId, GameId};
    use serde_json::json;

    fn play(score: u64, boards: &[&str], metadata: Option<Value>) -> Play {
        Play {
            subscores: Default::default(),
            player_id: PlayerId::parse("p1").unwrap(),
            session_id: SessionId::parse_stored("01HW0000000000000000000000").unwrap(),
            idempotency_key: None,
            game_id: None,
            score,
            duration_sec: None,
            board_ids: boards.iter().map(|b| BoardId::parse(b).unwrap()).collect(),
            metadata: metadata.map(|m| Metadata::parse(m).unwrap()),
        }
    }

    fn recorded(p: &Play) -> Session {
        Session {
            subscores: Default::default(),
            player_id: p.player_id.clone(),
            session_id: p.session_id.clone(),
            board_ids: p.board_ids.clone(),
            game_id: GameId::parse("g").unwrap(),
            score: p.score,
            duration_sec: Some(30),
            attained_at: Timestamp::from_millis(1_000).unwrap(),
            metadata: p.metadata.clone(),
            outcomes: vec![],
        }
    }

    fn what(r: Result<(), StoreError>) -> &'static str {
        match r {
            Err(StoreError::IdempotencyMismatch { what, .. }) => what,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_repeat_is_the_same_play_or_a_mismatch() {
        let first = play(
            5,
            &["a", "b"],
            Some(json!({"car": "red", "laps": [1.0, 2]})),
        );
        let session = recorded(&first);
        same_play(&session, &first).unwrap();
        // Boards in another order, numbers spelled otherwise, gameId and duration left out.
        let again = play(
            5,
            &["b", "a"],
            Some(json!({"laps": [1, 2.0], "car": "red"})),
        );
        same_play(&session, &again).unwrap();

        assert_eq!(
            what(same_play(&session, &play(6, &["a", "b"], None))),
            "score"
        );
        assert_eq!(
            what(same_play(
                &session,
                &play(5, &["a"], Some(json!({"car": "red", "laps": [1, 2]})))
            )),
            "leaderboardIds"
        );
        assert_eq!(
            what(same_play(&session, &play(5, &["a", "b"], None))),
            "metadata"
        );
        let mut other_game = first.clone();
        other_game.game_id = Some(GameId::parse("h").unwrap());
        assert_eq!(what(same_play(&session, &other_game)), "gameId");
        let mut other_duration = first.clone();
        other_duration.duration_sec = Some(31);
        assert_eq!(what(same_play(&session, &other_duration)), "durationSec");
        other_duration.duration_sec = Some(30);
        same_play(&session, &other_duration).unwrap();
    }
}
