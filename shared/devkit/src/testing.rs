//! Test support: one DynamoDB Local per test run, a fresh table per test, raw dumps, and the
//! contract's rank order as the oracle tests compare listings with.
//!
//! The endpoint comes from `DYNAMODB_ENDPOINT` when the test command started DynamoDB Local
//! once for the whole run (the README's test command does). Without it, the first test of a test
//! binary starts one on a free port, shared by that binary's tests and stopped when it exits.

use std::collections::HashMap;
use std::sync::OnceLock;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::AttributeValue;
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use tokio::sync::OnceCell;

use crate::local::{DynamoDbLocal, client};
use crate::template::TableDefinition;

/// A raw table item.
pub type RawItem = HashMap<String, AttributeValue>;

static LOCAL: OnceCell<DynamoDbLocal> = OnceCell::const_new();
static PROCESS_LOCAL: OnceCell<DynamoDbLocal> = OnceCell::const_new();
static DEFINITION: OnceLock<TableDefinition> = OnceLock::new();

/// The DynamoDB Local endpoint of this test run, starting one if none was given.
pub async fn endpoint() -> String {
    if let Ok(ep) = std::env::var("DYNAMODB_ENDPOINT") {
        return ep;
    }
    LOCAL
        .get_or_init(|| async {
            DynamoDbLocal::start(0)
                .await
                .unwrap_or_else(|e| panic!("cannot start DynamoDB Local for tests: {e}"))
        })
        .await
        .endpoint()
        .to_owned()
}

/// The table definition of `template.yaml`, read once.
pub fn definition() -> &'static TableDefinition {
    DEFINITION.get_or_init(|| {
        TableDefinition::from_repo().unwrap_or_else(|e| panic!("template.yaml: {e}"))
    })
}

/// A table of its own for one test, created from `template.yaml` on the run's DynamoDB Local.
#[derive(Clone)]
pub struct TestTable {
    /// A client for the local endpoint.
    pub client: Client,
    /// The table's unique name.
    pub name: String,
    /// The endpoint.
    pub endpoint: String,
}

impl TestTable {
    /// Creates a uniquely named table exactly as `template.yaml` defines it; `label` shows up in
    /// its name for debugging.
    pub async fn new(label: &str) -> TestTable {
        Self::create(label, definition()).await
    }

    /// The same table without its stream, for tests that load many items and read no stream:
    /// DynamoDB Local slows down for every table once a streamed table has taken tens of
    /// thousands of writes, so bulk tests must not feed a stream.
    pub async fn without_stream(label: &str) -> TestTable {
        let mut def = definition().clone();
        def.stream_view_type = None;
        Self::create(label, &def).await
    }

    /// A streamed table on the DynamoDB Local of this test process (started with its first
    /// such table, stopped when the process exits), for a test that writes tens of thousands
    /// of items *and* reads the stream: it slows down only the tests of its own process (its
    /// module's, as the test command runs them), not the emulator every other process of the
    /// run shares. One emulator a process, not one a table: a fresh emulator spends about a
    /// fifth of its CPU compiling itself, and the projection module's four such tables each on
    /// their own took 166 s of the machine's CPU, all four on one 142 s. Not one for the whole
    /// run either: an emulator holding earlier modules' streamed tables made the projector's
    /// rank index test take three times as long. Started brief ([`DynamoDbLocal::start_brief`]).
    pub async fn on_process_local(label: &str) -> TestTable {
        let local = PROCESS_LOCAL
            .get_or_init(|| async {
                DynamoDbLocal::start_brief(0)
                    .await
                    .unwrap_or_else(|e| panic!("cannot start a DynamoDB Local: {e}"))
            })
            .await;
        Self::create_at(label, definition(), local.endpoint().to_owned()).await
    }

    /// Turns the table's stream on (with the template's view type) or off. A test that
    /// bulk-loads and then reads only what follows turns it on after the load; one that only
    /// loads turns it off (see [`TestTable::without_stream`] for why).
    pub async fn set_stream(&self, on: bool) {
        use aws_sdk_dynamodb::types::{StreamSpecification, StreamViewType};
        let mut spec = StreamSpecification::builder().stream_enabled(on);
        if on {
            let view = definition()
                .stream_view_type
                .as_deref()
                .unwrap_or("NEW_AND_OLD_IMAGES");
            spec = spec.stream_view_type(StreamViewType::from(view));
        }
        self.client
            .update_table()
            .table_name(&self.name)
            .stream_specification(spec.build().unwrap())
            .send()
            .await
            .unwrap_or_else(|e| panic!("stream of {}: {e:?}", self.name));
    }

    async fn create(label: &str, def: &TableDefinition) -> TestTable {
        Self::create_at(label, def, endpoint().await).await
    }

    async fn create_at(label: &str, def: &TableDefinition, endpoint: String) -> TestTable {
        let client = client(&endpoint);
        let label: String = label
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .take(40)
            .collect();
        let name = format!("t_{label}_{:016x}", rand::random::<u64>());
        def.create(&client, &name)
            .await
            .unwrap_or_else(|e| panic!("create table {name}: {e}"));
        TestTable {
            client,
            name,
            endpoint,
        }
    }

