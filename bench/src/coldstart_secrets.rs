//! How the cold starts are given their secrets: as values in the environment (the local stack's
//! way, and how the template gave them before they moved to Secrets Manager) or as the ARNs the
//! template gives each function, read with `GetSecretValue` from moto's Secrets Manager on
//! loopback behind a counting [`Proxy`] (so the requests are counted and their time is known).

use std::collections::BTreeMap;

use leaderboard_devkit::policy::Policy;

use crate::proxy::Proxy;
use crate::seed::Function;

/// The cursor key every variant gives.
pub const CURSOR: &str = "bench-cursor-secret-of-32-characters";
/// The erasure key every variant gives.
pub const ERASURE: &str = "bench-erasure-secret-of-32-characters";

/// How a cold start is given its secrets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Given {
    /// `CURSOR_SECRET` and `ERASURE_SECRET` as values, to every function (what it does not
    /// use it never reads).
    Values,
    /// The template's `<NAME>_ARN` variables of the function, read from Secrets Manager.
    Arns,
}

impl Given {
    /// Parses `--secrets values,arns`.
    pub fn parse_list(s: &str) -> Result<Vec<Given>, String> {
        s.split(',')
            .map(|v| match v.trim() {
                "values" => Ok(Given::Values),
                "arns" => Ok(Given::Arns),
                other => Err(format!("--secrets: {other:?} is not values or arns")),
            })
            .collect()
    }

    /// The label of the variant in the tables.
    pub fn label(self) -> &'static str {
        match self {
            Given::Values => "values in the environment",
            Given::Arns => "ARNs, GetSecretValue at start",
        }
    }
}

/// The Secrets Manager the ARN variant reads from: moto's server behind a counting proxy, and
/// the ARNs of the two secrets there, by variable (`CURSOR_SECRET_ARN`).
pub struct SecretsManager {
    /// The proxy in front of moto.
    pub proxy: Proxy,
    arns: BTreeMap<&'static str, String>,
}

impl SecretsManager {
    /// Starts moto's server (or uses the run's), creates the two secrets, and puts a proxy in
    /// front of it.
    pub async fn start() -> Result<SecretsManager, String> {
        let moto = leaderboard_devkit::sqs::endpoint().await;
        let cursor = leaderboard_devkit::sqs::new_secret(&moto, CURSOR).await;
        let erasure = leaderboard_devkit::sqs::new_secret(&moto, ERASURE).await;
        let proxy = Proxy::in_front_of(&moto).await.map_err(|e| e.to_string())?;
        Ok(SecretsManager {
            proxy,
            arns: BTreeMap::from([
                ("CURSOR_SECRET_ARN", cursor),
                ("ERASURE_SECRET_ARN", erasure),
            ]),
        })
    }
}

/// The environment that gives `f` its secrets the `given` way: for ARNs, the variables
/// template.yaml gives the function, pointing at `sm`'s secrets.
pub fn environment(
    f: Function,
    given: Given,
    sm: Option<&SecretsManager>,
) -> Result<Vec<(&'static str, String)>, String> {
    match given {
        Given::Values => Ok(vec![
            ("CURSOR_SECRET", CURSOR.to_owned()),
            ("ERASURE_SECRET", ERASURE.to_owned()),
        ]),
        Given::Arns => {
            let sm = sm.ok_or("the ARN variant without a Secrets Manager")?;
            let policy = Policy::all()
                .map_err(|e| e.to_string())?
                .into_iter()
                .find(|p| p.binary == f.name())
                .ok_or_else(|| format!("template.yaml has no function built from {}", f.name()))?;
            let mut env = vec![("AWS_ENDPOINT_URL_SECRETS_MANAGER", sm.proxy.endpoint())];
            for (var, _) in &policy.secret_arns {
                let (var, arn) = sm.arns.get_key_value(var.as_str()).ok_or_else(|| {
                    format!(
                        "{}: an ARN variable the bench does not know: {var}",
                        f.name()
                    )
                })?;
                env.push((*var, arn.clone()));
            }
            Ok(env)
        }
    }
}
