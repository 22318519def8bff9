//! The handle every feature hangs its methods on: the [`Table`] (the SDK client, the table's
//! name, the cursor codec), the generation cache the rank reads keep, and the deployment's
//! settings of the features (the plays' rate limit). Built once per process.

use aws_sdk_dynamodb::Client;

use crate::ground::config::Config;
use crate::ground::error::StoreError;
use crate::ground::tls;
use crate::primitives::rank_lookup::GenerationCache;
use crate::table::Table;

/// The repository over one table. Cheap to clone: clones share the SDK client.
#[derive(Clone)]
pub struct Store {
    pub(crate) table: Table,
    pub(crate) generations: GenerationCache,
    /// The most plays a player may have accepted in any 60 s; 0: no limit.
    pub(crate) plays_per_minute: u32,
}

impl Store {
    /// A store over `config.table_name` with an SDK client the caller built.
    pub fn new(client: Client, config: &Config) -> Store {
        Store {
            table: Table::new(client, config.table_name.clone(), &config.cursor_secret),
            generations: GenerationCache::default(),
            plays_per_minute: 0,
        }
    }

    /// The same store, accepting at most `limit` plays of a player in any 60 s (0: no limit;
    /// the default). See [`crate::features::plays::rate`].
    pub fn with_plays_per_minute(self, limit: u32) -> Store {
        Store {
            plays_per_minute: limit,
            ..self
        }
    }

    /// A store configured from the environment: `TABLE_NAME`, `CURSOR_SECRET`,
    /// `LEADERBOARD_TLS_ROOTS` (see [`tls`]), and the SDK's own region, credentials and endpoint
    /// variables.
    pub async fn from_env() -> Result<Store, StoreError> {
        Self::with_sdk_from_env(Config::from_env()?).await
    }

    /// The same for a function that never hands a cursor out: no `CURSOR_SECRET` (see
    /// [`Config::from_env_without_cursors`]).
    pub async fn from_env_without_cursors() -> Result<Store, StoreError> {
        Self::with_sdk_from_env(Config::from_env_without_cursors()?).await
    }

    async fn with_sdk_from_env(config: Config) -> Result<Store, StoreError> {
        let sdk = aws_config::defaults(aws_config::BehaviorVersion::latest())
            .http_client(tls::http_client(tls::TlsRoots::from_env()?)?)
            .load()
            .await;
        Ok(Store::new(Client::new(&sdk), &config))
    }

    /// The SDK client.
    pub fn client(&self) -> &Client {
        self.table.client()
    }

    /// The table name.
    pub fn table_name(&self) -> &str {
        self.table.name()
    }
}
