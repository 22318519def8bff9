//! The primitives floor: the pieces of the domain that several features and the rank index
//! share, as `Table` methods built on the table floor: board reads and writes, and the lease a
//! long run holds on a board.

pub(crate) mod boards;
pub(crate) mod lease;
