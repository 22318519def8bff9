//! The stream poller: what Lambda's event source mapping does for the projector.
//!
//! Every ~200 ms it reads the table's stream (devkit's [`StreamReader`]), drops the records
//! that match none of the template's `FilterCriteria` (Lambda counts those as processed) and
//! those older than `MaximumRecordAgeInSeconds`, and delivers the rest with devkit's
//! [`EventSourceMapping`]: batches of `BatchSize`, the projector's `batchItemFailures`
//! re-delivered from the first failed record, at most `MaximumRetryAttempts` times. What the
//! mapping gives up on would go to the on-failure queue in AWS; here it is logged.
//!
//! Not modelled: `BisectBatchOnFunctionError` (it only applies when the function fails as a
//! whole, which the projector never does: it reports records instead) and parallelization
//! (DynamoDB Local has one shard).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use aws_lambda_events::event::dynamodb::EventRecord;
use lambda_runtime::{Context, LambdaEvent};
use leaderboard_devkit::stream::{
    EventSourceMapping, StartingPosition, StreamReader, sequence_number,
};
use leaderboard_events::Publisher;
use leaderboard_store::{Config, Store};
use stream_projector::Announcing;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use crate::template::StreamMapping;
use crate::{Error, filter};

/// How often the poller looks for new records when it has caught up.
pub const POLL_EVERY: Duration = Duration::from_millis(200);

/// The most records read from the stream in one poll.
const READ_MAX: usize = 1000;

/// What the poller has done so far.
#[derive(Debug, Default)]
pub struct PollerStats {
    /// Records read from the stream.
    pub read: AtomicU64,
    /// Records that passed the filter (delivered at least once).
    pub delivered: AtomicU64,
    /// Records the mapping gave up on (retries exhausted, or too old).
    pub discarded: AtomicU64,
    /// Invocations of the projector.
    pub invocations: AtomicU64,
}

/// Reads the stream and invokes the projector.
pub struct StreamPoller {
    reader: StreamReader,
    mapping: StreamMapping,
    target: Announcing,
    stats: Arc<PollerStats>,
}

impl StreamPoller {
    /// A poller of `reader` delivering to the projector over `target` (the store, publishing
    /// `NewLeader`), with the template's mapping settings.
    pub fn new(reader: StreamReader, mapping: StreamMapping, target: Announcing) -> StreamPoller {
        StreamPoller {
            reader,
            mapping,
            target,
            stats: Arc::default(),
        }
    }

    /// Its counters (shared; they move while it runs).
    pub fn stats(&self) -> Arc<PollerStats> {
        Arc::clone(&self.stats)
    }

    /// Starts a poller of `table`'s stream (from its oldest record) on the DynamoDB Local at
    /// `endpoint`, on a thread of its own with a single-threaded runtime, as one Lambda
    /// invocation at a time per shard. It polls until `shutdown` turns true; the handle
    /// resolves when its thread has ended.
    ///
    /// Why a thread: `stream_projector::handle`'s future is not `Send` (its per-player
    /// `buffer_unordered` closure borrows the batch in a way the compiler cannot prove `Send`
    /// for every lifetime), so it cannot run in a task of the multi-threaded runtime. The
    /// thread has its own SDK clients, so no connection is shared between runtimes.
    pub async fn spawn(
        endpoint: &str,
        config: &Config,
        mapping: StreamMapping,
        publisher: Publisher,
        shutdown: watch::Receiver<bool>,
    ) -> Result<(Arc<PollerStats>, JoinHandle<()>), Error> {
        let endpoint = endpoint.to_owned();
        let config = config.clone();
        let (ready, started) = oneshot::channel::<Result<Arc<PollerStats>, Error>>();
        let thread = std::thread::Builder::new()
            .name("stream-poller".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready.send(Err(e.into()));
                        return;
                    }
                };
                runtime.block_on(async move {
                    let reader = StreamReader::for_table(
                        &endpoint,
                        &config.table_name,
                        StartingPosition::TrimHorizon,
                    )
                    .await;
                    let reader = match reader {
                        Ok(r) => r,
                        Err(e) => {
                            let _ = ready.send(Err(e.into()));
                            return;
                        }
                    };
                    let store = Store::new(leaderboard_devkit::local::client(&endpoint), &config);
                    let poller =
                        StreamPoller::new(reader, mapping, Announcing::new(store, publisher));
                    let _ = ready.send(Ok(poller.stats()));
                    poller.run(shutdown).await;
                });
            })?;
        let stats = started
            .await
            .map_err(|_| Error::Config("the stream poller's thread ended early".into()))??;
        let joined = tokio::task::spawn_blocking(move || {
            let _ = thread.join();
        });
        Ok((stats, joined))
    }

    /// Polls until `shutdown` turns true.
    pub async fn run(mut self, mut shutdown: watch::Receiver<bool>) {
        loop {
            let polled = self.poll_once().await;
            // An error while stopping is DynamoDB Local going away first: not worth a warning.
            if *shutdown.borrow() {
                return;
            }
            let idle = match polled {
                Ok(n) => n == 0,
                Err(e) => {
                    tracing::warn!(error = %e, "stream read failed; retrying");
                    true
                }
            };
            if idle {
                tokio::select! {
                    _ = tokio::time::sleep(POLL_EVERY) => {}
                    _ = crate::stopped(&mut shutdown) => return,
                }
            }
        }
    }

    /// Reads what is in the stream now and delivers it. Returns the number of records read.
    pub async fn poll_once(&mut self) -> Result<usize, leaderboard_devkit::DevError> {
        let records = self.reader.read(READ_MAX).await?;
        let read = records.len();
        if read == 0 {
            return Ok(0);
        }
        self.stats.read.fetch_add(read as u64, Ordering::Relaxed);
        let now = chrono::Utc::now();
        let mut batch: Vec<EventRecord> = Vec::with_capacity(read);
        for record in records {
            if let Some(max) = self.mapping.max_record_age {
                let age = now - record.change.approximate_creation_date_time;
                if age.to_std().is_ok_and(|age| age > max) {
                    self.discard(&[record], "older than MaximumRecordAgeInSeconds");
                    continue;
                }
            }
            let json = serde_json::to_value(&record).unwrap_or_default();
            if filter::passes(&self.mapping.filters, &json) {
                batch.push(record);
            }
        }
        if batch.is_empty() {
            return Ok(read);
        }
        self.stats
            .delivered
            .fetch_add(batch.len() as u64, Ordering::Relaxed);
        let esm = EventSourceMapping {
            batch_size: self.mapping.batch_size,
            max_retries: self.mapping.max_retries,
            retry_delay: Duration::from_millis(100),
        };
        let report = esm
            .deliver(&batch, |event| {
                self.stats.invocations.fetch_add(1, Ordering::Relaxed);
                stream_projector::handle(&self.target, LambdaEvent::new(event, Context::default()))
            })
            .await;
        if !report.discarded.is_empty() {
            self.discard(&report.discarded, "retries exhausted");
        }
        Ok(read)
    }

    fn discard(&self, records: &[EventRecord], why: &str) {
        self.stats
            .discarded
            .fetch_add(records.len() as u64, Ordering::Relaxed);
        for r in records {
            tracing::error!(
                sequence_number = sequence_number(r).unwrap_or("-"),
                event = %r.event_name,
                reason = why,
                "stream record given up on (in AWS: sent to the on-failure queue)"
            );
        }
    }
}
