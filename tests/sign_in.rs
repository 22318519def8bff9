//! Signing in as a deployed game does: a Cognito user pool (moto's, in server mode on loopback)
//! with the template's app client (its properties read from template.yaml) and `admin` group,
//! and the local stack trusting that pool's RS256 tokens as the template's JWT authorizer does
//! (`LOCAL_JWT_ISSUER`, `LOCAL_JWT_AUDIENCE`, `LOCAL_JWKS_URL`). A player signs up and in, calls the API with the
//! ID token and with the access token, refreshes them, and an admin signed in through the same
//! pool creates a board. Tokens of another pool, of another app client or with a changed
//! payload are 401 and write nothing.

use crate::support;

use http::Method;
use leaderboard_devkit::testing::token_claims;
use serde_json::{Value, json};
use support::cognito::{Cognito, PASSWORD};

fn token<'a>(result: &'a Value, name: &str) -> &'a str {
    result[name]
        .as_str()
        .unwrap_or_else(|| panic!("no {name} in {result}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_and_an_admin_signed_in_to_the_pool_use_the_api() {
    let cognito = Cognito::new().await;
    let (pool, client) = cognito.pool("players").await;
    let stack = cognito.stack_trusting(&pool, &client);
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
