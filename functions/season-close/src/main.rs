//! The season-close Lambda: setup only. The handler is [`season_close::handle`]. It finishes
//! erasures and keeps the erasure key's check, so it is given the erasure key.

use lambda_runtime::{Error, run, service_fn};
use leaderboard_events::Publisher;
use leaderboard_store::{Secret, Store};
use season_close::App;

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_runtime::tracing::init_default_subscriber();
    let sdk = Store::sdk_config_from_env().await?;
    let app = App::from_env(Store::from_sdk(&sdk, &[Secret::Erasure]).await?)?
        .with_publisher(Publisher::from_env(&sdk));
    run(service_fn(|event| season_close::handle(&app, event))).await
}
