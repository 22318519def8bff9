//! Cold starts: each function's release `bootstrap`, spawned with the environment Lambda gives
//! it, against [`RuntimeApi`] on 127.0.0.1 and a DynamoDB Local table (behind a counting
//! [`Proxy`]) seeded so the event does real work. Timed: spawn → first `GET .../next` (init) and
//! spawn → first response; the process is killed after its response.
//!
//! Each function starts once per way of giving it its secrets ([`Given`]): as values, or as
//! the ARNs the template gives it, read from Secrets Manager (moto's, on loopback) at init.
//!
//! Network during init: the proxy shows whether any DynamoDB request arrived before the first
//! `/next`. The EC2 metadata service is checked two ways, each with and without
//! `AWS_EC2_METADATA_DISABLED`: under `strace -f -e trace=connect` with the real metadata
//! address (every `connect` the process makes is listed), and with
//! `AWS_EC2_METADATA_SERVICE_ENDPOINT` pointed at a loopback listener that counts connections.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hyper::body::Bytes;
use leaderboard_devkit::template::TableDefinition;
use leaderboard_store::{Config, Store};

use crate::coldstart_secrets::{self, Given, SecretsManager};
use crate::proxy::Proxy;
use crate::runtime_api::{Outcome, RuntimeApi};
use crate::seed::{self, Function};
use crate::{fragment, ms, quantile};

/// The cold-start settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Timed cold starts per function.
    pub runs: usize,
    /// Network-check runs per function and variant.
    pub probe_runs: usize,
    /// Where the bootstraps are: `<dir>/<function>` (cargo's release folder) or
    /// `<dir>/<function>/bootstrap` (cargo lambda's).
    pub bin_dir: PathBuf,
    /// Where the bootstraps' logs go.
    pub log_dir: PathBuf,
    /// The ways the functions are given their secrets, each timed.
    pub secrets: Vec<Given>,
}

/// The bootstrap of `f` under `dir`.
pub fn bootstrap(dir: &Path, f: Function) -> Option<PathBuf> {
    [dir.join(f.name()).join("bootstrap"), dir.join(f.name())]
        .into_iter()
        .find(|p| p.is_file())
}

/// One timed cold start.
#[derive(Debug, Clone)]
struct Run {
    init: Duration,
    first: Duration,
    dynamo: Duration,
    /// Time in Secrets Manager (moto), all of it during init.
    secrets: Duration,
    requests: BTreeMap<String, u64>,
    before_next: u64,
}

struct Env {
    runtime: String,
    endpoint: String,
    table: String,
}

fn lambda_env(cmd: &mut Command, f: Function, env: &Env) {
    cmd.env_clear()
        .env("AWS_LAMBDA_RUNTIME_API", &env.runtime)
        .env("AWS_LAMBDA_FUNCTION_NAME", f.name())
        .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128")
        .env(
            "AWS_LAMBDA_LOG_GROUP_NAME",
            format!("/aws/lambda/{}", f.name()),
        )
        .env(
            "AWS_LAMBDA_LOG_STREAM_NAME",
            "2026/11/21/[$LATEST]0123456789abcdef",
        )
        .env("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_DEFAULT_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "ASIABENCHEXAMPLE")
        .env("AWS_SECRET_ACCESS_KEY", "bench-secret")
        .env("AWS_SESSION_TOKEN", "bench-session-token")
        .env("AWS_ENDPOINT_URL", &env.endpoint)
        .env("TABLE_NAME", &env.table)
        // The most the limit allows: the play still keeps its rate log, and one player's ~65
        // cold starts a minute stay under it.
        .env("PLAYS_PER_MINUTE", "1000")
        .env("LAMBDA_TASK_ROOT", "/var/task")
        .env("LAMBDA_RUNTIME_DIR", "/var/runtime")
        .env("_HANDLER", "bootstrap")
        .env("TZ", ":UTC")
        .env("LANG", "en_US.UTF-8")
        .env("PATH", "/usr/local/bin:/usr/bin/:/bin:/opt/bin");
}

fn log_file(dir: &Path, f: Function) -> Stdio {
    let _ = std::fs::create_dir_all(dir);
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(format!("coldstart-{}.log", f.name())))
        .map(Stdio::from)
        .unwrap_or_else(|_| Stdio::null())
}

