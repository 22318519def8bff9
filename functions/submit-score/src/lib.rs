//! The submit-score function: `POST /sessions` and its one-board shorthand
//! `POST /leaderboards/{boardId}/scores` (API Gateway HTTP API, payload 2.0).
//!
//! A play is one Session posted to every board it counts on, atomically: the handler checks the
//! request (identity from the verified JWT's `sub` only, the body's shape, identifiers, the
//! ULID), then [`Plays::commit_play_by`](leaderboard_store::Plays::commit_play_by) does one
//! consistent read and one transaction, and
//! [`Plays::rank_play`](leaderboard_store::Plays::rank_play) reads each board's rank after it
//! within the request's deadline. Any refusal (unknown board 404, closed board 409, a board's
//! score rules 400, a board the caller may not write 403, past the rate limit 429) writes
//! nothing on any board. A game server (`server` in `cognito:groups`) names the player of its
//! play in the body (`playerId`) and writes only boards whose `writers` are `servers`; a
//! player's token writes only the player's own plays, to the other boards.
//! A repeated `sessionId` of the same player gets the first outcome with `duplicate: true`.

pub mod metrics;

use std::sync::LazyLock;

use lambda_http::http::{Method, StatusCode};
use lambda_http::{Body, Error, Request, Response};
pub use leaderboard_http::App;
use leaderboard_http::budget::deadline;
use leaderboard_http::{ApiError, Router, answer, identity, json, json_body};
use leaderboard_keys::columns::Subscores;
use leaderboard_keys::ids::{BoardId, GameId, IdempotencyKey, PlayerId, SessionId, TierName};
use leaderboard_store::freshness::Freshness;
use leaderboard_store::model::{BoardOutcome, Metadata, Writers};
use leaderboard_store::{MAX_BOARDS_PER_PLAY, Play, PlayOutcome, StoreError, new_session_id};
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::metrics::PlayMetrics;

/// The longest play a `durationSec` may describe: a year.
pub use leaderboard_store::model::MAX_DURATION_SEC;

/// One board's result, in the order the boards were asked.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct BoardResult<'a> {
    #[serde(rename = "leaderboardId")]
    board_id: &'a BoardId,
    best: u64,
    improved: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    saturated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    rank: Option<u64>,
    #[serde(flatten)]
    freshness: Option<Freshness>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rank_exact: Option<bool>,
    /// On a league board: the cohort the play counted on, and the player's tier.
    #[serde(skip_serializing_if = "Option::is_none")]
    cohort_id: Option<&'a BoardId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tier: Option<&'a TierName>,
}

/// The answer to `POST /sessions`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionResponse<'a> {
    player_id: &'a str,
    session_id: &'a str,
    score: u64,
    duplicate: bool,
    results: Vec<BoardResult<'a>>,
}

/// The answer to `POST /leaderboards/{boardId}/scores`: the play, and its result on the board.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ScoreResponse<'a> {
    player_id: &'a str,
    session_id: &'a str,
    score: u64,
    duplicate: bool,
    #[serde(flatten)]
    result: BoardResult<'a>,
}

/// The routes this function serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// `POST /sessions`
    Sessions,
    /// `POST /leaderboards/{boardId}/scores`
    BoardScores,
}

/// The route table.
pub static ROUTER: LazyLock<Router<Route>> = LazyLock::new(|| {
    Router::new(&[
        (Method::POST, "/sessions", Route::Sessions),
        (
            Method::POST,
            "/leaderboards/{boardId}/scores",
            Route::BoardScores,
        ),
    ])
});

/// Handles one request. Never fails: every error becomes the contract's error response. Work
/// past the request's time budget (`leaderboard_http::budget`) before the play's write has
/// committed is a 503 with `Retry-After`; once it has committed the answer is 200, with the
/// ranks read in the time left. Every answer after the `sessionId` is chosen carries it.
#[tracing::instrument(skip_all, fields(method = %req.method(), path = %req.uri().path()))]
pub async fn handle(app: &App, req: Request) -> Result<Response<Body>, Error> {
    let mut metrics = PlayMetrics::start(app.metrics());
    let result = submit(app, &req, deadline(&req), &mut metrics).await;
    answer(app, metrics, result)
}

