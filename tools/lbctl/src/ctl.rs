//! A command's context ([`Ctl`]): the connection, the SDK's settings and the store, made once
//! when a command first needs them (or given, in tests).

use leaderboard_store::{KeyCheck, Secret, Store, secrets};
use tokio::sync::OnceCell;

use crate::connect::Connection;
use crate::error::{CtlError, CtlResult};

/// A command's context: where the table is, the store once a command needs it, and the output
/// form.
pub struct Ctl {
    connection: Connection,
    sdk: OnceCell<aws_config::SdkConfig>,
    /// The SDK's settings for the services that are not DynamoDB (Cognito).
    sdk_other: OnceCell<aws_config::SdkConfig>,
    store: OnceCell<Store>,
    pub(crate) json: bool,
    /// The store was given (tests): moderation uses it as it is.
    given: bool,
}

impl Ctl {
    /// A context that connects when a command first needs the table.
    pub fn new(connection: Connection, json: bool) -> Ctl {
        Ctl {
            connection,
            sdk: OnceCell::new(),
            sdk_other: OnceCell::new(),
            store: OnceCell::new(),
            json,
            given: false,
        }
    }

    /// A context over a store made already (tests).
    pub fn with_store(store: Store, json: bool) -> Ctl {
        let connection = Connection {
            table: Some(store.table_name().to_owned()),
            ..Connection::default()
        };
        Ctl {
            connection,
            sdk: OnceCell::new(),
            sdk_other: OnceCell::new(),
            store: OnceCell::new_with(Some(store)),
            json,
            given: true,
        }
    }

    /// The same, reaching the other AWS services (the stream, the dead-letter queue, Cognito)
    /// with `sdk` (tests: DynamoDB Local's and the SQS server's endpoints).
    pub fn with_sdk(self, sdk: aws_config::SdkConfig) -> Ctl {
        Ctl {
            sdk_other: OnceCell::new_with(Some(sdk.clone())),
            sdk: OnceCell::new_with(Some(sdk)),
            ..self
        }
    }

    /// The SDK's settings for a service other than DynamoDB: the given ones (tests), else
    /// without DynamoDB's endpoint.
    pub(crate) async fn sdk_elsewhere(&self) -> CtlResult<&aws_config::SdkConfig> {
        self.sdk_other
            .get_or_try_init(|| self.connection.sdk_config_elsewhere())
            .await
    }

    pub(crate) async fn sdk(&self) -> CtlResult<&aws_config::SdkConfig> {
        self.sdk
            .get_or_try_init(|| self.connection.sdk_config())
            .await
    }

    pub(crate) async fn store(&self) -> CtlResult<&Store> {
        self.store
            .get_or_try_init(|| async { self.connection.store(self.sdk().await?) })
            .await
    }

    /// The store for moderation: keyed with the stack's `ERASURE_SECRET` (or the one
    /// `ERASURE_SECRET_ARN` names in Secrets Manager), which names the
    /// erasure markers its writes check, once the table's key check agrees (a given store as
    /// it is).
    pub(crate) async fn moderation_store(&self) -> CtlResult<Store> {
        let store = self.store().await?.clone();
        if self.given {
            return Ok(store);
        }
        // The value, or the ARN to read it from with one GetSecretValue (as the functions do).
        let sdk = self.connection.sdk_config_elsewhere().await?;
        let env = |k: &str| std::env::var(k).ok();
        let given = secrets::load(&sdk, &[Secret::Erasure], env)
            .await
            .map_err(|e| CtlError::Usage(e.to_string()))?;
        let secret =
            leaderboard_store::config::erasure_secret(|k| given.get(k).cloned()).map_err(|e| {
                CtlError::Usage(format!(
                    "{e}; set it, or ERASURE_SECRET_ARN, to the stack's own"
                ))
            })?;
        let store = store.with_erasure_secret(&secret);
        // Before any write: a marker written or missed under another secret than the
        // functions' would let an erased player play on, or bring their items back.
        match store.moderation().erasure_key_check().await? {
            KeyCheck::Matches => Ok(store),
            KeyCheck::Differs => Err(CtlError::Usage(
                "ERASURE_SECRET is not this stack's: the table's key check (STACK / \
                 #ERASURE_KEY_CHECK) was made with another secret; read the deployed one \
                 (docs/lbctl.md, 'The erasure secret')"
                    .into(),
            )),
            KeyCheck::Absent => Err(CtlError::Usage(
                "the table holds no check of the erasure secret yet: season close writes it on \
                 its first run after a deploy; run lbctl again once it has run"
                    .into(),
            )),
        }
    }

    pub(crate) fn table_name(&self) -> CtlResult<&str> {
        self.connection.table_name()
    }
}
