//! Guest accounts: what the guest sign-up route asks of the identity provider, as a trait, so
//! the HTTP functions' shared state carries one without depending on the provider's SDK (the
//! writes function gives it the stack's Cognito pool; tests and the local stack theirs).

use std::future::Future;
use std::pin::Pin;

use serde::Serialize;

/// A new guest's account and its first tokens, as `POST /players/guest` answers them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GuestAccount {
    /// The player's id (the account's `sub`).
    pub player_id: String,
    /// The account's username: with `password`, what the game keeps to sign in again.
    pub username: String,
    /// The account's password, made here, shown once.
    pub password: String,
    /// The ID token, for the API.
    pub id_token: String,
    /// The access token (linking an email address uses it).
    pub access_token: String,
    /// Renews the two tokens.
    pub refresh_token: String,
    /// Seconds the ID and access tokens last.
    pub expires_in: i64,
}

/// Why the provider made no account.
#[derive(Debug, Clone)]
pub enum GuestFailure {
    /// The provider refused for now (its own rate limit): retry later.
    Busy(String),
    /// Anything else: the provider's message.
    Failed(String),
}

/// The future [`GuestAccounts::create_guest`] answers.
pub type GuestFuture<'a> =
    Pin<Box<dyn Future<Output = Result<GuestAccount, GuestFailure>> + Send + 'a>>;

/// An identity provider that makes guest accounts: one with `username` and `password`,
/// confirmed, signed in, its tokens answered.
pub trait GuestAccounts: Send + Sync {
    /// Makes the account and signs it in.
    fn create_guest<'a>(&'a self, username: &'a str, password: &'a str) -> GuestFuture<'a>;
    /// How many guest accounts one network may make in a clock hour.
    fn per_hour(&self) -> u32;
}
