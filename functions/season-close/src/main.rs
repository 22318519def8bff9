//! The season-close Lambda: setup only. The handler is [`season_close::handle`].

use lambda_runtime::{Error, run, service_fn};
use leaderboard_store::Store;
use season_close::App;

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_runtime::tracing::init_default_subscriber();
    let app = App::from_env(Store::from_env_without_cursors().await?)?;
    run(service_fn(|event| season_close::handle(&app, event))).await
}
