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
    // Guest sign-up is off on a stack not given a pool to make guests in.
    let off = api.post("/players/guest", None, &json!({})).await.unwrap();
    assert_eq!(off.status, 404, "{}", off.body);
    let top = api.get("/leaderboards/pool_board/scores").await.unwrap();
    let entries = top.body["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{}", top.body);
    assert_eq!(entries[0]["score"], 4200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_signs_up_in_one_call_and_keeps_its_id_when_it_links_an_email() {
    let cognito = Cognito::new().await;
    let (pool, client) = cognito.pool("guests").await;
    let stack = cognito.stack_with_guests(&pool, &client, 3);
    let api = &stack.api;
    let key = leaderboard_local::jwt::JwtKey::new(leaderboard_local::jwt::DEFAULT_SECRET);
    let admin = key.token_for("ops", &["admin"], chrono::Utc::now().timestamp(), 600);
    let board = json!({"leaderboardId": "guest_board", "name": "Guests", "gameId": "guestgame"});
    let created = api
        .post("/leaderboards", Some(&admin), &board)
        .await
        .unwrap();
    assert_eq!(created.status, 201, "{}", created.body);

    // Three guests from this network, the hour's limit; the fourth is refused, made nowhere.
    let mut guests = Vec::new();
    for _ in 0..3 {
        let made = api.post("/players/guest", None, &json!({})).await.unwrap();
        assert_eq!(made.status, 201, "{}", made.body);
        guests.push(made.body);
    }
    let refused = api.post("/players/guest", None, &json!({})).await.unwrap();
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert_eq!(refused.body["error"]["code"], "rate_limited");
    assert!(refused.retry_after.is_some_and(|s| (1..=3600).contains(&s)));
    let users = cognito.call("ListUsers", json!({"UserPoolId": pool})).await;
    assert_eq!(users["Users"].as_array().unwrap().len(), 3, "{users}");

    // A guest plays with its ID token, as the player the answer names.
    let guest = &guests[0];
    let sub = guest["playerId"].as_str().unwrap();
    assert_eq!(token_claims(token(guest, "idToken"))["sub"], sub);
    assert!(token(guest, "username").ends_with("@guests.invalid"));
    let play = json!({"score": 777, "sessionId": "01JD0000000000000000000003"});
    let posted = api
        .post(
            "/leaderboards/guest_board/scores",
            Some(token(guest, "idToken")),
            &play,
        )
        .await
        .unwrap();
    assert_eq!(posted.status, 200, "{}", posted.body);
    assert_eq!(posted.body["playerId"], sub);

    // Linked to an address, the account signs in with it and the guest's password as the same
    // player, whose score is still there.
    cognito
        .call(
            "UpdateUserAttributes",
            json!({"AccessToken": token(guest, "accessToken"),
                   "UserAttributes": [{"Name": "email", "Value": "gia@example.com"}]}),
        )
        .await;
    let linked = cognito
        .call(
            "InitiateAuth",
            json!({"ClientId": client, "AuthFlow": "USER_PASSWORD_AUTH",
                   "AuthParameters": {"USERNAME": "gia@example.com",
                                      "PASSWORD": token(guest, "password")}}),
        )
        .await["AuthenticationResult"]
        .clone();
    assert_eq!(token_claims(token(&linked, "IdToken"))["sub"], sub);
    let entry = api
        .send(
            Method::GET,
            &format!("/leaderboards/guest_board/players/{sub}"),
            Some(token(&linked, "IdToken")),
            None,
        )
        .await
        .unwrap();
    assert_eq!(entry.body["score"], 777, "{}", entry.body);
}
