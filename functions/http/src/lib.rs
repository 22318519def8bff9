//! What the leaderboard's HTTP functions share: the contract's error body, the caller's
//! identity from the claims API Gateway's JWT authorizer verified, JSON bodies and query
//! parameters. Handlers translate an API Gateway HTTP API (payload 2.0) request into a store
//! call and the result into a response; this crate holds the translation both of them need.
//!
//! Every error leaves as `{"error": {"code": "<snake_case>", "message": "<sentence>"}}`.
#![warn(missing_docs)]

pub mod budget;

use std::collections::HashMap;

use lambda_http::http::{HeaderValue, Method, StatusCode, header};
use lambda_http::request::RequestContext;
use lambda_http::{Body, Request, RequestExt, Response};
use leaderboard_keys::KeyError;
use leaderboard_keys::ids::{IdError, PlayerId};
use leaderboard_keys::subject::player_id_of;
use leaderboard_store::StoreError;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The largest request body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 16 * 1024;

/// The group that admin routes require in `cognito:groups`.
pub const ADMIN_GROUP: &str = "admin";

/// An error response: a status and the contract's error body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The snake_case code.
    pub code: &'static str,
    /// A sentence for humans.
    pub message: String,
    /// The play's `sessionId`, on the answer to a play that got as far as choosing it: the
    /// client retries with it, and a play that had committed is then answered as a duplicate.
    pub session_id: Option<String>,
}

impl ApiError {
    /// An error of this status, code and message.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            session_id: None,
        }
    }

    /// The same error, naming the play's `sessionId` (`error.sessionId`).
    pub fn with_session(self, session_id: impl Into<String>) -> Self {
        ApiError {
            session_id: Some(session_id.into()),
            ..self
        }
    }

    /// 400 `invalid_request`.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "invalid_request", message)
    }

    /// 401 `unauthorized`.
    pub fn unauthorized() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "a valid bearer token is required",
        )
    }

    /// 503 `unavailable` (the answer carries `Retry-After`): too much contention or
    /// throttling, or no time left before the deadline.
    pub fn unavailable() -> Self {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "the service is busy; retry shortly",
        )
    }

    /// 403 `forbidden`.
    pub fn forbidden() -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "forbidden",
            "this route requires the admin group",
        )
    }

    /// 404 `not_found`.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    /// 405 `method_not_allowed`.
    pub fn method_not_allowed() -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "this path does not accept that method",
        )
    }

    /// The response carrying this error.
    pub fn into_response(self) -> Response<Body> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Inner<'a> {
            code: &'a str,
            message: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            session_id: Option<&'a str>,
        }
        #[derive(Serialize)]
        struct Outer<'a> {
            error: Inner<'a>,
        }
        let body = Outer {
            error: Inner {
                code: self.code,
                message: &self.message,
                session_id: self.session_id.as_deref(),
            },
        };
        let mut resp = json(self.status, &body);
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        resp
    }
}

impl From<IdError> for ApiError {
    fn from(e: IdError) -> Self {
        ApiError::invalid(e.to_string())
    }
}

impl From<KeyError> for ApiError {
    fn from(e: KeyError) -> Self {
        match e {
            KeyError::ScoreOutOfRange { .. } => {
                ApiError::new(StatusCode::BAD_REQUEST, "score_out_of_range", e.to_string())
            }
            other => ApiError::invalid(other.to_string()),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Invalid(m) => ApiError::invalid(m),
            StoreError::Key(k) => k.into(),
            StoreError::ScoreOutOfRange { .. } => {
                ApiError::new(StatusCode::BAD_REQUEST, "score_out_of_range", e.to_string())
            }
            StoreError::BadCursor => ApiError::invalid("cursor is not valid for this listing"),
            StoreError::NotFound { .. } => ApiError::not_found(e.to_string()),
            StoreError::AlreadyExists { .. } => {
                ApiError::new(StatusCode::CONFLICT, "already_exists", e.to_string())
            }
            StoreError::BoardClosed { .. } => {
                ApiError::new(StatusCode::CONFLICT, "board_closed", e.to_string())
            }
            StoreError::Banned { .. } => {
                ApiError::new(StatusCode::FORBIDDEN, "banned", e.to_string())
            }
            StoreError::IdempotencyMismatch { .. } => {
                ApiError::new(StatusCode::CONFLICT, "idempotency_mismatch", e.to_string())
            }
            other if other.is_retryable() => {
                tracing::warn!(error = %other, "store unavailable");
                ApiError::unavailable()
            }
            other => {
                tracing::error!(error = %other, "store failure");
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "something went wrong on our side",
                )
            }
        }
    }
}

