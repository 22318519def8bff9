//! The primitives floor: the pieces of the domain that several features share, as `Table`
//! methods built on the table floor (and on each other): a board's lanes and how their changes
//! are applied to the rank index, rank reads and counts, a player's ranked entry, board reads
//! and writes, the lease a long run holds on a board, and the second layout a widening board's
//! changes write.

pub(crate) mod boards;
pub(crate) mod entry_rank;
pub(crate) mod lanes;
pub(crate) mod lease;
pub(crate) mod rank_apply;
pub(crate) mod rank_count;
pub(crate) mod rank_journal;
pub(crate) mod rank_lead;
pub(crate) mod rank_lookup;
pub(crate) mod second_layout;
