//! The integration tests of this crate, one binary: a module per test file (each linked
//! once, not once per file). Run one file's tests with `cargo test -p <crate> --test it
//! <file>::`; the test command runs each module in a process of its own.

#[path = "common/census.rs"]
mod census;
mod common;
#[path = "common/index_check.rs"]
mod index_check;

mod access_patterns;
mod audit;
mod bans;
mod board_copies;
mod board_lanes;
mod board_listing;
mod columns;
mod emails;
mod erasure;
mod export;
mod floors;
mod friends_budget;
mod guests;
mod hostile_input;
mod http_client;
mod index_copies;
mod lane_caps;
mod lane_grouping;
mod league_close;
mod league_placement;
mod leagues;
mod plays_basic;
mod rank_compact;
mod rank_index;
mod rank_journal;
mod rank_model;
mod rank_read_switch;
mod rank_rebuild;
mod rank_without_index;
mod recount;
mod recount_run;
mod request_counts;
mod rewards;
mod roundtrip;
mod secrets;
mod sharded_chunks;
mod sharded_feed;
mod sharded_reads;
mod sharded_writes;
mod tournaments;
mod widen;
mod widen_checker;
mod widen_close;
mod widen_columns;
mod widen_resume;
