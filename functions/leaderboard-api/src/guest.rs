//! `POST /players/guest`: a guest account in one call, no email and no input from the player.
//!
//! The caller's network may make at most the deployment's `GUESTS_PER_HOUR` accounts a clock
//! hour (the store counts them, one conditional write; past it 429 with the wait, nothing
//! made). The account is a user of the stack's pool named
//! `guest-<32 random hex digits>@guests.invalid` (the pool's usernames are addresses, and
//! `.invalid` is a name no mail can reach) with a random password made here: the answer carries
//! both, for the game to keep, and the account's first tokens. Linking a real address later
//! (Cognito's `UpdateUserAttributes` with the access token) keeps the player's id, and so their
//! scores and history.

use lambda_http::http::StatusCode;
use lambda_http::request::RequestContext;
use lambda_http::{Body, Request, RequestExt, Response};
use leaderboard_http::guests::GuestFailure;
use leaderboard_http::{ApiError, App, json};
use rand::Rng;

/// The domain of guests' usernames.
pub const GUEST_DOMAIN: &str = "guests.invalid";

/// Makes a guest account for the caller, within its network's hourly limit.
pub(crate) async fn create_guest(app: &App, req: &Request) -> Result<Response<Body>, ApiError> {
    let guests = app.guests().ok_or_else(|| {
        ApiError::not_found("guest sign-up is not enabled here: it needs the stack's own user pool")
    })?;
    let source =
        source_ip(req).ok_or_else(|| ApiError::invalid("the request has no source address"))?;
    app.store()
        .guests()
        .count_guest_sign_up(source, guests.per_hour(), app.now())
        .await?;
    let username = format!("guest-{:032x}@{GUEST_DOMAIN}", rand::rng().random::<u128>());
    let password = new_password();
    match guests.create_guest(&username, &password).await {
        Ok(account) => {
            tracing::info!(player = %account.player_id, "guest account made");
            Ok(json(StatusCode::CREATED, &account))
        }
        Err(GuestFailure::Busy(why)) => {
            tracing::warn!(error = %why, "guest sign-up: the identity provider is busy");
            Err(ApiError::unavailable())
        }
        Err(GuestFailure::Failed(why)) => {
            tracing::error!(error = %why, "guest sign-up failed");
            Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "the guest account could not be made",
            ))
        }
    }
}

/// The caller's address, as API Gateway saw it.
fn source_ip(req: &Request) -> Option<std::net::IpAddr> {
    match req.request_context_ref()? {
        RequestContext::ApiGatewayV2(ctx) => ctx.http.source_ip.as_deref()?.parse().ok(),
        _ => None,
    }
}

/// 32 characters drawn from 62 (190 bits), with a lower-case letter, an upper-case letter, a
/// digit and a symbol first, as Cognito's default password policy asks.
fn new_password() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    let mut password = String::from("aA1-");
    password.extend((0..32).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char));
    password
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_differ_and_meet_the_default_policy() {
        let (a, b) = (new_password(), new_password());
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert!(a.chars().any(|c| c.is_ascii_lowercase()));
        assert!(a.chars().any(|c| c.is_ascii_uppercase()));
        assert!(a.chars().any(|c| c.is_ascii_digit()));
        assert!(a.chars().any(|c| !c.is_ascii_alphanumeric()));
    }
}
