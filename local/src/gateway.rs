//! The local HTTP API: what API Gateway does in front of the two HTTP functions.
//!
//! For each request: answer a browser's preflight if CORS allows its origin ([`crate::cors`]);
//! find the route among the template's `HttpApi` events (most specific match,
//! 404 otherwise); on a route that uses the JWT authorizer, verify the bearer token (401 before
//! any handler runs); build the API Gateway HTTP API payload 2.0 event, with the verified
//! claims in `requestContext.authorizer.jwt.claims`; parse it with `lambda_http` exactly as the
//! Lambda runtime does; call the function's `handle`; and send its response back.
//!
//! Three paths are local only: `POST /local/schedule/season-close` runs season close now and
//! answers its summary, `/console/` serves the operator console ([`crate::console`]), and
//! `GET /local/events` lists the events the functions would have put
//! on the stack's EventBridge bus, newest first, as the bus delivers them to a rule's target
//! (`{"events": [{"source", "detail-type", "detail"}]}`).

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::{HeaderValue, Method, StatusCode, header};
use hyper::body::Bytes;
use serde_json::{Value, json};

use leaderboard_events::EventLog;

use crate::console::ConsoleFiles;
use crate::cors::Cors;
use crate::jwks::Verifier;
use crate::jwt::{JwtError, bearer, claims_as_strings};
use crate::schedule::Schedule;
use crate::template::{Auth, HttpFunction, LocalTemplate, Route, percent_decode};
use crate::unavailable::{Fault, Unavailable};

/// The local route that fires season close.
pub const CLOSE_NOW_PATH: &str = "/local/schedule/season-close";

/// The local route that lists the events published.
pub const EVENTS_PATH: &str = "/local/events";

/// The largest request body API Gateway accepts (HTTP APIs: 10 MB).
pub const MAX_REQUEST_BYTES: usize = 10 * 1024 * 1024;

/// The two HTTP functions, as the local API Gateway calls them.
pub struct Gateway {
    template: Arc<LocalTemplate>,
    cors: Cors,
    verifier: Verifier,
    submit: submit_score::App,
    api: leaderboard_api::App,
    schedule: Arc<Schedule>,
    events: Arc<EventLog>,
    host: String,
    unavailable: Arc<Unavailable>,
    console: ConsoleFiles,
}

pub use crate::GatewayResponse;

