//! The template's trust in tokens: with another provider's issuer, the deployment requires an
//! audience too, and API Gateway's authorizer checks it.

use serde_yaml::Value;

fn template() -> Value {
    let path = leaderboard_devkit::repo_root().join("template.yaml");
    serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn yaml(text: &str) -> Value {
    serde_yaml::from_str(text).unwrap()
}

#[test]
fn an_issuer_of_another_provider_needs_an_audience_and_the_authorizer_checks_it() {
    let t = template();
    // A deployment that sets JwtIssuer without JwtAudience fails its rule.
    let rule = &t["Rules"]["AudienceWithIssuer"];
    assert_eq!(
        rule["RuleCondition"],
        yaml(r#"!Not [!Equals [!Ref JwtIssuer, ""]]"#)
    );
    assert_eq!(
        rule["Assertions"][0]["Assert"],
        yaml(r#"!Not [!Equals [!Ref JwtAudience, ""]]"#)
    );
    // And the authorizer's audience is JwtAudience whenever JwtIssuer is used.
    let jwt = &t["Resources"]["HttpApi"]["Properties"]["Auth"]["Authorizers"]["JwtAuthorizer"]["JwtConfiguration"];
    assert_eq!(
        jwt["issuer"],
        yaml(
            r#"!If [CreateUserPool, !Sub "https://cognito-idp.${AWS::Region}.amazonaws.com/${UserPool}", !Ref JwtIssuer]"#
        )
    );
    assert_eq!(
        jwt["audience"],
        yaml(
            "!If [CreateUserPool, !If [HostedSignIn, [!Ref UserPoolClient, !Ref WebClient], \
             [!Ref UserPoolClient]], [!Ref JwtAudience]]"
        )
    );
    assert_eq!(
        t["Conditions"]["CreateUserPool"],
        yaml(r#"!Equals [!Ref JwtIssuer, ""]"#)
    );
}

#[test]
fn the_hosted_sign_in_is_a_public_code_flow_client_whose_tokens_the_authorizer_takes() {
    let t = template();
    let resources = &t["Resources"];
    // It exists only with callback URLs, on the stack's own pool, with a domain the rule requires.
    assert_eq!(
        t["Conditions"]["HostedSignIn"],
        yaml(r#"!And [!Condition CreateUserPool, !Not [!Equals [!Ref SignInCallbackUrls, ""]]]"#)
    );
    for name in ["UserPoolDomain", "WebClient"] {
        assert_eq!(resources[name]["Condition"], "HostedSignIn", "{name}");
    }
    let rule = &t["Rules"]["SignInDomainWithCallbacks"]["Assertions"];
    assert_eq!(
        rule[0]["Assert"],
        yaml(r#"!Not [!Equals [!Ref SignInDomainPrefix, ""]]"#)
    );
    assert_eq!(rule[1]["Assert"], yaml(r#"!Equals [!Ref JwtIssuer, ""]"#));
    // A page holds no secret: no client secret, the code flow only (Cognito checks PKCE's
    // verifier for a code asked for with a challenge), back to the URLs given.
    let web = &resources["WebClient"]["Properties"];
    assert_eq!(web["GenerateSecret"], false);
    assert_eq!(web["AllowedOAuthFlows"], yaml("[code]"));
    assert_eq!(web["AllowedOAuthFlowsUserPoolClient"], true);
    assert_eq!(
        web["CallbackURLs"],
        yaml(r#"!Split [",", !Ref SignInCallbackUrls]"#)
    );
    assert!(
        web["AllowedOAuthScopes"]
            .as_sequence()
            .unwrap()
            .contains(&yaml("openid")),
        "an ID token needs openid"
    );
    assert_eq!(
        t["Outputs"]["SignInUrl"]["Value"],
        yaml(r#"!Sub "https://${UserPoolDomain}.auth.${AWS::Region}.amazoncognito.com""#)
    );
}
