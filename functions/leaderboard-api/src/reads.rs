//! The read routes: anonymous, and served by the function whose role can only read
//! (`LeaderboardApiFunction`). Boards, top-N and final standings, ranks, the around window, the
//! friends listing, public profiles, entries, sessions and season results.

use lambda_http::{Body, Request, Response};
use leaderboard_http::{ApiError, PathParams, int_param, query_param};
use leaderboard_keys::ids::{BoardId, GameId, PlayerId, SeriesId, SessionId};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::freshness::Freshness;
use leaderboard_store::model::{Board, BoardStatus, Player, RankedEntry, SeasonResult, Session};
use leaderboard_store::{BoardRank, MAX_AROUND, MAX_BOARDS_PAGE, MAX_PAGE_SIZE, MAX_PLAYER_IDS};
use serde::Serialize;

use crate::metrics::RequestMetrics;
use crate::{
    App, DEFAULT_AROUND, DEFAULT_BOARDS_LIMIT, DEFAULT_PLAYER_LIMIT, DEFAULT_SESSION_LIMIT,
    DEFAULT_TOP_LIMIT, MAX_PLAYER_LIMIT, MAX_SESSION_LIMIT, Route, board_id, no_entry, ok,
    player_id, shown_board, shown_status,
};

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

/// The board `id`, or 404 `not_found`.
pub(crate) async fn board(app: &App, id: &BoardId) -> Result<Board, ApiError> {
    app.store()
        .boards()
        .get_board(id)
        .await?
        .ok_or_else(|| no_board(id))
}

