//! `LOCAL_UNAVAILABLE_EVERY=N`: the local stack answers 503 `unavailable` to one play in N, as
//! a deployed stack does when DynamoDB throttles or a function times out, so a game's client
//! (and the demo seeding) can be tried against it. Alternately the play is refused before it
//! runs (nothing saved) and its answer is lost after it was saved: a client that resends the
//! same `sessionId` gets the first answered as a duplicate, never counted twice.

use std::sync::atomic::{AtomicU64, Ordering};

/// When the gateway answers a play with 503 instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Before the function runs: nothing is saved.
    Before,
    /// After the function ran: the play is saved, its answer lost.
    After,
}

/// The plays seen and the 503s answered.
#[derive(Debug, Default)]
pub struct Unavailable {
    every: u64,
    plays: AtomicU64,
    before: AtomicU64,
    after: AtomicU64,
}

impl Unavailable {
    /// One play in `every` answered 503 (0: none).
    pub fn every(every: u64) -> Unavailable {
        Unavailable {
            every,
            ..Unavailable::default()
        }
    }

    /// Counts a play and says whether (and when) it is answered 503.
    pub fn next_play(&self) -> Option<Fault> {
        if self.every == 0 {
            return None;
        }
        let n = self.plays.fetch_add(1, Ordering::Relaxed) + 1;
        if !n.is_multiple_of(self.every) {
            return None;
        }
        let (fault, count) = match (n / self.every) % 2 {
            1 => (Fault::Before, &self.before),
            _ => (Fault::After, &self.after),
        };
        count.fetch_add(1, Ordering::Relaxed);
        Some(fault)
    }

    /// The 503s answered so far: before the play ran, and after it was saved.
    pub fn answered(&self) -> (u64, u64) {
        (
            self.before.load(Ordering::Relaxed),
            self.after.load(Ordering::Relaxed),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_play_in_n_alternately_before_and_after() {
        let u = Unavailable::every(3);
        let faults: Vec<Option<Fault>> = (0..12).map(|_| u.next_play()).collect();
        let expected = [
            None,
            None,
            Some(Fault::Before),
            None,
            None,
            Some(Fault::After),
        ];
        assert_eq!(faults[..6], expected);
        assert_eq!(faults[6..], expected);
        assert_eq!(u.answered(), (2, 2));
        assert_eq!(Unavailable::every(0).next_play(), None);
    }
}
