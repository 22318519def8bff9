//! The HTTP API's routes other than score submission, routed on method and path inside the
//! function (API Gateway HTTP API, payload 2.0). Two functions of the template serve them, so
//! that the anonymous reads run under a role that cannot write: `LeaderboardApiFunction` (the
//! `leaderboard-api` binary, [`handle_reads`], the "any" routes, in `reads.rs`) and
//! `LeaderboardWritesFunction` (the `leaderboard-writes` binary, [`handle_writes`], the routes
//! that need a token, in `writes.rs`).
//!
//! | route | who | store call |
//! | --- | --- | --- |
//! | `POST /leaderboards` | admin | create a board |
//! | `GET /leaderboards?status=&gameId=&seriesId=` | any | the boards, newest first (a series' in one Query) |
//! | `GET /leaderboards/{boardId}` | any | AP9 |
//! | `GET /leaderboards/{boardId}/scores` | any | AP3 (final standings after close); with `playerIds`, the friends listing |
//! | `GET /leaderboards/{boardId}/players/{playerId}` | any | AP4 + AP10 (season result after close) |
//! | `GET /leaderboards/{boardId}/players/{playerId}/around` | any | rank window |
//! | `DELETE /leaderboards/{boardId}/players/{playerId}` | admin | remove the entry (moderation) |
//! | `POST /leaderboards/{boardId}/join` | player | join a tournament board (`maxEntrants` exact) |
//! | `POST /leaderboards/{boardId}/close` | admin | end the board now; season close's next run closes it |
//! | `GET /admin/leaderboards/{boardId}/stats` | admin | the board's shape from its rank index's upper levels |
//! | `PUT /players/me` | player | profile upsert |
//! | `GET /players/{playerId}` | any | AP1, never the email |
//! | `GET /players/{playerId}/scores` | any | AP5 |
//! | `GET /players/{playerId}/sessions` | any | AP6 |
//! | `GET /players/{playerId}/sessions/{sessionId}` | any | AP8 |
//! | `GET /players/{playerId}/results` | any | season results |
//! | `GET /players/{playerId}/leagues/{boardId}` | any | the player's standing in a league's period (`leagues.rs`) |
//! | `GET /leaderboards/{boardId}/cohorts` | any | a league period's cohorts |
//! | `GET /games/{gameId}/sessions` | any | AP7 |
//! | `GET /admin/players?email=` | admin | AP2 |
//! | `PUT /admin/players/{playerId}/ban` | admin | ban: plays refused, entries on open boards removed |
//! | `DELETE /admin/players/{playerId}/ban` | admin | lift the ban |
//! | `DELETE /players/me` | player | erase oneself |
//! | `DELETE /admin/players/{playerId}` | admin | erase a player |
//! | `GET /admin/audit?playerId=`, `?pseudonym=` or `?leaderboardId=` | admin | a player's or a board's audit trail, newest first |
//! | `GET /players/me/export` | player | everything stored about the caller |
//! | `GET /players/me/rewards?status=` | player | the caller's rewards, newest first (`rewards.rs`) |
//! | `POST /players/me/rewards/{rewardId}/claim` | player | claim a reward, exactly once |
//! | `POST /admin/recount` | admin | recount every player's totals from their sessions |
//! | `GET /admin/recount` | admin | the recount asked for last |
//! | `POST /players/guest` | any | a guest account (`guest.rs`), within the network's hourly limit |
//!
//! Errors: 400 bad parameters (limit out of range, malformed cursor, bad ids), 401 without
//! identity, 403 admin routes without the admin group, 404 unknown resources, 405 a known path
//! with the wrong method.

pub mod cognito;
mod guest;
mod leagues;
pub mod metrics;
mod reads;
mod rewards;
mod writes;

use std::sync::LazyLock;

use lambda_http::http::{Method, StatusCode};
use lambda_http::{Body, Error, Request, Response};
pub use leaderboard_http::App;
use leaderboard_http::budget::within_budget;
pub use leaderboard_http::guests;
use leaderboard_http::{ApiError, PathParams, Router, answer, json};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{Board, BoardStatus};
use serde::Serialize;

use crate::metrics::RequestMetrics;

/// The default page of `GET /leaderboards/{boardId}/scores`.
pub const DEFAULT_TOP_LIMIT: u64 = 100;
/// The largest page of session listings.
pub const MAX_SESSION_LIMIT: u64 = 100;
/// The default page of session listings.
pub const DEFAULT_SESSION_LIMIT: u64 = 20;
/// The largest page of a player's entries or results.
pub const MAX_PLAYER_LIMIT: u64 = 100;
/// The default page of a player's entries or results.
pub const DEFAULT_PLAYER_LIMIT: u64 = 50;
/// The default page of `GET /leaderboards`.
pub const DEFAULT_BOARDS_LIMIT: u64 = 20;
/// The default `n` of the around window.
pub const DEFAULT_AROUND: u64 = 5;

