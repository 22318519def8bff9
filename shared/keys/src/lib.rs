//! The leaderboard's key schema: every DynamoDB key the product writes or reads is built and
//! parsed here, so that byte order is rank order everywhere and no function ever assembles a
//! key by hand.
//!
//! The crate is pure: no AWS SDK, no async runtime, no I/O. Games, tools and benchmarks can use
//! it alone.
//!
//! # Layout
//! - [`pad`]: fixed-width zero-padded decimal numbers and inverted (`max - value`) numbers. The
//!   width is a one-way door, so a value that does not fit is an error, never a wrong key.
//! - [`rank`]: the contract's `rankKey` for `desc` and `asc` boards (score, then the inverted
//!   13-digit millisecond tiebreaker), and the Score sort key built on it.
//! - [`columns`]: a board's tiebreak columns, ranked after the score and before the time, and
//!   a play's `subscores` checked against them.
//! - [`ids`]: validated identifiers (`playerId`, `leaderboardId`, `gameId`, ULID `sessionId`,
//!   email). The `#` delimiter never appears inside a segment.
//! - [`rank_index`]: the rank index (lanes with a change log, one trie of counters per board,
//!   batches folded into net deltas), the pure part.
//! - [`subject`]: a token's `sub` claim as a `playerId`, for every identity provider.
//! - [`time`]: millisecond timestamps in the contract's RFC 3339 UTC form.
//! - [`erasure`]: the pseudonym an erased player leaves in final standings.
//! - [`entity`]: the table layout of the contract: primary and GSI keys of every item type,
//!   built from validated parts and parsed back.
//! - [`widen`]: widening a board, the pure part: what a larger `maxScore` asks of its keys.
//! - [`bucket`]: the one hash (of a player to a write shard or lane, of a node to a partition).
//!
//! ```
//! use leaderboard_keys::{ids::PlayerId, rank::{Order, RankKeySpec}};
//!
//! let board = RankKeySpec::new(Order::Desc, 9_999_999_999).unwrap();
//! let bob = PlayerId::parse("p_bob").unwrap();
//! assert_eq!(
//!     board.score_sort_key(9850, 1_719_100_800_000, &bob).unwrap(),
//!     "SCORE#0000009850#8280899199999#p_bob",
//! );
//! ```
#![warn(missing_docs)]

pub mod bucket;
pub mod columns;
pub mod entity;
pub mod erasure;
mod error;
pub mod guest;
pub mod ids;
mod order;
pub mod pad;
pub mod rank;
pub mod rank_index;
pub mod subject;
pub mod time;
pub mod widen;

pub use error::KeyError;
