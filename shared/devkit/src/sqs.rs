//! Amazon SQS, Amazon EventBridge and AWS Secrets Manager on loopback for tests: moto's server
//! mode (PyPI `moto[server]`, pinned in `scripts/template-tools.txt` and installed into
//! `.venv-tools/` by the test command), a real implementation of the SQS protocol the
//! dead-letter replay talks to, of the EventBridge protocol the functions publish their events
//! with, and of the Secrets Manager protocol they read their secrets with at start (one server
//! answers all three, and delivers a bus's events to the SQS queues its rules target).
//!
//! The endpoint comes from `SQS_ENDPOINT` when one was started for the run; without it, the
//! first test of a test binary starts one on a free port, shared by that binary's tests and
//! stopped when it exits (its watchdog stops it when our end of its stdin closes).

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::process::{Child, Command};
use tokio::sync::OnceCell;

use crate::DevError;
use crate::local::free_port;

static SERVER: OnceCell<SqsServer> = OnceCell::const_new();

/// The SQS endpoint of this test run, starting moto's server if none was given.
pub async fn endpoint() -> String {
    if let Ok(ep) = std::env::var("SQS_ENDPOINT") {
        return ep;
    }
    SERVER
        .get_or_init(|| async {
            SqsServer::start()
                .await
                .unwrap_or_else(|e| panic!("cannot start the SQS server for tests: {e}"))
        })
        .await
        .endpoint
        .clone()
}

/// An SQS client for `endpoint`, with the static test credentials.
pub fn client(endpoint: &str) -> aws_sdk_sqs::Client {
    crate::loopback_client!(aws_sdk_sqs, endpoint)
}

/// An EventBridge client for `endpoint`, with the static test credentials.
pub fn eventbridge_client(endpoint: &str) -> aws_sdk_eventbridge::Client {
    crate::loopback_client!(aws_sdk_eventbridge, endpoint)
}

/// A new secret on the server at `endpoint` holding `value`, under a name no other test has
/// used: its ARN.
pub async fn new_secret(endpoint: &str, value: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    let secrets = crate::loopback_client!(aws_sdk_secretsmanager, endpoint);
    secrets
        .create_secret()
        .name(format!("test-{}-{nanos}", std::process::id()))
        .secret_string(value)
        .send()
        .await
        .unwrap_or_else(|e| panic!("CreateSecret: {e:?}"))
        .arn
        .unwrap_or_else(|| panic!("CreateSecret returned no ARN"))
}

/// A new queue named `queue` that a rule of the bus `bus` (which exists) sends the events of
/// `source: "leaderboard"` and `detail-type` `detail_type` to, as the README's example rule
/// does: its URL.
pub async fn queue_for_events(endpoint: &str, bus: &str, detail_type: &str, queue: &str) -> String {
    use aws_sdk_sqs::types::QueueAttributeName;
    let (events, queues) = (eventbridge_client(endpoint), client(endpoint));
    let url = queues
        .create_queue()
        .queue_name(queue)
        .send()
        .await
        .unwrap_or_else(|e| panic!("CreateQueue {queue}: {e}"))
        .queue_url
        .unwrap_or_default();
    let arn = queues
        .get_queue_attributes()
        .queue_url(&url)
        .attribute_names(QueueAttributeName::QueueArn)
        .send()
        .await
        .ok()
        .and_then(|out| out.attributes?.remove(&QueueAttributeName::QueueArn))
        .unwrap_or_else(|| panic!("no ARN for {queue}"));
    let pattern = format!(r#"{{"source": ["leaderboard"], "detail-type": ["{detail_type}"]}}"#);
    let rule = format!("{queue}-rule");
    events
        .put_rule()
        .name(&rule)
        .event_bus_name(bus)
        .event_pattern(pattern)
        .send()
        .await
        .unwrap_or_else(|e| panic!("PutRule on {bus}: {e}"));
    let target = aws_sdk_eventbridge::types::Target::builder()
        .id(queue)
        .arn(arn)
        .build()
        .unwrap_or_else(|e| panic!("target: {e}"));
    events
        .put_targets()
        .rule(&rule)
        .event_bus_name(bus)
        .targets(target)
        .send()
        .await
        .unwrap_or_else(|e| panic!("PutTargets on {bus}: {e}"));
    url
}

/// Every message waiting on the queue at `url`, as JSON bodies, each deleted once read (moto
/// delivers a rule's events to its target at once).
pub async fn drain(url: &str) -> Vec<serde_json::Value> {
    let queues = client(&endpoint().await);
    let mut bodies = Vec::new();
    loop {
        let out = queues
            .receive_message()
            .queue_url(url)
            .max_number_of_messages(10)
            .send()
            .await
            .unwrap_or_else(|e| panic!("ReceiveMessage: {e}"));
        let messages = out.messages.unwrap_or_default();
        if messages.is_empty() {
            return bodies;
        }
        for m in messages {
            let body = m.body().unwrap_or_default();
            bodies.push(serde_json::from_str(body).unwrap_or_else(|e| panic!("{body}: {e}")));
            queues
                .delete_message()
                .queue_url(url)
                .receipt_handle(m.receipt_handle().unwrap_or_default())
                .send()
                .await
                .unwrap_or_else(|e| panic!("DeleteMessage: {e}"));
        }
    }
}

/// A running moto server.
pub struct SqsServer {
    endpoint: String,
    _child: Child,
}

impl SqsServer {
    /// Starts moto's server on 127.0.0.1 on a free port and waits until it answers SQS.
    pub async fn start() -> Result<SqsServer, DevError> {
        let moto = moto_server()?;
        let port = free_port()?;
        let script = r#"
            "$0" -H 127.0.0.1 -p "$1" </dev/null >/dev/null 2>&1 &
            server=$!
            trap 'kill $server 2>/dev/null; exit 0' TERM INT HUP
            while read -r _; do :; done
            kill $server 2>/dev/null
            wait $server 2>/dev/null
        "#;
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(&moto)
            .arg(port.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| DevError::Local(format!("sh: {e}")))?;
        let endpoint = format!("http://127.0.0.1:{port}");
        let sqs = client(&endpoint);
        let start = Instant::now();
        while sqs.list_queues().send().await.is_err() {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(DevError::Local(format!("moto_server exited with {status}")));
            }
            if start.elapsed() > Duration::from_secs(60) {
                return Err(DevError::Local(format!(
                    "moto did not answer on {endpoint}"
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok(SqsServer {
            endpoint,
            _child: child,
        })
    }
}

/// moto's server: `MOTO_SERVER`, or the one the test command installed into `.venv-tools/`.
fn moto_server() -> Result<PathBuf, DevError> {
    if let Ok(path) = std::env::var("MOTO_SERVER") {
        return Ok(PathBuf::from(path));
    }
    let path = crate::repo_root().join(".venv-tools/bin/moto_server");
    if path.exists() {
        return Ok(path);
    }
    Err(DevError::Local(format!(
        "no {}: `bash scripts/test` installs the pinned moto[server] there (scripts/template-tools.txt)",
        path.display()
    )))
}
