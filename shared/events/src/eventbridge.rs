//! Publishing to an EventBridge bus: `PutEvents`, at most [`ENTRIES_PER_REQUEST`] entries a
//! request, each entry the event's `source`, `detail-type` and `detail`. Entries the bus
//! refuses (`FailedEntryCount`: throttled, an internal failure) are sent again, alone, up to
//! [`ATTEMPTS`] times in all with a doubling pause between (about 0.7 s at most, within any
//! function's time budget); a request the SDK could not send after its own retries fails the
//! publication. A failed publication is the caller's to repeat, with the same event ids.

use std::time::Duration;

use aws_sdk_eventbridge::types::PutEventsRequestEntry;

use crate::Event;

/// `PutEvents` takes at most 10 entries a request.
pub const ENTRIES_PER_REQUEST: usize = 10;

/// Tries of an entry the bus refuses, the first included.
pub const ATTEMPTS: u32 = 4;

/// The pause before the second try; it doubles before each try after.
const FIRST_PAUSE: Duration = Duration::from_millis(100);

/// An EventBridge bus and the client that reaches it.
#[derive(Debug, Clone)]
pub struct Bus {
    client: aws_sdk_eventbridge::Client,
    name: String,
}

impl Bus {
    /// The bus named `name` (or its ARN), reached with `sdk`'s region, credentials and
    /// endpoint.
    pub fn new(sdk: &aws_config::SdkConfig, name: &str) -> Bus {
        Bus {
            client: aws_sdk_eventbridge::Client::new(sdk),
            name: name.to_owned(),
        }
    }

    /// The same bus through `client` (tests: an endpoint on loopback).
    pub fn with_client(client: aws_sdk_eventbridge::Client, name: &str) -> Bus {
        Bus {
            client,
            name: name.to_owned(),
        }
    }

    /// The bus's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Puts `events` on the bus: every one accepted, or an error naming the first refusal.
    pub async fn put(&self, events: &[Event]) -> Result<(), String> {
        for batch in events.chunks(ENTRIES_PER_REQUEST) {
            self.put_batch(batch).await?;
        }
        Ok(())
    }

    async fn put_batch(&self, events: &[Event]) -> Result<(), String> {
        let mut left: Vec<&Event> = events.iter().collect();
        let mut pause = FIRST_PAUSE;
        for attempt in 1..=ATTEMPTS {
            let entries = left.iter().map(|e| self.entry(e)).collect::<Vec<_>>();
            let out = self
                .client
                .put_events()
                .set_entries(Some(entries))
                .send()
                .await
                .map_err(|e| {
                    format!(
                        "PutEvents on {}: {}",
                        self.name,
                        aws_sdk_eventbridge::error::DisplayErrorContext(e)
                    )
                })?;
            if out.failed_entry_count() == 0 {
                return Ok(());
            }
            // The answer's entries are in the request's order; a refused one has an error code.
            let refused: Vec<(&Event, String)> = left
                .iter()
                .zip(out.entries())
                .filter_map(|(event, result)| {
                    let code = result.error_code()?;
                    Some((
                        *event,
                        format!("{code}: {}", result.error_message().unwrap_or("")),
                    ))
                })
                .collect();
            if attempt == ATTEMPTS || refused.is_empty() {
                let why = refused
                    .first()
                    .map(|(e, why)| format!("{} refused {why}", e.event_id()))
                    .unwrap_or_else(|| "entries refused without an error code".to_owned());
                return Err(format!("PutEvents on {}: {why}", self.name));
            }
            left = refused.into_iter().map(|(e, _)| e).collect();
            tokio::time::sleep(pause).await;
            pause *= 2;
        }
        Ok(())
    }

    fn entry(&self, event: &Event) -> PutEventsRequestEntry {
        PutEventsRequestEntry::builder()
            .event_bus_name(&self.name)
            .source(crate::SOURCE)
            .detail_type(event.detail_type())
            .detail(event.detail().to_string())
            .build()
    }
}
