//! The rank floor: the rank index's home in the store. Everything that reads or writes the
//! index's items (a board's lanes and their change log, the counter tries, the journal of
//! applied changes, who leads, the second layout a widening board writes) is here, built on
//! the floors below; the items' keys and the trie arithmetic are the key schema's
//! ([`leaderboard_keys::rank_index`]).
//!
//! - [`lanes`]: a board's lanes, where a play's score change is logged first.
//! - [`apply`]: a batch of lane changes applied to the trie (with [`journal`] and [`lead`]).
//! - [`lookup`], [`count`], [`entry`]: a rank, the counts it stands on, a player's ranked entry.
//! - [`second_layout`]: the changes a widening board also writes at its new width.

pub(crate) mod apply;
pub(crate) mod count;
pub(crate) mod entry;
pub(crate) mod journal;
pub(crate) mod lanes;
pub(crate) mod lead;
pub(crate) mod lookup;
pub(crate) mod second_layout;
