//! The HTTP/1.1 server in front of the [`Gateway`]: one task per connection, request bodies
//! limited as API Gateway limits them, and a graceful stop (no new connections, in-flight
//! requests finish, bounded by a few seconds).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http::{HeaderValue, StatusCode, header};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::gateway::{Gateway, MAX_REQUEST_BYTES};

/// How long a stop waits for in-flight requests.
pub const DRAIN_FOR: Duration = Duration::from_secs(5);

async fn respond(
    gateway: Arc<Gateway>,
    req: hyper::Request<Incoming>,
    peer: SocketAddr,
) -> hyper::Response<Full<Bytes>> {
    let (parts, body) = req.into_parts();
    let bytes = match Limited::new(body, MAX_REQUEST_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            let body = r#"{"error":{"code":"payload_too_large","message":"the request body is too large"}}"#;
            let mut resp = hyper::Response::new(Full::new(Bytes::from_static(body.as_bytes())));
            *resp.status_mut() = StatusCode::PAYLOAD_TOO_LARGE;
            resp.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            return resp;
        }
    };
    let resp = gateway
        .handle(http::Request::from_parts(parts, bytes), peer)
        .await;
    resp.map(Full::new)
}

/// Serves `gateway` on `listener` until `shutdown` turns true, then drains.
pub async fn serve(
    listener: TcpListener,
    gateway: Arc<Gateway>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut connections = JoinSet::new();
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: pause rather than spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = crate::stopped(&mut shutdown) => break,
        };
        let gateway = Arc::clone(&gateway);
        let mut stop = shutdown.clone();
        connections.spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let gateway = Arc::clone(&gateway);
                async move { Ok::<_, Infallible>(respond(gateway, req, peer).await) }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service);
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = crate::stopped(&mut stop) => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
        });
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    let drained = tokio::time::timeout(DRAIN_FOR, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        connections.abort_all();
    }
}
