//! The features floor: what the functions ask of the store, each a group of `impl Store`
//! methods built on the floors below. Features never call each other: work two of them share
//! lives a floor down.

pub(crate) mod board_listing;
pub(crate) mod boards;
pub(crate) mod close;
pub(crate) mod entry_repair;
pub(crate) mod guests;
pub(crate) mod inspect;
pub(crate) mod leagues;
pub(crate) mod listings;
pub(crate) mod moderation;
pub(crate) mod plays;
pub(crate) mod projection;
pub(crate) mod rewards;
pub(crate) mod tournaments;
