//! Quick checks of the harness's own pieces (no DynamoDB Local, no release build): the Runtime
//! API speaks the protocol a runtime client expects, the proxy counts and records by operation,
//! the replay double answers the SDK, and criterion estimates are read back.

use std::convert::Infallible;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use leaderboard_bench::fragment;
use leaderboard_bench::proxy::{Exchange, Proxy, operation};
use leaderboard_bench::replay::Replay;
use leaderboard_bench::runtime_api::{Outcome, RuntimeApi};
use tokio::net::TcpStream;

async fn request(
    addr: &str,
    method: http::Method,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, http::HeaderMap, Bytes) {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(conn);
    let mut req = http::Request::builder()
        .method(method)
        .uri(path)
        .header("host", addr);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = sender
        .send_request(req.body(Full::new(Bytes::from(body.to_owned()))).unwrap())
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    (status, headers, body)
}

#[tokio::test]
async fn runtime_api_hands_out_the_event_once_and_records_the_response() {
    let api = RuntimeApi::start().await.unwrap();
    let host = api.host_port();
    api.arm("req-1", Bytes::from_static(br#"{"hello":1}"#));
    let (status, headers, body) = request(
        &host,
        http::Method::GET,
        "/2018-06-01/runtime/invocation/next",
        &[],
        "",
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(&body[..], br#"{"hello":1}"#);
    assert_eq!(headers["lambda-runtime-aws-request-id"], "req-1");
    for h in [
        "lambda-runtime-deadline-ms",
        "lambda-runtime-invoked-function-arn",
        "lambda-runtime-trace-id",
    ] {
        assert!(headers.contains_key(h), "{h}");
    }
    assert!(api.seen().unwrap().next_at.is_some());
    // A second poll waits (the harness kills the process before it is answered).
    let second = tokio::time::timeout(
        Duration::from_millis(200),
        request(
            &host,
            http::Method::GET,
            "/2018-06-01/runtime/invocation/next",
            &[],
            "",
        ),
    )
    .await;
    assert!(second.is_err());
    let (status, _, _) = request(
        &host,
        http::Method::POST,
        "/2018-06-01/runtime/invocation/req-1/response",
        &[],
        r#"{"ok":true}"#,
    )
    .await;
    assert_eq!(status, 202);
    let seen = api.wait_done(Duration::from_secs(1)).await.unwrap();
    assert_eq!(seen.outcome, Some(Outcome::Response));
    assert_eq!(&seen.body[..], br#"{"ok":true}"#);
    assert!(seen.done_at.unwrap() >= seen.next_at.unwrap());

    // An init error is recorded too.
    api.arm("req-2", Bytes::from_static(b"{}"));
    request(
        &host,
        http::Method::POST,
        "/2018-06-01/runtime/init/error",
        &[],
        r#"{"errorMessage":"boom"}"#,
    )
    .await;
    let seen = api.wait_done(Duration::from_secs(1)).await.unwrap();
    assert_eq!(seen.outcome, Some(Outcome::InitError));
}

#[tokio::test]
async fn proxy_counts_and_records_by_operation() {
    // An upstream that answers every request with its target.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let upstream = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((s, _)) = listener.accept().await {
            tokio::spawn(
                hyper::server::conn::http1::Builder::new().serve_connection(
                    TokioIo::new(s),
                    hyper::service::service_fn(|req: http::Request<hyper::body::Incoming>| {
                        let t = req
                            .headers()
                            .get("x-amz-target")
                            .map(|v| v.to_str().unwrap().to_owned())
                            .unwrap_or_default();
                        async move {
                            Ok::<_, Infallible>(http::Response::new(Full::new(Bytes::from(t))))
                        }
                    }),
                ),
            );
        }
    });
    let proxy = Proxy::start(upstream).await.unwrap();
    let addr = proxy.addr().to_string();
    proxy.stats().start_recording();
    for target in [
        "DynamoDB_20120810.PutItem",
        "DynamoDB_20120810.PutItem",
        "DynamoDBStreams_20120810.GetRecords",
    ] {
        let (status, _, body) = request(
            &addr,
            http::Method::POST,
            "/",
            &[("x-amz-target", target)],
            "{}",
        )
        .await;
        assert_eq!(status, 200);
        assert_eq!(&body[..], target.as_bytes());
    }
    let counts = proxy.stats().snapshot();
    assert_eq!(counts["PutItem"], 2);
    assert_eq!(counts["Streams.GetRecords"], 1);
    assert_eq!(proxy.stats().total(), 3);
    assert!(proxy.stats().first_request().is_some());
    let rec = proxy.stats().take_recording();
    assert_eq!(rec.len(), 3);
    assert_eq!(rec[2].op, "Streams.GetRecords");
    proxy.stats().reset();
    assert_eq!(proxy.stats().total(), 0);
    assert_eq!(operation(None), "unknown");
}

#[tokio::test]
async fn replay_answers_the_sdk_in_process() {
    let replay = Replay::new(vec![Exchange {
        op: "GetItem".into(),
        status: 200,
        headers: vec![("content-type".into(), "application/x-amz-json-1.0".into())],
        body: Bytes::from_static(br#"{"Item":{"pk":{"S":"a"},"sk":{"S":"b"}}}"#),
        request: Bytes::new(),
    }]);
    let client = replay.client();
    for _ in 0..2 {
        let out = client
            .get_item()
            .table_name("t")
            .key("pk", aws_sdk_dynamodb::types::AttributeValue::S("a".into()))
            .key("sk", aws_sdk_dynamodb::types::AttributeValue::S("b".into()))
            .send()
            .await
            .unwrap();
        assert_eq!(out.item.unwrap()["pk"].as_s().unwrap(), "a");
    }
    assert_eq!(replay.answered()["GetItem"], 2);
}

#[test]
fn reads_criterion_estimates() {
    let text = r#"{"mean":{"confidence_interval":{"confidence_level":0.95,"lower_bound":70.1,"upper_bound":75.2},"point_estimate":72.0,"standard_error":1.0},"median":{"confidence_interval":{"confidence_level":0.95,"lower_bound":64.9,"upper_bound":74.5},"point_estimate":69.7,"standard_error":2.4},"median_abs_dev":null,"slope":null,"std_dev":null}"#;
    let e = fragment::parse_estimates("g/f", text).unwrap();
    assert_eq!((e.median, e.lower, e.upper), (69.7, 64.9, 74.5));
    assert_eq!(fragment::human_ns(69.7), "69.7 ns");
    assert_eq!(fragment::human_ns(12_345.0), "12.35 µs");
    let table = fragment::criterion_table(&[e]);
    assert!(table.contains("| g/f | 69.7 ns | 64.9 ns .. 74.5 ns |"));
}
