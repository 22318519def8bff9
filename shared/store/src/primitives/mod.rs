//! The primitives floor: the pieces of the domain that several features share, each built on
//! the table floor only. The rank index's lanes and how a change is applied to them, rank
//! reads and counts, and the lease a long run holds on a board.

pub(crate) mod boards;
pub(crate) mod entry_rank;
pub(crate) mod lanes;
pub(crate) mod lease;
pub(crate) mod rank_apply;
pub(crate) mod rank_count;
pub(crate) mod rank_lookup;
