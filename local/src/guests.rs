//! Guest sign-up on the local stack (`POST /players/guest`): made in a Cognito user pool the
//! stack is pointed at (an emulator's, such as moto's), as the deployed writes function makes
//! them in the stack's own pool. Without these settings the route answers 404, as a deployment
//! with another identity provider does.

use std::sync::Arc;

use leaderboard_api::cognito::{CognitoGuests, guests_per_hour};
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
    /// From the environment through `lookup`: `None` without `LOCAL_COGNITO_ENDPOINT`, or with
    /// `LOCAL_GUESTS_PER_HOUR` 0.
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
        let name = "LOCAL_GUESTS_PER_HOUR";
        let per_hour = guests_per_hour(name, lookup(name)).map_err(Error::Config)?;
        // 0 turns guest sign-up off, as the template's GuestsPerHour does.
        if per_hour == 0 {
            return Ok(None);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(vars: &[(&str, &str)]) -> Result<Option<GuestSettings>, Error> {
        GuestSettings::from_lookup(&|k: &str| {
            vars.iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn guests_need_a_pool_and_a_limit_above_zero() {
        assert!(settings(&[]).unwrap().is_none());
        let endpoint = ("LOCAL_COGNITO_ENDPOINT", "http://127.0.0.1:5000");
        let refused = settings(&[endpoint]).unwrap_err();
        assert!(
            refused.to_string().contains("LOCAL_USER_POOL_ID"),
            "{refused}"
        );
        let pool = [
            endpoint,
            ("LOCAL_USER_POOL_ID", "us-east-1_x"),
            ("LOCAL_USER_POOL_CLIENT_ID", "c"),
        ];
        assert_eq!(
            settings(&pool).unwrap().unwrap().per_hour,
            leaderboard_api::cognito::DEFAULT_GUESTS_PER_HOUR
        );
        let off = [pool.as_slice(), &[("LOCAL_GUESTS_PER_HOUR", "0")]].concat();
        assert!(settings(&off).unwrap().is_none());
        let bad = [pool.as_slice(), &[("LOCAL_GUESTS_PER_HOUR", "many")]].concat();
        assert!(settings(&bad).is_err());
    }
}
