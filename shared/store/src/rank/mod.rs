//! The rank floor: the rank index's home in the store. Everything that reads or writes the
//! index's items (a board's lanes and their change log, the counter tries, the journal of
//! applied changes, who leads, the second layout a widening board writes) is here, built on
//! the floors below; the items' keys and the trie arithmetic are the key schema's
//! ([`leaderboard_keys::rank_index`]).
//!
//! - [`lanes`]: a board's lanes, where a play's score change is logged first.
//! - [`apply`]: a batch of lane changes applied to the trie (with [`journal`] and [`lead`]).
//! - [`lookup`], [`count`], [`entry`]: a rank, the counts it stands on, a player's ranked entry;
//!   [`snapshot`]: a rank's read of its path's nodes; [`index_copy`]: the plays' copies of a
//!   hot board's root and top nodes; [`lane_caps`]: a hot board's lanes capped, so that a rank
//!   from a copy reads its own lane only.
//! - [`inspect`]: the index as stored, for an operator's check; [`distribution`]: a board's
//!   shape from it (percentiles, histogram, lanes' lag).
//! - [`second_layout`]: the changes a widening board also writes at its new width.
//! - [`settings`]: the settings version a change of a board's settings writes on its lanes,
//!   and a play's lane update checks.
//! - [`maintenance`]: the runs that keep the index whole beside live plays (rebuild, repair,
//!   grouping, migration, sweep, widening).
//!
//! Callers outside the floor reach it through [`Rank`] (`store.rank()`); the features use its
//! `impl Table` pieces too.

pub(crate) mod apply;
pub(crate) mod compact;
pub(crate) mod count;
pub(crate) mod distribution;
pub(crate) mod entry;
pub(crate) mod index_copy;
pub(crate) mod inspect;
pub(crate) mod journal;
pub(crate) mod lane_caps;
pub(crate) mod lanes;
pub(crate) mod lead;
pub(crate) mod lookup;
pub(crate) mod maintenance;
pub(crate) mod second_layout;
pub(crate) mod settings;
pub(crate) mod snapshot;

use std::time::Duration;

use crate::table::Table;

/// The rank index, from [`Store::rank`](crate::Store::rank): a handle on the store's table
/// and its lane pause, so that a call names where its code lives. Apply a batch of lane
/// changes (`apply_lane_changes`), answer a rank (`player_rank_counted`), read the index as
/// stored (`index_state`, `score_buckets`), and each maintenance run, a bounded step at a time
/// (`rebuild_lane_index`, `repair_rank_indexes`, `group_lanes`, `migration_step`,
/// `sweep_rank_layout`, `widen_step`).
#[derive(Clone, Copy)]
pub struct Rank<'a> {
    pub(crate) table: &'a Table,
    /// The longest a rebuild or a lane grouping holds a lane's plays back.
    pub(crate) lane_pause: Duration,
}
