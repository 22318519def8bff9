//! Guest sign-up on the local stack (`POST /players/guest`): made in a Cognito user pool the
//! stack is pointed at (an emulator's, such as moto's), as the deployed writes function makes
//! them in the stack's own pool. Without these settings the route answers 404, as a deployment
//! with another identity provider does.

use std::sync::Arc;

use leaderboard_api::cognito::{CognitoGuests, DEFAULT_GUESTS_PER_HOUR};
use leaderboard_api::guests::GuestAccounts;

use crate::Error;

/// Where guests are made.
#[derive(Debug, Clone)]
pub struct GuestSettings {
    /// Cognito's address (`LOCAL_COGNITO_ENDPOINT`, `http://` on this machine).
    pub endpoint: String,
    /// The pool (`LOCAL_USER_POOL_ID`).
    pub pool: String,
    /// Its app client, which must allow `ADMIN_USER_PASSWORD_AUTH` (`LOCAL_USER_POOL_CLIENT_ID`).
    pub app_client: String,
    /// Guest accounts a network may make in an hour (`LOCAL_GUESTS_PER_HOUR`, as the
    /// template's `GuestsPerHour`).
    pub per_hour: u32,
}

impl GuestSettings {
    /// From the environment through `lookup`: `None` without `LOCAL_COGNITO_ENDPOINT`.
    pub fn from_lookup(
        lookup: &impl Fn(&str) -> Option<String>,
    ) -> Result<Option<GuestSettings>, Error> {
        let Some(endpoint) = lookup("LOCAL_COGNITO_ENDPOINT") else {
            return Ok(None);
        };
        let need = |name: &str| {
            lookup(name).ok_or_else(|| {
                Error::Config(format!("{name} is required with LOCAL_COGNITO_ENDPOINT"))
            })
        };
        let per_hour = match lookup("LOCAL_GUESTS_PER_HOUR") {
            None => DEFAULT_GUESTS_PER_HOUR,
            Some(v) => v.parse().map_err(|_| {
                Error::Config(format!(
                    "LOCAL_GUESTS_PER_HOUR must be a whole number, not {v:?}"
                ))
            })?,
        };
        Ok(Some(GuestSettings {
            pool: need("LOCAL_USER_POOL_ID")?,
            app_client: need("LOCAL_USER_POOL_CLIENT_ID")?,
            endpoint,
            per_hour,
        }))
    }

    /// What makes the guests.
    pub fn accounts(&self) -> Arc<dyn GuestAccounts> {
        let sdk = leaderboard_devkit::local::sdk_config(&self.endpoint);
        Arc::new(CognitoGuests::new(
            &sdk,
            &self.pool,
            &self.app_client,
            self.per_hour,
        ))
    }
}
