//! The time budget of one request: every handler's work, with every retry in it (the store's
//! and the SDK's), ends before the Lambda invocation's deadline less a margin, and the client
//! then gets the contract's 503 `unavailable` with `Retry-After` instead of API Gateway's bare
//! 500 for a function that timed out.
//!
//! The budget comes from the invocation's deadline (the Lambda context), not from a constant,
//! so it follows the function's configured timeout. Work cut off at the budget is dropped at
//! an await point: a request in flight either committed or did not (every write a handler makes
//! is one request, or is safe to repeat), and a play repeated with its `sessionId` is answered
//! with the first outcome if it had committed.

use std::future::Future;
use std::time::Duration;

use lambda_http::{Body, Request, RequestExt, Response};
use leaderboard_keys::time::time_left;

use crate::ApiError;

/// How long before the invocation's deadline the handler stops and answers: room for the
/// answer to leave before Lambda stops the function.
pub const DEADLINE_MARGIN: Duration = Duration::from_millis(500);

/// The time a request without a Lambda deadline may take (the local stack and tests, which call
/// the handler directly): the template's function timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the handler of `req` may work: until the invocation's deadline less
/// [`DEADLINE_MARGIN`] (nothing when that has passed), or [`DEFAULT_TIMEOUT`] less the margin
/// when the request carries no deadline.
pub fn budget(req: &Request) -> Duration {
    req.lambda_context_ref()
        .and_then(|c| time_left(c.deadline))
        .unwrap_or(DEFAULT_TIMEOUT)
        .saturating_sub(DEADLINE_MARGIN)
}

/// The instant the handler of `req` must have answered by: now plus its [`budget`]. A
/// handler that must answer differently depending on where the time ran out (a play that
/// committed is answered 200 whatever its rank reads do) works against this instant itself.
pub fn deadline(req: &Request) -> tokio::time::Instant {
    tokio::time::Instant::now() + budget(req)
}

/// Runs `work` within the budget of `req`; past it, 503 `unavailable` with `Retry-After`.
pub async fn within_budget<F>(req: &Request, work: F) -> Result<Response<Body>, ApiError>
where
    F: Future<Output = Result<Response<Body>, ApiError>>,
{
    let budget = budget(req);
    match tokio::time::timeout(budget, work).await {
        Ok(answer) => answer,
        Err(_) => {
            tracing::warn!(?budget, "out of time before the deadline; answering 503");
            Err(ApiError::unavailable())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lambda_http::Context;
    use leaderboard_keys::time::Timestamp;

    fn request_with_deadline(ms: u64) -> Request {
        let mut context = Context::default();
        context.deadline = ms;
        Request::default().with_lambda_context(context)
    }

    fn now_ms() -> u64 {
        Timestamp::now().as_millis()
    }

    #[test]
    fn the_budget_is_the_deadline_less_the_margin() {
        // An hour ahead: the minute of slack below is for a stalled test thread, not a bound
        // on anything's speed.
        let hour = Duration::from_secs(3_600);
        let b = budget(&request_with_deadline(now_ms() + hour.as_millis() as u64));
        assert!(b <= hour - DEADLINE_MARGIN, "{b:?}");
        assert!(
            b > hour - DEADLINE_MARGIN - Duration::from_secs(60),
            "{b:?}"
        );
        assert_eq!(
            budget(&request_with_deadline(now_ms() + 100)),
            Duration::ZERO
        );
        assert_eq!(
            budget(&request_with_deadline(now_ms() - 5_000)),
            Duration::ZERO
        );
        assert_eq!(
            budget(&Request::default()),
            DEFAULT_TIMEOUT - DEADLINE_MARGIN
        );
        assert_eq!(
            budget(&request_with_deadline(0)),
            DEFAULT_TIMEOUT - DEADLINE_MARGIN
        );
    }

    #[tokio::test]
    async fn work_past_the_budget_is_503_with_retry_after() {
        let req = request_with_deadline(now_ms() + 600);
        let slow = async {
            tokio::time::sleep(Duration::from_secs(3_600)).await;
            Ok(Response::new(Body::Empty))
        };
        let answer = crate::respond(within_budget(&req, slow).await);
        assert_eq!(answer.status(), 503);
        assert!(answer.headers().contains_key("retry-after"));
        let quick = async { Ok(Response::new(Body::Empty)) };
        let answer = crate::respond(within_budget(&req, quick).await);
        assert_eq!(answer.status(), 200);
    }
}
