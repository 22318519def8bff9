//! The integration tests of this crate, one binary: a module per test file (each linked
//! once, not once per file). Run one file's tests with `cargo test -p <crate> --test it
//! <file>::`; the test command runs each module in a process of its own.

mod common;

mod budget;
mod columns;
mod fair_play;
mod idempotency;
mod init;
mod metrics;
mod refusals;
mod submit;
