//! The whole local stack: DynamoDB Local, the table from `template.yaml`, the HTTP API, the
//! stream poller and the schedule, started together and stopped together.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use leaderboard_devkit::local::DynamoDbLocal;
use leaderboard_devkit::template::TableDefinition;
use leaderboard_events::{EventLog, Publisher};
use leaderboard_store::{Config, Store};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::Error;
use crate::cors::Cors;
use crate::gateway::Gateway;
use crate::guests::GuestSettings;
use crate::jwks::{IssuerKeys, IssuerSettings, Verifier};
use crate::jwt::{DEFAULT_SECRET, JwtKey};
use crate::poller::{PollerStats, StreamPoller};
use crate::schedule::Schedule;
use crate::template::LocalTemplate;
use crate::unavailable::Unavailable;

/// The table name when `TABLE_NAME` is not set.
pub const DEFAULT_TABLE: &str = "leaderboard-local";

/// How long a stop waits for the tasks before it aborts them.
const STOP_WITHIN: Duration = Duration::from_secs(10);

/// How many events `GET /local/events` keeps (the oldest go first).
pub const EVENTS_KEPT: usize = 1_000;

/// What the stack is started with (see [`Settings::from_env`]).
#[derive(Clone)]
pub struct Settings {
    /// DynamoDB Local's port (0: any free port).
    pub dynamodb_port: u16,
    /// The HTTP API's port (0: any free port).
    pub api_port: u16,
    /// The table name.
    pub table_name: String,
    /// The HS256 secret of the tokens.
    pub jwt_secret: String,
    /// The cursor secret (`None`: a random one for this run).
    pub cursor_secret: Option<String>,
    /// How often season close runs (`None`: the template's schedule).
    pub close_every: Option<Duration>,
    /// The plays a player may have accepted in any 60 s (0: no limit).
    pub plays_per_minute: u32,
    /// A board's plays a second from which its lanes are capped (`LANE_CAPS_FROM`).
    pub lane_caps_from: u64,
    /// The web origins whose pages may call the API (CORS; empty: none, `*`: any).
    pub cors_origins: Vec<String>,
    /// One play in this many is answered 503 (0: none; see [`crate::unavailable`]).
    pub unavailable_every: u64,
    /// An identity provider whose RS256 tokens the API takes too (`LOCAL_JWT_ISSUER`).
    pub jwt_issuer: Option<IssuerSettings>,
    /// The user pool guests are made in (`LOCAL_COGNITO_ENDPOINT`).
    pub guests: Option<GuestSettings>,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("dynamodb_port", &self.dynamodb_port)
            .field("api_port", &self.api_port)
            .field("table_name", &self.table_name)
            .field("close_every", &self.close_every)
            .field("plays_per_minute", &self.plays_per_minute)
            .field("lane_caps_from", &self.lane_caps_from)
            .field("cors_origins", &self.cors_origins)
            .field("unavailable_every", &self.unavailable_every)
            .field("jwt_issuer", &self.jwt_issuer)
            .field("guests", &self.guests)
            .finish_non_exhaustive()
    }
}

impl Settings {
    /// From the environment: `DYNAMODB_PORT` (default 8000), `LOCAL_API_PORT` (3000),
    /// `TABLE_NAME` (`leaderboard-local`), `LOCAL_JWT_SECRET` (`local-dev-secret`),
    /// `CURSOR_SECRET`, `LOCAL_CLOSE_EVERY_SECS` (the template's rate), `PLAYS_PER_MINUTE` (60,
    /// as the template's default), `LOCAL_CORS_ORIGINS` (none, as the template's
    /// `CorsAllowOrigins`), `LOCAL_UNAVAILABLE_EVERY` (0: no play answered 503),
    /// `LOCAL_JWT_ISSUER` with `LOCAL_JWT_AUDIENCE` and `LOCAL_JWKS_URL` (no identity provider:
    /// only the stack's own tokens), `LOCAL_COGNITO_ENDPOINT` with `LOCAL_USER_POOL_ID`,
    /// `LOCAL_USER_POOL_CLIENT_ID` and `LOCAL_GUESTS_PER_HOUR` (no guest sign-up).
    pub fn from_env() -> Result<Settings, Error> {
        Self::from_lookup(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
    }

    /// The same, through `lookup`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Settings, Error> {
        let port = |name: &str, default: u16| -> Result<u16, Error> {
            lookup(name).map_or(Ok(default), |v| {
                v.parse()
                    .map_err(|_| Error::Config(format!("{name} must be a port number, not {v:?}")))
            })
        };
        let close_every = lookup("LOCAL_CLOSE_EVERY_SECS")
            .map(|v| {
                v.parse::<u64>()
                    .ok()
                    .filter(|s| *s > 0)
                    .map(Duration::from_secs)
                    .ok_or_else(|| {
                        Error::Config(format!(
                            "LOCAL_CLOSE_EVERY_SECS must be a positive integer, not {v:?}"
                        ))
                    })
            })
            .transpose()?;
        Ok(Settings {
            dynamodb_port: port("DYNAMODB_PORT", 8000)?,
            api_port: port("LOCAL_API_PORT", 3000)?,
            table_name: lookup("TABLE_NAME").unwrap_or_else(|| DEFAULT_TABLE.to_owned()),
            jwt_secret: lookup("LOCAL_JWT_SECRET").unwrap_or_else(|| DEFAULT_SECRET.to_owned()),
            cursor_secret: lookup("CURSOR_SECRET"),
            close_every,
            plays_per_minute: leaderboard_store::config::plays_per_minute(&lookup)
                .map_err(|e| Error::Config(e.to_string()))?,
            lane_caps_from: leaderboard_store::config::lane_caps_from(&lookup)
                .map_err(|e| Error::Config(e.to_string()))?,
            cors_origins: crate::cors::parse_origins(
                &lookup("LOCAL_CORS_ORIGINS").unwrap_or_default(),
            )?,
            unavailable_every: lookup("LOCAL_UNAVAILABLE_EVERY")
                .map(|v| {
                    v.parse().map_err(|_| {
                        Error::Config(format!(
                            "LOCAL_UNAVAILABLE_EVERY must be a whole number (0: never), not {v:?}"
                        ))
                    })
                })
                .transpose()?
                .unwrap_or(0),
            jwt_issuer: IssuerSettings::from_lookup(&lookup)?,
            guests: GuestSettings::from_lookup(&lookup)?,
        })
    }
}