/// The routes this function serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// `POST /leaderboards`
    CreateBoard,
    /// `GET /leaderboards`
    ListBoards,
    /// `GET /leaderboards/{boardId}`
    GetBoard,
    /// `GET /leaderboards/{boardId}/scores`
    TopScores,
    /// `GET /leaderboards/{boardId}/players/{playerId}`
    PlayerRank,
    /// `GET /leaderboards/{boardId}/players/{playerId}/around`
    Around,
    /// `DELETE /leaderboards/{boardId}/players/{playerId}`
    RemoveEntry,
    /// `PUT /players/me`
    PutMe,
    /// `GET /players/me`
    GetMe,
    /// `GET /players/{playerId}`
    GetPlayer,
    /// `GET /players/{playerId}/scores`
    PlayerScores,
    /// `GET /players/{playerId}/sessions`
    PlayerSessions,
    /// `GET /players/{playerId}/sessions/{sessionId}`
    GetSession,
    /// `GET /players/{playerId}/results`
    PlayerResults,
    /// `GET /games/{gameId}/sessions`
    GameSessions,
    /// `GET /admin/players`
    AdminPlayerByEmail,
    /// `PUT /admin/players/{playerId}/ban`
    BanPlayer,
    /// `DELETE /admin/players/{playerId}/ban`
    UnbanPlayer,
    /// `DELETE /players/me`
    EraseMe,
    /// `DELETE /admin/players/{playerId}`
    ErasePlayer,
    /// `GET /admin/audit`
    AuditTrail,
    /// `GET /players/me/export`
    ExportMe,
    /// `POST /admin/recount`
    StartRecount,
    /// `GET /admin/recount`
    GetRecount,
    /// `POST /players/guest`
    CreateGuest,
    /// `GET /players/{playerId}/leagues/{boardId}`
    PlayerLeague,
    /// `GET /leaderboards/{boardId}/cohorts`
    LeagueCohorts,
    /// `POST /leaderboards/{boardId}/join`
    JoinBoard,
    /// `POST /leaderboards/{boardId}/close`
    CloseBoard,
    /// `GET /admin/leaderboards/{boardId}/stats`
    BoardStats,
    /// `GET /players/me/rewards`
    MyRewards,
    /// `POST /players/me/rewards/{rewardId}/claim`
    ClaimReward,
}

/// The routes that need a token, served by `LeaderboardWritesFunction`, in match order: literal
/// paths (`/players/me`) before templates that would also match them.
fn write_routes() -> Vec<(Method, &'static str, Route)> {
    use Route::*;
    vec![
        (Method::POST, "/leaderboards", CreateBoard),
        (
            Method::DELETE,
            "/leaderboards/{boardId}/players/{playerId}",
            RemoveEntry,
        ),
        (Method::POST, "/leaderboards/{boardId}/join", JoinBoard),
        (Method::POST, "/leaderboards/{boardId}/close", CloseBoard),
        (Method::POST, "/players/guest", CreateGuest),
        (Method::PUT, "/players/me", PutMe),
        (Method::GET, "/players/me", GetMe),
        (Method::DELETE, "/players/me", EraseMe),
        (Method::GET, "/players/me/export", ExportMe),
        (Method::GET, "/players/me/rewards", MyRewards),
        (
            Method::POST,
            "/players/me/rewards/{rewardId}/claim",
            ClaimReward,
        ),
        (Method::GET, "/admin/players", AdminPlayerByEmail),
        (Method::PUT, "/admin/players/{playerId}/ban", BanPlayer),
        (Method::DELETE, "/admin/players/{playerId}/ban", UnbanPlayer),
        (Method::DELETE, "/admin/players/{playerId}", ErasePlayer),
        (Method::GET, "/admin/audit", AuditTrail),
        (
            Method::GET,
            "/admin/leaderboards/{boardId}/stats",
            BoardStats,
        ),
        (Method::POST, "/admin/recount", StartRecount),
        (Method::GET, "/admin/recount", GetRecount),
    ]
}

/// The anonymous read routes, served by `LeaderboardApiFunction`.
fn read_routes() -> Vec<(Method, &'static str, Route)> {
    use Route::*;
    vec![
        (Method::GET, "/leaderboards", ListBoards),
        (Method::GET, "/leaderboards/{boardId}", GetBoard),
        (Method::GET, "/leaderboards/{boardId}/scores", TopScores),
        (
            Method::GET,
            "/leaderboards/{boardId}/cohorts",
            LeagueCohorts,
        ),
        (
            Method::GET,
            "/leaderboards/{boardId}/players/{playerId}",
            PlayerRank,
        ),
        (
            Method::GET,
            "/leaderboards/{boardId}/players/{playerId}/around",
            Around,
        ),
        (Method::GET, "/players/{playerId}", GetPlayer),
        (Method::GET, "/players/{playerId}/scores", PlayerScores),
        (Method::GET, "/players/{playerId}/sessions", PlayerSessions),
        (
            Method::GET,
            "/players/{playerId}/sessions/{sessionId}",
            GetSession,
        ),
        (Method::GET, "/players/{playerId}/results", PlayerResults),
        (
            Method::GET,
            "/players/{playerId}/leagues/{boardId}",
            PlayerLeague,
        ),
        (Method::GET, "/games/{gameId}/sessions", GameSessions),
    ]
}