async fn submit(
    app: &App,
    req: &Request,
    deadline: Instant,
    metrics: &mut PlayMetrics,
) -> Result<Response<Body>, ApiError> {
    let (route, params) = ROUTER.find(req.method(), leaderboard_http::path(req))?;
    let who = identity(req)?;
    let now = app.now();
    let body: Value = json_body(req)?;
    let body = body
        .as_object()
        .ok_or_else(|| ApiError::invalid("the body must be a JSON object"))?;
    let client_session = matches!(body.get("sessionId"), Some(Value::String(_)));
    let session_id = match body.get("sessionId") {
        None | Some(Value::Null) => new_session_id(now)?,
        Some(Value::String(s)) => SessionId::parse(s, now.as_millis())?,
        Some(_) => return Err(ApiError::invalid("sessionId must be a ULID string")),
    };
    let with_session = |e: ApiError| e.with_session(session_id.as_str());
    known_fields(route, body).map_err(with_session)?;
    let boards = match route {
        Route::Sessions => board_ids(body),
        Route::BoardScores => BoardId::parse(params.get("boardId"))
            .map(|b| vec![b])
            .map_err(ApiError::from),
    }
    .map_err(with_session)?;
    let (player_id, by) = if who.is_server() {
        (named_player(body).map_err(with_session)?, Writers::Servers)
    } else {
        (who.player_id, Writers::Players)
    };
    let play = play(player_id, session_id.clone(), boards, req, body).map_err(with_session)?;
    let commit = app.store().plays().commit_play_by(&play, by, now);
    let committed = match tokio::time::timeout_at(deadline, commit).await {
        Ok(committed) => committed.map_err(|e| {
            // An id or key that names another play: the error names that play's session.
            let named = match &e {
                StoreError::IdempotencyMismatch { session, .. } => session.to_string(),
                _ => session_id.to_string(),
            };
            ApiError::from(e).with_session(named)
        })?,
        Err(_) => {
            tracing::warn!("out of time before the play committed; answering 503");
            return Err(with_session(ApiError::unavailable()));
        }
    };
    // A key retried with another sessionId than its first play's, both chosen by the client:
    // the client confused two plays, and hears of it rather than getting the other's outcome.
    if let Some(first) = committed.duplicate_of()
        && play.idempotency_key.is_some()
        && client_session
        && *first != session_id
    {
        let e = StoreError::IdempotencyMismatch {
            session: first.clone(),
            what: "sessionId",
        };
        return Err(ApiError::from(e).with_session(first.as_str()));
    }
    let outcome = app
        .store()
        .plays()
        .rank_play(committed, Some(deadline))
        .await;
    metrics.recorded(&outcome);
    tracing::info!(
        player = %play.player_id,
        session = %outcome.session.session_id,
        boards = play.board_ids.len(),
        duplicate = outcome.duplicate,
        attempts = outcome.attempts,
        "play recorded"
    );
    Ok(match route {
        Route::Sessions => json(StatusCode::OK, &session_response(&outcome)),
        Route::BoardScores => json(
            StatusCode::OK,
            &score_response(&outcome, &play.board_ids[0]),
        ),
    })
}

/// The fields a play's body may have on `route` (openapi.yaml's `SessionRequest` and
/// `ScoreRequest`, whose `additionalProperties` are false).
fn fields(route: Route) -> &'static [&'static str] {
    match route {
        Route::Sessions => &[
            "score",
            "gameId",
            "leaderboardIds",
            "sessionId",
            "durationSec",
            "metadata",
            "subscores",
            "playerId",
        ],
        Route::BoardScores => &[
            "score",
            "gameId",
            "sessionId",
            "durationSec",
            "metadata",
            "subscores",
            "playerId",
        ],
    }
}

/// Refuses a body with a field the route does not have, by name: a typo (`scroe`) would
/// otherwise be a play saved without what the client meant to send.
fn known_fields(route: Route, body: &Map<String, Value>) -> Result<(), ApiError> {
    let known = fields(route);
    match body.keys().find(|k| !known.contains(&k.as_str())) {
        None => Ok(()),
        Some(unknown) => Err(ApiError::invalid(format!(
            "unknown field {unknown:?}: a play's fields are {}",
            known.join(", ")
        ))),
    }
}