/// A running local stack. [`Stack::stop`] stops all of it, DynamoDB Local included (and if the
/// process dies instead, DynamoDB Local's watchdog stops it).
pub struct Stack {
    dynamodb: DynamoDbLocal,
    api_addr: SocketAddr,
    key: JwtKey,
    table: String,
    close_every: Duration,
    poller: Arc<PollerStats>,
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
    unavailable: Arc<Unavailable>,
}

impl Stack {
    /// Starts everything: takes the API port first (so a busy port fails fast), starts
    /// DynamoDB Local, creates the table from `template.yaml`, and starts the HTTP API, the
    /// stream poller and the schedule.
    pub async fn start(settings: Settings) -> Result<Stack, Error> {
        let template = Arc::new(LocalTemplate::from_repo()?);
        let listener = TcpListener::bind(("127.0.0.1", settings.api_port))
            .await
            .map_err(|e| {
                Error::Config(format!(
                    "cannot listen on 127.0.0.1:{} ({e}); set LOCAL_API_PORT to another port",
                    settings.api_port
                ))
            })?;
        let close_every = settings.close_every.unwrap_or(template.close_every);
        let dynamodb = DynamoDbLocal::start(settings.dynamodb_port).await?;
        let unavailable = Arc::new(Unavailable::every(settings.unavailable_every));
        let wired = Self::wire(
            &settings,
            template,
            close_every,
            listener,
            &dynamodb,
            Arc::clone(&unavailable),
        );
        match wired.await {
            Ok((api_addr, poller, stop, tasks)) => Ok(Stack {
                dynamodb,
                api_addr,
                key: JwtKey::new(&settings.jwt_secret),
                table: settings.table_name.clone(),
                close_every,
                poller,
                stop,
                tasks,
                unavailable,
            }),
            Err(e) => {
                dynamodb.stop().await;
                Err(e)
            }
        }
    }

