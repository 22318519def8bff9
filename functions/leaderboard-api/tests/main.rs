//! The integration tests of this crate, one binary: a module per test file (each linked
//! once, not once per file). Run one file's tests with `cargo test -p <crate> --test it
//! <file>::`; the test command runs each module in a process of its own.

mod common;

mod api;
mod audit;
mod bans;
mod boards;
mod emails;
mod entries;
mod erasure;
mod export;
mod friends;
mod identity;
mod init;
mod leagues;
mod metrics;
mod moderation;
mod players;
mod policy;
mod recount;
mod rewards;
mod stats;
mod tournaments;
