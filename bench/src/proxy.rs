//! A counting (and optionally recording) loopback HTTP/1.1 proxy in front of DynamoDB Local.
//!
//! Every request is counted by the operation its `X-Amz-Target` names (`PutItem`,
//! `TransactWriteItems`, ...; DynamoDB Streams operations as `Streams.GetRecords`), with the
//! time it spent upstream and the instant of the first request since the last reset. When
//! recording is on, each exchange (operation, request body, status, headers, body of the
//! response) is kept, so a handler's conversation with DynamoDB Local can be replayed in-process
//! ([`crate::replay`]) and what each request read and wrote can be measured.
//!
//! Each client connection gets one upstream connection of its own (HTTP/1.1 exchanges on one
//! connection are sequential), so the proxy adds no pooling or queueing of its own.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// One recorded response.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// The operation (`BatchGetItem`, `Streams.GetRecords`, ...).
    pub op: String,
    /// The HTTP status.
    pub status: u16,
    /// The response headers.
    pub headers: Vec<(String, String)>,
    /// The response body.
    pub body: Bytes,
    /// The request body.
    pub request: Bytes,
}

/// What the proxy has seen since the last [`ProxyStats::reset`].
#[derive(Debug, Default)]
pub struct ProxyStats {
    counts: Mutex<BTreeMap<String, u64>>,
    first: Mutex<Option<Instant>>,
    upstream_nanos: AtomicU64,
    connections: AtomicU64,
    recording: Mutex<Option<Vec<Exchange>>>,
    held: Mutex<Option<String>>,
}

impl ProxyStats {
    /// Requests by operation.
    pub fn snapshot(&self) -> BTreeMap<String, u64> {
        self.counts.lock().map(|c| c.clone()).unwrap_or_default()
    }

    /// All requests.
    pub fn total(&self) -> u64 {
        self.snapshot().values().sum()
    }

    /// When the first request since the last reset arrived.
    pub fn first_request(&self) -> Option<Instant> {
        self.first.lock().ok().and_then(|f| *f)
    }

    /// Time spent waiting for DynamoDB Local (summed over requests, so concurrent requests
    /// add up).
    pub fn upstream_time(&self) -> Duration {
        Duration::from_nanos(self.upstream_nanos.load(Ordering::Relaxed))
    }

    /// Client connections accepted since the last reset.
    pub fn connections(&self) -> u64 {
        self.connections.load(Ordering::Relaxed)
    }

    /// Forgets counts, times and the first instant.
    pub fn reset(&self) {
        if let Ok(mut c) = self.counts.lock() {
            c.clear();
        }
        if let Ok(mut f) = self.first.lock() {
            *f = None;
        }
        self.upstream_nanos.store(0, Ordering::Relaxed);
        self.connections.store(0, Ordering::Relaxed);
    }

    /// Starts recording responses (dropping any earlier recording).
    pub fn start_recording(&self) {
        if let Ok(mut r) = self.recording.lock() {
            *r = Some(Vec::new());
        }
    }

    /// Stops recording and returns what was recorded.
    pub fn take_recording(&self) -> Vec<Exchange> {
        self.recording
            .lock()
            .ok()
            .and_then(|mut r| r.take())
            .unwrap_or_default()
    }

    /// Holds every request of operation `op` (`Streams.GetRecords`, ...) until
    /// [`ProxyStats::release`]: a consumer stalled while its backlog builds.
    pub fn hold(&self, op: &str) {
        if let Ok(mut h) = self.held.lock() {
            *h = Some(op.to_owned());
        }
    }

    /// Lets held requests through.
    pub fn release(&self) {
        if let Ok(mut h) = self.held.lock() {
            *h = None;
        }
    }

    fn is_held(&self, op: &str) -> bool {
        self.held
            .lock()
            .map(|h| h.as_deref() == Some(op))
            .unwrap_or(false)
    }

    fn count(&self, op: &str, at: Instant) {
        if let Ok(mut c) = self.counts.lock() {
            *c.entry(op.to_owned()).or_default() += 1;
        }
        if let Ok(mut f) = self.first.lock()
            && f.is_none()
        {
            *f = Some(at);
        }
    }
}

/// The operation an `X-Amz-Target` value names: `DynamoDB_20120810.PutItem` is `PutItem`,
/// `DynamoDBStreams_20120810.GetRecords` is `Streams.GetRecords`.
pub fn operation(target: Option<&str>) -> String {
    match target {
        None => "unknown".into(),
        Some(t) => {
            let (service, op) = t.rsplit_once('.').unwrap_or(("", t));
            if service.starts_with("DynamoDBStreams") {
                format!("Streams.{op}")
            } else {
                op.to_owned()
            }
        }
    }
}

