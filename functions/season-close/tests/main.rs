//! The integration tests of this crate, one binary: a module per test file (each linked
//! once, not once per file). Run one file's tests with `cargo test -p <crate> --test it
//! <file>::`; the test command runs each module in a process of its own.

mod common;

mod close;
mod events;
mod fence;
mod key_check;
mod leagues;
mod lease;
mod metrics;
mod migration;
mod recount;
mod repair;
mod rewards;
mod schedules;
mod turns;
