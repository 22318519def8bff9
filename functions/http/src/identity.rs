//! The caller's identity, from the claims API Gateway's JWT authorizer verified.

use std::collections::HashMap;

use lambda_http::http::StatusCode;
use lambda_http::request::RequestContext;
use lambda_http::{Request, RequestExt};
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::subject::player_id_of;

use crate::error::ApiError;
use crate::{ADMIN_GROUP, SERVER_GROUP};

/// Who is calling, from the claims API Gateway's JWT authorizer verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The `sub` claim.
    pub player_id: PlayerId,
    /// The `cognito:groups` claim, parsed.
    pub groups: Vec<String>,
}

impl Identity {
    /// Whether the caller is in the admin group.
    pub fn is_admin(&self) -> bool {
        self.groups.iter().any(|g| g == ADMIN_GROUP)
    }

    /// Whether the caller is a game server (in the server group).
    pub fn is_server(&self) -> bool {
        self.groups.iter().any(|g| g == SERVER_GROUP)
    }
}

/// The verified JWT claims of the request, if API Gateway's authorizer passed any.
pub fn claims(req: &Request) -> Option<&HashMap<String, String>> {
    match req.request_context_ref()? {
        RequestContext::ApiGatewayV2(ctx) => {
            ctx.authorizer.as_ref()?.jwt.as_ref().map(|jwt| &jwt.claims)
        }
        _ => None,
    }
}

/// Parses `cognito:groups` exactly, in the forms it reaches a handler: API Gateway's rendering
/// of an array claim, `[a b]`; a JSON array of strings, `["a","b"]`; or a plain string claim,
/// one name or names separated by white space. Only white space ever separates names, and a
/// Cognito group name cannot contain any. A comma is part of a name, so a group named
/// `support,admin` is that group and never `admin`.
pub fn parse_groups(raw: &str) -> Vec<String> {
    let raw = raw.trim();
    if let Ok(list) = serde_json::from_str::<Vec<String>>(raw) {
        return list.into_iter().filter(|g| !g.is_empty()).collect();
    }
    let names = raw
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .unwrap_or(raw);
    names.split_whitespace().map(str::to_owned).collect()
}

/// The caller's identity: 401 without verified claims or without a `sub`. The player id is the
/// `sub` by [`player_id_of`]'s rule, so the subs of every identity provider are usable.
pub fn identity(req: &Request) -> Result<Identity, ApiError> {
    let claims = claims(req).ok_or_else(ApiError::unauthorized)?;
    let sub = claims.get("sub").ok_or_else(ApiError::unauthorized)?;
    let player_id = player_id_of(sub).map_err(|_| {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "the token's sub is empty",
        )
    })?;
    let groups = claims
        .get("cognito:groups")
        .map(|g| parse_groups(g))
        .unwrap_or_default();
    Ok(Identity { player_id, groups })
}

/// The caller's identity, which must be in the admin group (401 without one, 403 outside it).
pub fn admin(req: &Request) -> Result<Identity, ApiError> {
    let id = identity(req)?;
    if id.is_admin() {
        Ok(id)
    } else {
        Err(ApiError::forbidden())
    }
}
