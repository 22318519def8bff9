//! `lbctl admin create` and `lbctl token`: the first admin of a fresh deployment and an admin's
//! token, from a terminal with the operator's AWS credentials, through the user pool the stack
//! made (Cognito's admin API: `UserPoolId` and `UserPoolClientId` are the stack's outputs).
//!
//! An admin is a pool user in the `admin` group, whose tokens the API's admin routes take. Its
//! password is the operator's to choose (`--password-file`, `-` for standard input) or, without
//! one, Cognito's to email as a temporary password; `lbctl token` signs the user in with the
//! admin flow (`ADMIN_USER_PASSWORD_AUTH`, which the template's app client allows) and prints
//! the ID token, ready for `authorization: Bearer`.

use std::io::{Read, Write};
use std::path::PathBuf;

use aws_config::SdkConfig;
use aws_sdk_cognitoidentityprovider::Client;
use aws_sdk_cognitoidentityprovider::error::ProvideErrorMetadata;
use aws_sdk_cognitoidentityprovider::types::{AttributeType, AuthFlowType, MessageActionType};
use clap::{Args, ValueEnum};
use serde_json::json;

use crate::error::{CtlError, CtlResult};
use crate::render;

/// The group whose members the API's admin routes take.
pub const ADMIN_GROUP: &str = "admin";

/// Which user pool, and where Cognito is.
#[derive(Args, Debug, Clone)]
pub struct PoolArgs {
    /// The stack's user pool (its `UserPoolId` output).
    #[arg(long, env = "LBCTL_USER_POOL_ID")]
    pub user_pool_id: String,
    /// Cognito's endpoint, for an emulator (AWS's by default).
    #[arg(long, env = "LBCTL_COGNITO_ENDPOINT_URL")]
    pub cognito_endpoint_url: Option<String>,
}

impl PoolArgs {
    fn client(&self, sdk: &SdkConfig) -> Client {
        let mut config = aws_sdk_cognitoidentityprovider::config::Builder::from(sdk);
        if let Some(e) = &self.cognito_endpoint_url {
            config = config.endpoint_url(e);
        }
        Client::from_conf(config.build())
    }
}

/// `lbctl admin create`.
#[derive(Args, Debug, Clone)]
pub struct CreateAdminArgs {
    /// The admin's email address (the pool's usernames are addresses).
    pub email: String,
    #[command(flatten)]
    pub pool: PoolArgs,
    /// A file holding the password to set (`-`: standard input). Without it Cognito emails a
    /// temporary password, which the first sign-in replaces.
    #[arg(long)]
    pub password_file: Option<PathBuf>,
}

/// Which token `lbctl token` prints.
#[derive(ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TokenKind {
    /// The ID token (it carries the groups and the verified email).
    #[default]
    Id,
    /// The access token.
    Access,
}

/// `lbctl token`.
#[derive(Args, Debug, Clone)]
pub struct TokenArgs {
    /// The user (an email address).
    #[arg(long)]
    pub user: String,
    #[command(flatten)]
    pub pool: PoolArgs,
    /// The stack's app client (its `UserPoolClientId` output).
    #[arg(long, env = "LBCTL_CLIENT_ID")]
    pub client_id: String,
    /// A file holding the user's password (`-`: standard input).
    #[arg(long)]
    pub password_file: PathBuf,
    /// Which token to print.
    #[arg(long, value_enum, default_value_t)]
    pub kind: TokenKind,
}

fn read_password(path: &PathBuf) -> CtlResult<String> {
    let mut text = String::new();
    if path.as_os_str() == "-" {
        std::io::stdin().read_to_string(&mut text)?;
    } else {
        text = std::fs::read_to_string(path)
            .map_err(|e| CtlError::Usage(format!("--password-file {}: {e}", path.display())))?;
    }
    let password = text.trim_end_matches(['\r', '\n']).to_owned();
    if password.is_empty() {
        return Err(CtlError::Usage("the password file is empty".into()));
    }
    Ok(password)
}

