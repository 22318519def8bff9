//! The leaderboard's DynamoDB repository: every read and write of the one table goes through
//! [`Store`], which asks [`leaderboard_keys`] for every key and enforces the domain's rules on
//! the way in (identifiers, score ranges, board windows, one entry per player and board).
//!
//! # Floors
//! The crate is built in floors. A module uses only the floors below its own (and, below the
//! features, modules of its own floor); features never call each other, so work two of them
//! share moves down a floor. `tests/floors.rs` reads every `crate::` path and keeps it so.
//!
//! A caller reaches a room through its handle, so that a call names where its code lives:
//! `store.plays().record_play(..)` is in `features/plays`, `store.rank().rebuild_lane_index(..)`
//! in `rank/maintenance`. [`Store`] itself holds construction and the handles.
//!
//! | floor | modules | what it holds |
//! | --- | --- | --- |
//! | 6 features | `plays`, `listings`, `boards`, `board_listing`, `moderation`, `close`, `projection`, `entry_repair`, `inspect`, `guests`, `leagues`, `tournaments`, `rewards` | what the functions ask, a room each, reached by its handle (`store.plays()`, `store.boards()`...): `impl <Handle>` methods |
//! | 5 store | `store` | [`Store`]: construction, and the handles (each feature adds its own) |
//! | 4 rank | `lanes`, `apply`, `compact`, `journal`, `lead`, `lookup`, `snapshot`, `index_copy`, `lane_caps`, `count`, `entry`, `inspect`, `distribution`, `second_layout`, `settings`, `maintenance` | the rank index's home, reached by [`Rank`] (`store.rank()`: apply a batch, a rank, the index as stored, each maintenance run, a board's shape): a board's lanes, applying their changes to the index (its journal, the compact layout's plans, and who leads after them), rank reads and counts (and the plays' copies of a hot board's index they read, and its lanes' caps), a player's ranked entry, a widening board's second layout |
//! | 3 primitives | `board_cache`, `boards`, `cohorts`, `entrants`, `kept`, `lease`, `pass` | the domain pieces features and the rank index share, as `Table` methods: board reads and writes (and the plays' copies of hot boards, on what a process keeps per board), a lease on a board, the resumable pass every table-wide job runs |
//! | 2 table | `Table`, `request`, `retry`, `batch`, `query`, `merge`, `cursor` | the one way a request reaches the table: builders, retry budgets, batches, listings (a sharded board's merged), and cursors |
//! | 1 ground | [`config`], `error`, [`secrets`], [`tls`], `board`, `new_board`, [`recurrence`], [`tournament`], [`rewards`], [`league`], [`model`], `items`, [`names`], [`metadata`], [`freshness`], [`rollover`], [`successor`], [`widening`], `session_id` | errors, configuration and secrets, the TLS client, the stored entities and the pure rules |
//!
//! Reads that decide a write are strongly consistent; writes are conditional so that no race can
//! leave two entries for one player on one board.
#![warn(missing_docs)]

mod features;
mod ground;
mod primitives;
mod rank;
mod store;
mod table;

pub use features::board_listing::{
    BoardListing, LISTING_PASS_PK, ListingPassOptions, ListingPassOutcome,
};
pub use features::boards::{Boards, MAX_BOARDS_PAGE};
pub use features::close::{
    Close, CloseOptions, CloseProgress, DEFAULT_RETENTION_DAYS, RewardWatch, Unannounced,
};
pub use features::entry_repair::{EntryRepair, EntryRepairs};
pub use features::guests::Guests;
pub use features::inspect::{Inspect, StoredEntry, StoredPage};
pub use features::leagues::{LeagueStanding, Leagues, MAX_COHORTS_PAGE};
pub use features::listings::Listings;
pub use features::listings::friends::{self, MAX_PLAYER_IDS};
pub use features::listings::players::{EmailChange, Players};
pub use features::listings::scores::{BoardRank, MAX_AROUND};
pub use features::moderation::Moderation;
pub use features::moderation::audit::{AuditAction, AuditItem};
pub use features::moderation::bans::{Ban, BanOutcome, MAX_BAN_REASON};
pub use features::moderation::erasure::ErasureReceipt;
pub use features::moderation::export::{
    EXPORT_ENTRIES, EXPORT_RESULTS, EXPORT_SESSIONS, ExportedEntry, PlayerExport,
};
pub use features::moderation::key_check::KeyCheck;
pub use features::plays::idempotency;
pub use features::plays::ranks::{CommittedPlay, PlayOutcome};
pub use features::plays::{MAX_BOARDS_PER_PLAY, Play, Plays};
pub use features::projection::recount::{
    PLAY_SETTLE, Recount, RecountOutcome, RecountPages, TotalsCheck,
};
pub use features::projection::recount_run::{
    RECOUNT_PK, RecountRunOptions, RecountRunOutcome, RecountStatus,
};
pub use features::projection::{
    ProjectedSession, Projection, ProjectionOutcome, SEQUENCE_DIGITS, SequenceNumber,
};
pub use features::rewards::Rewards;
pub use features::tournaments::{BoardAction, BoardAuditItem, Joined, Tournaments};
pub use ground::config::{self, Config};
pub use ground::error::{CancelReason, StoreError};
pub use ground::secrets::{self, Secret};
pub use ground::session_id::new_session_id;
pub use ground::{freshness, league, metadata, model, names, tls, tournament, widening};
pub use ground::{recurrence, rewards, rollover, successor};
pub use primitives::lease::{LEASE_MARGIN, LEASE_WITHOUT_DEADLINE};
pub use rank::Rank;
pub use rank::apply::LaneApplyOutcome;
pub use rank::count::{RankCost, UNINDEXED_LAG, UNINDEXED_TOP};
pub use rank::distribution::{
    BoardStats, Bucket, PERCENTILES, Percentile, WANT_BUCKETS, percentiles, score_ranges,
};
pub use rank::inspect::{BUCKET_NODES, IndexState, LaneLag, ScoreBuckets};
pub use rank::lead::{LeaderChange, LeaderWatch, Unwatched};
pub use rank::maintenance::grouping::LaneGrouping;
pub use rank::maintenance::migration::{MigrationStep, needs_migration};
pub use rank::maintenance::rebuild::{FREE_SCANS, MAX_SCANS, RankBuildStats, RebuildOutcome};
pub use rank::maintenance::repair::{RepairOptions, RepairSummary};
pub use rank::maintenance::sweep::{SWEEP_PK, SweepOptions, SweepOutcome};
pub use rank::maintenance::widen::{COPY_UNITS, WidenOptions, WidenPlan, WidenProgress, WidenTo};
pub use rank::maintenance::widen_switch::WIDEN_GRACE;
pub use store::{LANE_PAUSE, Store};
pub use table::batch::{BATCH_WRITE_SIZE, BatchStats};
pub use table::cursor::MAX_CURSOR_LEN;
pub use table::merge::merged_read_bound;
pub use table::query::MAX_PAGE_SIZE;
