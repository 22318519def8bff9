//! The submit-score Lambda: setup only. The handler is [`submit_score::handle`].

use lambda_http::{Error, run, service_fn};
use leaderboard_store::Store;
use submit_score::App;

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_http::tracing::init_default_subscriber();
    let app = App::new(Store::from_env_without_cursors().await?);
    run(service_fn(|req| submit_score::handle(&app, req))).await
}
