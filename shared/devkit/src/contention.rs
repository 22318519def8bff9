//! Clients that meet the contention, throttling and slowness DynamoDB Local never has. On a
//! [`faulty_client`], every request of the chosen operations is answered with the chosen
//! [`Fault`] and is never applied (what reaches DynamoDB Local in its place is a `ListTables`):
//! for tests of what a function does when a board is too busy or the table out of capacity
//! (retry within its time budget, then answer 503 or fail its batch, with nothing written). On
//! a [`slow_client`], the chosen operations are applied but their answers arrive late: for tests
//! of a request cut off by its deadline after its write committed.
//!
//! An operation is chosen by its name (`TransactWriteItems`), or by its name and a text its
//! request body holds (`Query:RANKSEQ#`: only the reads of rank index lanes).

use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::interceptors::{
    BeforeDeserializationInterceptorContextMut, BeforeTransmitInterceptorContextMut,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, SharedHttpConnector, http_client_fn,
};
use aws_smithy_runtime_api::client::orchestrator::HttpRequest;
use aws_smithy_runtime_api::http::StatusCode;
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::config_bag::{Storable, StoreReplace};

use crate::local::{http_client, local_config, operation, spec_matches};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// What an injected answer says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// A `TransactionCanceledException` whose reason is `TransactionConflict`: another
    /// transaction on one of the items was in flight.
    Conflict,
    /// A `TransactionConflictException`: a single-item write met a transaction in flight on
    /// its item.
    ItemConflict,
    /// A `ProvisionedThroughputExceededException`: the table is out of capacity.
    Throttled,
}

impl Fault {
    fn body(self) -> &'static str {
        match self {
            Fault::Conflict => CONFLICT,
            Fault::ItemConflict => ITEM_CONFLICT,
            Fault::Throttled => THROTTLED,
        }
    }
}

/// What DynamoDB answers a single-item write that meets a transaction in flight on its item.
const ITEM_CONFLICT: &str = r#"{"__type":"com.amazonaws.dynamodb.v20120810#TransactionConflictException","message":"Transaction is ongoing for the item"}"#;

/// What DynamoDB answers a request over the table's capacity.
const THROTTLED: &str = r#"{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"The level of configured provisioned throughput for the table was exceeded."}"#;

/// What DynamoDB answers a transaction cancelled by another one in flight.
const CONFLICT: &str = r#"{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","Message":"Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]","CancellationReasons":[{"Code":"TransactionConflict","Message":"Transaction is ongoing for the item"}]}"#;

/// Whether `request` is of one of `operations`: a name, or `name:text` for the requests of
/// that name whose body holds `text`.
fn chosen(operations: &[&'static str], request: &HttpRequest) -> bool {
    let op = operation(request);
    let body = request.body().bytes().unwrap_or_default();
    operations.iter().any(|spec| spec_matches(spec, op, body))
}

/// Marks, in the request's config bag, a request this client answers itself.
#[derive(Debug, Clone)]
struct Contended;

impl Storable for Contended {
    type Storer = StoreReplace<Self>;
}

#[derive(Debug)]
struct Contention {
    operations: Vec<&'static str>,
    fault: Fault,
    times: u64,
    seen: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Intercept for Contention {
    fn name(&self) -> &'static str {
        "injected-contention"
    }

    fn modify_before_transmit(
        &self,
        context: &mut BeforeTransmitInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if !chosen(&self.operations, context.request())
            || self.seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst) >= self.times
        {
            return Ok(());
        }
        // What goes out instead reads nothing of the tests' and writes nothing.
        let request = context.request_mut();
        let headers = request.headers_mut();
        headers.insert("x-amz-target", "DynamoDB_20120810.ListTables");
        headers.insert("content-length", "2");
        *request.body_mut() = SdkBody::from("{}");
        cfg.interceptor_state().store_put(Contended);
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        context: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if cfg.load::<Contended>().is_none() {
            return Ok(());
        }
        let response = context.response_mut();
        *response.status_mut() = StatusCode::try_from(400)?;
        let headers = response.headers_mut();
        headers.remove("x-amz-crc32");
        headers.insert("content-type", "application/x-amz-json-1.0");
        let body = self.fault.body();
        headers.insert("content-length", body.len().to_string());
        *response.body_mut() = SdkBody::from(body);
        Ok(())
    }
}

/// A client like [`crate::local::client`] on which the first `times` requests of `operations`
/// (say, `TransactWriteItems`; `u64::MAX` for all) are answered with `fault`, the SDK's own
/// resends included, and never applied. The count is how many requests of `operations` were
/// sent.
pub fn faulty_client(
    endpoint: &str,
    operations: &[&'static str],
    fault: Fault,
    times: u64,
) -> (Client, std::sync::Arc<std::sync::atomic::AtomicU64>) {
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let config = local_config(endpoint)
        .interceptor(Contention {
            operations: operations.to_vec(),
            fault,
            times,
            seen: seen.clone(),
        })
        .build();
    (Client::from_conf(config), seen)
}

/// Delays the answers of some operations: the request is sent and applied at once, its answer
/// handed back `delay` later.
#[derive(Debug)]
struct Slow {
    inner: SharedHttpConnector,
    operations: Vec<&'static str>,
    delay: Duration,
}

impl HttpConnector for Slow {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let delay = chosen(&self.operations, &request).then_some(self.delay);
        let sent = self.inner.call(request);
        HttpConnectorFuture::new(async move {
            let answer = sent.await;
            if let Some(delay) = delay {
                tokio::time::sleep(delay).await;
            }
            answer
        })
    }
}

/// A client like [`crate::local::client`] whose requests of `operations` are applied by DynamoDB
/// Local as usual, but whose answers reach the caller `delay` late: a write that committed
/// while its caller had already stopped waiting.
pub fn slow_client(endpoint: &str, operations: &[&'static str], delay: Duration) -> Client {
    let base = http_client();
    let operations = operations.to_vec();
    let slow = http_client_fn(move |settings, components| {
        SharedHttpConnector::new(Slow {
            inner: base.http_connector(settings, components),
            operations: operations.clone(),
            delay,
        })
    });
    Client::from_conf(local_config(endpoint).http_client(slow).build())
}
