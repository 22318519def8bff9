//! The stream-projector Lambda: setup only. The handler is [`stream_projector::handle`].

use lambda_runtime::{Error, run, service_fn};
use leaderboard_events::Publisher;
use leaderboard_store::Store;
use stream_projector::Announcing;

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_runtime::tracing::init_default_subscriber();
    let sdk = Store::sdk_config_from_env().await?;
    let store = Announcing::new(
        Store::from_sdk_without_cursors(&sdk)?,
        Publisher::from_env(&sdk),
    );
    run(service_fn(|event| stream_projector::handle(&store, event))).await
}
