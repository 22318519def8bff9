//! The deployed binaries' start-up: leaderboard-api and leaderboard-writes, which both hand
//! cursors out (the writes function for the audit trail), refuse to start without a real
//! cursor key, and the writes function without a real erasure key, saying which setting is
//! missing, before they ask the Lambda runtime for any work. Each key is given as its value
//! (the local stack) or as the ARN of a Secrets Manager secret (the template).

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

fn refuses_without_a_cursor_key_and_names_it(binary: &str) {
    for secret in [None, Some(""), Some("short")] {
        let mut env = vec![("ERASURE_SECRET", ERASURE)];
        env.extend(secret.map(|s| ("CURSOR_SECRET", s)));
        let stderr = start_binary(binary, &env);
        assert!(stderr.contains("CURSOR_SECRET"), "{secret:?}: {stderr}");
    }
}

/// Configuration passed: the failure is the runtime API's address, which names no setting.
fn passed_configuration(stderr: &str) {
    for setting in ["CURSOR_SECRET", "ERASURE_SECRET", "TABLE_NAME"] {
        assert!(!stderr.contains(setting), "{setting}: {stderr}");
    }
}

#[test]
fn the_reads_function_needs_the_cursor_key_and_not_the_erasure_key() {
    let binary = env!("CARGO_BIN_EXE_leaderboard-api");
    refuses_without_a_cursor_key_and_names_it(binary);
    // It reads no erasure marker, so the template does not give it the key.
    passed_configuration(&start_binary(binary, &[("CURSOR_SECRET", CURSOR)]));
}

#[test]
fn the_writes_function_refuses_to_start_without_its_secrets_and_names_them() {
    let binary = env!("CARGO_BIN_EXE_leaderboard-writes");
    refuses_without_a_cursor_key_and_names_it(binary);
    for secret in [None, Some("short")] {
        let mut env = vec![("CURSOR_SECRET", CURSOR)];
        env.extend(secret.map(|s| ("ERASURE_SECRET", s)));
        let stderr = start_binary(binary, &env);
        assert!(stderr.contains("ERASURE_SECRET"), "{secret:?}: {stderr}");
    }
    passed_configuration(&start_binary(
        binary,
        &[("CURSOR_SECRET", CURSOR), ("ERASURE_SECRET", ERASURE)],
    ));
}

/// As deployed: the secrets' ARNs, read from Secrets Manager (moto's server on loopback).
#[tokio::test]
async fn the_writes_function_reads_its_secrets_by_arn_and_names_one_it_cannot_read() {
    let binary = env!("CARGO_BIN_EXE_leaderboard-writes");
    let endpoint = leaderboard_devkit::sqs::endpoint().await;
    let cursor = leaderboard_devkit::sqs::new_secret(&endpoint, CURSOR).await;
    let erasure = leaderboard_devkit::sqs::new_secret(&endpoint, ERASURE).await;
    let deployed = |erasure: &str| {
        start_binary(
            binary,
            &[
                ("AWS_ENDPOINT_URL_SECRETS_MANAGER", &endpoint),
                ("AWS_ACCESS_KEY_ID", "local"),
                ("AWS_SECRET_ACCESS_KEY", "local"),
                ("CURSOR_SECRET_ARN", &cursor),
                ("ERASURE_SECRET_ARN", erasure),
            ],
        )
    };
    passed_configuration(&deployed(&erasure));
    let stderr = deployed("arn:aws:secretsmanager:us-east-1:123456789012:secret:none");
    assert!(stderr.contains("ERASURE_SECRET_ARN"), "{stderr}");
    // A value and an ARN for one secret: refused, both named.
    let stderr = start_binary(
        binary,
        &[
            ("CURSOR_SECRET", CURSOR),
            ("CURSOR_SECRET_ARN", &cursor),
            ("ERASURE_SECRET", ERASURE),
        ],
    );
    assert!(stderr.contains("CURSOR_SECRET_ARN"), "{stderr}");
}
