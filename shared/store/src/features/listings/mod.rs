//! Listings: the reads a game and its players make. Scores (top-N, a player's entry and rank,
//! around a player), friends ranked board-wide, the standings and results of closed boards,
//! sessions, and player profiles.

pub mod friends;
pub(crate) mod players;
pub(crate) mod scores;
pub(crate) mod sessions;
pub(crate) mod standings;

pub use scores::Listings;
