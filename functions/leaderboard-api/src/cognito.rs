//! Guest accounts in the stack's Cognito user pool ([`CognitoGuests`]): what the writes
//! function makes them with when the template gives it the pool (`USER_POOL_ID`,
//! `USER_POOL_CLIENT_ID`). Three calls of Cognito's admin API a guest: `AdminCreateUser`
//! (no message sent), `AdminSetUserPassword` (permanent, so the account is confirmed) and
//! `AdminInitiateAuth` (`ADMIN_USER_PASSWORD_AUTH`, which the template's app client allows).

use aws_sdk_cognitoidentityprovider::Client;
use aws_sdk_cognitoidentityprovider::error::ProvideErrorMetadata;
use aws_sdk_cognitoidentityprovider::types::{AuthFlowType, MessageActionType};
use leaderboard_http::guests::{GuestAccount, GuestAccounts, GuestFailure, GuestFuture};

/// How many guest accounts a network may make in an hour unless `GUESTS_PER_HOUR` says.
pub const DEFAULT_GUESTS_PER_HOUR: u32 = 10;

/// The guest accounts a network may make in an hour, from the setting `name` (its `value`, if
/// set): [`DEFAULT_GUESTS_PER_HOUR`] unless set; 0 turns guest sign-up off.
pub fn guests_per_hour(name: &str, value: Option<String>) -> Result<u32, String> {
    match value {
        None => Ok(DEFAULT_GUESTS_PER_HOUR),
        Some(v) => v
            .parse()
            .map_err(|_| format!("{name} must be a whole number, not {v:?}")),
    }
}

/// The stack's pool, making guest accounts.
pub struct CognitoGuests {
    client: Client,
    pool: String,
    app_client: String,
    per_hour: u32,
}

impl CognitoGuests {
    /// Through Cognito as `sdk` reaches it, for the pool `pool` and its app client
    /// `app_client`.
    pub fn new(
        sdk: &aws_config::SdkConfig,
        pool: &str,
        app_client: &str,
        per_hour: u32,
    ) -> CognitoGuests {
        CognitoGuests {
            client: Client::new(sdk),
            pool: pool.to_owned(),
            app_client: app_client.to_owned(),
            per_hour,
        }
    }

    /// From the environment: `USER_POOL_ID` and `USER_POOL_CLIENT_ID` (none: guests are not
    /// made here), `GUESTS_PER_HOUR` (0: none are made).
    pub fn from_env(sdk: &aws_config::SdkConfig) -> Result<Option<CognitoGuests>, String> {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let per_hour = guests_per_hour("GUESTS_PER_HOUR", env("GUESTS_PER_HOUR"))?;
        Ok(match (env("USER_POOL_ID"), env("USER_POOL_CLIENT_ID")) {
            (Some(pool), Some(app_client)) if per_hour > 0 => {
                Some(CognitoGuests::new(sdk, &pool, &app_client, per_hour))
            }
            _ => None,
        })
    }

    async fn create(&self, username: &str, password: &str) -> Result<GuestAccount, GuestFailure> {
        let created = self
            .client
            .admin_create_user()
            .user_pool_id(&self.pool)
            .username(username)
            .message_action(MessageActionType::Suppress)
            .send()
            .await
            .map_err(|e| failure("AdminCreateUser", e))?;
        let sub = created
            .user()
            .and_then(|u| u.attributes().iter().find(|a| a.name() == "sub"))
            .and_then(|a| a.value())
            .map(str::to_owned);
        self.client
            .admin_set_user_password()
            .user_pool_id(&self.pool)
            .username(username)
            .password(password)
            .permanent(true)
            .send()
            .await
            .map_err(|e| failure("AdminSetUserPassword", e))?;
        let signed_in = self
            .client
            .admin_initiate_auth()
            .user_pool_id(&self.pool)
            .client_id(&self.app_client)
            .auth_flow(AuthFlowType::AdminUserPasswordAuth)
            .auth_parameters("USERNAME", username)
            .auth_parameters("PASSWORD", password)
            .send()
            .await
            .map_err(|e| failure("AdminInitiateAuth", e))?;
        let tokens = signed_in
            .authentication_result()
            .ok_or_else(|| GuestFailure::Failed("AdminInitiateAuth answered no tokens".into()))?;
        let token = |t: Option<&str>, what: &str| {
            t.map(str::to_owned).ok_or_else(|| {
                GuestFailure::Failed(format!("AdminInitiateAuth answered no {what}"))
            })
        };
        let id_token = token(tokens.id_token(), "ID token")?;
        Ok(GuestAccount {
            player_id: sub.unwrap_or_default(),
            username: username.to_owned(),
            password: password.to_owned(),
            access_token: token(tokens.access_token(), "access token")?,
            refresh_token: token(tokens.refresh_token(), "refresh token")?,
            id_token,
            expires_in: i64::from(tokens.expires_in()),
        })
    }
}

impl GuestAccounts for CognitoGuests {
    fn create_guest<'a>(&'a self, username: &'a str, password: &'a str) -> GuestFuture<'a> {
        Box::pin(self.create(username, password))
    }

    fn per_hour(&self) -> u32 {
        self.per_hour
    }
}

/// Cognito's refusal: its own throttling is worth a retry, anything else is not.
fn failure<E: ProvideErrorMetadata + std::fmt::Debug>(what: &str, e: E) -> GuestFailure {
    let code = e.code().unwrap_or("unknown").to_owned();
    let text = format!("{what}: {code}: {}", e.message().unwrap_or_default());
    match code.as_str() {
        "TooManyRequestsException" | "LimitExceededException" => GuestFailure::Busy(text),
        _ => GuestFailure::Failed(text),
    }
}