/// A JSON response.
pub fn json<T: Serialize>(status: StatusCode, body: &T) -> Response<Body> {
    let text = serde_json::to_string(body).unwrap_or_else(|_| "{}".to_owned());
    let mut resp = Response::new(Body::Text(text));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// An empty 204 response (a deletion that succeeded).
pub fn no_content() -> Response<Body> {
    let mut resp = Response::new(Body::Empty);
    *resp.status_mut() = StatusCode::NO_CONTENT;
    resp
}

/// The result of a handler: a response or an error response.
pub fn respond(result: Result<Response<Body>, ApiError>) -> Response<Body> {
    result.unwrap_or_else(ApiError::into_response)
}

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

/// The request body parsed as JSON of type `T`: 400 for a missing, oversized or malformed body.
pub fn json_body<T: DeserializeOwned>(req: &Request) -> Result<T, ApiError> {
    let bytes: &[u8] = req.body().as_ref();
    if bytes.len() > MAX_BODY_BYTES {
        return Err(ApiError::invalid(format!(
            "the body is larger than {MAX_BODY_BYTES} bytes"
        )));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::invalid("a JSON body is required"));
    }
    serde_json::from_slice(bytes)
        .map_err(|e| ApiError::invalid(format!("malformed JSON body: {e}")))
}

/// The path of the request as the client sent it (API Gateway's `rawPath`).
pub fn path(req: &Request) -> &str {
    req.uri().path()
}

/// The path's segments between slashes, ignoring a trailing slash.
pub fn segments(path: &str) -> Vec<&str> {
    path.trim_matches('/').split('/').collect()
}

/// A query string parameter.
pub fn query_param(req: &Request, name: &str) -> Option<String> {
    req.query_string_parameters_ref()
        .and_then(|q| q.first(name))
        .map(str::to_owned)
}

/// An integer query parameter within `min..=max`, or `default` when absent: 400 otherwise.
pub fn int_param(
    req: &Request,
    name: &str,
    default: u64,
    min: u64,
    max: u64,
) -> Result<u64, ApiError> {
    match query_param(req, name) {
        None => Ok(default),
        Some(v) => v
            .parse::<u64>()
            .ok()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| {
                ApiError::invalid(format!("{name} must be an integer from {min} to {max}"))
            }),
    }
}