fn error(status: StatusCode, code: &str, message: &str) -> GatewayResponse {
    let body = json!({"error": {"code": code, "message": message}}).to_string();
    let mut resp = http::Response::new(Bytes::from(body));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// A 503 as the functions answer one, with the wait a client should take.
fn unavailable() -> GatewayResponse {
    let mut resp = error(
        StatusCode::SERVICE_UNAVAILABLE,
        "unavailable",
        "the service is busy (LOCAL_UNAVAILABLE_EVERY): retry the same request",
    );
    resp.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    resp
}

impl Gateway {
    /// A gateway over the template's routes, both HTTP functions on `store`, verifying tokens
    /// with `verifier`, listing `events`, serving on `host` (`127.0.0.1:<port>`, the `host` header
    /// the functions see).
    pub fn new(
        template: Arc<LocalTemplate>,
        cors: Cors,
        verifier: Verifier,
        store: leaderboard_store::Store,
        schedule: Arc<Schedule>,
        events: Arc<EventLog>,
        host: String,
    ) -> Gateway {
        Gateway {
            template,
            cors,
            verifier,
            submit: submit_score::App::new(store.clone()),
            api: leaderboard_api::App::new(store),
            schedule,
            events,
            host,
            unavailable: Arc::new(Unavailable::every(0)),
            console: ConsoleFiles::from_repo(),
        }
    }

    /// The same gateway, making guest accounts with `guests` (`POST /players/guest`).
    pub fn with_guests(self, guests: Arc<dyn leaderboard_api::guests::GuestAccounts>) -> Gateway {
        Gateway {
            api: self.api.with_guests(guests),
            ..self
        }
    }

    /// The same gateway, answering 503 to the plays `unavailable` picks.
    pub fn with_unavailable(self, unavailable: Arc<Unavailable>) -> Gateway {
        Gateway {
            unavailable,
            ..self
        }
    }

    /// Answers one request from `peer`: a browser's preflight before anything else (CORS),
    /// then the route.
    pub async fn handle(
        self: Arc<Self>,
        req: http::Request<Bytes>,
        peer: SocketAddr,
    ) -> GatewayResponse {
        if let Some(preflight) = self.cors.preflight(req.method(), req.headers()) {
            return preflight;
        }
        let origin = self.cors.allowed_origin(req.headers());
        let mut resp = Arc::clone(&self).route_request(req, peer).await;
        self.cors.decorate(origin, &mut resp);
        resp
    }

    async fn route_request(
        self: Arc<Self>,
        req: http::Request<Bytes>,
        peer: SocketAddr,
    ) -> GatewayResponse {
        let path = req.uri().path().to_owned();
        if path == CLOSE_NOW_PATH {
            return self.close_now(req.method()).await;
        }
        if path == EVENTS_PATH {
            return self.list_events(req.method());
        }
        if let Some(file) = self.console.answer(req.method(), &path) {
            return file;
        }
        let Some((route, params)) = self.template.route(req.method(), &path) else {
            return error(StatusCode::NOT_FOUND, "not_found", "no such route");
        };
        let route = route.clone();
        let claims = match route.auth {
            Auth::None => None,
            Auth::Jwt => match self.verify(&req) {
                Ok(c) => Some(c),
                Err(e) => return error(StatusCode::UNAUTHORIZED, "unauthorized", &e.to_string()),
            },
        };
        let fault = match (route.function, req.method()) {
            (HttpFunction::SubmitScore, &Method::POST) => self.unavailable.next_play(),
            _ => None,
        };
        if fault == Some(Fault::Before) {
            return unavailable();
        }
        let request_id = request_id();
        let event = self.event(&route, &params, &req, claims, peer, &request_id);
        let request = match lambda_http::request::from_str(&event.to_string()) {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(error = %e, "the gateway's event does not parse");
                return error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "bad gateway event",
                );
            }
        };
        let started = std::time::Instant::now();
        // In a task of its own, so that a panicking handler fails its request (as a crashed
        // Lambda invocation does), not the connection or the server.
        let gateway = Arc::clone(&self);
        let function = route.function;
        let invoked = tokio::spawn(async move {
            match function {
                HttpFunction::SubmitScore => submit_score::handle(&gateway.submit, request).await,
                HttpFunction::LeaderboardApi => {
                    leaderboard_api::handle_reads(&gateway.api, request).await
                }
                HttpFunction::LeaderboardWrites => {
                    leaderboard_api::handle_writes(&gateway.api, request).await
                }
            }
        })
        .await;
        let mut resp = match invoked {
            Ok(Ok(resp)) => convert(resp),
            Ok(Err(e)) => {
                tracing::error!(route = %route.route_key(), error = %e, "function error");
                error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "Internal Server Error",
                )
            }
            Err(e) => {
                tracing::error!(route = %route.route_key(), error = %e, "function crashed");
                error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "Internal Server Error",
                )
            }
        };
        if fault == Some(Fault::After) {
            resp = unavailable();
        }
        if let Ok(v) = HeaderValue::from_str(&request_id) {
            resp.headers_mut().insert("apigw-requestid", v);
        }
        tracing::debug!(
            route = %route.route_key(),
            path = %path,
            status = resp.status().as_u16(),
            ms = started.elapsed().as_millis() as u64,
            "request"
        );
        resp
    }

    fn verify(&self, req: &http::Request<Bytes>) -> Result<HashMap<String, String>, JwtError> {
        let token = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(bearer)
            .ok_or(JwtError::Missing)?;
        let claims = self
            .verifier
            .verify(token, chrono::Utc::now().timestamp())?;
        Ok(claims_as_strings(&claims))
    }

    fn list_events(&self, method: &Method) -> GatewayResponse {
        if method != Method::GET {
            return error(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                "use GET to list the events",
            );
        }
        let body = json!({"events": self.events.newest_first()}).to_string();
        let mut resp = http::Response::new(Bytes::from(body));
        resp.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        resp
    }

    async fn close_now(&self, method: &Method) -> GatewayResponse {
        if method != Method::POST {
            return error(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                "use POST to run season close now",
            );
        }
        match self.schedule.fire().await {
            Ok(summary) => {
                let body = serde_json::to_vec(&summary).unwrap_or_default();
                let mut resp = http::Response::new(Bytes::from(body));
                resp.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                resp
            }
            Err(e) => error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                &e.to_string(),
            ),
        }
    }

    /// The API Gateway HTTP API (payload format 2.0) event of a request, in the shape
    /// `events/generate.py` writes.
    fn event(
        &self,
        route: &Route,
        params: &[(String, String)],
        req: &http::Request<Bytes>,
        claims: Option<HashMap<String, String>>,
        peer: SocketAddr,
        request_id: &str,
    ) -> Value {
        let mut headers: BTreeMap<String, String> = BTreeMap::new();
        let mut cookies: Vec<String> = Vec::new();
        for (name, value) in req.headers() {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            if name == header::COOKIE {
                cookies.extend(value.split(';').map(|c| c.trim().to_owned()));
                continue;
            }
            headers
                .entry(name.as_str().to_owned())
                .and_modify(|v| {
                    v.push(',');
                    v.push_str(&value);
                })
                .or_insert(value);
        }
        // What API Gateway sets: its own host, and the forwarding headers.
        headers.insert("host".into(), self.host.clone());
        headers.insert("x-forwarded-for".into(), peer.ip().to_string());
        headers.insert("x-forwarded-proto".into(), "http".into());
        headers.insert(
            "x-forwarded-port".into(),
            self.host.rsplit(':').next().unwrap_or("80").into(),
        );
        let method = req.method().as_str();
        let path = req.uri().path();
        let raw_query = req.uri().query().unwrap_or("");
        let now = chrono::Utc::now();
        let user_agent = headers.get("user-agent").cloned().unwrap_or_default();
        let mut event = json!({
            "version": "2.0",
            "routeKey": route.route_key(),
            "rawPath": path,
            "rawQueryString": raw_query,
            "headers": headers,
            "requestContext": {
                "accountId": "000000000000",
                "apiId": "local",
                "domainName": self.host,
                "domainPrefix": "local",
                "http": {
                    "method": method,
                    "path": path,
                    "protocol": format!("{:?}", req.version()),
                    "sourceIp": peer.ip().to_string(),
                    "userAgent": user_agent,
                },
                "requestId": request_id,
                "routeKey": route.route_key(),
                "stage": "$default",
                "time": now.format("%d/%b/%Y:%H:%M:%S +0000").to_string(),
                "timeEpoch": now.timestamp_millis(),
            },
            "isBase64Encoded": false,
        });
        if !cookies.is_empty() {
            event["cookies"] = json!(cookies);
        }
        let query = query_parameters(raw_query);
        if !query.is_empty() {
            event["queryStringParameters"] = json!(query);
        }
        if !params.is_empty() {
            let params: BTreeMap<&str, &str> = params
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            event["pathParameters"] = json!(params);
        }
        let body = req.body();
        if !body.is_empty() {
            match std::str::from_utf8(body) {
                Ok(text) => event["body"] = json!(text),
                Err(_) => {
                    event["body"] = json!(STANDARD.encode(body));
                    event["isBase64Encoded"] = json!(true);
                }
            }
        }
        if let Some(claims) = claims {
            event["requestContext"]["authorizer"] =
                json!({"jwt": {"claims": claims, "scopes": null}});
        }
        event
    }
}

