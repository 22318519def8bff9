//! The primitives floor: the pieces of the domain that several features and the rank index
//! share, built on the table floor: board reads and writes, the plays' copies of hot boards (and what a process keeps per board), a league's cohort cursors, a tournament's count of places, the lease a long run holds, and
//! the resumable pass every table-wide job runs.

pub(crate) mod board_cache;
pub(crate) mod boards;
pub(crate) mod cohorts;
pub(crate) mod entrants;
pub(crate) mod kept;
pub(crate) mod lease;
pub(crate) mod pass;