/// A running proxy.
pub struct Proxy {
    addr: SocketAddr,
    stats: Arc<ProxyStats>,
    task: JoinHandle<()>,
}

impl Proxy {
    /// Listens on 127.0.0.1 (a free port) and forwards to `upstream` (`host:port`).
    pub async fn start(upstream: SocketAddr) -> std::io::Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let stats = Arc::new(ProxyStats::default());
        let s = Arc::clone(&stats);
        let task = tokio::spawn(crate::accept_each(listener, move |stream| {
            s.connections.fetch_add(1, Ordering::Relaxed);
            tokio::spawn(serve_connection(stream, upstream, Arc::clone(&s)));
        }));
        Ok(Proxy { addr, stats, task })
    }

    /// Starts a proxy in front of an `http://host:port` endpoint.
    pub async fn in_front_of(endpoint: &str) -> std::io::Result<Proxy> {
        let hostport = endpoint.trim_start_matches("http://").trim_end_matches('/');
        let upstream = tokio::net::lookup_host(hostport)
            .await?
            .next()
            .ok_or_else(|| std::io::Error::other(format!("cannot resolve {endpoint}")))?;
        Self::start(upstream).await
    }

    /// `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The listening address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its counters.
    pub fn stats(&self) -> &Arc<ProxyStats> {
        &self.stats
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type Upstream = Arc<tokio::sync::Mutex<Option<SendRequest<Full<Bytes>>>>>;

async fn connect(upstream: SocketAddr) -> Result<SendRequest<Full<Bytes>>, String> {
    let stream = TcpStream::connect(upstream)
        .await
        .map_err(|e| e.to_string())?;
    let _ = stream.set_nodelay(true);
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(conn);
    Ok(sender)
}

async fn serve_connection(stream: TcpStream, upstream: SocketAddr, stats: Arc<ProxyStats>) {
    let link: Upstream = Arc::new(tokio::sync::Mutex::new(None));
    let service =
        hyper::service::service_fn(move |req: http::Request<Incoming>| {
            let link = Arc::clone(&link);
            let stats = Arc::clone(&stats);
            async move {
                Ok::<_, Infallible>(forward(req, upstream, &link, &stats).await.unwrap_or_else(
                    |e| {
                        let mut r = http::Response::new(Full::new(Bytes::from(e)));
                        *r.status_mut() = http::StatusCode::BAD_GATEWAY;
                        r
                    },
                ))
            }
        });
    let _ = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        .serve_connection(TokioIo::new(stream), service)
        .await;
}

async fn forward(
    req: http::Request<Incoming>,
    upstream: SocketAddr,
    link: &Upstream,
    stats: &ProxyStats,
) -> Result<http::Response<Full<Bytes>>, String> {
    let arrived = Instant::now();
    let op = operation(
        req.headers()
            .get("x-amz-target")
            .and_then(|v| v.to_str().ok()),
    );
    while stats.is_held(&op) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    stats.count(&op, arrived);
    let (parts, body) = req.into_parts();
    let body = body.collect().await.map_err(|e| e.to_string())?.to_bytes();
    let mut guard = link.lock().await;
    let mut attempt = 0;
    let resp = loop {
        attempt += 1;
        let ready = match guard.as_mut() {
            Some(s) => s.ready().await.is_ok(),
            None => false,
        };
        if !ready {
            *guard = Some(connect(upstream).await?);
        }
        let mut out = http::Request::builder()
            .method(parts.method.clone())
            .uri(parts.uri.clone());
        for (k, v) in &parts.headers {
            out = out.header(k, v);
        }
        let out = out
            .body(Full::new(body.clone()))
            .map_err(|e| e.to_string())?;
        let sender = guard.as_mut().ok_or("no upstream connection")?;
        match sender.send_request(out).await {
            Ok(resp) => break resp,
            // The upstream closed an idle connection: reconnect once.
            Err(_) if attempt == 1 => {
                *guard = None;
                continue;
            }
            Err(e) => return Err(e.to_string()),
        }
    };
    drop(guard);
    let (rparts, rbody) = resp.into_parts();
    let rbody = rbody.collect().await.map_err(|e| e.to_string())?.to_bytes();
    stats
        .upstream_nanos
        .fetch_add(arrived.elapsed().as_nanos() as u64, Ordering::Relaxed);
    if let Ok(mut rec) = stats.recording.lock()
        && let Some(rec) = rec.as_mut()
    {
        rec.push(Exchange {
            op,
            status: rparts.status.as_u16(),
            headers: rparts
                .headers
                .iter()
                .filter_map(|(k, v)| Some((k.to_string(), v.to_str().ok()?.to_owned())))
                .collect(),
            body: rbody.clone(),
            request: body,
        });
    }
    Ok(http::Response::from_parts(rparts, Full::new(rbody)))
}
