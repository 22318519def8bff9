//! `PUT /players/me` and the admin lookup by email, through the handler on DynamoDB Local: an
//! address is only ever the one the token proves (`email` with `email_verified: true`), and a
//! body naming any other, or naming one without such a token, is 400 with nothing written; an
//! address is lower-cased and belongs to one player (another's proven claim is 409
//! `already_exists`, nothing written), except one claimed before proof was required, which a
//! proven claim takes over; `null` clears it.

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
    // Only the claims given: not the address of the body that `request` proves.
    jwt.claims.remove("email");
    jwt.claims.remove("email_verified");
    for (k, v) in claims {
        jwt.claims.insert((*k).into(), (*v).into());
    }
    req.with_request_context(RequestContext::ApiGatewayV2(ctx))
}

/// `PUT /players/me` by `sub` with `body`, its token proving the address the body names.
fn proven(sub: &str, body: &Value) -> Request {
    request("PUT", "/players/me", As::Player(sub), Some(body))
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
    // An address the token does not prove is never taken: not one the provider has not
    // verified, not one of a token that carries none (a Cognito access token), not even the
    // token's own unverified one. Each is 400, nothing written.
    let unverified = [("email", "bo@home.com"), ("email_verified", "false")];
    let before = h.table.dump().await;
    for (claims, address) in [
        (&unverified[..], "Bo@Home.com"),
        (&[][..], "bo@home.com"),
        (&[("email", "ceo@studio.com")][..], "ceo@studio.com"),
    ] {
        let body = json!({"name": "Bo", "email": address});
        let (status, resp) = call(&h, put_me("bo", &body, claims)).await;
        assert_eq!((status, code(&resp)), (400, "invalid_request"), "{resp}");
        assert!(
            resp["error"]["message"]
                .as_str()
                .unwrap()
                .contains("verified")
        );
    }
    assert_eq!(h.table.dump().await, before, "a refusal wrote something");
    // Without a proven address, a profile is written without one, and `null` clears it.
    let (status, bo) = call(&h, put_me("bo", &json!({"name": "Bo"}), &unverified)).await;
    assert_eq!(status, 200);
    assert!(bo.get("email").is_none(), "{bo}");
    let (status, _) = call(&h, put_me("bo", &json!({"name": "Bo", "email": null}), &[])).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_proven_claim_takes_over_an_address_claimed_before_proof_was_required() {
    let h = harness("api_email_takeover").await;
    // Before this rule, anyone could claim an address: `squatter` holds ceo@studio.com, its
    // owner item without the mark of a proven claim.
    let squat = json!({"name": "Sq", "email": "ceo@studio.com"});
    let (status, _) = call(
        &h,
        put_me(
            "squatter",
            &squat,
            &[("email", "ceo@studio.com"), ("email_verified", "true")],
        ),
    )
    .await;
    assert_eq!(status, 200);
    h.table
        .update_raw("EMAIL#ceo@studio.com", "#OWNER", "REMOVE verified")
        .await;
    // The address's real owner proves it: the address is theirs, and off the squatter's
    // profile; the lookup finds the owner.
    let proven = [("email", "CEO@studio.com"), ("email_verified", "true")];
    let (status, ceo) = call(&h, put_me("ceo", &json!({"name": "Ceo"}), &proven)).await;
    assert_eq!(
        (status, &ceo["email"]),
        (200, &json!("ceo@studio.com")),
        "{ceo}"
    );
    let (status, found) = h
        .call(
            "GET",
            "/admin/players?email=ceo%40studio.com",
            As::Admin("ops"),
            None,
        )
        .await;
    assert_eq!(
        (status, &found["playerId"]),
        (200, &json!("ceo")),
        "{found}"
    );
    let (_, squatter) = h
        .call("GET", "/players/me", As::Player("squatter"), None)
        .await;
    assert!(squatter.get("email").is_none(), "{squatter}");
    let owner = h.table.raw("EMAIL#ceo@studio.com", "#OWNER").await.unwrap();
    assert!(owner.contains_key("verified"), "{owner:?}");
    // A proven claim is not taken over: the squatter proving the same address again is 409.
    let (status, resp) = call(&h, put_me("squatter", &squat, &proven)).await;
    assert_eq!((status, code(&resp)), (409, "already_exists"), "{resp}");
}

#[tokio::test]
async fn an_address_belongs_to_one_player_and_the_lookup_finds_them() {
    let h = harness("api_email_unique").await;
    let body = |name: &str, email: Value| json!({"name": name, "email": email});
    let (status, _) = call(&h, proven("ada", &body("Ada", json!("ada@x.com")))).await;
    assert_eq!(status, 200);
    let (status, _) = call(&h, proven("bo", &body("Bo", json!("bo@x.com")))).await;
    assert_eq!(status, 200);
    let before = h.table.dump().await;
    let (status, resp) = call(&h, proven("bo", &body("Bo", json!("ADA@x.com")))).await;
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
    let (status, me) = call(&h, proven("ada", &body("Ada", Value::Null))).await;
    assert_eq!(status, 200);
    assert!(me.get("email").is_none(), "{me}");
    let (status, bo) = call(&h, proven("bo", &body("Bo", json!("ada@x.com")))).await;
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

/// The sample event (`events/`, what `sam local invoke` and the cold-start bench send) is a
/// profile write a deployed stack accepts: its ID token proves the address its body names.
#[tokio::test]
async fn the_sample_profile_event_proves_its_address_and_is_accepted() {
    let h = harness("api_email_sample").await;
    let sample = include_str!("../../../events/leaderboard-api/put-players-me.json");
    let req = lambda_http::request::from_str(sample).unwrap();
    let (status, me) = call(&h, req).await;
    assert_eq!((status, &me["email"]), (200, &json!("alice@x.com")), "{me}");
}
