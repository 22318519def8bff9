//! The deployed binary's start-up: it hands no cursor out, so it starts without
//! `CURSOR_SECRET` (the template does not give it one), but not without `ERASURE_SECRET`
//! (every play checks the erasure marker, keyed by it), which it names.

use std::process::Command;

fn start(erasure_secret: Option<&str>) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_submit-score"));
    cmd.env_clear()
        .env("TABLE_NAME", "leaderboard")
        .env("AWS_REGION", "us-east-1")
        // Not an address at all: a binary that got past its configuration fails at once here
        // instead, without a connection, with an error that names no setting.
        .env("AWS_LAMBDA_RUNTIME_API", "not an address");
    if let Some(secret) = erasure_secret {
        cmd.env("ERASURE_SECRET", secret);
    }
    let out = cmd.output().expect("the binary runs");
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn starts_without_a_cursor_secret_but_not_without_an_erasure_secret() {
    for missing in [None, Some("short")] {
        let stderr = start(missing);
        assert!(stderr.contains("ERASURE_SECRET"), "{missing:?}: {stderr}");
    }
    let stderr = start(Some("an-erasure-secret-of-at-least-32-characters"));
    for setting in ["CURSOR_SECRET", "ERASURE_SECRET", "TABLE_NAME"] {
        assert!(!stderr.contains(setting), "{setting}: {stderr}");
    }
}