    /// Every item of the table, sorted by `(pk, sk)`: compare two dumps to prove that nothing
    /// was written.
    pub async fn dump(&self) -> Vec<RawItem> {
        let mut items = Vec::new();
        let mut start = None;
        loop {
            let out = self
                .client
                .scan()
                .table_name(&self.name)
                .consistent_read(true)
                .set_exclusive_start_key(start)
                .send()
                .await
                .unwrap_or_else(|e| panic!("scan {}: {e:?}", self.name));
            items.extend(out.items.unwrap_or_default());
            start = out.last_evaluated_key;
            if start.is_none() {
                break;
            }
        }
        let key = |i: &RawItem, k: &str| {
            i.get(k)
                .and_then(|v| v.as_s().ok())
                .cloned()
                .unwrap_or_default()
        };
        items.sort_by_key(|i| (key(i, "pk"), key(i, "sk")));
        items
    }

    /// Every item of one partition, in `sk` order, read consistently: what a test that checks one
    /// board among many reads instead of [`TestTable::dump`], whose scan grows with every board
    /// the test made before.
    pub async fn partition(&self, pk: &str) -> Vec<RawItem> {
        self.client
            .query()
            .table_name(&self.name)
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", AttributeValue::S(pk.into()))
            .consistent_read(true)
            .into_paginator()
            .items()
            .send()
            .collect::<Result<Vec<_>, _>>()
            .await
            .unwrap_or_else(|e| panic!("query {pk}: {e:?}"))
    }

    /// The raw item at `(pk, sk)`, read consistently.
    pub async fn raw(&self, pk: &str, sk: &str) -> Option<RawItem> {
        self.client
            .get_item()
            .table_name(&self.name)
            .key("pk", AttributeValue::S(pk.into()))
            .key("sk", AttributeValue::S(sk.into()))
            .consistent_read(true)
            .send()
            .await
            .unwrap_or_else(|e| panic!("get {pk}/{sk}: {e:?}"))
            .item
    }

    /// Updates the raw item at `(pk, sk)` with `expression` (no placeholders): for a test that
    /// stores an item as an older version would have, bypassing the store's rules.
    pub async fn update_raw(&self, pk: &str, sk: &str, expression: &str) {
        self.update_raw_with(pk, sk, expression, &[]).await;
    }

    /// [`TestTable::update_raw`] with `values` for the expression's `:placeholders`: for a test
    /// that puts an item where another run (or a stop) would have left it.
    pub async fn update_raw_with(
        &self,
        pk: &str,
        sk: &str,
        expression: &str,
        values: &[(&str, AttributeValue)],
    ) {
        // DynamoDB refuses an empty map of values.
        let values = (!values.is_empty()).then(|| {
            values
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect()
        });
        self.client
            .update_item()
            .table_name(&self.name)
            .key("pk", AttributeValue::S(pk.into()))
            .key("sk", AttributeValue::S(sk.into()))
            .update_expression(expression)
            .set_expression_attribute_values(values)
            .send()
            .await
            .unwrap_or_else(|e| panic!("update {pk}/{sk}: {e:?}"));
    }
}

/// A string attribute of a raw item, for assertions.
pub fn s<'a>(item: &'a RawItem, attr: &str) -> Option<&'a str> {
    item.get(attr)
        .and_then(|v| v.as_s().ok())
        .map(String::as_str)
}

/// A number attribute of a raw item, as its decimal text, for assertions.
pub fn n<'a>(item: &'a RawItem, attr: &str) -> Option<&'a str> {
    item.get(attr)
        .and_then(|v| v.as_n().ok())
        .map(String::as_str)
}

/// The rank order the contract defines, for (player, score, attainedAt) entries: the better
/// score first (higher on `desc`, lower on `asc`), then the earlier time, then, for a full tie,
/// the greater playerId bytes (where a descending read of the sort key puts it).
pub fn ranked(
    mut entries: Vec<(PlayerId, u64, Timestamp)>,
    order: Order,
) -> Vec<(PlayerId, u64, Timestamp)> {
    entries.sort_by(|a, b| {
        let by_score = match order {
            Order::Desc => b.1.cmp(&a.1),
            Order::Asc => a.1.cmp(&b.1),
        };
        by_score
            .then(a.2.cmp(&b.2))
            .then(b.0.as_str().as_bytes().cmp(a.0.as_str().as_bytes()))
    });
    entries
}

/// The claims of a JWT, read without verifying it: what a test checks of the tokens it was
/// given (an emulator's, the stack's own).
pub fn token_claims(token: &str) -> serde_json::Value {
    use base64::Engine;
    let payload = token.split('.').nth(1).unwrap_or_default();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap_or_else(|e| panic!("not a JWT ({e}): {token}"));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("not JSON claims ({e}): {token}"))
}
