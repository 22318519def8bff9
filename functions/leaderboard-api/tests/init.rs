//! The deployed binaries' start-up: leaderboard-api, which hands cursors out, refuses to start
//! without a real cursor key, and says which setting is missing, before it asks the Lambda
//! runtime for any work; leaderboard-writes, which hands none out, starts without one.

use std::process::Command;

fn start(cursor_secret: Option<&str>) -> std::process::Output {
    start_binary(env!("CARGO_BIN_EXE_leaderboard-api"), cursor_secret)
}

fn start_binary(binary: &str, cursor_secret: Option<&str>) -> std::process::Output {
    let mut cmd = Command::new(binary);
    cmd.env_clear()
        .env("TABLE_NAME", "leaderboard")
        .env("AWS_REGION", "us-east-1")
        // Not an address at all: a binary that got past its configuration fails at once
        // here instead, without a connection, with an error that does not name the cursor key.
        .env("AWS_LAMBDA_RUNTIME_API", "not an address");
    if let Some(secret) = cursor_secret {
        cmd.env("CURSOR_SECRET", secret);
    }
    cmd.output().expect("the binary runs")
}

#[test]
fn refuses_to_start_without_a_cursor_secret_and_names_it() {
    for secret in [None, Some(""), Some("short")] {
        let out = start(secret);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{secret:?}");
        assert!(stderr.contains("CURSOR_SECRET"), "{secret:?}: {stderr}");
    }
    // With one, configuration passes and the failure is the runtime API's address.
    let out = start(Some("a-cursor-secret-of-at-least-32-characters"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(!stderr.contains("CURSOR_SECRET"), "{stderr}");
}

#[test]
fn the_writes_function_starts_without_a_cursor_secret() {
    let out = start_binary(env!("CARGO_BIN_EXE_leaderboard-writes"), None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(!stderr.contains("CURSOR_SECRET"), "{stderr}");
    assert!(!stderr.contains("TABLE_NAME"), "{stderr}");
}
