//! The contract's error body, `{"error": {"code", "message"}}`, what each store error
//! becomes, and the JSON responses every handler answers with.

use lambda_http::http::{HeaderValue, StatusCode, header};
use lambda_http::{Body, Response};
use leaderboard_keys::KeyError;
use leaderboard_keys::ids::IdError;
use leaderboard_store::StoreError;
use leaderboard_store::tournament::EntryRefusal;
use serde::Serialize;

/// Every `error.code` an answer of the functions carries: `openapi.yaml`'s `Error.code` enum
/// is exactly this list (`tests/routes.rs`), so a client generated from the document can read
/// every error it is sent.
pub const ERROR_CODES: &[&str] = &[
    "invalid_request",
    "score_out_of_range",
    "unauthorized",
    "forbidden",
    "banned",
    "erased",
    "not_found",
    "method_not_allowed",
    "already_exists",
    "already_claimed",
    "board_closed",
    "board_full",
    "not_joined",
    "attempts_exhausted",
    "idempotency_mismatch",
    "rate_limited",
    "unavailable",
    "internal",
    // The local stack's answer to a body past API Gateway's 10 MB, which the deployed API
    // Gateway answers itself.
    "payload_too_large",
];

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
    /// The `Retry-After` header's seconds, on an answer that says when to come back.
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// An error of this status, code (one of [`ERROR_CODES`]) and message.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        // A code missing from the list is a programming error the tests catch: the document
        // would not name it.
        debug_assert!(ERROR_CODES.contains(&code), "{code} is not in ERROR_CODES");
        ApiError {
            status,
            code,
            message: message.into(),
            session_id: None,
            retry_after: None,
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
        ApiError {
            retry_after: Some(1),
            ..ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "unavailable",
                "the service is busy; retry shortly",
            )
        }
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
        if let Some(secs) = self.retry_after {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
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
            StoreError::ScoreOutOfRange { .. } | StoreError::SubscoreOutOfRange { .. } => {
                ApiError::new(StatusCode::BAD_REQUEST, "score_out_of_range", e.to_string())
            }
            StoreError::BadCursor => ApiError::invalid("cursor is not valid for this listing"),
            StoreError::NotFound { .. } => ApiError::not_found(e.to_string()),
            StoreError::AlreadyExists { .. } => {
                ApiError::new(StatusCode::CONFLICT, "already_exists", e.to_string())
            }
            StoreError::AlreadyClaimed { .. } => {
                ApiError::new(StatusCode::CONFLICT, "already_claimed", e.to_string())
            }
            StoreError::BoardClosed { .. } => {
                ApiError::new(StatusCode::CONFLICT, "board_closed", e.to_string())
            }
            StoreError::EntryRefused { refusal, .. } => {
                let status = match refusal {
                    EntryRefusal::BoardFull(_) => StatusCode::CONFLICT,
                    _ => StatusCode::FORBIDDEN,
                };
                ApiError::new(status, refusal.code(), e.to_string())
            }
            StoreError::Banned { .. } => {
                ApiError::new(StatusCode::FORBIDDEN, "banned", e.to_string())
            }
            StoreError::Erased { .. } => {
                ApiError::new(StatusCode::FORBIDDEN, "erased", e.to_string())
            }
            StoreError::Forbidden(m) => ApiError::new(StatusCode::FORBIDDEN, "forbidden", m),
            StoreError::RateLimited {
                retry_after_secs, ..
            }
            | StoreError::GuestLimit { retry_after_secs } => ApiError {
                retry_after: Some(retry_after_secs),
                ..ApiError::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", e.to_string())
            },
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
