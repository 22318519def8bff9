//! Who a caller is, as the handlers read it from the verified claims: group names parsed
//! exactly (a comma never grants admin), and the `sub` of any identity provider mapped to a
//! player id by one rule. Against DynamoDB Local, through both HTTP functions' handlers.

use lambda_http::Request;
use leaderboard_devkit::testing::TestTable;
use leaderboard_keys::subject::player_id_of;
use leaderboard_store::{Config, Store};
use serde_json::{Value, json};

const TEMPLATE: &str = include_str!("../../../events/leaderboard-api/get-top-scores.json");

/// An API Gateway v2 event of `method path` whose authorizer verified `claims`.
fn request(method: &str, path: &str, claims: &Value, body: Option<&Value>) -> Request {
    let mut e: Value = serde_json::from_str(TEMPLATE).unwrap();
    e["routeKey"] = json!(format!("{method} {path}"));
    e["rawPath"] = json!(path);
    e["rawQueryString"] = json!("");
    e["queryStringParameters"] = json!({});
    e["requestContext"]["http"]["method"] = json!(method);
    e["requestContext"]["http"]["path"] = json!(path);
    e["requestContext"]["authorizer"] = json!({"jwt": {"claims": claims, "scopes": null}});
    if let Some(b) = body {
        e["body"] = json!(b.to_string());
    }
    lambda_http::request::from_str(&e.to_string()).unwrap()
}

async fn store(label: &str) -> (TestTable, Store) {
    let table = TestTable::without_stream(label).await;
    let config = Config {
        table_name: table.name.clone(),
        cursor_secret: b"identity-test-secret-32-characters".to_vec(),
    };
    let store = Store::new(table.client.clone(), &config);
    (table, store)
}

async fn call(app: &leaderboard_api::App, req: Request) -> (u16, Value) {
    let resp = leaderboard_api::handle(app, req).await.unwrap();
    let status = resp.status().as_u16();
    (
        status,
        serde_json::from_slice(resp.body().as_ref()).unwrap_or(Value::Null),
    )
}

fn new_board(id: &str) -> Value {
    json!({"leaderboardId": id, "name": id, "endsAt": "2099-01-01T00:00:00Z"})
}

#[tokio::test]
async fn a_group_name_with_a_comma_never_grants_admin_and_nothing_is_written() {
    let (table, store) = store("groups_exact").await;
    let api = leaderboard_api::App::new(store);
    let before = table.dump().await;
    // WHEN a caller in a group whose name holds `admin` after a comma creates a board
    for groups in [
        json!("support,admin"),
        json!("[support,admin]"),
        json!("[\"support,admin\"]"),
        json!("administrators"),
    ] {
        let claims = json!({"sub": "p_support", "cognito:groups": groups});
        let (status, body) = call(
            &api,
            request("POST", "/leaderboards", &claims, Some(&new_board("b1"))),
        )
        .await;
        // THEN 403, and nothing was written
        assert_eq!(status, 403, "{groups}: {body}");
        assert_eq!(body["error"]["code"], "forbidden");
    }
    assert_eq!(table.dump().await, before);
    // while `admin` among the groups, in each form they arrive in, is admin
    for (i, groups) in [
        json!("[support,x admin]"),
        json!("[\"support,x\",\"admin\"]"),
        json!("admin"),
    ]
    .into_iter()
    .enumerate()
    {
        let claims = json!({"sub": "p_admin", "cognito:groups": groups});
        let id = format!("b_ok{i}");
        let (status, body) = call(
            &api,
            request("POST", "/leaderboards", &claims, Some(&new_board(&id))),
        )
        .await;
        assert_eq!(status, 201, "{groups}: {body}");
    }
}

