//! The state every HTTP function runs with, and the one way its requests are answered: the
//! request's metrics line first, then the answer, every error as the contract's body.

use std::sync::Arc;

use lambda_http::{Body, Response};
use leaderboard_keys::time::Timestamp;
use leaderboard_metrics::Sink;
use leaderboard_store::Store;

use crate::error::{ApiError, respond};
use crate::guests::GuestAccounts;

/// An HTTP function's state: the store, the clock (replaceable in tests) and where its
/// metrics go.
pub struct App {
    store: Store,
    clock: fn() -> Timestamp,
    metrics: Sink,
    guests: Option<Arc<dyn GuestAccounts>>,
}

impl App {
    /// The function over `store`, on the system clock, its metrics on standard output.
    pub fn new(store: Store) -> App {
        App::with_clock(store, Timestamp::now)
    }

    /// The same, on another clock.
    pub fn with_clock(store: Store, clock: fn() -> Timestamp) -> App {
        App {
            store,
            clock,
            metrics: Sink::stdout(),
            guests: None,
        }
    }

    /// The same, its metrics to `sink`.
    pub fn with_metrics(self, sink: Sink) -> App {
        App {
            metrics: sink,
            ..self
        }
    }

    /// The same, making guest accounts with `guests` (`POST /players/guest`; without, that
    /// route answers 404).
    pub fn with_guests(self, guests: Arc<dyn GuestAccounts>) -> App {
        App {
            guests: Some(guests),
            ..self
        }
    }

    /// What makes guest accounts, if this deployment makes them.
    pub fn guests(&self) -> Option<&dyn GuestAccounts> {
        self.guests.as_deref()
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The time now, by the function's clock.
    pub fn now(&self) -> Timestamp {
        (self.clock)()
    }

    /// Where the function's metrics go.
    pub fn metrics(&self) -> &Sink {
        &self.metrics
    }
}

/// What a request reports once its answer is known: its metrics line.
pub trait Report {
    /// Writes the line for `answer` to `sink`.
    fn write(self, sink: &Sink, answer: &Result<Response<Body>, ApiError>);
}

/// Answers one request whose work ended with `result`: writes the request's `report`, then
/// turns an error into the contract's error response. Never fails, so that Lambda never
/// answers for the function.
pub fn answer<R: Report>(
    app: &App,
    report: R,
    result: Result<Response<Body>, ApiError>,
) -> Result<Response<Body>, lambda_http::Error> {
    report.write(app.metrics(), &result);
    Ok(respond(result))
}
