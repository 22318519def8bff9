//! A minimal Lambda Runtime API on 127.0.0.1, enough for one cold start at a time:
//!
//! - `GET /2018-06-01/runtime/invocation/next` answers the armed event once, with the headers
//!   Lambda sends (`Lambda-Runtime-Aws-Request-Id`, `-Deadline-Ms`, `-Invoked-Function-Arn`,
//!   `-Trace-Id`), and records when it was asked; later polls wait (the harness kills the
//!   process after its first response).
//! - `POST /2018-06-01/runtime/invocation/{id}/response` and `/error`, and
//!   `POST /2018-06-01/runtime/init/error` record the instant and the body.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

/// The function ARN the invocations carry.
pub const FUNCTION_ARN: &str = "arn:aws:lambda:us-east-1:123456789012:function:bench";

/// How the process ended its first invocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// `POST .../invocation/{id}/response`.
    Response,
    /// `POST .../invocation/{id}/error`.
    Error,
    /// `POST .../init/error`.
    InitError,
}

/// What one armed invocation saw.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// When the event was handed out (the first `/next`).
    pub next_at: Option<Instant>,
    /// When the process answered (response or error).
    pub done_at: Option<Instant>,
    /// How.
    pub outcome: Option<Outcome>,
    /// The body it posted.
    pub body: Bytes,
}

#[derive(Default)]
struct Armed {
    id: String,
    event: Bytes,
    served: bool,
    seen: Option<Invocation>,
}

/// A running Runtime API.
pub struct RuntimeApi {
    addr: SocketAddr,
    state: Arc<(Mutex<Armed>, Notify)>,
    task: JoinHandle<()>,
}

impl RuntimeApi {
    /// Starts one on a free port of 127.0.0.1.
    pub async fn start() -> std::io::Result<RuntimeApi> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let state: Arc<(Mutex<Armed>, Notify)> = Arc::default();
        let s = Arc::clone(&state);
        let task = tokio::spawn(crate::accept_each(listener, move |stream| {
            let s = Arc::clone(&s);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req| {
                    let s = Arc::clone(&s);
                    async move { Ok::<_, Infallible>(answer(&s, req).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }));
        Ok(RuntimeApi { addr, state, task })
    }

    /// `127.0.0.1:<port>`, the value of `AWS_LAMBDA_RUNTIME_API`.
    pub fn host_port(&self) -> String {
        self.addr.to_string()
    }

    /// Makes `event` the next invocation, under request id `id`, and forgets the last one.
    pub fn arm(&self, id: &str, event: Bytes) {
        let mut a = self.state.0.lock().unwrap_or_else(|p| p.into_inner());
        *a = Armed {
            id: id.to_owned(),
            event,
            served: false,
            seen: Some(Invocation {
                next_at: None,
                done_at: None,
                outcome: None,
                body: Bytes::new(),
            }),
        };
    }

    /// What the armed invocation has seen so far.
    pub fn seen(&self) -> Option<Invocation> {
        self.state
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .seen
            .clone()
    }

    /// Waits until the armed invocation is answered (or the init failed), at most `limit`.
    pub async fn wait_done(&self, limit: Duration) -> Option<Invocation> {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let notified = self.state.1.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(inv) = self.seen()
                && inv.outcome.is_some()
            {
                return Some(inv);
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return None;
            }
        }
    }
}

impl Drop for RuntimeApi {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn reply(status: u16, body: Bytes) -> http::Response<Full<Bytes>> {
    let mut r = http::Response::new(Full::new(body));
    *r.status_mut() = http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::OK);
    r.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    r
}

async fn answer(
    state: &(Mutex<Armed>, Notify),
    req: http::Request<Incoming>,
) -> http::Response<Full<Bytes>> {
    let at = Instant::now();
    let path = req.uri().path().to_owned();
    let method = req.method().clone();
    const PREFIX: &str = "/2018-06-01/runtime/";
    let Some(rest) = path.strip_prefix(PREFIX) else {
        return reply(404, Bytes::from_static(b"{}"));
    };
    if method == http::Method::GET && rest == "invocation/next" {
        let served = {
            let mut a = state.0.lock().unwrap_or_else(|p| p.into_inner());
            if a.served || a.seen.is_none() {
                None
            } else {
                a.served = true;
                if let Some(s) = a.seen.as_mut() {
                    s.next_at = Some(at);
                }
                Some((a.id.clone(), a.event.clone()))
            }
        };
        let Some((id, event)) = served else {
            // A second poll: the harness kills the process before it is answered.
            tokio::time::sleep(Duration::from_secs(600)).await;
            return reply(500, Bytes::new());
        };
        let deadline = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64 + 300_000)
            .unwrap_or(0);
        let mut r = reply(200, event);
        let h = r.headers_mut();
        let mut set = |k: &'static str, v: String| {
            if let Ok(v) = http::HeaderValue::from_str(&v) {
                h.insert(k, v);
            }
        };
        set("lambda-runtime-aws-request-id", id.clone());
        set("lambda-runtime-deadline-ms", deadline.to_string());
        set("lambda-runtime-invoked-function-arn", FUNCTION_ARN.into());
        set(
            "lambda-runtime-trace-id",
            format!(
                "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=0;Lineage=bench:{id}"
            ),
        );
        return r;
    }
    if method != http::Method::POST {
        return reply(405, Bytes::new());
    }
    let outcome = if rest == "init/error" {
        Some(Outcome::InitError)
    } else if let Some(inv) = rest.strip_prefix("invocation/") {
        match inv.rsplit_once('/') {
            Some((_, "response")) => Some(Outcome::Response),
            Some((_, "error")) => Some(Outcome::Error),
            _ => None,
        }
    } else {
        None
    };
    let Some(outcome) = outcome else {
        return reply(404, Bytes::new());
    };
    let body = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    {
        let mut a = state.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(s) = a.seen.as_mut()
            && s.outcome.is_none()
        {
            s.done_at = Some(at);
            s.outcome = Some(outcome);
            s.body = body;
        }
    }
    state.1.notify_waiters();
    reply(202, Bytes::from_static(br#"{"status":"OK"}"#))
}
