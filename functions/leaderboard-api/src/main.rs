//! The leaderboard-api Lambda (`LeaderboardApiFunction`): setup only. It serves the anonymous
//! read routes, [`leaderboard_api::handle_reads`], and signs the cursors of their listings, so
//! it is given the cursor key; it reads no erasure marker and is not given the erasure key.

use lambda_http::{Error, run, service_fn};
use leaderboard_api::App;
use leaderboard_store::{Secret, Store};

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_http::tracing::init_default_subscriber();
    let app = App::new(Store::from_env(&[Secret::Cursor]).await?);
    run(service_fn(|req| leaderboard_api::handle_reads(&app, req))).await
}
