//! The leaderboard-api function: every route of the HTTP API except score submission, routed on
//! method and path inside the function (API Gateway HTTP API, payload 2.0).
//!
//! | route | who | store call |
//! | --- | --- | --- |
//! | `POST /leaderboards` | admin | create a board |
//! | `GET /leaderboards/{boardId}` | any | AP9 |
//! | `GET /leaderboards/{boardId}/scores` | any | AP3 (final standings after close); with `playerIds`, the friends listing |
//! | `GET /leaderboards/{boardId}/players/{playerId}` | any | AP4 + AP10 (season result after close) |
//! | `GET /leaderboards/{boardId}/players/{playerId}/around` | any | rank window |
//! | `DELETE /leaderboards/{boardId}/players/{playerId}` | admin | remove the entry (moderation) |
//! | `PUT /players/me` | player | profile upsert |
//! | `GET /players/{playerId}` | any | AP1, never the email |
//! | `GET /players/{playerId}/scores` | any | AP5 |
//! | `GET /players/{playerId}/sessions` | any | AP6 |
//! | `GET /players/{playerId}/sessions/{sessionId}` | any | AP8 |
//! | `GET /players/{playerId}/results` | any | season results |
//! | `GET /games/{gameId}/sessions` | any | AP7 |
//! | `GET /admin/players?email=` | admin | AP2 |
//! | `PUT /admin/players/{playerId}/ban` | admin | ban: plays refused, entries on open boards removed |
//! | `DELETE /admin/players/{playerId}/ban` | admin | lift the ban |
//!
//! Errors: 400 bad parameters (limit out of range, malformed cursor, bad ids), 401 without
//! identity, 403 admin routes without the admin group, 404 unknown resources, 405 a known path
//! with the wrong method.

use std::sync::LazyLock;

use lambda_http::http::{Method, StatusCode};
use lambda_http::{Body, Error, Request, Response};
use leaderboard_http::budget::within_budget;
use leaderboard_http::{
    ApiError, Params, Router, admin, identity, int_param, json, json_body, no_content, query_param,
    respond,
};
use leaderboard_keys::ids::{BoardId, Email, GameId, PlayerId, SessionId};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::freshness::Freshness;
use leaderboard_store::model::{
    Board, BoardStatus, NewBoard, Player, RankedEntry, SeasonResult, Session,
};
use leaderboard_store::{BoardRank, MAX_AROUND, MAX_PAGE_SIZE, MAX_PLAYER_IDS, Store};
use serde::{Deserialize, Serialize};

/// The default page of `GET /leaderboards/{boardId}/scores`.
pub const DEFAULT_TOP_LIMIT: u64 = 100;
/// The largest page of session listings.
pub const MAX_SESSION_LIMIT: u64 = 100;
/// The default page of session listings.
pub const DEFAULT_SESSION_LIMIT: u64 = 20;
/// The default `n` of the around window.
pub const DEFAULT_AROUND: u64 = 5;

/// The routes this function serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// `POST /leaderboards`
    CreateBoard,
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
}

/// The route table, in match order.
pub static ROUTER: LazyLock<Router<Route>> = LazyLock::new(|| {
    use Route::*;
    Router::new(&[
        (Method::POST, "/leaderboards", CreateBoard),
        (Method::GET, "/leaderboards/{boardId}", GetBoard),
        (Method::GET, "/leaderboards/{boardId}/scores", TopScores),
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
        (
            Method::DELETE,
            "/leaderboards/{boardId}/players/{playerId}",
            RemoveEntry,
        ),
        (Method::PUT, "/players/me", PutMe),
        (Method::GET, "/players/{playerId}", GetPlayer),
        (Method::GET, "/players/{playerId}/scores", PlayerScores),
        (Method::GET, "/players/{playerId}/sessions", PlayerSessions),
        (
            Method::GET,
            "/players/{playerId}/sessions/{sessionId}",
            GetSession,
        ),
        (Method::GET, "/players/{playerId}/results", PlayerResults),
        (Method::GET, "/games/{gameId}/sessions", GameSessions),
        (Method::GET, "/admin/players", AdminPlayerByEmail),
        (Method::PUT, "/admin/players/{playerId}/ban", BanPlayer),
        (Method::DELETE, "/admin/players/{playerId}/ban", UnbanPlayer),
    ])
});

/// The function's state: the store and the clock.
pub struct App {
    store: Store,
    clock: fn() -> Timestamp,
}

impl App {
    /// The function over `store`, on the system clock.
    pub fn new(store: Store) -> App {
        App {
            store,
            clock: Timestamp::now,
        }
    }
}

/// A profile as any caller may see it: never the email.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PublicProfile<'a> {
    player_id: &'a PlayerId,
    name: &'a str,
    lifetime_score: u64,
    games_played: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_played_at: Option<Timestamp>,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl<'a> From<&'a Player> for PublicProfile<'a> {
    fn from(p: &'a Player) -> Self {
        PublicProfile {
            player_id: &p.player_id,
            name: &p.name,
            lifetime_score: p.lifetime_score,
            games_played: p.games_played,
            last_played_at: p.last_played_at,
            created_at: p.created_at,
            updated_at: p.updated_at,
        }
    }
}