/// The read routes' table ([`handle_reads`]).
pub static READ_ROUTER: LazyLock<Router<Route>> = LazyLock::new(|| Router::new(&read_routes()));

/// The write routes' table ([`handle_writes`]).
pub static WRITE_ROUTER: LazyLock<Router<Route>> = LazyLock::new(|| Router::new(&write_routes()));

/// Every route of this crate ([`handle`]).
pub static ROUTER: LazyLock<Router<Route>> =
    LazyLock::new(|| Router::new(&[write_routes(), read_routes()].concat()));

/// Handles one request on any route of this crate (tests call it; each deployed function
/// serves its own routes with [`handle_reads`] or [`handle_writes`]). Never fails: every error
/// becomes the contract's error response, and work past the request's time budget
/// (`leaderboard_http::budget`) a 503 with `Retry-After`.
#[tracing::instrument(skip_all, fields(method = %req.method(), path = %req.uri().path()))]
pub async fn handle(app: &App, req: Request) -> Result<Response<Body>, Error> {
    let mut metrics = RequestMetrics::start(READS_NAME, app.metrics());
    let result = within_budget(&req, async {
        let (route, p) = ROUTER.find(req.method(), leaderboard_http::path(&req))?;
        metrics.route(route);
        if route.is_read() {
            reads::read_route(app, route, &p, &req, &mut metrics).await
        } else {
            writes::write_route(app, route, &p, &req).await
        }
    })
    .await;
    answer(app, metrics, result)
}

/// Handles one request of the read routes (`LeaderboardApiFunction`), as [`handle`] does.
#[tracing::instrument(skip_all, fields(method = %req.method(), path = %req.uri().path()))]
pub async fn handle_reads(app: &App, req: Request) -> Result<Response<Body>, Error> {
    let mut metrics = RequestMetrics::start(READS_NAME, app.metrics());
    let result = within_budget(&req, async {
        let (route, p) = READ_ROUTER.find(req.method(), leaderboard_http::path(&req))?;
        metrics.route(route);
        reads::read_route(app, route, &p, &req, &mut metrics).await
    })
    .await;
    answer(app, metrics, result)
}

/// Handles one request of the routes that need a token (`LeaderboardWritesFunction`), as
/// [`handle`] does.
#[tracing::instrument(skip_all, fields(method = %req.method(), path = %req.uri().path()))]
pub async fn handle_writes(app: &App, req: Request) -> Result<Response<Body>, Error> {
    let mut metrics = RequestMetrics::start(WRITES_NAME, app.metrics());
    let result = within_budget(&req, async {
        let (route, p) = WRITE_ROUTER.find(req.method(), leaderboard_http::path(&req))?;
        metrics.route(route);
        writes::write_route(app, route, &p, &req).await
    })
    .await;
    answer(app, metrics, result)
}

/// The functions' names in their metrics off Lambda (on Lambda, the stack's names for them).
const READS_NAME: &str = "leaderboard-api";
const WRITES_NAME: &str = "leaderboard-writes";

impl Route {
    /// Whether the route is one of the anonymous reads.
    pub fn is_read(self) -> bool {
        read_routes().iter().any(|(_, _, r)| *r == self)
    }
}

fn board_id(p: &PathParams) -> Result<BoardId, ApiError> {
    Ok(BoardId::parse(p.get("boardId"))?)
}

fn player_id(p: &PathParams) -> Result<PlayerId, ApiError> {
    Ok(PlayerId::parse(p.get("playerId"))?)
}

fn no_entry(board: &BoardId, player: &PlayerId) -> ApiError {
    ApiError::not_found(format!(
        "player {player} has no score on leaderboard {board}"
    ))
}

/// A board as the API shows it: an open board whose `endsAt` has passed reads `ended` until
/// its close begins (`closing`), so a client sees why plays get 409 before season close runs.
/// The stored status stays `open`: `ended` is how it reads, never what is written.
fn shown_board(board: &Board, now: Timestamp) -> serde_json::Value {
    let mut shown = serde_json::to_value(board).unwrap_or_default();
    shown["status"] = serde_json::Value::from(shown_status(board, now));
    shown["seriesId"] = serde_json::Value::from(board.series().as_str());
    shown
}

/// The status a board shows at `now`: its own, or `ended` for an open board past its end.
fn shown_status(board: &Board, now: Timestamp) -> &'static str {
    if board.status == BoardStatus::Open && board.ends_at.is_some_and(|end| now >= end) {
        "ended"
    } else {
        board.status.as_str()
    }
}

/// A 200 answer with `body` as JSON.
fn ok<T: Serialize>(body: &T) -> Result<Response<Body>, ApiError> {
    Ok(json(StatusCode::OK, body))
}
