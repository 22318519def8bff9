//! The functions' HTTP client (`leaderboard_store::tls::http_client`) against DynamoDB Local:
//! both trust-store choices build a client that talks to DynamoDB. The client parses its roots
//! when it makes its first connector, with `expect`: a bad embedded PEM would end a Lambda at
//! its first request (panic = "abort"), and this test would fail instead.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use leaderboard_devkit::testing::TestTable;
use leaderboard_store::tls::{TlsRoots, http_client};

#[tokio::test]
async fn the_functions_http_client_reaches_dynamodb_with_either_trust_store() {
    let table = TestTable::new("http_client").await;
    for roots in [TlsRoots::Amazon, TlsRoots::System] {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new("local", "local", None, None, "test"))
            .endpoint_url(&table.endpoint)
            .http_client(http_client(roots).unwrap())
            .build();
        let described = Client::from_conf(config)
            .describe_table()
            .table_name(&table.name)
            .send()
            .await
            .unwrap_or_else(|e| panic!("{roots:?}: {e:?}"));
        assert_eq!(
            described.table().and_then(|t| t.table_name()),
            Some(table.name.as_str()),
            "{roots:?}"
        );
    }
}
