//! `samconfig.toml`, what `sam build` and `sam deploy` read: every parameter it sets is one of
//! the template's, in the form SAM takes (`Name=value`, or `Name=""` for an empty one, which
//! SAM's parser requires), the build and the deploy name the same `Architecture`, and the deploy
//! grants the capabilities the template needs (its IAM roles; the SAM transform and its nested
//! application).

use std::collections::BTreeMap;

use toml_edit::{DocumentMut, Item};

fn root() -> std::path::PathBuf {
    leaderboard_devkit::repo_root()
}

/// The `parameter_overrides` of `[default.<command>.parameters]`, each `Name=value` split.
fn overrides(config: &DocumentMut, command: &str) -> BTreeMap<String, String> {
    let list = config["default"][command]["parameters"]["parameter_overrides"]
        .as_array()
        .unwrap_or_else(|| {
            panic!("[default.{command}.parameters] has no parameter_overrides list")
        });
    list.iter()
        .map(|v| {
            let pair = v.as_str().expect("each override a string");
            let (name, value) = pair
                .split_once('=')
                .unwrap_or_else(|| panic!("{pair:?} is not Name=value"));
            assert!(
                !value.is_empty(),
                "{pair:?}: SAM refuses an empty value; write {name}=\"\""
            );
            let value = if value == "\"\"" { "" } else { value };
            assert!(
                !value.contains(' '),
                "{pair:?}: a space splits it in two for SAM"
            );
            (name.to_owned(), value.to_owned())
        })
        .collect()
}

#[test]
fn samconfig_sets_the_templates_parameters_for_one_architecture() {
    let config: DocumentMut = std::fs::read_to_string(root().join("samconfig.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let template: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(root().join("template.yaml")).unwrap())
            .unwrap();
    let parameters = template["Parameters"].as_mapping().unwrap();
    let (build, deploy) = (overrides(&config, "build"), overrides(&config, "deploy"));
    for name in build.keys().chain(deploy.keys()) {
        assert!(
            parameters.contains_key(name.as_str()),
            "{name} is not a parameter of template.yaml"
        );
    }
    assert_eq!(build.get("Architecture"), deploy.get("Architecture"));
    let allowed: Vec<&str> = parameters["Architecture"]["AllowedValues"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(
        allowed.contains(&deploy["Architecture"].as_str()),
        "{allowed:?}"
    );
    // The template's rules, kept by the values set here: an issuer of another provider needs
    // its audience, the hosted sign-in's callbacks need its domain.
    let set = |name: &str| deploy.get(name).is_some_and(|v| !v.is_empty());
    assert_eq!(set("JwtIssuer"), set("JwtAudience"));
    assert_eq!(set("SignInCallbackUrls"), set("SignInDomainPrefix"));

    let capabilities = match &config["default"]["deploy"]["parameters"]["capabilities"] {
        Item::Value(v) => v.as_str().unwrap_or_default().to_owned(),
        other => panic!("capabilities: {other:?}"),
    };
    let resources = template["Resources"].as_mapping().unwrap();
    let has = |kind: &str| resources.values().any(|r| r["Type"].as_str() == Some(kind));
    // SAM makes a role for each function: unnamed, so CAPABILITY_IAM (not NAMED_IAM).
    assert!(has("AWS::Serverless::Function"));
    assert!(
        capabilities.split(' ').any(|c| c == "CAPABILITY_IAM"),
        "{capabilities}"
    );
    assert!(template["Transform"].as_str().is_some() && has("AWS::Serverless::Application"));
    assert!(
        capabilities
            .split(' ')
            .any(|c| c == "CAPABILITY_AUTO_EXPAND"),
        "{capabilities}"
    );
    assert!(
        !resources
            .values()
            .any(|r| !r["Properties"]["RoleName"].is_null()),
        "a named role needs CAPABILITY_NAMED_IAM"
    );
    assert_eq!(
        config["default"]["global"]["parameters"]["stack_name"].as_str(),
        Some("leaderboard")
    );
}
