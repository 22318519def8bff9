//! The leaderboard-writes Lambda (`LeaderboardWritesFunction`): setup only. It serves the
//! routes that need a token, [`leaderboard_api::handle_writes`], and the guest sign-up; the
//! audit trail hands out cursors, so it is given the cursor key, as the reads function is; its
//! profile writes, bans and erasures check or write erasure markers, and guest sign-ups key
//! their networks, so it is given the erasure key too. With the stack's own user pool
//! (`USER_POOL_ID`, `USER_POOL_CLIENT_ID`) it makes guest accounts there.

use std::sync::Arc;

use lambda_http::{Error, run, service_fn};
use leaderboard_api::App;
use leaderboard_api::cognito::CognitoGuests;
use leaderboard_store::{Secret, Store};

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_http::tracing::init_default_subscriber();
    let sdk = Store::sdk_config_from_env().await?;
    let mut app = App::new(Store::from_sdk(&sdk, &[Secret::Cursor, Secret::Erasure]).await?);
    if let Some(guests) = CognitoGuests::from_env(&sdk)? {
        app = app.with_guests(Arc::new(guests));
    }
    run(service_fn(|req| leaderboard_api::handle_writes(&app, req))).await
}
