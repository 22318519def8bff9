//! Amazon Cognito's user pools on loopback (moto's server mode, the one devkit starts for SQS
//! and EventBridge): a pool shaped as the template's, called with Cognito's JSON API as a game
//! and the AWS CLI call it.

use std::net::SocketAddr;

use http::Method;
use hyper::body::Bytes;
use leaderboard_local::client::ApiClient;
use serde_json::{Value, json};

/// Cognito's JSON API on the emulator.
pub struct Cognito {
    client: ApiClient,
    /// The emulator's address.
    pub endpoint: String,
}

impl Cognito {
    pub async fn new() -> Cognito {
        let endpoint = leaderboard_devkit::sqs::endpoint().await;
        let addr: SocketAddr = endpoint
            .trim_start_matches("http://")
            .parse()
            .expect("moto's endpoint is 127.0.0.1:<port>");
        Cognito {
            client: ApiClient::new(addr),
            endpoint,
        }
    }

    /// One call of `operation`, as a game or the AWS CLI sends it. Answers the body, or panics
    /// with the emulator's error.
    pub async fn call(&self, operation: &str, body: Value) -> Value {
        let headers = [
            ("content-type", "application/x-amz-json-1.1".to_owned()),
            (
                "x-amz-target",
                format!("AWSCognitoIdentityProviderService.{operation}"),
            ),
        ];
        let resp = self
            .client
            .exchange(Method::POST, "/", &headers, Bytes::from(body.to_string()))
            .await
            .unwrap_or_else(|e| panic!("{operation}: {e}"));
        let text = String::from_utf8_lossy(resp.body());
        assert!(resp.status().is_success(), "{operation}: {text}");
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }

    /// A pool shaped as the template makes it (email usernames, an `admin` group) with one app
    /// client: its id and the client's.
    pub async fn pool(&self, name: &str) -> (String, String) {
        let pool = self
            .call(
                "CreateUserPool",
                json!({"PoolName": name, "UsernameAttributes": ["email"],
                       "AutoVerifiedAttributes": ["email"]}),
            )
            .await["UserPool"]["Id"]
            .as_str()
            .unwrap()
            .to_owned();
        let client = self.app_client(&pool).await;
        self.call(
            "CreateGroup",
            json!({"UserPoolId": pool, "GroupName": "admin"}),
        )
        .await;
        (pool, client)
    }

    /// An app client as the template's `UserPoolClient`: its properties as they are there.
    pub async fn app_client(&self, pool: &str) -> String {
        let path = leaderboard_devkit::repo_root().join("template.yaml");
        let template: serde_yaml::Value =
            serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut properties = template["Resources"]["UserPoolClient"]["Properties"].clone();
        // `!Ref UserPool` there: this pool here.
        properties.as_mapping_mut().unwrap().remove("UserPoolId");
        let mut client: Value = serde_json::to_value(properties).unwrap();
        client["UserPoolId"] = json!(pool);
        client["ClientName"] = json!("game");
        assert_eq!(
            client["GenerateSecret"], false,
            "a game's client has no secret"
        );
        self.call("CreateUserPoolClient", client).await["UserPoolClient"]["ClientId"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// Signs `email` up (confirmed, as the email code would) and in: the authentication result
    /// (`IdToken`, `AccessToken`, `RefreshToken`).
    pub async fn player(&self, pool: &str, client: &str, email: &str) -> Value {
        self.call(
            "SignUp",
            json!({"ClientId": client, "Username": email, "Password": PASSWORD}),
        )
        .await;
        self.call(
            "AdminConfirmSignUp",
            json!({"UserPoolId": pool, "Username": email}),
        )
        .await;
        self.sign_in(client, email).await
    }

    pub async fn sign_in(&self, client: &str, email: &str) -> Value {
        self.call(
            "InitiateAuth",
            json!({"ClientId": client, "AuthFlow": "USER_PASSWORD_AUTH",
                   "AuthParameters": {"USERNAME": email, "PASSWORD": PASSWORD}}),
        )
        .await["AuthenticationResult"]
            .clone()
    }

    /// The local stack trusting `pool`'s tokens for `client` (as the template's authorizer
    /// trusts the stack's pool), with season close out of the way: started.
    pub fn stack_trusting(&self, pool: &str, client: &str) -> crate::support::LocalStack {
        start(&self.trust(pool, client))
    }

    /// The same, making guest accounts in `pool` too, `per_hour` a network.
    pub fn stack_with_guests(
        &self,
        pool: &str,
        client: &str,
        per_hour: u32,
    ) -> crate::support::LocalStack {
        let per_hour = per_hour.to_string();
        let mut env = self.trust(pool, client);
        env.extend([
            ("LOCAL_COGNITO_ENDPOINT", self.endpoint.clone()),
            ("LOCAL_USER_POOL_ID", pool.to_owned()),
            ("LOCAL_USER_POOL_CLIENT_ID", client.to_owned()),
            ("LOCAL_GUESTS_PER_HOUR", per_hour),
        ]);
        start(&env)
    }

    fn trust(&self, pool: &str, client: &str) -> Vec<(&'static str, String)> {
        vec![
            ("LOCAL_CLOSE_EVERY_SECS", "3600".to_owned()),
            ("LOCAL_JWT_ISSUER", Cognito::issuer(pool)),
            ("LOCAL_JWT_AUDIENCE", client.to_owned()),
            (
                "LOCAL_JWKS_URL",
                format!("{}/{pool}/.well-known/jwks.json", self.endpoint),
            ),
        ]
    }

    pub fn issuer(pool: &str) -> String {
        format!("https://cognito-idp.us-east-1.amazonaws.com/{pool}")
    }
}

pub const PASSWORD: &str = "Correct-Horse-9-Battery";

fn start(env: &[(&'static str, String)]) -> crate::support::LocalStack {
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    crate::support::LocalStack::start(&env)
}
