//! Rank maintenance: the runs that keep a board's rank index whole beside live plays. A
//! rebuild into a fresh generation, the repair of boards a play found behind, and the move of
//! boards made before the index onto it, and of their lanes under one partition key (one
//! board, or a sweep of the table); and the widening of a board to a larger `maxScore`, whose
//! entries and index move to a new width together.

pub(crate) mod grouping;
pub(crate) mod lane_holds;
pub(crate) mod migration;
pub(crate) mod rebuild;
pub(crate) mod repair;
pub(crate) mod staged;
pub(crate) mod sweep;
pub(crate) mod widen;
pub(crate) mod widen_copy;
pub(crate) mod widen_switch;
