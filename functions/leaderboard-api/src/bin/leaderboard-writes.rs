//! The leaderboard-writes Lambda (`LeaderboardWritesFunction`): setup only. It serves the
//! routes that need a token, [`leaderboard_api::handle_writes`]; the audit trail hands out
//! cursors, so it starts with `CURSOR_SECRET`, as the reads function does.

use lambda_http::{Error, run, service_fn};
use leaderboard_api::App;
use leaderboard_store::Store;

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_http::tracing::init_default_subscriber();
    let app = App::new(Store::from_env().await?);
    run(service_fn(|req| leaderboard_api::handle_writes(&app, req))).await
}
