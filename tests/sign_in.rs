//! Signing in as a deployed game does: a Cognito user pool (moto's, in server mode on loopback)
//! with the template's app client (its properties read from template.yaml) and `admin` group, and the local stack trusting that
//! pool's RS256 tokens as the template's JWT authorizer does (`LOCAL_JWT_ISSUER`,
//! `LOCAL_JWT_AUDIENCE`, `LOCAL_JWKS_URL`). A player signs up and in, calls the API with the
//! ID token and with the access token, refreshes them, and an admin signed in through the same
//! pool creates a board. Tokens of another pool, of another app client or with a changed
//! payload are 401 and write nothing.

use crate::support;

use std::net::SocketAddr;

use http::Method;
use hyper::body::Bytes;
use leaderboard_devkit::testing::token_claims;
use leaderboard_local::client::ApiClient;
use serde_json::{Value, json};
use support::LocalStack;

/// Cognito's JSON API on the emulator.
struct Cognito {
    client: ApiClient,
    endpoint: String,
}

impl Cognito {
    async fn new() -> Cognito {
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
    async fn call(&self, operation: &str, body: Value) -> Value {
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
    async fn pool(&self, name: &str) -> (String, String) {
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
    async fn app_client(&self, pool: &str) -> String {
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
    async fn player(&self, pool: &str, client: &str, email: &str) -> Value {
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

    async fn sign_in(&self, client: &str, email: &str) -> Value {
        self.call(
            "InitiateAuth",
            json!({"ClientId": client, "AuthFlow": "USER_PASSWORD_AUTH",
                   "AuthParameters": {"USERNAME": email, "PASSWORD": PASSWORD}}),
        )
        .await["AuthenticationResult"]
            .clone()
    }

    fn issuer(pool: &str) -> String {
        format!("https://cognito-idp.us-east-1.amazonaws.com/{pool}")
    }
}

const PASSWORD: &str = "Correct-Horse-9-Battery";

fn token<'a>(result: &'a Value, name: &str) -> &'a str {
    result[name]
        .as_str()
        .unwrap_or_else(|| panic!("no {name} in {result}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_and_an_admin_signed_in_to_the_pool_use_the_api() {
    let cognito = Cognito::new().await;
    let (pool, client) = cognito.pool("players").await;
    let stack = LocalStack::start(&[
        ("LOCAL_CLOSE_EVERY_SECS", "3600"),
        ("LOCAL_JWT_ISSUER", &Cognito::issuer(&pool)),
        ("LOCAL_JWT_AUDIENCE", &client),
        (
            "LOCAL_JWKS_URL",
            &format!("{}/{pool}/.well-known/jwks.json", cognito.endpoint),
        ),
    ]);
    let api = &stack.api;

    // An admin: created by an operator, in the `admin` group, signed in like anyone.
    let admin_email = "ops@studio.example";
    cognito
        .call(
            "AdminCreateUser",
            json!({"UserPoolId": pool, "Username": admin_email, "MessageAction": "SUPPRESS"}),
        )
        .await;
    cognito
        .call(
            "AdminSetUserPassword",
            json!({"UserPoolId": pool, "Username": admin_email, "Password": PASSWORD,
                   "Permanent": true}),
        )
        .await;
    cognito
        .call(
            "AdminAddUserToGroup",
            json!({"UserPoolId": pool, "Username": admin_email, "GroupName": "admin"}),
        )
        .await;
    let admin = cognito.sign_in(&client, admin_email).await;
    let board = json!({"leaderboardId": "pool_board", "name": "Pool", "gameId": "poolgame"});
    let created = api
        .post("/leaderboards", Some(token(&admin, "IdToken")), &board)
        .await
        .unwrap();
    assert_eq!(created.status, 201, "{}", created.body);

    // A player signs up and in; the ID token and the access token both pass, as the same
    // player (the pool's `sub`).
    let player = cognito.player(&pool, &client, "ana@example.com").await;
    let (id, access) = (token(&player, "IdToken"), token(&player, "AccessToken"));
    let sub = token_claims(id)["sub"].as_str().unwrap().to_owned();
    assert_eq!(token_claims(access)["sub"], sub.as_str());
    assert_eq!(token_claims(access)["client_id"], client.as_str());
    let named = api
        .put("/players/me", Some(id), &json!({"name": "Ana"}))
        .await
        .unwrap();
    assert_eq!(named.status, 200, "{}", named.body);
    let play = json!({"score": 4200, "sessionId": "01JD0000000000000000000001"});
    let posted = api
        .post("/leaderboards/pool_board/scores", Some(access), &play)
        .await
        .unwrap();
    assert_eq!(posted.status, 200, "{}", posted.body);
    assert_eq!(posted.body["playerId"], sub.as_str());
    assert_eq!(posted.body["rank"], 1);
    // A player's token is not an admin's.
    let refused = api
        .post(
            "/leaderboards",
            Some(id),
            &json!({"leaderboardId": "mine", "name": "Mine"}),
        )
        .await
        .unwrap();
    assert_eq!(refused.status, 403, "{}", refused.body);

    // Refreshed tokens are the same player's.
    let refreshed = cognito
        .call(
            "InitiateAuth",
            json!({"ClientId": client, "AuthFlow": "REFRESH_TOKEN_AUTH",
                   "AuthParameters": {"REFRESH_TOKEN": token(&player, "RefreshToken")}}),
        )
        .await["AuthenticationResult"]
        .clone();
    let me = api
        .send(
            Method::GET,
            "/players/me",
            Some(token(&refreshed, "IdToken")),
            None,
        )
        .await
        .unwrap();
    assert_eq!(me.status, 200, "{}", me.body);
    assert_eq!(me.body["playerId"], sub.as_str());
    assert_eq!(me.body["name"], "Ana");

    // Refused, each 401 before anything runs: another pool's token (the emulator signs every
    // pool's with one key, so only `iss` tells them apart), another app client's, a changed
    // payload under a valid signature.
    let (other_pool, other_pool_client) = cognito.pool("elsewhere").await;
    let stranger = cognito
        .player(&other_pool, &other_pool_client, "eve@example.com")
        .await;
    let other_client = cognito.app_client(&pool).await;
    let cousin = cognito.sign_in(&other_client, "ana@example.com").await;
    let mut parts: Vec<String> = id.split('.').map(str::to_owned).collect();
    parts[1] = token(&stranger, "IdToken")
        .split('.')
        .nth(1)
        .unwrap()
        .to_owned();
    let forged = parts.join(".");
    for (what, bad) in [
        ("another pool", token(&stranger, "IdToken")),
        ("another app client", token(&cousin, "IdToken")),
        ("a changed payload", forged.as_str()),
    ] {
        let play = json!({"score": 9999, "sessionId": "01JD0000000000000000000002"});
        let resp = api
            .post("/leaderboards/pool_board/scores", Some(bad), &play)
            .await
            .unwrap();
        assert_eq!(resp.status, 401, "{what}: {}", resp.body);
    }
    let top = api.get("/leaderboards/pool_board/scores").await.unwrap();
    let entries = top.body["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{}", top.body);
    assert_eq!(entries[0]["score"], 4200);
}
