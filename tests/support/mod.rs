//! What the end-to-end tests share: the run command's binary started as a child process on
//! free ports.
#![allow(dead_code)] // each test target uses its own part

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use leaderboard_local::client::ApiClient;

pub mod cognito;

/// Two ports that are free on 127.0.0.1 now, and different: both are held while the second is
/// picked (one picked and let go, then another, may be the same port twice).
pub fn two_free_ports() -> (u16, u16) {
    let a = TcpListener::bind("127.0.0.1:0").unwrap();
    let b = TcpListener::bind("127.0.0.1:0").unwrap();
    (
        a.local_addr().unwrap().port(),
        b.local_addr().unwrap().port(),
    )
}

pub fn port_is_free(port: u16) -> bool {
    TcpListener::bind(("127.0.0.1", port)).is_ok()
}

/// The stack as a child process. Killed (and so DynamoDB Local with it, by its watchdog) if a
/// test fails before it stops it.
pub struct LocalStack {
    child: Option<Child>,
    /// A client of its API.
    pub api: ApiClient,
    /// Its API's port.
    pub api_port: u16,
    /// DynamoDB Local's port.
    pub dynamodb_port: u16,
    /// The child's stdout lines after the ready line, read on a thread.
    _stdout: std::thread::JoinHandle<()>,
}

impl LocalStack {
    /// Starts it with `extra_env` and waits for its ready line.
    pub fn start(extra_env: &[(&str, &str)]) -> LocalStack {
        let (api_port, dynamodb_port) = two_free_ports();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_local-stack"));
        cmd.arg("--no-demo")
            .env("LOCAL_API_PORT", api_port.to_string())
            .env("DYNAMODB_PORT", dynamodb_port.to_string())
            .env_remove("TABLE_NAME")
            .env_remove("LOCAL_JWT_SECRET")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start leaderboard-local");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                println!("[local] {line}");
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) if line.starts_with("leaderboard local stack ready on ") => {
                    assert!(
                        line.contains(&format!("http://127.0.0.1:{api_port}")),
                        "{line}"
                    );
                    assert!(line.contains(&format!(":{dynamodb_port}")), "{line}");
                    break;
                }
                Ok(_) => {}
                Err(e) => {
                    let _ = child.kill();
                    panic!("no ready line from leaderboard-local: {e}");
                }
            }
        }
        LocalStack {
            child: Some(child),
            api: ApiClient::new(SocketAddr::from(([127, 0, 0, 1], api_port))),
            api_port,
            dynamodb_port,
            _stdout: reader,
        }
    }

    /// Sends SIGTERM and waits for the exit status.
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("running");
        let status = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("leaderboard-local did not stop within 60 s of SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for LocalStack {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The settings of a stack started in this process: free ports, season close hourly (so it
/// never runs during a test), and `extra` (`LOCAL_...` variables, as the binary reads them).
pub fn in_process_settings(extra: &[(&str, &str)]) -> leaderboard_local::stack::Settings {
    leaderboard_local::stack::Settings::from_lookup(|k| match k {
        "DYNAMODB_PORT" | "LOCAL_API_PORT" => Some("0".to_owned()),
        "LOCAL_CLOSE_EVERY_SECS" => Some("3600".to_owned()),
        _ => extra
            .iter()
            .find(|(name, _)| *name == k)
            .map(|(_, v)| (*v).to_owned()),
    })
    .expect("valid settings")
}

/// `openapi.yaml`, parsed.
pub fn openapi() -> serde_yaml::Value {
    let root = leaderboard_devkit::repo_root();
    serde_yaml::from_str(&std::fs::read_to_string(root.join("openapi.yaml")).unwrap()).unwrap()
}

/// The Chromium to drive: `CHROMIUM` if set, else `chromium` on the PATH (what the test
/// command installs).
pub fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|n| dir.join(n)))
        .find(|p| p.is_file())
}

/// The Chromium to drive ([`chromium`]), or, where there is none, `None` after saying that the
/// browser part of the test is skipped.
pub fn chromium_or_skip() -> Option<PathBuf> {
    let found = chromium();
    if found.is_none() {
        eprintln!(
            "SKIPPED the browser part of this test: no Chromium (the test command installs \
             Debian's `chromium`; set CHROMIUM to another one)"
        );
    }
    found
}

/// Runs `program` with `args` in `dir`, failing the test with its output when it fails.
pub fn run(dir: &Path, program: impl AsRef<Path>, args: &[&str], env: &[(&str, String)]) {
    let program = program.as_ref();
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", program.display()));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    println!("{stdout}");
    assert!(
        out.status.success(),
        "{} {args:?} failed:\n{stdout}\n{stderr}",
        program.display()
    );
}
