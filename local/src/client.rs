//! A small HTTP/1.1 JSON client for the local API: what the demo seeding and the end-to-end
//! tests use to drive the stack over HTTP only, as a game would.

use std::net::SocketAddr;

use http::{Method, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpStream;

use crate::Error;

/// A response: its status and its body as JSON (`Value::Null` when empty, a JSON string when
/// not JSON).
#[derive(Debug, Clone)]
pub struct ApiResponse {
    /// The HTTP status.
    pub status: u16,
    /// The body.
    pub body: Value,
    /// The `retry-after` header's seconds (a 429's or a 503's wait), if any.
    pub retry_after: Option<u64>,
}

/// The most attempts [`ApiClient::retrying`] makes.
pub const ATTEMPTS: u32 = 8;

/// A client of the API at one address.
#[derive(Debug, Clone, Copy)]
pub struct ApiClient {
    addr: SocketAddr,
}

impl ApiClient {
    /// A client of the API at `addr`.
    pub fn new(addr: SocketAddr) -> ApiClient {
        ApiClient { addr }
    }

    /// Sends one request (`token` as a bearer token, `body` as JSON) on a connection of its
    /// own.
    pub async fn send(
        &self,
        method: Method,
        path_and_query: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Result<ApiResponse, Error> {
        let mut headers = vec![(header::ACCEPT.as_str(), "application/json".to_owned())];
        if let Some(token) = token {
            headers.push((header::AUTHORIZATION.as_str(), format!("Bearer {token}")));
        }
        let bytes = match body {
            Some(b) => {
                headers.push((header::CONTENT_TYPE.as_str(), "application/json".to_owned()));
                Bytes::from(b.to_string())
            }
            None => Bytes::new(),
        };
        let resp = self
            .exchange(method, path_and_query, &headers, bytes)
            .await?;
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get(header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse().ok());
        let bytes = resp.into_body();
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()))
        };
        Ok(ApiResponse {
            status,
            body,
            retry_after,
        })
    }

    /// Sends a request that is safe to repeat (a read, a `PUT`, a play with its `sessionId`)
    /// as the docs tell every client to: a 503 or no answer at all is tried again with the same
    /// request, after its `retry-after` or a doubling wait (0.25 s, then up to 4 s), at most
    /// [`ATTEMPTS`] times; the last answer (or error) is returned.
    pub async fn retrying(
        &self,
        method: Method,
        path_and_query: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Result<ApiResponse, Error> {
        let mut wait = std::time::Duration::from_millis(250);
        let mut attempt = 1;
        loop {
            let answer = self.send(method.clone(), path_and_query, token, body).await;
            let asked = match &answer {
                Ok(resp) if resp.status == 503 => resp.retry_after,
                Ok(_) => return answer,
                Err(_) => None,
            };
            if attempt == ATTEMPTS {
                return answer;
            }
            attempt += 1;
            tokio::time::sleep(asked.map_or(wait, std::time::Duration::from_secs)).await;
            wait = (wait * 2).min(std::time::Duration::from_secs(4));
        }
    }

    /// Sends one request with exactly `headers` (and `host`) and `body`, on a connection of its
    /// own, and answers the whole response, headers included (what a CORS check reads).
    pub async fn exchange(
        &self,
        method: Method,
        path_and_query: &str,
        headers: &[(&str, String)],
        body: Bytes,
    ) -> Result<http::Response<Bytes>, Error> {
        let http =
            |e: &dyn std::fmt::Display| Error::Http(format!("{method} {path_and_query}: {e}"));
        let stream = TcpStream::connect(self.addr).await.map_err(|e| http(&e))?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| http(&e))?;
        tokio::spawn(conn);
        let mut req = http::Request::builder()
            .method(method.clone())
            .uri(path_and_query)
            .header(header::HOST, self.addr.to_string());
        for (name, value) in headers {
            req = req.header(*name, value.as_str());
        }
        let req = req.body(Full::new(body)).map_err(|e| http(&e))?;
        let resp = sender.send_request(req).await.map_err(|e| http(&e))?;
        let (parts, body) = resp.into_parts();
        let bytes = body.collect().await.map_err(|e| http(&e))?.to_bytes();
        Ok(http::Response::from_parts(parts, bytes))
    }

    /// `GET` without a token.
    pub async fn get(&self, path_and_query: &str) -> Result<ApiResponse, Error> {
        self.send(Method::GET, path_and_query, None, None).await
    }

    /// `POST` of a JSON body.
    pub async fn post(
        &self,
        path: &str,
        token: Option<&str>,
        body: &Value,
    ) -> Result<ApiResponse, Error> {
        self.send(Method::POST, path, token, Some(body)).await
    }

    /// `PUT` of a JSON body.
    pub async fn put(
        &self,
        path: &str,
        token: Option<&str>,
        body: &Value,
    ) -> Result<ApiResponse, Error> {
        self.send(Method::PUT, path, token, Some(body)).await
    }
}
