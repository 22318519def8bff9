//! The end-to-end tests, one binary: a module per test file (each linked once, not once per
//! file). Run one file's tests with `cargo test -p leaderboard-tests --test it <file>::`; the
//! test command runs each module in a process of its own.

mod support;

mod browser;
mod console;
mod demo;
mod document;
mod e2e;
mod fuzz;
mod graph;
mod js_client;
mod links;
mod metadata;
mod rooms;
mod routes;
mod samconfig;
mod sign_in;
mod template_auth;
