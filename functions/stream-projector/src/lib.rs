//! The stream-projector Lambda: the stream projection ([`leaderboard_projection`], re-exported
//! here whole) run on each batch of the table's stream within the invocation's time, with its
//! metrics line.
//!
//! # Time
//! A batch works within the invocation's deadline less [`budget::DEADLINE_MARGIN`], every retry
//! included (the store's and the SDK's); past it, the batch is reported failed from its first
//! record and re-delivered, which the players' watermarks and the rank index's journal make
//! safe.
//!
//! The handler never panics on input: with `panic = "abort"` a panic would fail the whole batch.

pub use leaderboard_projection::*;

pub mod budget;
mod handler;
pub mod metrics;
pub use handler::{handle, handle_measured};