/// The play `req` and its `body` describe, by `player_id`, with its session id and boards
/// chosen.
fn play(
    player_id: PlayerId,
    session_id: SessionId,
    board_ids: Vec<BoardId>,
    req: &Request,
    body: &Map<String, Value>,
) -> Result<Play, ApiError> {
    Ok(Play {
        subscores: subscores(body)?,
        player_id,
        session_id,
        game_id: match body.get("gameId") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(GameId::parse(s)?),
            Some(_) => return Err(ApiError::invalid("gameId must be a string")),
        },
        score: score(body)?,
        duration_sec: duration(body)?,
        board_ids,
        metadata: match body.get("metadata") {
            None | Some(Value::Null) => None,
            // Nothing left once empty objects and arrays are dropped: no metadata.
            Some(v) => Some(Metadata::parse(v.clone())?).filter(|m| !m.is_empty()),
        },
        idempotency_key: idempotency_key(req)?,
    })
}

/// The player a game server's play is for: the body's `playerId`, which such a caller must
/// give (a player's own token names its player; a body `playerId` beside it chooses nothing).
fn named_player(body: &Map<String, Value>) -> Result<PlayerId, ApiError> {
    match body.get("playerId") {
        Some(Value::String(p)) => Ok(PlayerId::parse(p)?),
        None | Some(Value::Null) => Err(ApiError::invalid(
            "playerId is required: a game server names the player of its play",
        )),
        Some(_) => Err(ApiError::invalid("playerId must be a string")),
    }
}

/// The play's `Idempotency-Key` header, if sent: 1 to 64 printable ASCII characters (the
/// white space HTTP allows around a header value is not part of it).
fn idempotency_key(req: &Request) -> Result<Option<IdempotencyKey>, ApiError> {
    let Some(value) = req.headers().get("idempotency-key") else {
        return Ok(None);
    };
    let text = value.to_str().map_err(|_| {
        ApiError::invalid("Idempotency-Key must contain only printable ASCII characters")
    })?;
    Ok(Some(IdempotencyKey::parse(text.trim_matches([' ', '\t']))?))
}

/// A board's rank as answered: absent when it could not be read after the play committed.
fn answered_rank(o: &BoardOutcome) -> Option<u64> {
    (o.rank > 0).then_some(o.rank)
}

/// `rankExact: false` where the rank's freshness is unknown (the rank could not be read, or
/// the Session predates freshness); absent where the freshness says it.
fn unknown_freshness(o: &BoardOutcome) -> Option<bool> {
    o.freshness.is_none().then_some(false)
}

fn session_response(outcome: &PlayOutcome) -> SessionResponse<'_> {
    let s = &outcome.session;
    SessionResponse {
        player_id: s.player_id.as_str(),
        session_id: s.session_id.as_str(),
        score: s.score,
        duplicate: outcome.duplicate,
        results: s.outcomes.iter().map(board_result).collect(),
    }
}

fn score_response<'a>(outcome: &'a PlayOutcome, board: &'a BoardId) -> ScoreResponse<'a> {
    let s = &outcome.session;
    // A repeated session id answers with the first outcome; if that play was posted to several
    // boards, the one of this path (or else its first).
    let o = s
        .outcomes
        .iter()
        .find(|o| &o.board_id == board)
        .or(s.outcomes.first());
    ScoreResponse {
        player_id: s.player_id.as_str(),
        session_id: s.session_id.as_str(),
        score: s.score,
        duplicate: outcome.duplicate,
        result: o.map_or(
            BoardResult {
                board_id: board,
                best: s.score,
                improved: false,
                saturated: false,
                rank: None,
                freshness: None,
                rank_exact: None,
                cohort_id: None,
                tier: None,
            },
            board_result,
        ),
    }
}

/// A board's outcome as the answer shows it.
fn board_result(o: &BoardOutcome) -> BoardResult<'_> {
    BoardResult {
        board_id: &o.board_id,
        best: o.best,
        improved: o.improved,
        saturated: o.saturated,
        rank: answered_rank(o),
        freshness: o.freshness,
        rank_exact: unknown_freshness(o),
        cohort_id: o.cohort_id.as_ref(),
        tier: o.tier.as_ref(),
    }
}

fn board_ids(body: &Map<String, Value>) -> Result<Vec<BoardId>, ApiError> {
    let list = body
        .get("leaderboardIds")
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::invalid("leaderboardIds must be a list of board ids"))?;
    if list.is_empty() || list.len() > MAX_BOARDS_PER_PLAY {
        return Err(ApiError::invalid(format!(
            "leaderboardIds must list 1 to {MAX_BOARDS_PER_PLAY} boards"
        )));
    }
    let mut ids: Vec<BoardId> = Vec::with_capacity(list.len());
    for v in list {
        let s = v
            .as_str()
            .ok_or_else(|| ApiError::invalid("leaderboardIds must be a list of strings"))?;
        let id = BoardId::parse(s)?;
        if ids.contains(&id) {
            return Err(ApiError::invalid(format!(
                "leaderboardIds lists {id} twice"
            )));
        }
        ids.push(id);
    }
    Ok(ids)
}

