//! The leaderboard's DynamoDB repository: every read and write of the one table goes through
//! [`Store`], which asks [`leaderboard_keys`] for every key and enforces the domain's rules on
//! the way in (identifiers, score ranges, board windows, one entry per player and board).
//!
//! # Layout
//! - [`config`]: `TABLE_NAME` and the cursor secret, read once from the environment.
//! - [`model`]: the entities (Player, Board, Score entry, Session, Final standing, Season
//!   result) as stored and as the API shows them.
//! - `items` and `query`: entity <-> item mapping through `serde_dynamo`, keyed listings with
//!   opaque cursors, and counts that follow every 1 MB page.
//! - `request` and `retry`: the one way a request is built (table-bound builders, transaction
//!   items, placeholders through `serde_dynamo`, the `Index` of a Query) and the retry
//!   policies every loop takes its budget and backoff from.
//! - [`names`]: what a display name may contain; [`metadata`]: what a play's metadata may be.
//! - `players`, `boards`, `scores`, `sessions`: the access patterns AP1-AP9 of seed 002, one
//!   request each; `rank_index`, `rank_lookup`, `rank_count` and [`freshness`]: ranks from
//!   the stream-maintained rank index, with how fresh they are, at a cost that does not grow
//!   with the board; `rank_rebuild` and `rank_repair`: the index rebuilt live;
//!   `rank_migration` and `rank_sweep`: boards made before it moved onto it.
//! - `friends`: the friends listing, chosen players' entries ranked board-wide together.
//! - `moderation`: removing a player's entry from an open board; `bans`: banning a player
//!   (their plays refused, their entries on open boards removed) and lifting the ban.
//! - `close` and [`rollover`]: season close (snapshot, archive, successor), resumable and
//!   safe to run twice at once; `standings`: reads of closed boards.
//! - `plays`: the write path of a play: one consistent batch read, then one transaction that
//!   writes the Session and replaces each changed Score item (conditional delete plus put).
//!
//! Reads that decide a write are strongly consistent; writes are conditional so that no race can
//! leave two entries for one player on one board.
#![warn(missing_docs)]

mod bans;
mod batch;
mod boards;
mod close;
mod close_lease;
pub mod config;
mod cursor;
mod error;
pub mod freshness;
pub mod friends;
pub mod idempotency;
mod items;
pub mod metadata;
pub mod model;
mod moderation;
pub mod names;
mod play_ranks;
mod players;
mod plays;
mod projection;
mod query;
mod rank_count;
mod rank_index;
mod rank_lookup;
mod rank_migration;
mod rank_rebuild;
mod rank_repair;
mod rank_sweep;
mod request;
mod retry;
pub mod rollover;
mod scores;
mod sessions;
mod standings;
pub mod tls;

pub use bans::{Ban, BanOutcome, MAX_BAN_REASON};
pub use batch::{BATCH_WRITE_SIZE, BatchStats};
pub use close::{CloseOptions, CloseProgress, DEFAULT_RETENTION_DAYS};
pub use close_lease::{LEASE_MARGIN, LEASE_WITHOUT_DEADLINE};
pub use config::Config;
pub use cursor::MAX_CURSOR_LEN;
pub use error::{CancelReason, StoreError};
pub use friends::MAX_PLAYER_IDS;
pub use play_ranks::{CommittedPlay, PlayOutcome};
pub use plays::{MAX_BOARDS_PER_PLAY, Play, new_session_id};
pub use projection::{ProjectedSession, ProjectionOutcome, SEQUENCE_DIGITS, SequenceNumber};
pub use query::MAX_PAGE_SIZE;
pub use rank_count::{RankCost, UNINDEXED_LAG};
pub use rank_index::{LaneApplyOutcome, RankBuildStats};
pub use rank_migration::{MigrationStep, needs_migration};
pub use rank_rebuild::{FREE_SCANS, LANE_PAUSE, MAX_SCANS, RebuildOutcome};
pub use rank_repair::{RepairOptions, RepairSummary};
pub use rank_sweep::{SWEEP_PK, SweepOptions, SweepOutcome};
pub use scores::{BoardRank, MAX_AROUND};

use aws_sdk_dynamodb::Client;

/// The repository over one table. Cheap to clone: clones share the SDK client.
#[derive(Clone)]
pub struct Store {
    client: Client,
    table: String,
    cursors: cursor::CursorCodec,
    generations: rank_lookup::GenerationCache,
}

impl Store {
    /// A store over `config.table_name` with an SDK client the caller built.
    pub fn new(client: Client, config: &Config) -> Store {
        Store {
            client,
            table: config.table_name.clone(),
            cursors: cursor::CursorCodec::new(&config.cursor_secret),
            generations: rank_lookup::GenerationCache::default(),
        }
    }

    /// A store configured from the environment: `TABLE_NAME`, `CURSOR_SECRET`,
    /// `LEADERBOARD_TLS_ROOTS` (see [`tls`]), and the SDK's own region, credentials and endpoint
    /// variables.
    pub async fn from_env() -> Result<Store, StoreError> {
        Self::with_sdk_from_env(Config::from_env()?).await
    }

    /// The same for a function that never hands a cursor out: no `CURSOR_SECRET` (see
    /// [`Config::from_env_without_cursors`]).
    pub async fn from_env_without_cursors() -> Result<Store, StoreError> {
        Self::with_sdk_from_env(Config::from_env_without_cursors()?).await
    }

    async fn with_sdk_from_env(config: Config) -> Result<Store, StoreError> {
        let sdk = aws_config::defaults(aws_config::BehaviorVersion::latest())
            .http_client(tls::http_client(tls::TlsRoots::from_env()?)?)
            .load()
            .await;
        Ok(Store::new(Client::new(&sdk), &config))
    }

    /// The SDK client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The table name.
    pub fn table_name(&self) -> &str {
        &self.table
    }
}
