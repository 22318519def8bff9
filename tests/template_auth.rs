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
        yaml("[!If [CreateUserPool, !Ref UserPoolClient, !Ref JwtAudience]]")
    );
    assert_eq!(
        t["Conditions"]["CreateUserPool"],
        yaml(r#"!Equals [!Ref JwtIssuer, ""]"#)
    );
}
