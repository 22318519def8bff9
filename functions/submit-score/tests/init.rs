//! The deployed binary's start-up: it hands no cursor out, so it starts without
//! `CURSOR_SECRET` (the template does not give it one).

use std::process::Command;

#[test]
fn starts_without_a_cursor_secret() {
    let out = Command::new(env!("CARGO_BIN_EXE_submit-score"))
        .env_clear()
        .env("TABLE_NAME", "leaderboard")
        .env("AWS_REGION", "us-east-1")
        // Not an address at all: a binary that got past its configuration fails at once here
        // instead, without a connection, with an error that does not name the cursor key.
        .env("AWS_LAMBDA_RUNTIME_API", "not an address")
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(!stderr.contains("CURSOR_SECRET"), "{stderr}");
    assert!(!stderr.contains("TABLE_NAME"), "{stderr}");
}