/// Cognito's refusal, as the operator should read it: a wrong argument (exit 2) when Cognito
/// says the request was not valid, else a failure to reach it (exit 1).
fn refused<E: ProvideErrorMetadata + std::fmt::Debug>(what: &str, e: E) -> CtlError {
    let code = e.code().unwrap_or("unknown").to_owned();
    let message = e.message().unwrap_or_default().to_owned();
    let text = format!("{what}: {code}: {message}");
    match code.as_str() {
        "InvalidParameterException"
        | "InvalidPasswordException"
        | "NotAuthorizedException"
        | "ResourceNotFoundException"
        | "UserNotFoundException" => CtlError::Usage(text),
        _ => CtlError::Failed(text),
    }
}

/// Creates the admin (or takes the user that exists), sets its password if given, and puts it
/// in the `admin` group. Each step is idempotent, so the command can be run again.
pub async fn create_admin(
    sdk: &SdkConfig,
    args: &CreateAdminArgs,
    out: &mut dyn Write,
    json: bool,
) -> CtlResult {
    let password = args.password_file.as_ref().map(read_password).transpose()?;
    let cognito = args.pool.client(sdk);
    let pool = &args.pool.user_pool_id;
    let attribute = |name: &str, value: &str| {
        AttributeType::builder()
            .name(name)
            .value(value)
            .build()
            .map_err(|e| CtlError::Usage(e.to_string()))
    };
    let mut create = cognito
        .admin_create_user()
        .user_pool_id(pool)
        .username(&args.email)
        .user_attributes(attribute("email", &args.email)?)
        .user_attributes(attribute("email_verified", "true")?);
    if password.is_some() {
        // The operator sets the password next: no email with a temporary one.
        create = create.message_action(MessageActionType::Suppress);
    }
    let existed = match create.send().await {
        Ok(_) => false,
        Err(e) if e.code() == Some("UsernameExistsException") => true,
        Err(e) => return Err(refused("AdminCreateUser", e)),
    };
    if let Some(password) = &password {
        cognito
            .admin_set_user_password()
            .user_pool_id(pool)
            .username(&args.email)
            .password(password)
            .permanent(true)
            .send()
            .await
            .map_err(|e| refused("AdminSetUserPassword", e))?;
    }
    cognito
        .admin_add_user_to_group()
        .user_pool_id(pool)
        .username(&args.email)
        .group_name(ADMIN_GROUP)
        .send()
        .await
        .map_err(|e| refused("AdminAddUserToGroup", e))?;
    let password_state = match (&password, existed) {
        (Some(_), _) => "set",
        (None, false) => "emailed (temporary)",
        (None, true) => "unchanged",
    };
    if json {
        let doc = json!({"user": args.email, "userPoolId": pool, "created": !existed,
                         "group": ADMIN_GROUP, "password": password_state});
        return render::json_doc(out, &doc, true);
    }
    let what = if existed {
        "already existed"
    } else {
        "created"
    };
    writeln!(
        out,
        "{} {what} in {pool}, in the {ADMIN_GROUP} group; password {password_state}",
        args.email
    )?;
    Ok(())
}

/// Signs the user in with its password (the admin flow) and prints the token asked for.
pub async fn token(
    sdk: &SdkConfig,
    args: &TokenArgs,
    out: &mut dyn Write,
    json: bool,
) -> CtlResult {
    let password = read_password(&args.password_file)?;
    let answer = args
        .pool
        .client(sdk)
        .admin_initiate_auth()
        .user_pool_id(&args.pool.user_pool_id)
        .client_id(&args.client_id)
        .auth_flow(AuthFlowType::AdminUserPasswordAuth)
        .auth_parameters("USERNAME", &args.user)
        .auth_parameters("PASSWORD", password)
        .send()
        .await
        .map_err(|e| refused("AdminInitiateAuth", e))?;
    if let Some(challenge) = answer.challenge_name() {
        return Err(CtlError::Usage(format!(
            "{} must answer {challenge} first (a temporary password is replaced at the first \
             sign-in): set one with `lbctl admin create {} --password-file -`",
            args.user, args.user
        )));
    }
    let result = answer
        .authentication_result()
        .ok_or_else(|| CtlError::Failed("AdminInitiateAuth answered no tokens".into()))?;
    let token = match args.kind {
        TokenKind::Id => result.id_token(),
        TokenKind::Access => result.access_token(),
    }
    .ok_or_else(|| CtlError::Failed("AdminInitiateAuth answered no such token".into()))?;
    if json {
        let doc = json!({"token": token, "expiresIn": result.expires_in()});
        return render::json_doc(out, &doc, true);
    }
    writeln!(out, "{token}")?;
    Ok(())
}
