//! The submit-score Lambda: setup only. The handler is [`submit_score::handle`].

use lambda_http::{Error, run, service_fn};
use leaderboard_store::Store;
use submit_score::App;

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_http::tracing::init_default_subscriber();
    let limit = leaderboard_store::config::plays_per_minute(|k| std::env::var(k).ok())?;
    let store = Store::from_env_without_cursors().await?;
    let app = App::new(store.with_plays_per_minute(limit));
    run(service_fn(|req| submit_score::handle(&app, req))).await
}
