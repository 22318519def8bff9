//! The leaderboard-api Lambda: setup only. The handler is [`leaderboard_api::handle`].

use lambda_http::{Error, run, service_fn};
use leaderboard_api::App;
use leaderboard_store::Store;

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_http::tracing::init_default_subscriber();
    let app = App::new(Store::from_env().await?);
    run(service_fn(|req| leaderboard_api::handle(&app, req))).await
}
