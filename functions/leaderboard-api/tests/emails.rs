//! `PUT /players/me` and the admin lookup by email, through the handler on DynamoDB Local: an
//! address is lower-cased and belongs to one player (another's is 409 `already_exists`, nothing
//! written); `null` clears it; a token that carries a verified email sets that one, and a body
//! naming another is 400 with nothing written.

use crate::common;

use lambda_http::request::RequestContext;
use lambda_http::{Request, RequestExt};
use leaderboard_api::handle;
use serde_json::{Value, json};

use common::{As, Harness, code, harness, request};

/// `PUT /players/me` by `sub` with `body`, its token carrying `claims` besides.
fn put_me(sub: &str, body: &Value, claims: &[(&str, &str)]) -> Request {
    let req = request("PUT", "/players/me", As::Player(sub), Some(body));
    let Some(RequestContext::ApiGatewayV2(mut ctx)) = req.request_context_ref().cloned() else {
        panic!("not an HTTP API request");
    };
    let jwt = ctx
        .authorizer
        .as_mut()
        .and_then(|a| a.jwt.as_mut())
        .unwrap();
    for (k, v) in claims {
        jwt.claims.insert((*k).into(), (*v).into());
    }
    req.with_request_context(RequestContext::ApiGatewayV2(ctx))
}

async fn call(h: &Harness, req: Request) -> (u16, Value) {
    let resp = handle(&h.api, req).await.unwrap();
    let status = resp.status().as_u16();
    (
        status,
        serde_json::from_slice(resp.body().as_ref()).unwrap_or(Value::Null),
    )
}

const VERIFIED: [(&str, &str); 2] = [("email", "Ada@X.com"), ("email_verified", "true")];

#[tokio::test]
async fn a_verified_token_email_is_the_profiles_and_another_in_the_body_is_refused() {
    let h = harness("api_email_verified").await;
    let (status, me) = call(&h, put_me("ada", &json!({"name": "Ada"}), &VERIFIED)).await;
    assert_eq!((status, &me["email"]), (200, &json!("ada@x.com")), "{me}");
    let before = h.table.dump().await;
    let other = json!({"name": "Ada", "email": "someone@else.com"});
    let (status, resp) = call(&h, put_me("ada", &other, &VERIFIED)).await;
    assert_eq!((status, code(&resp)), (400, "invalid_request"), "{resp}");
    assert!(
        resp["error"]["message"]
            .as_str()
            .unwrap()
            .contains("ada@x.com")
    );
    assert_eq!(h.table.dump().await, before, "the refusal wrote something");
    let cleared = json!({"name": "Ada", "email": null});
    let (status, _) = call(&h, put_me("ada", &cleared, &VERIFIED)).await;
    assert_eq!(status, 400);
    // The same address, typed otherwise, is the token's.
    let same = json!({"name": "Ada", "email": "ADA@x.com"});
    let (status, me) = call(&h, put_me("ada", &same, &VERIFIED)).await;
    assert_eq!((status, &me["email"]), (200, &json!("ada@x.com")), "{me}");
    // An email the provider has not verified does not count: the body's is set.
    let unverified = [("email", "bo@x.com"), ("email_verified", "false")];
    let body = json!({"name": "Bo", "email": "Bo@Home.com"});
    let (status, bo) = call(&h, put_me("bo", &body, &unverified)).await;
    assert_eq!((status, &bo["email"]), (200, &json!("bo@home.com")), "{bo}");
}

#[tokio::test]
async fn an_address_belongs_to_one_player_and_the_lookup_finds_them() {
    let h = harness("api_email_unique").await;
    let body = |name: &str, email: Value| json!({"name": name, "email": email});
    let (status, _) = call(&h, put_me("ada", &body("Ada", json!("ada@x.com")), &[])).await;
    assert_eq!(status, 200);
    let (status, _) = call(&h, put_me("bo", &body("Bo", json!("bo@x.com")), &[])).await;
    assert_eq!(status, 200);
    let before = h.table.dump().await;
    let (status, resp) = call(&h, put_me("bo", &body("Bo", json!("ADA@x.com")), &[])).await;
    assert_eq!((status, code(&resp)), (409, "already_exists"), "{resp}");
    assert_eq!(h.table.dump().await, before, "the claim wrote something");
    let (status, found) = h
        .call(
            "GET",
            "/admin/players?email=Ada%40X.com",
            As::Admin("ops"),
            None,
        )
        .await;
    assert_eq!(
        (status, &found["playerId"]),
        (200, &json!("ada")),
        "{found}"
    );
    // Cleared, the address is free.
    let (status, me) = call(&h, put_me("ada", &body("Ada", Value::Null), &[])).await;
    assert_eq!(status, 200);
    assert!(me.get("email").is_none(), "{me}");
    let (status, bo) = call(&h, put_me("bo", &body("Bo", json!("ada@x.com")), &[])).await;
    assert_eq!((status, &bo["email"]), (200, &json!("ada@x.com")), "{bo}");
    let (status, found) = h
        .call(
            "GET",
            "/admin/players?email=ada%40x.com",
            As::Admin("ops"),
            None,
        )
        .await;
    assert_eq!((status, &found["playerId"]), (200, &json!("bo")), "{found}");
}
