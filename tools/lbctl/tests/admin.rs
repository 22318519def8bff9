//! `lbctl admin create` and `lbctl token` against a Cognito user pool (moto's, in server mode on
//! loopback) shaped as the template's: the admin is created in the `admin` group with the
//! password given, running it again changes nothing, and its token carries the group; a wrong
//! password, an unknown pool and an empty password file are exit 2.

use aws_sdk_cognitoidentityprovider::Client;
use aws_sdk_cognitoidentityprovider::types::{ExplicitAuthFlowsType, UsernameAttributeType};
use leaderboard_devkit::testing::token_claims;
use serde_json::Value;

const ADMIN: &str = "ops@studio.example";

/// A pool with email usernames, the `admin` group and an app client allowing the admin flow,
/// on the emulator: (the emulator's endpoint, the pool's id, the client's id, a client of it).
async fn pool() -> (String, String, String, Client) {
    let endpoint = leaderboard_devkit::sqs::endpoint().await;
    let cognito = Client::new(&leaderboard_devkit::local::sdk_config(&endpoint));
    let pool = cognito
        .create_user_pool()
        .pool_name("players")
        .username_attributes(UsernameAttributeType::Email)
        .send()
        .await
        .unwrap()
        .user_pool
        .unwrap()
        .id
        .unwrap();
    let client = cognito
        .create_user_pool_client()
        .user_pool_id(&pool)
        .client_name("game")
        .explicit_auth_flows(ExplicitAuthFlowsType::AllowAdminUserPasswordAuth)
        .explicit_auth_flows(ExplicitAuthFlowsType::AllowRefreshTokenAuth)
        .send()
        .await
        .unwrap()
        .user_pool_client
        .unwrap()
        .client_id
        .unwrap();
    cognito
        .create_group()
        .user_pool_id(&pool)
        .group_name("admin")
        .send()
        .await
        .unwrap();
    (endpoint, pool, client, cognito)
}

/// `lbctl <args> --cognito-endpoint-url <endpoint>` (JSON or text): its output, or its exit
/// code.
async fn lbctl(endpoint: &str, json: bool, args: &[&str]) -> Result<String, i32> {
    // No table: these commands read none.
    let sdk = leaderboard_devkit::local::sdk_config(endpoint);
    let ctl = lbctl::Ctl::new(lbctl::connect::Connection::default(), json).with_sdk(sdk);
    let mut argv = args.to_vec();
    argv.extend(["--cognito-endpoint-url", endpoint]);
    let mut out = Vec::new();
    match lbctl::run_args(&ctl, argv, &mut out).await {
        Ok(()) => Ok(String::from_utf8(out).unwrap()),
        Err(e) => Err(e.exit_code()),
    }
}

/// How many users the pool has.
async fn users(cognito: &Client, pool: &str) -> usize {
    let users = cognito
        .list_users()
        .user_pool_id(pool)
        .send()
        .await
        .unwrap();
    users.users().len()
}

fn password_file(dir: &std::path::Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[tokio::test]
async fn the_first_admin_and_its_token_from_a_terminal() {
    let (endpoint, pool, client, cognito) = pool().await;
    let dir = std::env::temp_dir().join(format!("lbctl-admin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let password = password_file(&dir, "pw", "Correct-Horse-9-Battery\n");

    let create = ["admin", "create", ADMIN, "--user-pool-id", &pool];
    let mut with_password = create.to_vec();
    with_password.extend(["--password-file", &password]);
    let made = lbctl(&endpoint, true, &with_password).await.unwrap();
    let made: Value = serde_json::from_str(&made).unwrap();
    assert_eq!(made["created"], true, "{made}");
    assert_eq!(made["password"], "set");
    // Again: the user is taken as it is, still one user, still in the group once.
    let again = lbctl(&endpoint, false, &create).await.unwrap();
    assert!(
        again.starts_with(&format!("{ADMIN} already existed in {pool}")),
        "{again}"
    );
    assert_eq!(users(&cognito, &pool).await, 1);
    let groups = cognito
        .admin_list_groups_for_user()
        .user_pool_id(&pool)
        .username(ADMIN)
        .send()
        .await
        .unwrap();
    let names: Vec<&str> = groups
        .groups()
        .iter()
        .filter_map(|g| g.group_name())
        .collect();
    assert_eq!(names, ["admin"]);

    // Its token: the ID token by default, with the group and the pool as issuer; the access
    // token on asking.
    let token = [
        "token",
        "--user",
        ADMIN,
        "--user-pool-id",
        &pool,
        "--client-id",
        &client,
    ];
    let mut signed_in = token.to_vec();
    signed_in.extend(["--password-file", &password]);
    let id = lbctl(&endpoint, false, &signed_in).await.unwrap();
    let id = token_claims(id.trim());
    assert_eq!(id["token_use"], "id", "{id}");
    assert_eq!(id["cognito:groups"], serde_json::json!(["admin"]));
    assert!(id["iss"].as_str().unwrap().ends_with(&pool), "{id}");
    signed_in.extend(["--kind", "access"]);
    let access: Value =
        serde_json::from_str(&lbctl(&endpoint, true, &signed_in).await.unwrap()).unwrap();
    assert_eq!(
        token_claims(access["token"].as_str().unwrap())["client_id"],
        client.as_str()
    );
    assert!(access["expiresIn"].as_i64().unwrap() > 0);

    // Refused with exit code 2: a wrong password, an unknown pool, an empty password file.
    let wrong = password_file(&dir, "wrong", "not-the-password");
    let empty = password_file(&dir, "empty", "\n");
    let mut bad_password = token.to_vec();
    bad_password.extend(["--password-file", &wrong]);
    assert_eq!(lbctl(&endpoint, false, &bad_password).await, Err(2));
    let mut no_pool = create.to_vec();
    no_pool[4] = "us-east-1_nosuchpool";
    assert_eq!(lbctl(&endpoint, false, &no_pool).await, Err(2));
    let mut empty_file = create.to_vec();
    empty_file.extend(["--password-file", &empty]);
    assert_eq!(lbctl(&endpoint, false, &empty_file).await, Err(2));
    assert_eq!(users(&cognito, &pool).await, 1);
    std::fs::remove_dir_all(&dir).unwrap();
}