/// Checks the first response of `f` says the work was done.
fn check_body(f: Function, body: &Bytes) -> Result<(), String> {
    let v: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| format!("response is not JSON: {e}"))?;
    let ok = match f {
        Function::SubmitScore | Function::LeaderboardApi | Function::LeaderboardWrites => {
            v["statusCode"] == 200
        }
        Function::StreamProjector => v["batchItemFailures"]
            .as_array()
            .is_some_and(|a| a.is_empty()),
        Function::SeasonClose => v["closed"].as_array().is_some_and(|a| a.len() == 1),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("unexpected response: {v}"))
    }
}

/// A loopback listener counting the connections it accepts (the redirected metadata service).
async fn counting_listener() -> std::io::Result<(String, Arc<AtomicU64>)> {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = l.local_addr()?;
    let n = Arc::new(AtomicU64::new(0));
    let c = Arc::clone(&n);
    tokio::spawn(async move {
        while let Ok((s, _)) = l.accept().await {
            c.fetch_add(1, Ordering::Relaxed);
            drop(s);
        }
    });
    Ok((format!("http://{addr}"), n))
}

struct Harness<'a> {
    opts: &'a Options,
    api: RuntimeApi,
    proxy: Proxy,
    store: Store,
    env: Env,
    seq: usize,
    sm: Option<SecretsManager>,
}

impl Harness<'_> {
    /// One cold start of `f`; `extra` adds to the environment, `wrap` runs it under another
    /// program (strace).
    async fn once(
        &mut self,
        f: Function,
        bin: &Path,
        extra: &[(&str, String)],
        wrap: Option<Vec<String>>,
    ) -> Result<Run, String> {
        self.seq += 1;
        seed::before_invocation(&self.store, f, self.seq).await;
        let id = format!("bench-{:08}", self.seq);
        self.api.arm(&id, Bytes::from(f.event()));
        self.proxy.stats().reset();
        if let Some(sm) = &self.sm {
            sm.proxy.stats().reset();
        }
        let mut cmd = match &wrap {
            Some(w) => {
                let mut c = Command::new(&w[0]);
                c.args(&w[1..]).arg(bin);
                c
            }
            None => Command::new(bin),
        };
        lambda_env(&mut cmd, f, &self.env);
        for (k, v) in extra {
            cmd.env(k, v);
        }
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        cmd.stdin(Stdio::null())
            .stdout(log_file(&self.opts.log_dir, f))
            .stderr(log_file(&self.opts.log_dir, f));
        let t0 = Instant::now();
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("spawn {}: {e}", bin.display()))?;
        let seen = self.api.wait_done(Duration::from_secs(20)).await;
        // Kill the whole process group we started (the bootstrap, or strace and its tracee).
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = child.kill();
        let _ = child.wait();
        let seen = seen.ok_or_else(|| format!("{}: no response within 20 s", f.name()))?;
        match seen.outcome {
            Some(Outcome::Response) => check_body(f, &seen.body)?,
            other => {
                return Err(format!(
                    "{}: {other:?}: {}",
                    f.name(),
                    String::from_utf8_lossy(&seen.body)
                ));
            }
        }
        let next_at = seen.next_at.ok_or("answered without asking for an event")?;
        let done_at = seen.done_at.ok_or("no response instant")?;
        let stats = self.proxy.stats();
        let before_next = match stats.first_request() {
            Some(first) if first < next_at => stats.total(),
            _ => 0,
        };
        let mut requests = stats.snapshot();
        let mut secrets = Duration::ZERO;
        if let Some(sm) = &self.sm {
            requests.extend(sm.proxy.stats().snapshot());
            secrets = sm.proxy.stats().upstream_time();
        }
        Ok(Run {
            init: next_at - t0,
            first: done_at - t0,
            dynamo: stats.upstream_time(),
            secrets,
            requests,
            before_next,
        })
    }
}

