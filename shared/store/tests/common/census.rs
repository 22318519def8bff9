//! The requests a store operation sends, counted by DynamoDB operation on DynamoDB Local: a
//! store whose client counts, and the census of one operation (`Operation n, ...`).

use std::future::Future;
use std::sync::Arc;

use leaderboard_devkit::local::{RequestCounter, counting_client};
use leaderboard_devkit::testing::TestTable;
use leaderboard_store::{Config, Store};

/// A store over a fresh table whose client counts its requests.
pub async fn counted(label: &str) -> (TestTable, Store, Arc<RequestCounter>) {
    // No stream: nothing here reads it, and a streamed table's writes cost DynamoDB Local more.
    let table = TestTable::without_stream(label).await;
    let (store, counter) = counted_on(&table);
    (table, store, counter)
}

/// Another store over `table` (a fresh process: nothing cached) whose client counts.
pub fn counted_on(table: &TestTable) -> (Store, Arc<RequestCounter>) {
    let (client, counter) = counting_client(&table.endpoint);
    let config = Config {
        table_name: table.name.clone(),
        cursor_secret: b"test-secret".to_vec(),
    };
    (Store::new(client, &config), counter)
}

/// The requests `op` sent, as `Operation n, ...` in name order.
pub async fn census<T>(counter: &RequestCounter, op: impl Future<Output = T>) -> (T, String) {
    counter.reset();
    let out = op.await;
    let counts = counter
        .snapshot()
        .into_iter()
        .map(|(op, n)| format!("{op} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    (out, counts)
}
