//! The routes that need a token: board creation, joins and closes, a board's stats, the caller's profile and rewards, entry removal, bans,
//! erasure, the export, the audit trail and the admin lookup by email. They are served by the function whose role may write
//! (`LeaderboardWritesFunction`), so the anonymous read routes run under a role that cannot.

use lambda_http::http::StatusCode;
use lambda_http::{Body, Request, Response};
use leaderboard_http::{
    ApiError, PathParams, admin, claims, identity, int_param, json, json_body,
    json_body_or_default, no_content, query_param,
};
use leaderboard_keys::erasure::Pseudonym;
use leaderboard_keys::ids::Email;
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_store::EmailChange;
use leaderboard_store::model::NewBoard;
use serde::Deserialize;

use crate::{
    App, DEFAULT_PLAYER_LIMIT, MAX_PLAYER_LIMIT, Route, board_id, no_entry, ok, player_id,
    shown_board,
};

/// A join's body, if any: the player a game server joins.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct JoinBody {
    player_id: Option<String>,
}

#[derive(Debug, Deserialize)]
struct BanBody {
    reason: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProfileBody {
    name: Option<String>,
    /// Absent: kept; `null`: cleared; a string: set.
    #[serde(default, deserialize_with = "present")]
    email: Option<Option<String>>,
}

/// A field that is present, as `Some` of its value (`null` included), so that `default` tells
/// it from an absent one.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// The email a profile write sets: only ever the address the token proves (`email` with
/// `email_verified: true`), which the body may repeat but not replace; a body naming an
/// address the token does not prove is refused, so no one can claim (or probe the ownership
/// of) an address they have not verified. Without a verified address the body may only leave
/// the stored one (absent) or clear it (`null`).
fn profile_email(
    req: &Request,
    body: Option<Option<String>>,
) -> Result<Option<Option<Email>>, ApiError> {
    let body = match body {
        None => None,
        Some(None) => Some(None),
        Some(Some(raw)) => Some(Some(Email::parse(&raw)?)),
    };
    let verified = claims(req)
        .filter(|c| c.get("email_verified").is_some_and(|v| v == "true"))
        .and_then(|c| c.get("email"))
        .map(|e| Email::parse(e))
        .transpose()?;
    match (verified, body) {
        (None, Some(Some(_))) => Err(ApiError::invalid(
            "email must be the verified address of the token (its `email` claim with \
             `email_verified: true`), and this token carries none: sign in with a token that \
             proves the address (an ID token), or leave email out",
        )),
        (None, body) => Ok(body),
        (Some(token), None) => Ok(Some(Some(token))),
        (Some(token), Some(Some(asked))) if asked == token => Ok(Some(Some(token))),
        (Some(token), Some(_)) => Err(ApiError::invalid(format!(
            "email must be {token}, the verified address of the token (or be left out)"
        ))),
    }
}

/// How long before the request's budget ends an erasure stops starting steps: room for its
/// answer.
const ERASE_MARGIN: std::time::Duration = std::time::Duration::from_secs(1);

/// Erases `player` for `by` (`player`, or the admin's sub) as far as the request's time allows:
/// 204 when finished, else 202 with the receipt so far (the request repeated, or the schedule,
/// finishes it).
async fn erase(
    app: &App,
    player: &PlayerId,
    by: &str,
    req: &Request,
) -> Result<Response<Body>, ApiError> {
    let time = leaderboard_http::budget::budget(req).saturating_sub(ERASE_MARGIN);
    let deadline = std::time::Instant::now() + time;
    let receipt = app
        .store()
        .moderation()
        .erase_player(player, by, app.now(), Some(deadline))
        .await?;
    tracing::info!(
        pseudonym = %receipt.pseudonym,
        by,
        finished = receipt.finished(),
        removed = ?receipt.removed,
        "player erased"
    );
    if receipt.finished() {
        Ok(no_content())
    } else {
        Ok(json(StatusCode::ACCEPTED, &receipt))
    }
}

/// Answers write route `route` (with its path parameters `p`).
pub(crate) async fn write_route(
    app: &App,
    route: Route,
    p: &PathParams,
    req: &Request,
) -> Result<Response<Body>, ApiError> {
    let store = app.store();
    match route {
        Route::CreateBoard => {
            admin(req)?;
            let new: NewBoard = json_body(req)?;
            let now = app.now();
            let board = store.boards().create_board(new, now).await?;
            tracing::info!(board = %board.board_id, "board created");
            Ok(json(StatusCode::CREATED, &shown_board(&board, now)))
        }
        Route::JoinBoard => {
            let who = identity(req)?;
            let id = board_id(p)?;
            // A game server joins the player it names (as it names a play's); a player's own
            // token joins them, whatever id a body names.
            let body: JoinBody = json_body_or_default(req)?;
            let named = body.player_id.as_deref().map(PlayerId::parse).transpose()?;
            let player = match (who.is_server(), named) {
                (false, _) => who.player_id,
                (true, Some(named)) => named,
                (true, None) => {
                    return Err(ApiError::invalid(
                        "playerId is required: a game server names the player it joins",
                    ));
                }
            };
            let joined = store
                .tournaments()
                .join_board(&id, &player, app.now())
                .await?;
            if joined.new {
                tracing::info!(board = %id, player = %player, "joined");
            }
            ok(&serde_json::json!({
                "leaderboardId": id, "playerId": player, "joined": true
            }))
        }
        Route::CloseBoard => {
            let who = admin(req)?;
            let id = board_id(p)?;
            let now = app.now();
            let board = store
                .tournaments()
                .close_now(&id, who.player_id.as_str(), now)
                .await?;
            tracing::info!(board = %id, by = %who.player_id, "board ended now");
            ok(&shown_board(&board, now))
        }
        Route::BoardStats => {
            admin(req)?;
            let board = crate::reads::board(app, &board_id(p)?).await?;
            ok(&store.rank().board_stats(&board).await?)
        }
        Route::RemoveEntry => {
            let who = admin(req)?;
            let (id, player) = (board_id(p)?, player_id(p)?);
            if !store
                .moderation()
                .remove_entry(&id, &player, &who.player_id, app.now())
                .await?
            {
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
            let email = profile_email(req, body.email)?;
            let change = match &email {
                None => EmailChange::Keep,
                Some(None) => EmailChange::Clear,
                Some(Some(e)) => EmailChange::Set(e),
            };
            let player = store
                .players()
                .put_profile_as(&who.player_id, &name, change, app.now())
                .await?;
            // The caller's own profile: the one place the email is shown.
            ok(&player)
        }
        Route::GetMe => {
            let who = identity(req)?;
            // The caller's own profile, email included; before they make one, their player
            // id alone, so a client learns the id its token maps to.
            match store.players().get_player(&who.player_id).await? {
                Some(player) => ok(&player),
                None => ok(&serde_json::json!({ "playerId": who.player_id })),
            }
        }
        Route::AdminPlayerByEmail => {
            admin(req)?;
            let raw = query_param(req, "email")
                .ok_or_else(|| ApiError::invalid("the email parameter is required"))?;
            let email = Email::parse(&raw)?;
            let player = store
                .players()
                .find_player_by_email(&email)
                .await?
                .ok_or_else(|| ApiError::not_found("no player has that email"))?;
            ok(&player)
        }
        Route::BanPlayer => {
            let who = admin(req)?;
            let player = player_id(p)?;
            let body: BanBody = json_body(req)?;
            let reason = body
                .reason
                .ok_or_else(|| ApiError::invalid("reason is required"))?;
            let outcome = store
                .moderation()
                .ban_player(&player, &reason, &who.player_id, app.now())
                .await?;
            ok(&outcome)
        }
        Route::UnbanPlayer => {
            let who = admin(req)?;
            let player = player_id(p)?;
            // Lifting a ban that is not there is done too: 204 either way.
            let lifted = store
                .moderation()
                .unban_player(&player, &who.player_id, app.now())
                .await?;
            tracing::info!(player = %player, by = %who.player_id, lifted, "ban lifted");
            Ok(no_content())
        }
        Route::EraseMe => {
            let who = identity(req)?;
            erase(app, &who.player_id, "player", req).await
        }
        Route::ErasePlayer => {
            let who = admin(req)?;
            let player = player_id(p)?;
            erase(app, &player, who.player_id.as_str(), req).await
        }
        Route::ExportMe => {
            let who = identity(req)?;
            let cursor = query_param(req, "cursor");
            ok(&store
                .moderation()
                .export_player(&who.player_id, cursor.as_deref())
                .await?)
        }
        Route::StartRecount => {
            let who = admin(req)?;
            store
                .projection()
                .request_recount(who.player_id.as_str(), app.now())
                .await?;
            tracing::info!(by = %who.player_id, "recount of every player asked for");
            let status = store.projection().recount_status().await?;
            Ok(json(StatusCode::ACCEPTED, &status))
        }
        Route::CreateGuest => crate::guest::create_guest(app, req).await,
        Route::GetRecount => {
            admin(req)?;
            let status = store
                .projection()
                .recount_status()
                .await?
                .ok_or_else(|| ApiError::not_found("no recount was asked for"))?;
            ok(&status)
        }
        Route::AuditTrail => {
            admin(req)?;
            let board = query_param(req, "leaderboardId");
            let subject = match (query_param(req, "playerId"), query_param(req, "pseudonym")) {
                (Some(p), None) if board.is_none() => Some(PlayerId::parse(&p)?),
                (None, Some(p)) if board.is_none() => Some(
                    Pseudonym::parse(&p)
                        .map_err(|e| ApiError::invalid(format!("pseudonym: {e}")))?
                        .as_player_id(),
                ),
                (None, None) if board.is_some() => None,
                _ => {
                    return Err(ApiError::invalid(
                        "give exactly one of playerId, pseudonym and leaderboardId",
                    ));
                }
            };
            let limit = int_param(req, "limit", DEFAULT_PLAYER_LIMIT, 1, MAX_PLAYER_LIMIT)?;
            let cursor = query_param(req, "cursor");
            let Some(subject) = subject else {
                let board = BoardId::parse(board.as_deref().unwrap_or_default())?;
                let page = store
                    .tournaments()
                    .board_audit_trail(&board, limit as usize, cursor.as_deref())
                    .await?;
                return ok(&serde_json::json!({
                    "items": page.items,
                    "nextCursor": page.next_cursor,
                }));
            };
            let page = store
                .moderation()
                .audit_trail(&subject, limit as usize, cursor.as_deref())
                .await?;
            ok(&serde_json::json!({
                "items": page.items,
                "nextCursor": page.next_cursor,
            }))
        }
        Route::MyRewards => crate::rewards::my_rewards(app, req).await,
        Route::ClaimReward => crate::rewards::claim_reward(app, p, req).await,
        Route::ListBoards
        | Route::GetBoard
        | Route::TopScores
        | Route::PlayerRank
        | Route::Around
        | Route::GetPlayer
        | Route::PlayerScores
        | Route::PlayerSessions
        | Route::GetSession
        | Route::PlayerResults
        | Route::GameSessions
        | Route::PlayerLeague
        | Route::LeagueCohorts => Err(ApiError::not_found("no such write route")),
    }
}
