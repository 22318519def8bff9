//! The leaderboard-writes Lambda (`LeaderboardWritesFunction`): setup only. It serves the
//! routes that need a token, [`leaderboard_api::handle_writes`]; the audit trail hands out
//! cursors, so it is given the cursor key, as the reads function is; its profile writes, bans
//! and erasures check or write erasure markers, so it is given the erasure key too.

use lambda_http::{Error, run, service_fn};
use leaderboard_api::App;
use leaderboard_store::{Secret, Store};

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_http::tracing::init_default_subscriber();
    let app = App::new(Store::from_env(&[Secret::Cursor, Secret::Erasure]).await?);
    run(service_fn(|req| leaderboard_api::handle_writes(&app, req))).await
}
