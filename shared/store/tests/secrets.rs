//! The secrets' loader against a real Secrets Manager protocol server on loopback (moto's
//! server mode): a secret given by ARN is read with GetSecretValue, one given by value is
//! taken as it is, one not wanted is never read, and a secret the stack cannot read stops the
//! start with an error that names its variable.

use std::collections::BTreeMap;

use leaderboard_devkit::local::sdk_config;
use leaderboard_devkit::sqs::new_secret;
use leaderboard_store::secrets::{self, Secret};
use leaderboard_store::{Config, StoreError, config};

fn env(vars: &[(&'static str, String)]) -> impl Fn(&str) -> Option<String> + use<> {
    let vars: BTreeMap<&str, String> = vars.iter().cloned().collect();
    move |k| vars.get(k).cloned()
}

/// The ARN of a secret nobody created.
fn never_created() -> String {
    format!(
        "arn:aws:secretsmanager:us-east-1:123456789012:secret:none-{}",
        std::process::id()
    )
}

const CURSOR: &str = "a-cursor-secret-from-secrets-manager-0123456789";
const ERASURE: &str = "an-erasure-secret-from-secrets-manager-0123456789";

#[tokio::test]
async fn secrets_given_by_arn_are_read_from_secrets_manager() {
    let endpoint = leaderboard_devkit::sqs::endpoint().await;
    let cursor_arn = new_secret(&endpoint, CURSOR).await;
    let erasure_arn = new_secret(&endpoint, ERASURE).await;
    let lookup = env(&[
        ("TABLE_NAME", "leaderboard".into()),
        ("CURSOR_SECRET_ARN", cursor_arn),
        ("ERASURE_SECRET_ARN", erasure_arn),
    ]);
    let sdk = sdk_config(&endpoint);
    let both = secrets::load(&sdk, &[Secret::Cursor, Secret::Erasure], &lookup)
        .await
        .unwrap();
    assert_eq!(
        both,
        BTreeMap::from([
            ("CURSOR_SECRET", CURSOR.into()),
            ("ERASURE_SECRET", ERASURE.into())
        ])
    );
    // What was read is what the configuration checks and keeps.
    let read = |k: &str| both.get(k).cloned().or_else(|| lookup(k));
    assert_eq!(
        Config::from_lookup(read).unwrap().cursor_secret,
        CURSOR.as_bytes()
    );
    assert_eq!(config::erasure_secret(read).unwrap(), ERASURE.as_bytes());

    // A function given only the erasure key reads only it.
    let one = secrets::load(&sdk, &[Secret::Erasure], &lookup)
        .await
        .unwrap();
    assert_eq!(one, BTreeMap::from([("ERASURE_SECRET", ERASURE.into())]));
}

#[tokio::test]
async fn a_value_is_taken_as_given_and_a_secret_not_wanted_is_never_read() {
    let endpoint = leaderboard_devkit::sqs::endpoint().await;
    let sdk = sdk_config(&endpoint);
    let missing = never_created();
    let lookup = env(&[
        ("ERASURE_SECRET", ERASURE.into()),
        // Not wanted below: were it read, GetSecretValue would fail.
        ("CURSOR_SECRET_ARN", missing),
    ]);
    let got = secrets::load(&sdk, &[Secret::Erasure], &lookup)
        .await
        .unwrap();
    assert_eq!(got, BTreeMap::from([("ERASURE_SECRET", ERASURE.into())]));
    // Given neither way: left out, for the configuration to name.
    let none = secrets::load(&sdk, &[Secret::Erasure], env(&[]))
        .await
        .unwrap();
    assert!(none.is_empty());
    let e = config::erasure_secret(|k| none.get(k).cloned()).unwrap_err();
    assert!(e.to_string().contains("ERASURE_SECRET"), "{e}");
}

#[tokio::test]
async fn a_secret_the_function_cannot_read_stops_its_start_and_is_named() {
    let endpoint = leaderboard_devkit::sqs::endpoint().await;
    let sdk = sdk_config(&endpoint);
    let missing = never_created();
    let lookup = env(&[("ERASURE_SECRET_ARN", missing.clone())]);
    let e = secrets::load(&sdk, &[Secret::Erasure], &lookup)
        .await
        .unwrap_err();
    let StoreError::Config(m) = e else {
        panic!("{e:?}")
    };
    assert!(
        m.contains("ERASURE_SECRET_ARN") && m.contains(&missing),
        "{m}"
    );
    assert!(m.contains("ResourceNotFound"), "{m}");

    // The value and the ARN together: refused before any request.
    let cursor_arn = new_secret(&endpoint, CURSOR).await;
    let both = env(&[
        ("CURSOR_SECRET", CURSOR.into()),
        ("CURSOR_SECRET_ARN", cursor_arn),
    ]);
    let e = secrets::load(&sdk, &[Secret::Cursor], &both)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("both set"), "{e}");
}
