//! The local stack wired in process for the load benchmarks ([`crate::load`],
//! [`crate::live_rank`]), as `leaderboard_local::Stack` wires it, except that its DynamoDB
//! clients talk to DynamoDB Local through counting [`Proxy`]s: one for the HTTP functions'
//! store, one for the stream poller (its stream reads and the projector's writes), so their
//! requests are told apart. A further HTTP API on its own port and proxy
//! ([`Stack::second_api`]) counts one client's requests apart from everyone else's. The
//! season-close schedule is not started (it would add one Query a minute).
//!
//! [`Conn`] is a game client's keep-alive HTTP/1.1 connection to an API.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use leaderboard_events::{EventLog, Publisher};
use leaderboard_local::gateway::Gateway;
use leaderboard_local::jwt::JwtKey;
use leaderboard_local::poller::{PollerStats, StreamPoller};
use leaderboard_local::schedule::Schedule;
use leaderboard_local::template::LocalTemplate;
use leaderboard_store::{Config, Store};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::proxy::Proxy;

/// The secret the benchmarks sign their players' tokens with.
const SECRET: &str = "bench-jwt-secret";

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// The stack, running.
pub struct Stack {
    /// The HTTP API's address.
    pub addr: SocketAddr,
    /// The key its tokens are checked with.
    pub key: JwtKey,
    /// In front of the HTTP functions' store.
    pub store_proxy: Proxy,
    /// In front of the stream poller and the projector.
    pub poller_proxy: Proxy,
    /// What the stream poller did.
    pub poller: Arc<PollerStats>,
    /// A client straight to DynamoDB Local (no proxy).
    pub direct: aws_sdk_dynamodb::Client,
    endpoint: String,
    config: Config,
    /// The HTTP functions' `LANE_CAPS_FROM` (`None`: the default).
    lane_caps_from: Option<u64>,
    template: Arc<LocalTemplate>,
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl Stack {
    /// Starts the stack on `table` at DynamoDB Local's `endpoint`.
    pub async fn start(endpoint: &str, table: &str) -> Result<Stack, String> {
        Self::start_with(endpoint, table, None).await
    }

    /// [`Stack::start`], the HTTP functions capping a board's lanes from `lane_caps_from`
    /// plays a second (`None`: the default).
    pub async fn start_with(
        endpoint: &str,
        table: &str,
        lane_caps_from: Option<u64>,
    ) -> Result<Stack, String> {
        let store_proxy = Proxy::in_front_of(endpoint).await.map_err(err)?;
        let poller_proxy = Proxy::in_front_of(endpoint).await.map_err(err)?;
        let template = Arc::new(LocalTemplate::from_repo().map_err(err)?);
        let config = Config {
            table_name: table.to_owned(),
            cursor_secret: b"bench-cursor-secret".to_vec(),
        };
        let (stop, stopped) = watch::channel(false);
        let (poller, poller_task) = StreamPoller::spawn(
            &poller_proxy.endpoint(),
            &config,
            template.stream.clone(),
            Publisher::Off,
            stopped,
        )
        .await
        .map_err(err)?;
        let mut stack = Stack {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            key: JwtKey::new(SECRET),
            direct: leaderboard_devkit::local::client(endpoint),
            endpoint: endpoint.to_owned(),
            store_proxy,
            poller_proxy,
            poller,
            config,
            lane_caps_from,
            template,
            stop,
            tasks: vec![poller_task],
        };
        stack.addr = stack.serve(&stack.store_proxy.endpoint()).await?;
        Ok(stack)
    }

    /// An HTTP API of the stack's on its own port whose store talks to DynamoDB Local through
    /// its own proxy: what one client's requests cost, counted apart.
    pub async fn second_api(&mut self) -> Result<(SocketAddr, Proxy), String> {
        let proxy = Proxy::in_front_of(&self.endpoint).await.map_err(err)?;
        let addr = self.serve(&proxy.endpoint()).await?;
        Ok((addr, proxy))
    }

    /// Serves the HTTP API on a free port with a store at `store_endpoint`.
    async fn serve(&mut self, store_endpoint: &str) -> Result<SocketAddr, String> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(err)?;
        let addr = listener.local_addr().map_err(err)?;
        let mut store = Store::new(
            leaderboard_devkit::local::client(store_endpoint),
            &self.config,
        );
        if let Some(from) = self.lane_caps_from {
            store = store.with_lane_caps_from(from);
        }
        let close = season_close::App::from_env(store.clone()).map_err(err)?;
        let schedule = Arc::new(Schedule::new(close, self.template.close_timeout));
        let gateway = Arc::new(Gateway::new(
            Arc::clone(&self.template),
            leaderboard_local::cors::Cors::off(),
            self.key.clone().into(),
            store,
            schedule,
            Arc::new(EventLog::new(0)),
            addr.to_string(),
        ));
        self.tasks
            .push(tokio::spawn(leaderboard_local::server::serve(
                listener,
                gateway,
                self.stop.subscribe(),
            )));
        Ok(addr)
    }

    /// A player's token, valid for an hour.
    pub fn token(&self, player: &str, groups: &[&str]) -> String {
        self.key
            .token_for(player, groups, chrono::Utc::now().timestamp(), 3600)
    }

    /// Stops the servers and the poller.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        for task in self.tasks {
            let _ = tokio::time::timeout(Duration::from_secs(10), task).await;
        }
    }
}

/// A keep-alive HTTP/1.1 connection to the API: a game client's.
pub struct Conn {
    addr: SocketAddr,
    sender: Option<hyper::client::conn::http1::SendRequest<Full<Bytes>>>,
}

impl Conn {
    /// A connection to `addr`, opened on the first request.
    pub fn new(addr: SocketAddr) -> Conn {
        Conn { addr, sender: None }
    }

    /// Sends one request (a JSON body if any): the status and the body.
    pub async fn send(
        &mut self,
        method: http::Method,
        path: &str,
        token: &str,
        body: Option<String>,
    ) -> Result<(u16, Bytes), String> {
        if self.sender.as_mut().is_none_or(|s| s.is_closed()) {
            let stream = TcpStream::connect(self.addr).await.map_err(err)?;
            let _ = stream.set_nodelay(true);
            let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
                .await
                .map_err(err)?;
            tokio::spawn(conn);
            self.sender = Some(sender);
        }
        let sender = self.sender.as_mut().ok_or("no connection")?;
        sender.ready().await.map_err(err)?;
        let mut req = http::Request::builder()
            .method(method)
            .uri(path)
            .header(http::header::HOST, self.addr.to_string())
            .header(http::header::AUTHORIZATION, format!("Bearer {token}"));
        if body.is_some() {
            req = req.header(http::header::CONTENT_TYPE, "application/json");
        }
        let req = req
            .body(Full::new(Bytes::from(body.unwrap_or_default())))
            .map_err(err)?;
        let resp = sender.send_request(req).await.map_err(err)?;
        let status = resp.status().as_u16();
        let body = resp.into_body().collect().await.map_err(err)?.to_bytes();
        Ok((status, body))
    }

    /// `POST path` with a JSON body: the status.
    pub async fn post(&mut self, path: &str, token: &str, body: String) -> Result<u16, String> {
        Ok(self
            .send(http::Method::POST, path, token, Some(body))
            .await?
            .0)
    }
}
