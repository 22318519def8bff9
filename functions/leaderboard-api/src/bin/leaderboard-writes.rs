//! The leaderboard-writes Lambda (`LeaderboardWritesFunction`): setup only. It serves the
//! routes that need a token, [`leaderboard_api::handle_writes`]; none of them hands out a
//! cursor, so it starts without `CURSOR_SECRET`.

use lambda_http::{Error, run, service_fn};
use leaderboard_api::App;
use leaderboard_store::Store;

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_http::tracing::init_default_subscriber();
    let app = App::new(Store::from_env_without_cursors().await?);
    run(service_fn(|req| leaderboard_api::handle_writes(&app, req))).await
}
