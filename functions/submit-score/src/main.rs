//! The submit-score Lambda: setup only. The handler is [`submit_score::handle`]. Every play
//! checks the player's erasure marker, so it is given the erasure key; it hands no cursor out.

use lambda_http::{Error, run, service_fn};
use leaderboard_store::{Secret, Store};
use submit_score::App;

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_http::tracing::init_default_subscriber();
    let env = |k: &str| std::env::var(k).ok();
    let limit = leaderboard_store::config::plays_per_minute(env)?;
    let caps_from = leaderboard_store::config::lane_caps_from(env)?;
    let store = Store::from_env(&[Secret::Erasure]).await?;
    let app = App::new(
        store
            .with_plays_per_minute(limit)
            .with_lane_caps_from(caps_from),
    );
    run(service_fn(|req| submit_score::handle(&app, req))).await
}