fn out_of_range(message: &str) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "score_out_of_range", message)
}

/// The score: a non-negative integer. A negative or too large integer is out of every board's
/// range (`score_out_of_range`); anything else is a malformed body.
fn score(body: &Map<String, Value>) -> Result<u64, ApiError> {
    match body.get("score") {
        None | Some(Value::Null) => Err(ApiError::invalid("score is required")),
        Some(v) => whole_number("score", v),
    }
}

/// A play's number `v` named `what`: a non-negative integer; negative or too large, it is out
/// of range, anything else malformed.
fn whole_number(what: &str, v: &Value) -> Result<u64, ApiError> {
    let Value::Number(n) = v else {
        return Err(ApiError::invalid(format!("{what} must be an integer")));
    };
    if let Some(v) = n.as_u64() {
        Ok(v)
    } else if n.as_i64().is_some() {
        Err(out_of_range(&format!("{what} must not be negative")))
    } else if n
        .as_f64()
        .is_some_and(|f| f.fract() == 0.0 && f.abs() >= 1e19)
    {
        Err(out_of_range(&format!("{what} is too large")))
    } else {
        Err(ApiError::invalid(format!("{what} must be an integer")))
    }
}

/// The play's tiebreak column values: an object of column name to non-negative integer (the
/// boards check that it gives each of their columns and no other).
fn subscores(body: &Map<String, Value>) -> Result<Subscores, ApiError> {
    match body.get("subscores") {
        None | Some(Value::Null) => Ok(Subscores::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(name, v)| {
                Ok((
                    name.clone(),
                    whole_number(&format!("subscore {name:?}"), v)?,
                ))
            })
            .collect(),
        Some(_) => Err(ApiError::invalid(
            "subscores must be an object of column name to integer",
        )),
    }
}

fn duration(body: &Map<String, Value>) -> Result<Option<u64>, ApiError> {
    match body.get("durationSec") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|&d| d <= MAX_DURATION_SEC)
            .map(Some)
            .ok_or_else(|| {
                ApiError::invalid(format!(
                    "durationSec must be an integer from 0 to {MAX_DURATION_SEC}"
                ))
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn scores() {
        assert_eq!(score(&obj(json!({"score": 0}))).unwrap(), 0);
        assert_eq!(score(&obj(json!({"score": u64::MAX}))).unwrap(), u64::MAX);
        let code = |v: Value| score(&obj(v)).unwrap_err().code;
        assert_eq!(code(json!({"score": -1})), "score_out_of_range");
        assert_eq!(code(json!({"score": 1e30})), "score_out_of_range");
        assert_eq!(code(json!({"score": 1.5})), "invalid_request");
        assert_eq!(code(json!({"score": "12"})), "invalid_request");
        assert_eq!(code(json!({"score": null})), "invalid_request");
        assert_eq!(code(json!({})), "invalid_request");
        assert_eq!(code(json!({"score": [1]})), "invalid_request");
    }

    #[test]
    fn board_lists() {
        assert_eq!(
            board_ids(&obj(json!({"leaderboardIds": ["a", "b"]})))
                .unwrap()
                .len(),
            2
        );
        for bad in [
            json!({}),
            json!({"leaderboardIds": []}),
            json!({"leaderboardIds": "a"}),
            json!({"leaderboardIds": ["a", "a"]}),
            json!({"leaderboardIds": ["a#b"]}),
            json!({"leaderboardIds": [1]}),
            json!({"leaderboardIds": (0..11).map(|i| format!("b{i}")).collect::<Vec<_>>()}),
        ] {
            assert!(board_ids(&obj(bad.clone())).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(duration(&obj(json!({}))).unwrap(), None);
        assert_eq!(
            duration(&obj(json!({"durationSec": 285}))).unwrap(),
            Some(285)
        );
        assert!(duration(&obj(json!({"durationSec": -1}))).is_err());
        assert!(duration(&obj(json!({"durationSec": 1.5}))).is_err());
        assert!(duration(&obj(json!({"durationSec": MAX_DURATION_SEC + 1}))).is_err());
    }
}
