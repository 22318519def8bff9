//! Rank maintenance: the runs that keep a board's rank index whole beside live plays. A
//! rebuild into a fresh generation, the repair of boards a play found behind, and the move of
//! boards made before the index onto it (one board, or a sweep of the table).

pub(crate) mod migration;
pub(crate) mod rebuild;
pub(crate) mod repair;
pub(crate) mod staged;
pub(crate) mod sweep;