    #[allow(clippy::type_complexity)]
    async fn wire(
        settings: &Settings,
        template: Arc<LocalTemplate>,
        every: Duration,
        listener: TcpListener,
        dynamodb: &DynamoDbLocal,
        unavailable: Arc<Unavailable>,
    ) -> Result<
        (
            SocketAddr,
            Arc<PollerStats>,
            watch::Sender<bool>,
            Vec<JoinHandle<()>>,
        ),
        Error,
    > {
        let endpoint = dynamodb.endpoint();
        let client = leaderboard_devkit::local::client(endpoint);
        TableDefinition::from_repo()?
            .create(&client, &settings.table_name)
            .await?;
        let config = Config::from_lookup(|k| match k {
            "TABLE_NAME" => Some(settings.table_name.clone()),
            "CURSOR_SECRET" => Some(
                settings
                    .cursor_secret
                    .clone()
                    .unwrap_or_else(random_cursor_secret),
            ),
            _ => None,
        })?;
        let store = Store::new(client, &config)
            .with_plays_per_minute(settings.plays_per_minute)
            .with_lane_caps_from(settings.lane_caps_from);
        // The check lbctl compares its ERASURE_SECRET with, there from the start.
        store
            .moderation()
            .keep_erasure_key_check()
            .await
            .map_err(|e| Error::Config(e.to_string()))?;
        let (stop, stopped) = watch::channel(false);
        // What the functions would publish to the stack's event bus (`GET /local/events`).
        let events = Arc::new(EventLog::new(EVENTS_KEPT));
        let (stats, poller) = StreamPoller::spawn(
            endpoint,
            &config,
            template.stream.clone(),
            Publisher::Log(Arc::clone(&events)),
            stopped.clone(),
        )
        .await?;
        let close = season_close::App::from_env(store.clone())
            .map_err(|e| Error::Config(e.to_string()))?
            .with_publisher(Publisher::Log(Arc::clone(&events)));
        let schedule = Arc::new(Schedule::new(close, template.close_timeout));
        let api_addr = listener.local_addr()?;
        let cors = Cors::new(template.cors.clone(), settings.cors_origins.clone())?;
        let issuer = match &settings.jwt_issuer {
            Some(issuer) => Some(IssuerKeys::fetch(issuer).await?),
            None => None,
        };
        let gateway = Gateway::new(
            Arc::clone(&template),
            cors,
            Verifier {
                key: JwtKey::new(&settings.jwt_secret),
                issuer,
            },
            store,
            Arc::clone(&schedule),
            events,
            api_addr.to_string(),
        )
        .with_unavailable(unavailable);
        let gateway = Arc::new(match &settings.guests {
            Some(guests) => gateway.with_guests(guests.accounts()),
            None => gateway,
        });
        let tasks = vec![
            tokio::spawn(crate::server::serve(listener, gateway, stopped.clone())),
            poller,
            tokio::spawn(async move { schedule.run_every(every, stopped).await }),
        ];
        Ok((api_addr, stats, stop, tasks))
    }

    /// The plays answered 503 so far (`LOCAL_UNAVAILABLE_EVERY`): before they ran, and after
    /// they were saved.
    pub fn unavailable_answered(&self) -> (u64, u64) {
        self.unavailable.answered()
    }

    /// The HTTP API's address.
    pub fn api_addr(&self) -> SocketAddr {
        self.api_addr
    }

    /// The HTTP API's base URL, `http://127.0.0.1:<port>`.
    pub fn api_url(&self) -> String {
        format!("http://{}", self.api_addr)
    }

    /// DynamoDB Local's endpoint.
    pub fn dynamodb_endpoint(&self) -> &str {
        self.dynamodb.endpoint()
    }

    /// DynamoDB Local's port.
    pub fn dynamodb_port(&self) -> u16 {
        self.dynamodb.port()
    }

    /// The table name.
    pub fn table_name(&self) -> &str {
        &self.table
    }

    /// The key that signs and verifies tokens.
    pub fn key(&self) -> &JwtKey {
        &self.key
    }

    /// How often season close runs.
    pub fn close_every(&self) -> Duration {
        self.close_every
    }

    /// The stream poller's counters.
    pub fn poller_stats(&self) -> &PollerStats {
        &self.poller
    }

    /// Stops the HTTP API (in-flight requests finish), the poller and the schedule, then
    /// DynamoDB Local.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        for task in self.tasks {
            let abort = task.abort_handle();
            if tokio::time::timeout(STOP_WITHIN, task).await.is_err() {
                abort.abort();
            }
        }
        self.dynamodb.stop().await;
    }
}

/// A cursor secret for one run of the stack: 64 hex digits from the thread's CSPRNG. Cursors
/// then last as long as the run, as the in-memory table does.
fn random_cursor_secret() -> String {
    use rand::Rng;
    let bytes: [u8; 32] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(vars: &[(&str, &str)]) -> Result<Settings, Error> {
        Settings::from_lookup(|k| {
            vars.iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn an_issuer_needs_an_audience_and_finds_its_keys_under_it() {
        assert!(settings(&[]).unwrap().jwt_issuer.is_none());
        let issuer = "http://127.0.0.1:5000/us-east-1_abc";
        let refused = settings(&[("LOCAL_JWT_ISSUER", issuer)]).unwrap_err();
        assert!(
            refused.to_string().contains("LOCAL_JWT_AUDIENCE"),
            "{refused}"
        );
        let got = settings(&[
            ("LOCAL_JWT_ISSUER", issuer),
            ("LOCAL_JWT_AUDIENCE", "client-a, client-b"),
        ])
        .unwrap()
        .jwt_issuer
        .unwrap();
        assert_eq!(got.audiences, ["client-a", "client-b"]);
        assert_eq!(got.jwks_url, format!("{issuer}/.well-known/jwks.json"));
        let named = settings(&[
            (
                "LOCAL_JWT_ISSUER",
                "https://cognito-idp.us-east-1.amazonaws.com/x",
            ),
            ("LOCAL_JWT_AUDIENCE", "c"),
            (
                "LOCAL_JWKS_URL",
                "http://127.0.0.1:5000/x/.well-known/jwks.json",
            ),
        ])
        .unwrap()
        .jwt_issuer
        .unwrap();
        assert_eq!(
            named.jwks_url,
            "http://127.0.0.1:5000/x/.well-known/jwks.json"
        );
    }
}
