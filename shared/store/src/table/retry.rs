//! How the store retries: every loop that tries a request again takes one of the policies
//! below (an attempt budget and a jittered exponential backoff between attempts), and every
//! transaction carries a fresh idempotency token per attempt. Side by side, they are the
//! store's whole retry budget.

use std::ops::RangeInclusive;
use std::time::Duration;

use rand::Rng;

use crate::ground::error::StoreError;

/// A retry policy: at most `attempts` tries, waiting between two of them a random 1 ms up to
/// `base_ms × 2^min(attempt, max_doublings)` (full jitter, so that racing writers spread out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Retry {
    attempts: u32,
    base_ms: u64,
    max_doublings: u32,
}

impl Retry {
    /// A play's read-decide-write: many cheap tries, as every play on a hot board races the
    /// others; and a board's migration start, whose transaction meets those plays on every lane
    /// (5 ms .. 320 ms).
    pub(crate) const PLAY: Retry = Retry::new(60, 5, 6);
    /// A board's rank index batch: a root read and its chunks' transactions, again when another
    /// apply moved the root (5 ms .. 320 ms).
    pub(crate) const RANK_APPLY: Retry = Retry::new(12, 5, 6);
    /// The read-then-write rounds of a player's projected totals: only a concurrent projector
    /// of the same player (which Lambda does not run) or a concurrent writer of the watermark
    /// makes a round fail (10 ms .. 320 ms).
    pub(crate) const PROJECTION: Retry = Retry::new(8, 10, 5);
    /// A single-item update, or a small transaction, that a transaction in flight on the same
    /// item may conflict with: the start of a board's close or its close lease (a play's
    /// transaction on the board item), a profile change (the player item), a rebuild's switch
    /// (the lanes), a migrated board's switch (10 ms .. 320 ms).
    pub(crate) const ITEM_UPDATE: Retry = Retry::new(8, 10, 5);
    /// Rounds of a batch read or write re-sending what DynamoDB left unprocessed
    /// (10 ms .. 640 ms).
    pub(crate) const BATCH_ROUNDS: Retry = Retry::new(30, 10, 6);

    const fn new(attempts: u32, base_ms: u64, max_doublings: u32) -> Retry {
        Retry {
            attempts,
            base_ms,
            max_doublings,
        }
    }

    /// The attempts, numbered from 1.
    pub(crate) fn attempts(self) -> RangeInclusive<u32> {
        1..=self.attempts
    }

    /// How long to wait after attempt `attempt` failed.
    pub(crate) fn delay(self, attempt: u32) -> Duration {
        let ceiling = self.base_ms << attempt.min(self.max_doublings);
        Duration::from_millis(rand::rng().random_range(1..=ceiling))
    }

    /// Waits after attempt `attempt` failed, unless it was the last.
    pub(crate) async fn pause(self, attempt: u32) {
        if attempt < self.attempts {
            tokio::time::sleep(self.delay(attempt)).await;
        }
    }

    /// The error once every attempt failed.
    pub(crate) fn exhausted(self) -> StoreError {
        StoreError::Contention {
            attempts: self.attempts,
        }
    }

    /// Runs `attempt` again after every failure a retry can clear
    /// ([`StoreError::is_retryable`]), until it succeeds or the attempts run out.
    pub(crate) async fn run<T, F>(
        self,
        what: &'static str,
        attempt: impl FnMut() -> F,
    ) -> Result<T, StoreError>
    where
        F: Future<Output = Result<T, StoreError>>,
    {
        self.run_while(what, StoreError::is_retryable, attempt)
            .await
    }

    /// The same, trying again after every failure `again` accepts (a read-then-write passes
    /// [`StoreError::worth_rereading`]: its next attempt reads the moved state).
    pub(crate) async fn run_while<T, F>(
        self,
        what: &'static str,
        again: impl Fn(&StoreError) -> bool,
        mut attempt: impl FnMut() -> F,
    ) -> Result<T, StoreError>
    where
        F: Future<Output = Result<T, StoreError>>,
    {
        for n in self.attempts() {
            match attempt().await {
                Err(e) if again(&e) => {
                    tracing::debug!(attempt = n, error = %e, "{what} failed; retrying");
                }
                done => return done,
            }
            self.pause(n).await;
        }
        Err(self.exhausted())
    }
}

/// A fresh idempotency token (`ClientRequestToken`) for one attempt of a transaction: the SDK's
/// own resends of that request stay idempotent, and no two attempts or plays share one
/// (DynamoDB remembers a token for 10 minutes).
pub(crate) fn idempotency_token() -> String {
    format!("{:032x}", rand::rng().random::<u128>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_are_jittered_under_a_doubling_ceiling() {
        let p = Retry::new(10, 5, 3);
        for attempt in 1..=10 {
            let ceiling = 5u64 << attempt.min(3);
            for _ in 0..200 {
                let d = p.delay(attempt).as_millis() as u64;
                assert!((1..=ceiling).contains(&d), "attempt {attempt}: {d} ms");
            }
        }
        assert_eq!(p.attempts(), 1..=10);
        assert!(matches!(
            p.exhausted(),
            StoreError::Contention { attempts: 10 }
        ));
    }

    #[tokio::test]
    async fn no_wait_after_the_last_attempt() {
        // A wait of up to 64,000 s would follow attempt 1 of 2; none follows attempt 2.
        let p = Retry::new(2, 1_000_000, 6);
        let last = tokio::time::timeout(Duration::from_secs(30), p.pause(2)).await;
        assert!(last.is_ok());
    }

    #[test]
    fn tokens_differ() {
        let a = idempotency_token();
        assert_eq!(a.len(), 32);
        assert_ne!(a, idempotency_token());
    }
}