/// One segment of a path template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Segment {
    Literal(&'static str),
    Param(&'static str),
}

/// A route table: method and path template (`/leaderboards/{boardId}/scores`) to a route value.
/// Finding a request's route answers 404 when no template matches the path and 405 when one
/// does but not with that method.
pub struct Router<T> {
    routes: Vec<(Method, &'static str, Vec<Segment>, T)>,
}

/// The path parameters of a matched route.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathParams(Vec<(&'static str, String)>);

impl PathParams {
    /// The value of `{name}` in the template, as the path carried it.
    pub fn get(&self, name: &str) -> &str {
        self.0
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("", |(_, v)| v.as_str())
    }
}

impl<T: Copy> Router<T> {
    /// A router over `(method, template, route)` entries; earlier entries win, so list literal
    /// paths (`/players/me`) before templates that would also match them.
    pub fn new(routes: &[(Method, &'static str, T)]) -> Router<T> {
        let routes = routes
            .iter()
            .map(|(m, template, t)| {
                let segs = segments(template)
                    .into_iter()
                    .map(
                        |s| match s.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                            Some(name) => Segment::Param(name),
                            None => Segment::Literal(s),
                        },
                    )
                    .collect();
                (m.clone(), *template, segs, *t)
            })
            .collect();
        Router { routes }
    }

    /// Every `(method, template)` the router serves.
    pub fn routes(&self) -> impl Iterator<Item = (&Method, &'static str)> {
        self.routes.iter().map(|(m, t, _, _)| (m, *t))
    }

    /// The route of a request's method and path.
    pub fn find(&self, method: &Method, path: &str) -> Result<(T, PathParams), ApiError> {
        let parts = segments(path);
        let mut path_known = false;
        for (m, _, template, route) in &self.routes {
            if template.len() != parts.len() {
                continue;
            }
            let mut params = Vec::new();
            let matched = template.iter().zip(&parts).all(|(seg, part)| match seg {
                Segment::Literal(l) => l == part,
                Segment::Param(name) => {
                    params.push((*name, (*part).to_owned()));
                    !part.is_empty()
                }
            });
            if !matched {
                continue;
            }
            if m == method {
                return Ok((*route, PathParams(params)));
            }
            path_known = true;
        }
        if path_known {
            Err(ApiError::method_not_allowed())
        } else {
            Err(ApiError::not_found("no such route"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_in_every_form() {
        for raw in [
            "admin",
            "admin players",
            "[admin players]",
            "[\"admin\",\"players\"]",
            " [admin  players] ",
            "[admin]",
        ] {
            let g = parse_groups(raw);
            assert_eq!(g[0], "admin", "{raw}");
        }
        assert_eq!(
            parse_groups("[players moderators]"),
            ["players", "moderators"]
        );
        assert!(parse_groups("").is_empty());
        assert!(parse_groups("[]").is_empty());
        assert!(!parse_groups("administrators").contains(&"admin".to_owned()));
    }

    #[test]
    fn a_comma_or_quote_never_splits_a_group_name() {
        for (raw, want) in [
            ("support,admin", vec!["support,admin"]),
            ("[support,admin]", vec!["support,admin"]),
            ("[support,admin players]", vec!["support,admin", "players"]),
            ("[\"support,admin\"]", vec!["support,admin"]),
            ("[\"support admin\"]", vec!["support admin"]),
            ("\"admin\"", vec!["\"admin\""]),
            ("[admin,]", vec!["admin,"]),
        ] {
            assert_eq!(parse_groups(raw), want, "{raw}");
            let id = Identity {
                player_id: player_id_of("p").unwrap(),
                groups: parse_groups(raw),
            };
            assert!(!id.is_admin(), "{raw}");
        }
    }

    #[test]
    fn router_finds_routes_and_tells_404_from_405() {
        let r = Router::new(&[
            (Method::PUT, "/players/me", 1),
            (Method::GET, "/players/{playerId}", 2),
            (Method::GET, "/leaderboards/{boardId}/players/{playerId}", 3),
        ]);
        let (route, p) = r.find(&Method::GET, "/leaderboards/b1/players/p1").unwrap();
        assert_eq!(
            (route, p.get("boardId"), p.get("playerId")),
            (3, "b1", "p1")
        );
        assert_eq!(r.find(&Method::PUT, "/players/me").unwrap().0, 1);
        assert_eq!(r.find(&Method::GET, "/players/me/").unwrap().0, 2);
        assert_eq!(
            r.find(&Method::DELETE, "/players/p1").unwrap_err().status,
            405
        );
        assert_eq!(r.find(&Method::PUT, "/players/p1").unwrap_err().status, 405);
        assert_eq!(r.find(&Method::GET, "/players").unwrap_err().status, 404);
        assert_eq!(r.find(&Method::GET, "/nope/x").unwrap_err().status, 404);
        assert_eq!(
            r.find(&Method::GET, "/leaderboards//players/p1")
                .unwrap_err()
                .status,
            404
        );
        assert_eq!(r.routes().count(), 3);
    }

    #[test]
    fn error_body_shape() {
        let resp = ApiError::not_found("leaderboard x not found").into_response();
        assert_eq!(resp.status(), 404);
        let body: serde_json::Value = serde_json::from_slice(resp.body().as_ref()).unwrap();
        assert_eq!(
            body,
            serde_json::json!({"error": {"code": "not_found", "message": "leaderboard x not found"}})
        );
        let resp = ApiError::unavailable()
            .with_session("01J0000000000000000000000A")
            .into_response();
        let body: serde_json::Value = serde_json::from_slice(resp.body().as_ref()).unwrap();
        assert_eq!(body["error"]["sessionId"], "01J0000000000000000000000A");
        assert_eq!(body["error"]["code"], "unavailable");
    }

    #[test]
    fn store_errors_map_to_the_contract() {
        let b = leaderboard_keys::ids::BoardId::parse("b").unwrap();
        let cases: Vec<(StoreError, u16, &str)> = vec![
            (StoreError::Invalid("x".into()), 400, "invalid_request"),
            // A request the store could not build is its own fault, not the caller's.
            (StoreError::Request("x".into()), 500, "internal"),
            (StoreError::BadCursor, 400, "invalid_request"),
            (
                StoreError::ScoreOutOfRange {
                    board: b.clone(),
                    score: 11,
                    max_score: 10,
                },
                400,
                "score_out_of_range",
            ),
            (
                StoreError::NotFound {
                    what: "leaderboard",
                    id: "b".into(),
                },
                404,
                "not_found",
            ),
            (
                StoreError::AlreadyExists {
                    what: "leaderboard",
                    id: "b".into(),
                },
                409,
                "already_exists",
            ),
            (
                StoreError::BoardClosed {
                    board: b,
                    why: "closed",
                },
                409,
                "board_closed",
            ),
            (
                StoreError::Banned {
                    player: PlayerId::parse("p1").unwrap(),
                },
                403,
                "banned",
            ),
            (StoreError::Contention { attempts: 3 }, 503, "unavailable"),
            (
                StoreError::IdempotencyMismatch {
                    session: leaderboard_keys::ids::SessionId::parse_stored(
                        "01HW0000000000000000000000",
                    )
                    .unwrap(),
                    what: "score",
                },
                409,
                "idempotency_mismatch",
            ),
            (
                StoreError::Corrupt {
                    key: "k".into(),
                    reason: "r".into(),
                },
                500,
                "internal",
            ),
        ];
        for (e, status, code) in cases {
            let a = ApiError::from(e);
            assert_eq!((a.status.as_u16(), a.code), (status, code));
        }
    }
}
