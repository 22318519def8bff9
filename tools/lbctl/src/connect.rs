//! Reaching the table as the functions do: `TABLE_NAME`, and the SDK's own region, profile,
//! credentials and endpoint (`AWS_ENDPOINT_URL` for DynamoDB Local), each also a flag.

use aws_config::SdkConfig;
use aws_sdk_dynamodb::Client;
use clap::Args;
use leaderboard_store::{Config, Store, tls};
use rand::Rng;
use rand::distr::Alphanumeric;

use crate::error::{CtlError, CtlResult};

/// Where the table is.
#[derive(Args, Debug, Clone, Default)]
pub struct Connection {
    /// The table, as the functions' TABLE_NAME.
    #[arg(long, env = "TABLE_NAME", global = true)]
    pub table: Option<String>,
    /// DynamoDB's endpoint: http://127.0.0.1:8000 for DynamoDB Local; AWS's by default.
    #[arg(long, env = "AWS_ENDPOINT_URL", global = true)]
    pub endpoint_url: Option<String>,
    /// The AWS region.
    #[arg(long, env = "AWS_REGION", global = true)]
    pub region: Option<String>,
    /// The AWS profile whose credentials to use.
    #[arg(long, env = "AWS_PROFILE", global = true)]
    pub profile: Option<String>,
}

impl Connection {
    /// The table's name, or a usage error naming the flag.
    pub fn table_name(&self) -> CtlResult<&str> {
        self.table
            .as_deref()
            .filter(|t| !t.is_empty())
            .ok_or_else(|| CtlError::Usage("no table: give --table or set TABLE_NAME".into()))
    }

    /// The SDK's configuration: the TLS client the functions use, and the region, profile
    /// and endpoint given.
    pub async fn sdk_config(&self) -> CtlResult<SdkConfig> {
        self.load(self.endpoint_url.as_deref()).await
    }

    /// The same without the endpoint, which is DynamoDB's: for another service (Secrets
    /// Manager), reached where the SDK's own settings say (`AWS_ENDPOINT_URL_<SERVICE>`).
    pub async fn sdk_config_elsewhere(&self) -> CtlResult<SdkConfig> {
        self.load(None).await
    }

    async fn load(&self, endpoint_url: Option<&str>) -> CtlResult<SdkConfig> {
        let roots = tls::TlsRoots::from_env()?;
        let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest())
            .http_client(tls::http_client(roots)?);
        if let Some(p) = &self.profile {
            loader = loader.profile_name(p);
        }
        if let Some(r) = &self.region {
            loader = loader.region(aws_config::Region::new(r.clone()));
        }
        if let Some(e) = endpoint_url {
            loader = loader.endpoint_url(e);
        }
        Ok(loader.load().await)
    }

    /// A store over the table, on `sdk`.
    pub fn store(&self, sdk: &SdkConfig) -> CtlResult<Store> {
        let table_name = self.table_name()?.to_owned();
        // Cursors never leave this process: a key made now signs them.
        let cursor_secret: Vec<u8> = rand::rng().sample_iter(Alphanumeric).take(48).collect();
        let config = Config {
            table_name,
            cursor_secret,
        };
        Ok(Store::new(Client::new(sdk), &config))
    }
}