/// A ranked listing. `nextCursor` is present (null at the end) on paged listings and absent on
/// the around window, which is not paged.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Entries<'a> {
    entries: &'a [RankedEntry],
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<Option<&'a str>>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Sessions<'a> {
    sessions: &'a [Session],
    next_cursor: Option<&'a str>,
}

#[derive(Debug, Deserialize)]
struct BanBody {
    reason: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProfileBody {
    name: Option<String>,
    email: Option<String>,
}

/// Handles one request. Never fails: every error becomes the contract's error response, and
/// work past the request's time budget (`leaderboard_http::budget`) a 503 with `Retry-After`.
#[tracing::instrument(skip_all, fields(method = %req.method(), path = %req.uri().path()))]
pub async fn handle(app: &App, req: Request) -> Result<Response<Body>, Error> {
    Ok(respond(within_budget(&req, dispatch(app, &req)).await))
}

fn board_id(p: &Params) -> Result<BoardId, ApiError> {
    Ok(BoardId::parse(p.get("boardId"))?)
}

fn player_id(p: &Params) -> Result<PlayerId, ApiError> {
    Ok(PlayerId::parse(p.get("playerId"))?)
}

async fn board(app: &App, id: &BoardId) -> Result<Board, ApiError> {
    app.store.get_board(id).await?.ok_or_else(|| no_board(id))
}

/// The comma-separated ids of a friends listing: 1 to 100 valid, distinct ids.
fn player_ids(list: &str) -> Result<Vec<PlayerId>, ApiError> {
    let ids: Vec<&str> = list.split(',').collect();
    if list.is_empty() || ids.len() > MAX_PLAYER_IDS {
        return Err(ApiError::invalid(format!(
            "playerIds must list 1 to {MAX_PLAYER_IDS} player ids, separated by commas"
        )));
    }
    // Distinct, checked by the store before any read.
    Ok(ids
        .into_iter()
        .map(PlayerId::parse)
        .collect::<Result<_, _>>()?)
}

fn no_board(id: &BoardId) -> ApiError {
    ApiError::not_found(format!("leaderboard {id} not found"))
}

fn no_entry(board: &BoardId, player: &PlayerId) -> ApiError {
    ApiError::not_found(format!(
        "player {player} has no score on leaderboard {board}"
    ))
}

async fn dispatch(app: &App, req: &Request) -> Result<Response<Body>, ApiError> {
    let (route, p) = ROUTER.find(req.method(), leaderboard_http::path(req))?;
    let store = &app.store;
    match route {
        Route::CreateBoard => {
            admin(req)?;
            let new: NewBoard = json_body(req)?;
            let board = store.create_board(new, (app.clock)()).await?;
            tracing::info!(board = %board.leaderboard_id, "board created");
            Ok(json(StatusCode::CREATED, &board))
        }
        Route::GetBoard => ok(&board(app, &board_id(&p)?).await?),
        Route::TopScores => {
            let id = board_id(&p)?;
            let limit =
                int_param(req, "limit", DEFAULT_TOP_LIMIT, 1, MAX_PAGE_SIZE as u64)? as usize;
            let cursor = query_param(req, "cursor");
            if let Some(ids) = query_param(req, "playerIds") {
                // The friends listing: chosen players, ranked board-wide, not paged.
                if cursor.is_some() {
                    return Err(ApiError::invalid(
                        "cursor and playerIds cannot be used together",
                    ));
                }
                let players = player_ids(&ids)?;
                let board = board(app, &id).await?;
                let (entries, _) = store.entries_of(&board, &players).await?;
                return ok(&Entries {
                    entries: &entries,
                    next_cursor: Some(None),
                });
            }
            let board = board(app, &id).await?;
            let page = if board.status == BoardStatus::Closed {
                store.final_standings(&id, limit, cursor.as_deref()).await?
            } else {
                store.top_scores(&id, limit, cursor.as_deref()).await?
            };
            ok(&Entries {
                entries: &page.items,
                next_cursor: Some(page.next_cursor.as_deref()),
            })
        }
        Route::PlayerRank => {
            let (id, player) = (board_id(&p)?, player_id(&p)?);
            // The board and the player's entry are read together (one request fewer).
            let entry = match store.board_and_rank(&id, &player).await? {
                BoardRank::NoBoard => return Err(no_board(&id)),
                BoardRank::Closed(_) => store
                    .season_result(&player, &id)
                    .await?
                    .map(SeasonResult::ranked),
                BoardRank::Open(_, entry) => entry,
            };
            ok(&entry.ok_or_else(|| no_entry(&id, &player))?)
        }
        Route::Around => {
            let (id, player) = (board_id(&p)?, player_id(&p)?);
            let n = int_param(req, "n", DEFAULT_AROUND, 1, MAX_AROUND as u64)?;
            let board = board(app, &id).await?;
            let entries = if board.status == BoardStatus::Closed {
                let result = store.season_result(&player, &id).await?;
                let result = result.ok_or_else(|| no_entry(&id, &player))?;
                let rank = result.rank;
                let mut entries = store
                    .final_standings_between(&id, rank.saturating_sub(n), rank.saturating_add(n))
                    .await?;
                for e in &mut entries {
                    e.freshness = Some(Freshness::exact(e.rank, result.player_count));
                }
                entries
            } else {
                store
                    .around_player(&board, &player, n as usize)
                    .await?
                    .ok_or_else(|| no_entry(&id, &player))?
            };
            ok(&Entries {
                entries: &entries,
                next_cursor: None,
            })
        }
        Route::RemoveEntry => {
            let who = admin(req)?;
            let (id, player) = (board_id(&p)?, player_id(&p)?);
            if !store.remove_entry(&id, &player).await? {
                return Err(no_entry(&id, &player));
            }
            tracing::info!(board = %id, player = %player, by = %who.player_id, "entry removed");
            Ok(no_content())
        }
        Route::PutMe => {
            let who = identity(req)?;
            let body: ProfileBody = json_body(req)?;
            let name = body
                .name
                .ok_or_else(|| ApiError::invalid("name is required"))?;
            let email = body.email.as_deref().map(Email::parse).transpose()?;
            let player = store
                .put_profile(&who.player_id, &name, email.as_ref(), (app.clock)())
                .await?;
            // The caller's own profile: the one place the email is shown.
            ok(&player)
        }
        Route::GetPlayer => {
            let player = player_id(&p)?;
            let profile = store
                .get_player(&player)
                .await?
                .ok_or_else(|| ApiError::not_found(format!("player {player} not found")))?;
            ok(&PublicProfile::from(&profile))
        }
        Route::PlayerScores => {
            let player = player_id(&p)?;
            let entries = store.player_entries(&player).await?;
            ok(&serde_json::json!({ "playerId": player, "entries": entries }))
        }
        Route::PlayerSessions => {
            let player = player_id(&p)?;
            let limit = session_limit(req)?;
            let cursor = query_param(req, "cursor");
            let page = store
                .player_sessions(&player, limit, cursor.as_deref())
                .await?;
            ok(&Sessions {
                sessions: &page.items,
                next_cursor: page.next_cursor.as_deref(),
            })
        }
        Route::GetSession => {
            let player = player_id(&p)?;
            let session = SessionId::parse_stored(p.get("sessionId"))?;
            let found = store.get_session(&player, &session).await?.ok_or_else(|| {
                ApiError::not_found(format!("session {session} of player {player} not found"))
            })?;
            ok(&found)
        }
        Route::PlayerResults => {
            let player = player_id(&p)?;
            let results = store.player_results(&player).await?;
            ok(&serde_json::json!({ "playerId": player, "results": results }))
        }
        Route::GameSessions => {
            let game = GameId::parse(p.get("gameId"))?;
            let limit = session_limit(req)?;
            let cursor = query_param(req, "cursor");
            let page = store.game_sessions(&game, limit, cursor.as_deref()).await?;
            ok(&Sessions {
                sessions: &page.items,
                next_cursor: page.next_cursor.as_deref(),
            })
        }
        Route::AdminPlayerByEmail => {
            admin(req)?;
            let raw = query_param(req, "email")
                .ok_or_else(|| ApiError::invalid("the email parameter is required"))?;
            let email = Email::parse(&raw)?;
            let player = store
                .find_player_by_email(&email)
                .await?
                .ok_or_else(|| ApiError::not_found("no player has that email"))?;
            ok(&player)
        }
        Route::BanPlayer => {
            let who = admin(req)?;
            let player = player_id(&p)?;
            let body: BanBody = json_body(req)?;
            let reason = body
                .reason
                .ok_or_else(|| ApiError::invalid("reason is required"))?;
            let outcome = store
                .ban_player(&player, &reason, &who.player_id, (app.clock)())
                .await?;
            ok(&outcome)
        }
        Route::UnbanPlayer => {
            let who = admin(req)?;
            let player = player_id(&p)?;
            // Lifting a ban that is not there is done too: 204 either way.
            let lifted = store.unban_player(&player).await?;
            tracing::info!(player = %player, by = %who.player_id, lifted, "ban lifted");
            Ok(no_content())
        }
    }
}

/// A 200 answer with `body` as JSON.
fn ok<T: Serialize>(body: &T) -> Result<Response<Body>, ApiError> {
    Ok(json(StatusCode::OK, body))
}

fn session_limit(req: &Request) -> Result<usize, ApiError> {
    Ok(int_param(req, "limit", DEFAULT_SESSION_LIMIT, 1, MAX_SESSION_LIMIT)? as usize)
}