#[tokio::test]
async fn subs_of_other_identity_providers_are_players_by_one_rule() {
    let (_table, store) = store("subs_mapped").await;
    let api = leaderboard_api::App::new(store.clone());
    let submit = submit_score::App::new(store);
    let admin = json!({"sub": "p_admin", "cognito:groups": "[admin]"});
    let (status, _) = call(
        &api,
        request("POST", "/leaderboards", &admin, Some(&new_board("b1"))),
    )
    .await;
    assert_eq!(status, 201);
    for sub in [
        "auth0|abc",
        "google-oauth2|123456789012345678901",
        "p_plain",
        "zoë@example.com",
    ] {
        let claims = json!({"sub": sub});
        let want = player_id_of(sub).unwrap();
        // a valid id is itself; any other sub is a readable part and a hash
        assert_eq!(want.as_str() == sub, sub == "p_plain", "{sub}");
        // WHEN the player saves a profile and plays
        let profile = json!({"name": "Someone"});
        let (status, body) =
            call(&api, request("PUT", "/players/me", &claims, Some(&profile))).await;
        assert_eq!(status, 200, "{sub}: {body}");
        assert_eq!(body["playerId"], want.as_str());
        let play = json!({"score": 7, "gameId": "g", "leaderboardIds": ["b1"]});
        let resp =
            submit_score::handle(&submit, request("POST", "/sessions", &claims, Some(&play)))
                .await
                .unwrap();
        let body: Value = serde_json::from_slice(resp.body().as_ref()).unwrap();
        // THEN both are the mapped player's, and the entry is found under that id
        assert_eq!(resp.status(), 200, "{sub}: {body}");
        assert_eq!(body["playerId"], want.as_str());
        let path = format!("/leaderboards/b1/players/{}", want.as_str());
        let (status, entry) = call(&api, request("GET", &path, &json!({}), None)).await;
        assert_eq!(status, 200, "{sub}: {entry}");
        assert_eq!(entry["score"], 7);
    }
    // AND a token without a usable sub is 401
    let (status, body) = call(
        &api,
        request(
            "PUT",
            "/players/me",
            &json!({"sub": ""}),
            Some(&json!({"name": "x"})),
        ),
    )
    .await;
    assert_eq!(status, 401, "{body}");
}

#[tokio::test]
async fn get_players_me_answers_the_callers_profile_or_their_player_id() {
    let (table, store) = store("players_me").await;
    let api = leaderboard_api::App::new(store);
    let sub = "auth0|664f1a2b3c";
    let claims = json!({"sub": sub});
    let mapped = player_id_of(sub).unwrap();
    let before = table.dump().await;
    // Before a profile: the player id the token maps to, alone; nothing written.
    let (status, me) = call(&api, request("GET", "/players/me", &claims, None)).await;
    assert_eq!((status, me), (200, json!({"playerId": mapped.as_str()})));
    assert_eq!(table.dump().await, before);
    // After one: the whole profile, the email included (the caller's own).
    let profile = json!({"name": "Zoë", "email": "zoe@example.com"});
    let proving = json!({"sub": sub, "email": "zoe@example.com", "email_verified": "true"});
    let (status, _) = call(
        &api,
        request("PUT", "/players/me", &proving, Some(&profile)),
    )
    .await;
    assert_eq!(status, 200);
    let (status, me) = call(&api, request("GET", "/players/me", &claims, None)).await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(
        (
            &me["playerId"],
            &me["name"],
            &me["email"],
            &me["gamesPlayed"]
        ),
        (
            &json!(mapped.as_str()),
            &json!("Zoë"),
            &json!("zoe@example.com"),
            &json!(0)
        )
    );
    // The public profile route is not shadowed for other ids, and needs a token for `me`.
    let (status, public) = call(
        &api,
        request("GET", &format!("/players/{mapped}"), &claims, None),
    )
    .await;
    assert_eq!((status, public.get("email")), (200, None), "{public}");
    let mut e: Value = serde_json::from_str(TEMPLATE).unwrap();
    e["rawPath"] = json!("/players/me");
    e["requestContext"]["http"]["path"] = json!("/players/me");
    e["requestContext"]
        .as_object_mut()
        .unwrap()
        .remove("authorizer");
    let anonymous = lambda_http::request::from_str(&e.to_string()).unwrap();
    let (status, _) = call(&api, anonymous).await;
    assert_eq!(status, 401);
}
