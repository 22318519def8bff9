//! The `lbctl` binary as a script runs it: `--help` with examples and the exit codes, each
//! exit code for what it documents, the table reached through `TABLE_NAME` and
//! `AWS_ENDPOINT_URL` as the functions reach it.

use crate::common;

use std::process::{Command, Output};

use common::*;
use leaderboard_keys::rank::Order;

fn lbctl_bin(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lbctl"));
    cmd.args(args)
        .env_remove("TABLE_NAME")
        .env_remove("AWS_ENDPOINT_URL")
        .env_remove("AWS_PROFILE")
        .env_remove("ERASURE_SECRET")
        .env_remove("ERASURE_SECRET_ARN")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "local")
        .env("AWS_SECRET_ACCESS_KEY", "local")
        .env("AWS_EC2_METADATA_DISABLED", "true");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn help_shows_examples_and_exit_codes_and_a_key_needs_no_table() {
    let help = lbctl_bin(&["--help"], &[]);
    assert_eq!(help.status.code(), Some(0));
    let text = String::from_utf8_lossy(&help.stdout);
    for want in [
        "Examples",
        "Exit codes",
        "explain",
        "expr",
        "browse",
        "export",
        "stats",
        "boards",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    for command in ["explain", "expr", "browse", "export", "stats", "boards"] {
        let help = lbctl_bin(&[command, "--help"], &[]);
        assert_eq!(help.status.code(), Some(0), "{command}");
        assert!(
            String::from_utf8_lossy(&help.stdout).contains("Examples:"),
            "{command}"
        );
    }
    let ok = lbctl_bin(&["explain", "--json", "PLAYER#p_bob #METADATA"], &[]);
    assert_eq!(ok.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&ok.stdout).unwrap();
    assert_eq!(doc[0]["item"], "Player");
    let bad = lbctl_bin(&["explain", "FOO BAR"], &[]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).starts_with("lbctl: "));
    assert!(bad.stdout.is_empty());
    let usage = lbctl_bin(&["browse"], &[]);
    assert_eq!(usage.status.code(), Some(2), "clap's usage error");
    let no_table = lbctl_bin(&["browse", "season_1"], &[]);
    assert_eq!(no_table.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_table.stderr).contains("TABLE_NAME"));
}

#[tokio::test]
async fn the_table_is_reached_as_the_functions_reach_it() {
    let (table, store) = store("lbctl_cli").await;
    board_with(&store, "season_1", Order::Desc, 999, entries(30, 10)).await;
    let env = [
        ("TABLE_NAME", table.name.as_str()),
        ("AWS_ENDPOINT_URL", table.endpoint.as_str()),
    ];
    let top = lbctl_bin(&["browse", "season_1", "--limit", "3", "--json"], &env);
    assert_eq!(
        top.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&top.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&top.stdout).unwrap();
    assert_eq!(doc["entries"].as_array().unwrap().len(), 3);
    let missing = lbctl_bin(&["browse", "nowhere"], &env);
    assert_eq!(missing.status.code(), Some(3));
    // Moderation without the stack's erasure secret: refused, nothing written.
    let before = table.dump().await;
    let ban = lbctl_bin(&["ban", "p000001", "--reason", "x", "--by", "ops"], &env);
    assert_eq!(ban.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&ban.stderr).contains("ERASURE_SECRET"));
    assert_eq!(table.dump().await, before);
    // With a secret of the right length but no check in the table to compare it with (no
    // season close has run), or another secret than the stack's: refused, nothing written.
    let stacks = "the-stacks-own-erasure-secret-of-48-characters!!";
    let wrong = "some-other-secret-of-at-least-thirty-two-chars";
    let with = |secret: &'static str| {
        let mut env = env.to_vec();
        env.push(("ERASURE_SECRET", secret));
        env
    };
    let ban_as = |secret| {
        lbctl_bin(
            &["ban", "p000001", "--reason", "x", "--by", "ops"],
            &with(secret),
        )
    };
    let unchecked = ban_as(wrong);
    assert_eq!(unchecked.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unchecked.stderr).contains("season close"));
    assert_eq!(table.dump().await, before);
    let stack = store.clone().with_erasure_secret(stacks.as_bytes());
    stack.moderation().keep_erasure_key_check().await.unwrap();
    let checked = table.dump().await;
    let mismatch = ban_as(wrong);
    assert_eq!(mismatch.status.code(), Some(2));
    let said = String::from_utf8_lossy(&mismatch.stderr);
    assert!(said.contains("not this stack's"), "{said}");
    assert_eq!(table.dump().await, checked, "nothing written");
    // The stack's own: the ban is written.
    let ok = ban_as(stacks);
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(
        stack
            .moderation()
            .get_ban(&leaderboard_keys::ids::PlayerId::parse("p000001").unwrap())
            .await
            .unwrap()
            .is_some()
    );
    // The stack's own read by its ARN from Secrets Manager (moto on loopback), as the
    // functions read it: the unban is written.
    let secrets = leaderboard_devkit::sqs::endpoint().await;
    let arn = leaderboard_devkit::sqs::new_secret(&secrets, stacks).await;
    let mut by_arn = env.to_vec();
    by_arn.push(("ERASURE_SECRET_ARN", &arn));
    by_arn.push(("AWS_ENDPOINT_URL_SECRETS_MANAGER", &secrets));
    let unban = lbctl_bin(&["unban", "p000001", "--by", "ops"], &by_arn);
    assert_eq!(
        unban.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&unban.stderr)
    );
    assert!(
        stack
            .moderation()
            .get_ban(&leaderboard_keys::ids::PlayerId::parse("p000001").unwrap())
            .await
            .unwrap()
            .is_none()
    );
    // An endpoint nothing listens on (a port just given up): the table cannot be read.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let down_url = format!("http://127.0.0.1:{port}");
    let down = lbctl_bin(
        &["browse", "season_1"],
        &[("TABLE_NAME", "t"), ("AWS_ENDPOINT_URL", &down_url)],
    );
    assert_eq!(
        down.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&down.stderr)
    );
}
