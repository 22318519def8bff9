//! A player's rewards (contract section 13; token routes, on the write function): the ones
//! board closes granted the caller, newest board end first, and the claim of one, exactly once.

use lambda_http::{Body, Request, Response};
use leaderboard_http::{ApiError, PathParams, identity, int_param, query_param};
use leaderboard_keys::entity::RewardId;
use leaderboard_store::rewards::{Reward, RewardStatus};
use serde_json::{Value, json};

use crate::{App, DEFAULT_PLAYER_LIMIT, MAX_PLAYER_LIMIT, ok};

/// A reward as the API shows it: every field, `claimedAt` null until it is claimed.
fn shown(reward: &Reward) -> Value {
    let mut shown = serde_json::to_value(reward).unwrap_or_default();
    if reward.claimed_at.is_none() {
        shown["claimedAt"] = Value::Null;
    }
    shown
}

/// `GET /players/me/rewards?status=unclaimed|claimed&limit=&cursor=`: the caller's rewards,
/// newest board end first, one Query a page.
pub(crate) async fn my_rewards(app: &App, req: &Request) -> Result<Response<Body>, ApiError> {
    let who = identity(req)?;
    let status = match query_param(req, "status").as_deref() {
        None => None,
        Some("unclaimed") => Some(RewardStatus::Unclaimed),
        Some("claimed") => Some(RewardStatus::Claimed),
        Some(other) => {
            return Err(ApiError::invalid(format!(
                "status must be unclaimed or claimed, not {other:?}"
            )));
        }
    };
    let limit = int_param(req, "limit", DEFAULT_PLAYER_LIMIT, 1, MAX_PLAYER_LIMIT)?;
    let cursor = query_param(req, "cursor");
    let page = app
        .store()
        .rewards()
        .player_rewards(&who.player_id, status, limit as usize, cursor.as_deref())
        .await?;
    let rewards: Vec<Value> = page.items.iter().map(shown).collect();
    // `rewards` by name, `entries` as every paged player listing answers.
    ok(&json!({
        "playerId": who.player_id,
        "rewards": rewards,
        "entries": rewards,
        "nextCursor": page.next_cursor,
    }))
}

/// `POST /players/me/rewards/{rewardId}/claim`: the reward with its `claimedAt`, the first
/// time; 409 `already_claimed` after; 404 for an id that is not one of the caller's rewards.
pub(crate) async fn claim_reward(
    app: &App,
    p: &PathParams,
    req: &Request,
) -> Result<Response<Body>, ApiError> {
    let who = identity(req)?;
    let given = p.get("rewardId");
    let not_found = || ApiError::not_found(format!("reward {given} not found"));
    // An id that cannot be a reward's is no reward of the caller's.
    let id = RewardId::parse(given).map_err(|_| not_found())?;
    let reward = app
        .store()
        .rewards()
        .claim(&who.player_id, &id, app.now())
        .await?;
    tracing::info!(reward = %id, player = %who.player_id, "reward claimed");
    ok(&shown(&reward))
}
