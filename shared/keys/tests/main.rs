//! The integration tests of this crate, one binary: a module per test file (each linked
//! once, not once per file). Run one file's tests with `cargo test -p <crate> --test it
//! <file>::`; the test command runs each module in a process of its own.

mod common;

mod column_order_props;
mod order_props;
mod rank_caps_props;
mod rank_compact_props;
mod rank_index_props;
mod rank_journal_props;