/// The query string as API Gateway's `queryStringParameters`: decoded, repeated names joined
/// with commas.
pub fn query_parameters(raw: &str) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for pair in raw.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let (k, v) = (percent_decode(k), percent_decode(v));
        out.entry(k)
            .and_modify(|old| {
                old.push(',');
                old.push_str(&v);
            })
            .or_insert(v);
    }
    out
}

fn request_id() -> String {
    use rand::Rng;
    let n: u64 = rand::rng().random();
    format!("{:016x}", n)
}

/// A function's response as the HTTP response API Gateway sends.
fn convert(resp: lambda_http::Response<lambda_http::Body>) -> GatewayResponse {
    let (parts, body) = resp.into_parts();
    let bytes = match body {
        lambda_http::Body::Empty => Bytes::new(),
        lambda_http::Body::Text(t) => Bytes::from(t),
        lambda_http::Body::Binary(b) => Bytes::from(b),
        _ => Bytes::new(),
    };
    let mut out = http::Response::new(bytes);
    *out.status_mut() = parts.status;
    *out.headers_mut() = parts.headers;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_parameters_like_api_gateway() {
        let q = query_parameters("limit=10&email=alice%40x.com&a=1&a=2&flag");
        assert_eq!(q["limit"], "10");
        assert_eq!(q["email"], "alice@x.com");
        assert_eq!(q["a"], "1,2");
        assert_eq!(q["flag"], "");
        assert!(query_parameters("").is_empty());
    }
}
