//! The stream-projector Lambda: setup only. The handler is [`stream_projector::handle`].

use lambda_runtime::{Error, run, service_fn};
use leaderboard_store::Store;

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_runtime::tracing::init_default_subscriber();
    let store = Store::from_env_without_cursors().await?;
    run(service_fn(|event| stream_projector::handle(&store, event))).await
}