fn no_board(id: &BoardId) -> ApiError {
    ApiError::not_found(format!("leaderboard {id} not found"))
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

fn session_limit(req: &Request) -> Result<usize, ApiError> {
    Ok(int_param(req, "limit", DEFAULT_SESSION_LIMIT, 1, MAX_SESSION_LIMIT)? as usize)
}

/// The page size of a player's entries or results: `limit`, 1 to 100, 50 by default.
fn player_limit(req: &Request) -> Result<usize, ApiError> {
    Ok(int_param(req, "limit", DEFAULT_PLAYER_LIMIT, 1, MAX_PLAYER_LIMIT)? as usize)
}

/// `GET /leaderboards?status=&gameId=&seriesId=&limit=&cursor=`: the boards, newest first, as
/// `GET /leaderboards/{b}` shows each. `status` is matched against the status shown (`open`,
/// `ended`, `closing`, `closed`); a filtered page may hold fewer than `limit`.
async fn list_boards(app: &App, req: &Request) -> Result<Response<Body>, ApiError> {
    let limit = int_param(
        req,
        "limit",
        DEFAULT_BOARDS_LIMIT,
        1,
        MAX_BOARDS_PAGE as u64,
    )? as usize;
    let status = query_param(req, "status");
    if let Some(s) = status.as_deref()
        && !["open", "ended", "closing", "closed"].contains(&s)
    {
        return Err(ApiError::invalid(
            "status must be open, ended, closing or closed",
        ));
    }
    let game = query_param(req, "gameId")
        .map(|g| GameId::parse(&g))
        .transpose()?;
    let series = query_param(req, "seriesId")
        .map(|s| SeriesId::parse(&s))
        .transpose()?;
    let cursor = query_param(req, "cursor");
    let now = app.now();
    let page = app
        .store()
        .boards()
        .list_boards(series.as_ref(), limit, cursor.as_deref(), |b| {
            game.as_ref().is_none_or(|g| b.game_id.as_ref() == Some(g))
                && status.as_deref().is_none_or(|s| shown_status(b, now) == s)
        })
        .await?;
    let shown: Vec<serde_json::Value> = page.items.iter().map(|b| shown_board(b, now)).collect();
    ok(&serde_json::json!({"leaderboards": shown, "nextCursor": page.next_cursor}))
}

/// Answers read route `route` (with its path parameters `p`).
pub(crate) async fn read_route(
    app: &App,
    route: Route,
    p: &PathParams,
    req: &Request,
    metrics: &mut RequestMetrics,
) -> Result<Response<Body>, ApiError> {
    let store = app.store();
    match route {
        Route::ListBoards => list_boards(app, req).await,
        Route::GetBoard => ok(&shown_board(&board(app, &board_id(p)?).await?, app.now())),
        Route::TopScores => {
            let id = board_id(p)?;
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
                let (entries, _) = store.listings().entries_of(&board, &players).await?;
                metrics.ranks(&entries);
                return ok(&Entries {
                    entries: &entries,
                    next_cursor: Some(None),
                });
            }
            let board = board(app, &id).await?;
            let page = if board.status == BoardStatus::Closed {
                store
                    .listings()
                    .final_standings(&id, limit, cursor.as_deref())
                    .await?
            } else {
                store
                    .listings()
                    .top_scores(&board, limit, cursor.as_deref())
                    .await?
            };
            ok(&Entries {
                entries: &page.items,
                next_cursor: Some(page.next_cursor.as_deref()),
            })
        }
        Route::PlayerRank => {
            let (id, player) = (board_id(p)?, player_id(p)?);
            // The board and the player's entry are read together (one request fewer).
            let entry = match store.listings().board_and_rank(&id, &player).await? {
                BoardRank::NoBoard => return Err(no_board(&id)),
                BoardRank::Closed(_) => store
                    .listings()
                    .season_result(&player, &id)
                    .await?
                    .map(SeasonResult::into_ranked),
                BoardRank::Open(_, entry) => entry,
            };
            let entry = entry.ok_or_else(|| no_entry(&id, &player))?;
            metrics.ranks(std::slice::from_ref(&entry));
            ok(&entry)
        }
        Route::Around => {
            let (id, player) = (board_id(p)?, player_id(p)?);
            let n = int_param(req, "n", DEFAULT_AROUND, 1, MAX_AROUND as u64)?;
            let board = board(app, &id).await?;
            let entries = if board.status == BoardStatus::Closed {
                let result = store.listings().season_result(&player, &id).await?;
                let result = result.ok_or_else(|| no_entry(&id, &player))?;
                let rank = result.rank;
                let mut entries = store
                    .listings()
                    .final_standings_between(&id, rank.saturating_sub(n), rank.saturating_add(n))
                    .await?;
                for e in &mut entries {
                    e.freshness = Some(Freshness::exact(e.rank, result.player_count));
                }
                entries
            } else {
                store
                    .listings()
                    .around_player(&board, &player, n as usize)
                    .await?
                    .ok_or_else(|| no_entry(&id, &player))?
            };
            metrics.ranks(&entries);
            ok(&Entries {
                entries: &entries,
                next_cursor: None,
            })
        }
        Route::GetPlayer => {
            let player = player_id(p)?;
            let profile = store
                .players()
                .get_player(&player)
                .await?
                .ok_or_else(|| ApiError::not_found(format!("player {player} not found")))?;
            ok(&PublicProfile::from(&profile))
        }
        Route::PlayerScores => {
            let player = player_id(p)?;
            let cursor = query_param(req, "cursor");
            let page = store
                .listings()
                .player_entries(&player, player_limit(req)?, cursor.as_deref())
                .await?;
            ok(&serde_json::json!({
                "playerId": player,
                "entries": page.items,
                "nextCursor": page.next_cursor,
            }))
        }
        Route::PlayerSessions => {
            let player = player_id(p)?;
            let limit = session_limit(req)?;
            let cursor = query_param(req, "cursor");
            let page = store
                .listings()
                .player_sessions(&player, limit, cursor.as_deref())
                .await?;
            ok(&Sessions {
                sessions: &page.items,
                next_cursor: page.next_cursor.as_deref(),
            })
        }
        Route::GetSession => {
            let player = player_id(p)?;
            let session = SessionId::parse_stored(p.get("sessionId"))?;
            let found = store
                .listings()
                .get_session(&player, &session)
                .await?
                .ok_or_else(|| {
                    ApiError::not_found(format!("session {session} of player {player} not found"))
                })?;
            ok(&found)
        }
        Route::PlayerResults => {
            let player = player_id(p)?;
            let cursor = query_param(req, "cursor");
            let page = store
                .listings()
                .player_results(&player, player_limit(req)?, cursor.as_deref())
                .await?;
            // `results` as the route always answered, `entries` as every paged listing does.
            ok(&serde_json::json!({
                "playerId": player,
                "results": page.items,
                "entries": page.items,
                "nextCursor": page.next_cursor,
            }))
        }
        Route::GameSessions => {
            let game = GameId::parse(p.get("gameId"))?;
            let limit = session_limit(req)?;
            let cursor = query_param(req, "cursor");
            let page = store
                .listings()
                .game_sessions(&game, limit, cursor.as_deref())
                .await?;
            ok(&Sessions {
                sessions: &page.items,
                next_cursor: page.next_cursor.as_deref(),
            })
        }
        Route::CreateBoard
        | Route::RemoveEntry
        | Route::JoinBoard
        | Route::CloseBoard
        | Route::BoardStats
        | Route::MyRewards
        | Route::ClaimReward
        | Route::PutMe
        | Route::GetMe
        | Route::AdminPlayerByEmail
        | Route::BanPlayer
        | Route::UnbanPlayer
        | Route::EraseMe
        | Route::ErasePlayer
        | Route::AuditTrail
        | Route::ExportMe
        | Route::StartRecount
        | Route::GetRecount
        | Route::CreateGuest => Err(ApiError::not_found("no such read route")),
        Route::PlayerLeague => crate::leagues::player_league(app, p, metrics).await,
        Route::LeagueCohorts => crate::leagues::league_cohorts(app, p, req).await,
    }
}
