//! The integration tests of this crate, one binary: a module per test file (each linked
//! once, not once per file). Run one file's tests with `cargo test -p <crate> --test it
//! <file>::`; the test command runs each module in a process of its own.

mod common;
#[path = "../../../shared/store/tests/common/index_check.rs"]
mod index_check;

mod budget;
mod columns;
mod erasure;
mod erasure_everywhere;
mod events;
mod metrics;
mod moderation;
mod new_leader;
mod projection;
mod rank_index;
mod rank_lanes;
mod rank_repair;
mod rank_repair_load;
mod stream_reader;
mod widen;
