//! The functions' secrets at start-up: the cursor key and the erasure key.
//!
//! A function is given each secret it uses in one of two ways:
//!
//! - `<NAME>_ARN`, the ARN of a Secrets Manager secret (how `template.yaml` deploys them): the
//!   function reads it with one `GetSecretValue` before it asks for work, and its policy may
//!   read that one ARN. A value in a Lambda function's environment is part of its
//!   configuration, which anyone with `lambda:GetFunctionConfiguration` can read; an ARN
//!   tells them nothing.
//! - `<NAME>`, the value itself (the local stack and the tests, which have no Secrets Manager).
//!
//! Both at once is refused: a stack where the two differ would key its cursors or its
//! pseudonyms by whichever a reader guessed. A function is given only the secrets it uses
//! ([`Secret`]); the others it never reads.

use std::collections::BTreeMap;

use aws_config::SdkConfig;
use aws_sdk_secretsmanager::error::DisplayErrorContext;

use crate::ground::error::StoreError;

/// A secret a function may be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Secret {
    /// `CURSOR_SECRET`: signs the pagination cursors a function hands out.
    Cursor,
    /// `ERASURE_SECRET`: keys erased players' pseudonyms and their erasure markers.
    Erasure,
}

impl Secret {
    /// The variable that holds the value.
    pub fn var(self) -> &'static str {
        match self {
            Secret::Cursor => "CURSOR_SECRET",
            Secret::Erasure => "ERASURE_SECRET",
        }
    }

    /// The variable that holds the ARN of the Secrets Manager secret.
    pub fn arn_var(self) -> &'static str {
        match self {
            Secret::Cursor => "CURSOR_SECRET_ARN",
            Secret::Erasure => "ERASURE_SECRET_ARN",
        }
    }
}

/// Where a function finds one of its secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    /// Given as the value.
    Value(String),
    /// To be read from Secrets Manager.
    Arn(String),
    /// Not given: the configuration that needs it says so.
    Missing,
}

fn source(secret: Secret, lookup: &impl Fn(&str) -> Option<String>) -> Result<Source, StoreError> {
    let given = |var: &str| lookup(var).filter(|v| !v.is_empty());
    match (given(secret.var()), given(secret.arn_var())) {
        (Some(_), Some(_)) => Err(StoreError::Config(format!(
            "{} and {} are both set: give a function its secret one way only",
            secret.var(),
            secret.arn_var()
        ))),
        (Some(value), None) => Ok(Source::Value(value)),
        (None, Some(arn)) => Ok(Source::Arn(arn)),
        (None, None) => Ok(Source::Missing),
    }
}

/// The values of the `wanted` secrets found through `lookup` (the environment), by their
/// variables' names ([`Secret::var`]): a value as given, an ARN read from Secrets Manager
/// (one `GetSecretValue` each, all at once), a secret given neither way left out for the
/// configuration to name. Secrets not wanted are not looked at.
pub async fn load(
    sdk: &SdkConfig,
    wanted: &[Secret],
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<BTreeMap<&'static str, String>, StoreError> {
    let mut values = BTreeMap::new();
    let mut arns = Vec::new();
    for &secret in wanted {
        match source(secret, &lookup)? {
            Source::Value(v) => {
                values.insert(secret.var(), v);
            }
            Source::Arn(arn) => arns.push((secret, arn)),
            Source::Missing => {}
        }
    }
    if arns.is_empty() {
        // No client is built when nothing is read: the local stack's start pays nothing.
        return Ok(values);
    }
    let client = aws_sdk_secretsmanager::Client::new(sdk);
    let reads = arns.iter().map(|(secret, arn)| {
        let client = &client;
        async move { Ok::<_, StoreError>((secret.var(), read(client, *secret, arn).await?)) }
    });
    values.extend(futures::future::try_join_all(reads).await?);
    Ok(values)
}

async fn read(
    client: &aws_sdk_secretsmanager::Client,
    secret: Secret,
    arn: &str,
) -> Result<String, StoreError> {
    let out = client
        .get_secret_value()
        .secret_id(arn)
        .send()
        .await
        .map_err(|e| {
            StoreError::Config(format!(
                "{} {arn}: GetSecretValue failed: {}",
                secret.arn_var(),
                DisplayErrorContext(&e)
            ))
        })?;
    out.secret_string.ok_or_else(|| {
        StoreError::Config(format!(
            "{} {arn}: the secret holds no string (the template generates one)",
            secret.arn_var()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source_of(vars: &[(&str, &str)]) -> Result<Source, StoreError> {
        let vars: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        source(Secret::Erasure, &|k| vars.get(k).cloned())
    }

    #[test]
    fn a_secret_is_given_as_its_value_or_its_arn_never_both() {
        assert_eq!(
            source_of(&[("ERASURE_SECRET", "v")]).unwrap(),
            Source::Value("v".into())
        );
        assert_eq!(
            source_of(&[("ERASURE_SECRET_ARN", "arn:x")]).unwrap(),
            Source::Arn("arn:x".into())
        );
        assert_eq!(source_of(&[]).unwrap(), Source::Missing);
        // An empty variable is not given (CloudFormation writes "" for an unset parameter).
        assert_eq!(
            source_of(&[("ERASURE_SECRET", ""), ("ERASURE_SECRET_ARN", "arn:x")]).unwrap(),
            Source::Arn("arn:x".into())
        );
        let both = source_of(&[("ERASURE_SECRET", "v"), ("ERASURE_SECRET_ARN", "arn:x")]);
        assert!(
            matches!(both, Err(StoreError::Config(m)) if m.contains("ERASURE_SECRET_ARN")),
            "both"
        );
    }
}
