//! The performance harness of issue 9 (development only, never deployed).
//!
//! # Layout
//! - [`coldstart`]: spawns each function's release `bootstrap` against [`runtime_api`], a
//!   minimal Lambda Runtime API on 127.0.0.1, and times spawn → first `/next` (init) and
//!   spawn → first response; checks that init sends nothing to DynamoDB and never tries the
//!   EC2 metadata address.
//! - [`sizes`]: stripped and zipped sizes of the bootstraps.
//! - [`load`]: concurrent simulated players against the local stack's pieces, in process,
//!   with a counting [`proxy`] between the stack and DynamoDB Local; DynamoDB Local's raw
//!   PutItem rate in the same run.
//! - [`live_rank`]: rank lookups and their cost on boards of several sizes under the stack's
//!   maximum load, each answer checked against the true ranking; the cost model (issue 32).
//! - [`replay`]: the in-process DynamoDB double of the CPU benchmark (`benches/handlers.rs`).
//! - [`top_page`]: what a 1,000-entry top-N page reads on boards of 1, 8 and 32 write shards.
//! - [`stack`]: the local stack wired in process behind counting proxies, and a game
//!   client's keep-alive connection.
//! - [`seed`]: the functions, their representative events and the data they need.
//! - [`fragment`]: the report fragments `scripts/bench` assembles into `BENCHMARKS.md`.
#![warn(missing_docs)]

pub mod coldstart;
pub mod coldstart_secrets;
pub mod fragment;
pub mod hot_board;
pub mod league_play;
pub mod live_rank;
pub mod load;
pub mod proxy;
pub mod replay;
pub mod runtime_api;
pub mod seed;
pub mod sizes;
pub mod stack;
pub mod top_page;

use std::time::Duration;

/// The `p`-quantile (0..=1) of `sorted` by nearest rank; `None` when empty.
pub fn quantile(sorted: &[Duration], p: f64) -> Option<Duration> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// Milliseconds with two decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

/// Serves `listener` until its task is aborted: each connection, with Nagle off (the harness
/// times small request/response exchanges), goes to `serve`.
pub async fn accept_each(
    listener: tokio::net::TcpListener,
    mut serve: impl FnMut(tokio::net::TcpStream),
) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        serve(stream);
    }
}

/// A table name no other run uses.
pub fn unique_table(label: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("bench_{label}_{:x}_{}", nanos, std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_nearest_rank() {
        let v: Vec<Duration> = (1..=10).map(Duration::from_millis).collect();
        assert_eq!(quantile(&v, 0.5), Some(Duration::from_millis(5)));
        assert_eq!(quantile(&v, 0.9), Some(Duration::from_millis(9)));
        assert_eq!(quantile(&v, 0.99), Some(Duration::from_millis(10)));
        assert_eq!(quantile(&v, 0.0), Some(Duration::from_millis(1)));
        assert_eq!(quantile(&[], 0.5), None);
    }
}
