//! The deployed binaries' start-up: leaderboard-api and leaderboard-writes, which both hand
//! cursors out (the writes function for the audit trail), refuse to start without a real
//! cursor key or a real erasure key, and say which setting is missing, before they ask the
//! Lambda runtime for any work.

use std::process::Command;

const CURSOR: &str = "a-cursor-secret-of-at-least-32-characters";
const ERASURE: &str = "an-erasure-secret-of-at-least-32-characters";

fn start_binary(binary: &str, env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(binary);
    cmd.env_clear()
        .env("TABLE_NAME", "leaderboard")
        .env("AWS_REGION", "us-east-1")
        // Not an address at all: a binary that got past its configuration fails at once
        // here instead, without a connection, with an error that names no setting.
        .env("AWS_LAMBDA_RUNTIME_API", "not an address");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("the binary runs");
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn refuses_what_is_missing_and_names_it(binary: &str) {
    for secret in [None, Some(""), Some("short")] {
        let mut env = vec![("ERASURE_SECRET", ERASURE)];
        env.extend(secret.map(|s| ("CURSOR_SECRET", s)));
        let stderr = start_binary(binary, &env);
        assert!(stderr.contains("CURSOR_SECRET"), "{secret:?}: {stderr}");
    }
    for secret in [None, Some("short")] {
        let mut env = vec![("CURSOR_SECRET", CURSOR)];
        env.extend(secret.map(|s| ("ERASURE_SECRET", s)));
        let stderr = start_binary(binary, &env);
        assert!(stderr.contains("ERASURE_SECRET"), "{secret:?}: {stderr}");
    }
    // With both, configuration passes and the failure is the runtime API's address.
    let stderr = start_binary(
        binary,
        &[("CURSOR_SECRET", CURSOR), ("ERASURE_SECRET", ERASURE)],
    );
    for setting in ["CURSOR_SECRET", "ERASURE_SECRET", "TABLE_NAME"] {
        assert!(!stderr.contains(setting), "{setting}: {stderr}");
    }
}

#[test]
fn the_reads_function_refuses_to_start_without_its_secrets_and_names_them() {
    refuses_what_is_missing_and_names_it(env!("CARGO_BIN_EXE_leaderboard-api"));
}

#[test]
fn the_writes_function_refuses_to_start_without_its_secrets_and_names_them() {
    refuses_what_is_missing_and_names_it(env!("CARGO_BIN_EXE_leaderboard-writes"));
}
