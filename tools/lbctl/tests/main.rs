//! The integration tests of this crate, one binary: a module per test file (each linked
//! once, not once per file). Run one file's tests with `cargo test -p <crate> --test it
//! <file>::`; the test command runs each module in a process of its own.

mod common;

mod admin;
mod boards;
mod browse;
mod cli;
mod docs;
mod explain;
mod export;
mod expr;
mod leagues;
mod moderate;
mod recount;
mod replay;
mod stats;
mod verify;
mod verify_totals;
mod widen;
