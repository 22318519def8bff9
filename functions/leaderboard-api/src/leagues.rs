//! The league read routes (anonymous, on the read function): a player's standing in a league
//! board's period, and the period's cohorts, paged.

use lambda_http::{Body, Request, Response};
use leaderboard_http::{ApiError, PathParams, int_param, query_param};
use leaderboard_keys::ids::TierName;
use leaderboard_store::MAX_COHORTS_PAGE;

use crate::metrics::RequestMetrics;
use crate::{App, board_id, ok, player_id};

/// The default page of `GET /leaderboards/{boardId}/cohorts`.
const DEFAULT_COHORTS_LIMIT: u64 = 50;

/// `GET /players/{playerId}/leagues/{boardId}`: the player's tier, cohort, rank in it and the
/// ranks that move; 404 before their first play of the period (or when the board is not a
/// league).
pub(crate) async fn player_league(
    app: &App,
    p: &PathParams,
    metrics: &mut RequestMetrics,
) -> Result<Response<Body>, ApiError> {
    let (player, id) = (player_id(p)?, board_id(p)?);
    let standing = app.store().leagues().standing(&player, &id).await?;
    let standing = standing.ok_or_else(|| {
        ApiError::not_found(format!(
            "player {player} has not played the league {id}'s current period"
        ))
    })?;
    metrics.freshness([standing.freshness]);
    ok(&standing)
}

/// `GET /leaderboards/{boardId}/cohorts?tier=&limit=&cursor=`: the period's cohorts, tier by
/// tier in the order they opened, each with its players' count.
pub(crate) async fn league_cohorts(
    app: &App,
    p: &PathParams,
    req: &Request,
) -> Result<Response<Body>, ApiError> {
    let id = board_id(p)?;
    let limit = int_param(
        req,
        "limit",
        DEFAULT_COHORTS_LIMIT,
        1,
        MAX_COHORTS_PAGE as u64,
    )?;
    let tier = query_param(req, "tier")
        .map(|t| TierName::parse(&t))
        .transpose()?;
    let cursor = query_param(req, "cursor");
    let page = app
        .store()
        .leagues()
        .cohorts(&id, tier.as_ref(), limit as usize, cursor.as_deref())
        .await?;
    ok(&serde_json::json!({"cohorts": page.items, "nextCursor": page.next_cursor}))
}
