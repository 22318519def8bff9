//! The stream-projector Lambda: setup only. The handler is [`stream_projector::handle`]. It
//! reads erasure markers (totals, NewLeader), so it is given the erasure key.

use lambda_runtime::{Error, run, service_fn};
use leaderboard_events::Publisher;
use leaderboard_store::{Secret, Store};
use stream_projector::Announcing;

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_runtime::tracing::init_default_subscriber();
    let sdk = Store::sdk_config_from_env().await?;
    let store = Announcing::new(
        Store::from_sdk(&sdk, &[Secret::Erasure]).await?,
        Publisher::from_env(&sdk),
    );
    run(service_fn(|event| stream_projector::handle(&store, event))).await
}
