//! An in-process DynamoDB double for CPU measurements: an SDK HTTP client that answers each
//! request with the next recorded response of DynamoDB Local ([`crate::proxy`] recorded it),
//! so a handler runs its whole code path (SDK serialisation, signing, response parsing) with
//! no socket I/O.
//!
//! The recording is one invocation's conversation. Each request is answered with the next
//! recorded response of the same operation (cycling through that operation's responses), so
//! a handler that reorders concurrent requests, or skips one on a warm invocation (a cache),
//! is still answered; a request of an operation never recorded panics.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpClient,
    SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_runtime_api::http::StatusCode;
use aws_smithy_types::body::SdkBody;

use crate::proxy::{Exchange, operation};

/// The replaying HTTP client.
#[derive(Debug, Clone)]
pub struct Replay {
    by_op: Arc<HashMap<String, Vec<Exchange>>>,
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    next: HashMap<String, usize>,
    answered: BTreeMap<String, u64>,
}

impl Replay {
    /// Replays `exchanges` (one invocation's responses).
    pub fn new(exchanges: Vec<Exchange>) -> Replay {
        assert!(!exchanges.is_empty(), "nothing to replay");
        let mut by_op: HashMap<String, Vec<Exchange>> = HashMap::new();
        for e in exchanges {
            by_op.entry(e.op.clone()).or_default().push(e);
        }
        Replay {
            by_op: Arc::new(by_op),
            state: Arc::default(),
        }
    }

    /// Requests answered so far, by operation.
    pub fn answered(&self) -> BTreeMap<String, u64> {
        self.state
            .lock()
            .map(|s| s.answered.clone())
            .unwrap_or_default()
    }

    /// Forgets the counts of [`Replay::answered`].
    pub fn reset_counts(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.answered.clear();
        }
    }

    /// An SDK client over this double, configured as the functions' clients are on Lambda
    /// (static credentials, region, the default endpoint resolution), minus the network.
    pub fn client(&self) -> Client {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new(
                "AKIDBENCH",
                "secret",
                Some("token".into()),
                None,
                "bench",
            ))
            .http_client(SharedHttpClient::new(self.clone()))
            .build();
        Client::from_conf(config)
    }
}

impl HttpConnector for Replay {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let op = operation(request.headers().get("x-amz-target"));
        let Some(list) = self.by_op.get(&op) else {
            panic!("replay: the handler sent {op}, which the recorded invocation never sent");
        };
        let i = {
            let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
            *s.answered.entry(op.clone()).or_default() += 1;
            let n = s.next.entry(op).or_default();
            let i = *n % list.len();
            *n += 1;
            i
        };
        let ex = &list[i];
        let mut resp = HttpResponse::new(
            StatusCode::try_from(ex.status).unwrap_or(StatusCode::try_from(200).unwrap()),
            SdkBody::from(ex.body.clone()),
        );
        for (k, v) in &ex.headers {
            let _ = resp.headers_mut().try_insert(k.clone(), v.clone());
        }
        HttpConnectorFuture::ready(Ok(resp))
    }
}

impl HttpClient for Replay {
    fn http_connector(
        &self,
        _: &HttpConnectorSettings,
        _: &RuntimeComponents,
    ) -> SharedHttpConnector {
        SharedHttpConnector::new(self.clone())
    }
}