/// Every IPv4/IPv6 destination of `connect` calls in an strace log.
fn strace_destinations(log: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in log.lines().filter(|l| l.contains("connect(")) {
        let port = line
            .split("htons(")
            .nth(1)
            .and_then(|r| r.split(')').next())
            .unwrap_or("?");
        for marker in ["inet_addr(\"", "inet_pton(AF_INET6, \""] {
            if let Some(rest) = line.split(marker).nth(1)
                && let Some(addr) = rest.split('"').next()
            {
                out.insert(format!("{addr}:{port}"));
            }
        }
    }
    out
}

fn has_strace() -> bool {
    Command::new("strace")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// One untimed start of `f` (it warms the page cache, as Lambda's own cache of the code is
/// warm), then the timed ones, each given `secrets`.
async fn timed_runs(
    h: &mut Harness<'_>,
    f: Function,
    bin: &Path,
    secrets: &[(&str, String)],
) -> Result<Vec<Run>, String> {
    h.once(f, bin, secrets, None).await?;
    let mut runs = Vec::with_capacity(h.opts.runs);
    for _ in 0..h.opts.runs {
        runs.push(h.once(f, bin, secrets, None).await?);
    }
    Ok(runs)
}

/// The table row of `f`'s runs given their secrets the `given` way, and its target.
fn summary(f: Function, given: Given, runs: &[Run]) -> (String, (String, String, bool)) {
    let sorted = |key: fn(&Run) -> Duration| {
        let mut v: Vec<Duration> = runs.iter().map(key).collect();
        v.sort();
        v
    };
    let init = sorted(|r| r.init);
    let first = sorted(|r| r.first);
    let dynamo = sorted(|r| r.dynamo);
    let secrets = sorted(|r| r.secrets);
    let own = sorted(|r| r.first.saturating_sub(r.dynamo + r.secrets));
    let q = |v: &[Duration], p| quantile(v, p).map(ms).unwrap_or_default();
    let mut ops: BTreeMap<String, u64> = BTreeMap::new();
    for r in runs {
        for (op, n) in &r.requests {
            *ops.entry(op.clone()).or_default() += n;
        }
    }
    let ops: Vec<String> = ops
        .iter()
        .map(|(op, n)| format!("{op} {:.1}", *n as f64 / runs.len() as f64))
        .collect();
    let before: u64 = runs.iter().map(|r| r.before_next).sum();
    let row = format!(
        "| {} | {} | {} | {} / {} | {} / {} | {} | {} | {} / {} | {} | {} |\n",
        f.name(),
        given.label(),
        runs.len(),
        q(&init, 0.5),
        q(&init, 0.9),
        q(&first, 0.5),
        q(&first, 0.9),
        q(&dynamo, 0.5),
        q(&secrets, 0.5),
        q(&own, 0.5),
        q(&own, 0.9),
        ops.join(", "),
        before,
    );
    let median = quantile(&first, 0.5).unwrap_or_default();
    let target = (
        format!(
            "cold start to first response, median < 10 ms: {} ({})",
            f.name(),
            given.label()
        ),
        format!(
            "{} ms (init {} ms; without DynamoDB Local's and Secrets Manager's time {} ms)",
            ms(median),
            q(&init, 0.5),
            q(&own, 0.5)
        ),
        median < Duration::from_millis(10),
    );
    (row, target)
}

/// Runs the cold starts and returns the report fragment (and the target lines).
pub async fn run(opts: &Options) -> Result<String, String> {
    let endpoint = leaderboard_devkit::testing::endpoint().await;
    let client = leaderboard_devkit::local::client(&endpoint);
    let table = crate::unique_table("coldstart");
    TableDefinition::from_repo()
        .map_err(|e| e.to_string())?
        .create(&client, &table)
        .await
        .map_err(|e| e.to_string())?;
    let config = Config {
        table_name: table.clone(),
        cursor_secret: coldstart_secrets::CURSOR.as_bytes().to_vec(),
    };
    let store = Store::new(client, &config);
    seed::base(&store).await;
    let proxy = Proxy::in_front_of(&endpoint)
        .await
        .map_err(|e| e.to_string())?;
    let api = RuntimeApi::start().await.map_err(|e| e.to_string())?;
    let sm = match opts.secrets.contains(&Given::Arns) {
        true => Some(SecretsManager::start().await?),
        false => None,
    };
    let env = Env {
        runtime: api.host_port(),
        endpoint: proxy.endpoint(),
        table,
    };
    let mut h = Harness {
        opts,
        api,
        proxy,
        store,
        env,
        seq: 0,
        sm,
    };
    let strace = has_strace();
    let (imds_url, imds_hits) = counting_listener().await.map_err(|e| e.to_string())?;

    let mut md = String::new();
    let mut table_rows = String::new();
    let mut probe_rows = String::new();
    let mut targets = Vec::new();
    for f in Function::ALL {
        let bin = bootstrap(&opts.bin_dir, f).ok_or_else(|| {
            format!(
                "no bootstrap for {} under {} (build the release binaries first)",
                f.name(),
                opts.bin_dir.display()
            )
        })?;
        let _ = std::fs::remove_file(opts.log_dir.join(format!("coldstart-{}.log", f.name())));
        for &given in &opts.secrets {
            let secrets = coldstart_secrets::environment(f, given, h.sm.as_ref())?;
            let runs = timed_runs(&mut h, f, &bin, &secrets).await?;
            eprintln!(
                "coldstart: {} ({}) x{} done",
                f.name(),
                given.label(),
                runs.len()
            );
            let (row, target) = summary(f, given, &runs);
            table_rows.push_str(&row);
            targets.push(target);
        }

        // The network checks, without and with AWS_EC2_METADATA_DISABLED, given the secrets
        // as deployed where that is measured.
        let deployed = *opts.secrets.last().unwrap_or(&Given::Values);
        let secrets = coldstart_secrets::environment(f, deployed, h.sm.as_ref())?;
        for disabled in [false, true] {
            let mut extra: Vec<(&str, String)> = secrets.clone();
            if disabled {
                extra.push(("AWS_EC2_METADATA_DISABLED", "true".into()));
            }
            let label = if disabled { "set" } else { "unset" };
            let mut dests = BTreeSet::new();
            let mut strace_inits = Vec::new();
            if strace {
                for k in 0..opts.probe_runs {
                    let log = opts
                        .log_dir
                        .join(format!("strace-{}-{label}-{k}.txt", f.name()));
                    let wrap = vec![
                        "strace".to_owned(),
                        "-f".into(),
                        "-qq".into(),
                        "-e".into(),
                        "trace=connect".into(),
                        "-o".into(),
                        log.display().to_string(),
                    ];
                    let r = h.once(f, &bin, &extra, Some(wrap)).await?;
                    strace_inits.push(r.init);
                    dests.extend(strace_destinations(
                        &std::fs::read_to_string(&log).unwrap_or_default(),
                    ));
                }
            }
            imds_hits.store(0, Ordering::Relaxed);
            let mut redirected = extra.clone();
            redirected.push(("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds_url.clone()));
            let mut before = 0;
            for _ in 0..opts.probe_runs {
                before += h.once(f, &bin, &redirected, None).await?.before_next;
            }
            let hits = imds_hits.load(Ordering::Relaxed);
            let runtime = h.env.runtime.clone();
            let dynamo = h.proxy.addr().to_string();
            let secrets_manager = h.sm.as_ref().map(|sm| sm.proxy.addr().to_string());
            let named: Vec<String> = dests
                .iter()
                .map(|d| {
                    if *d == runtime {
                        format!("{d} (Runtime API)")
                    } else if *d == dynamo {
                        format!("{d} (DynamoDB, after /next)")
                    } else if Some(d) == secrets_manager.as_ref() {
                        format!("{d} (Secrets Manager)")
                    } else {
                        format!("**{d}**")
                    }
                })
                .collect();
            let metadata = dests.iter().any(|d| d.starts_with("169.254.169.254"));
            let _ = writeln!(
                probe_rows,
                "| {} | {label} | {} | {} | {} | {} |",
                f.name(),
                if strace {
                    if named.is_empty() {
                        "none".into()
                    } else {
                        named.join(", ")
                    }
                } else {
                    "strace not installed".into()
                },
                if strace {
                    if metadata { "**yes**" } else { "no" }
                } else {
                    "-"
                },
                hits,
                before,
            );
            if !disabled {
                targets.push((
                    format!(
                        "init touches no network (no DynamoDB request before /next, no metadata probe), AWS_EC2_METADATA_DISABLED unset: {}",
                        f.name()
                    ),
                    format!(
                        "{} DynamoDB requests before /next; metadata: {} connections to 169.254.169.254 (strace), {hits} to the redirected endpoint",
                        before,
                        if metadata { "some" } else { "no" },
                    ),
                    !metadata && hits == 0 && before == 0,
                ));
            }
        }
    }

    let _ = writeln!(md, "## Cold start\n");
    let _ = writeln!(
        md,
        "`leaderboard-bench coldstart`: each function's release `bootstrap` (`cargo build --release`, LTO, \
         stripped) spawned {} times (after one untimed start) with the environment Lambda gives it \
         (`AWS_LAMBDA_RUNTIME_API`, function name/version/memory, region, static `AWS_ACCESS_KEY_ID`/\
         `SECRET`/`SESSION_TOKEN`, `TABLE_NAME`, `AWS_ENDPOINT_URL`, and its secrets; nothing else, not \
         `AWS_EC2_METADATA_DISABLED`) against a minimal Runtime API on 127.0.0.1 started by the harness. \
         Secrets: \"values\" gives `CURSOR_SECRET` and `ERASURE_SECRET` themselves (the local stack's way, \
         and the template's before they moved to Secrets Manager); \"ARNs\" gives the `<NAME>_ARN` variables \
         template.yaml gives the function, and it reads each with one `GetSecretValue` from moto's Secrets \
         Manager on loopback (`AWS_ENDPOINT_URL_SECRETS_MANAGER`, behind a second counting proxy) before /next. \
         Init = spawn → first `GET /runtime/invocation/next`; first response = spawn → `POST \
         /runtime/invocation/{{id}}/response`; the process is killed after it. DynamoDB is DynamoDB Local \
         (table from template.yaml) behind a counting loopback proxy, which also times the requests: \
         \"own\" is the first response minus the time spent in DynamoDB Local and in Secrets Manager. \
         Median / p90 in ms.\n",
        opts.runs
    );
    let _ = writeln!(
        md,
        "| function | secrets | runs | init median / p90 | first response median / p90 | in DynamoDB Local, median | in Secrets Manager, median | own median / p90 | requests per invocation | DynamoDB requests before /next |\n\
         | --- | --- | ---: | --- | --- | ---: | ---: | --- | --- | ---: |"
    );
    md.push_str(&table_rows);
    let _ = writeln!(md, "\nEvents:\n");
    for f in Function::ALL {
        let _ = writeln!(md, "- {}: `{}`, {}.", f.name(), f.event_path(), f.work());
    }
    let _ = writeln!(
        md,
        "\n### Network during init\n\n{} runs per function and variant with `AWS_EC2_METADATA_DISABLED` unset \
         (as on Lambda) and set. \"connect() destinations\": every IPv4/IPv6 `connect` of the process under \
         `strace -f -e trace=connect`, with the SDK's real metadata address. \"redirected\": connections \
         to a loopback listener that `AWS_EC2_METADATA_SERVICE_ENDPOINT` points the SDK's metadata client \
         at. \"before /next\": DynamoDB requests seen by the proxy before the first `/next`.\n",
        opts.probe_runs
    );
    let _ = writeln!(
        md,
        "| function | AWS_EC2_METADATA_DISABLED | connect() destinations | 169.254.169.254 | redirected metadata connections | DynamoDB requests before /next |\n\
         | --- | --- | --- | --- | ---: | ---: |"
    );
    md.push_str(&probe_rows);
    for (t, m, met) in &targets {
        fragment::target(t, m, *met);
    }
    Ok(md)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_strace_connects() {
        let log = r#"123 connect(9, {sa_family=AF_INET, sin_port=htons(41000), sin_addr=inet_addr("127.0.0.1")}, 16) = -1 EINPROGRESS (Operation now in progress)
124 connect(3, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT
125 connect(10, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("169.254.169.254")}, 16) = -1 EINPROGRESS
126 connect(11, {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "fd00:ec2::254", &sin6_addr), sin6_scope_id=0}, 28) = -1"#;
        let d = strace_destinations(log);
        assert!(d.contains("127.0.0.1:41000"));
        assert!(d.contains("169.254.169.254:80"));
        assert!(d.contains("fd00:ec2::254:80"));
        assert_eq!(d.len(), 3);
    }
}
