//! The cost model of issue 32: request units and dollars per play and per lookup, for this
//! design (measured) and for the plain design (one read and one transaction per play, every
//! rank by counting the entries above), at on-demand prices.
//!
//! The plain design's units follow from DynamoDB's rules and the measured item sizes:
//! - a play: one strongly consistent read of the Session, the board and the entry pointer
//!   (3 units), one transaction putting the Session and the pointer, deleting the old Score
//!   item and putting the new one (4 items, 8 units), and its rank: a count;
//! - a lookup: the board and the pointer read eventually consistently (½ + ½), and a count;
//! - a count of the entries above a player at rank `r` reads `r - 1` Score items, billed per
//!   4 KB of them summed, eventually consistent (½ unit per 4 KB); a player's rank is on
//!   average `N / 2`;
//! - the stream projector's profile totals, as measured here, in both designs.

/// On-demand prices, us-east-1 (after the November 2024 reduction): dollars per million read
/// request units.
pub const READ_PRICE: f64 = 0.125;
/// Dollars per million write request units.
pub const WRITE_PRICE: f64 = 0.625;

/// Request units of one operation.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PerOp {
    /// Read request units.
    pub read: f64,
    /// Write request units.
    pub write: f64,
}

impl PerOp {
    /// Dollars per million such operations.
    pub fn dollars_per_million(&self) -> f64 {
        self.read * READ_PRICE + self.write * WRITE_PRICE
    }

    /// The sum of two.
    pub fn plus(self, o: PerOp) -> PerOp {
        PerOp {
            read: self.read + o.read,
            write: self.write + o.write,
        }
    }
}

/// Read units of an eventually consistent count of `keys` items of `size` bytes.
pub fn count(keys: u64, size: f64) -> f64 {
    0.5 * (keys as f64 * size / 4096.0).ceil().max(1.0)
}

/// The plain design's play on a board of `n` entries (Score items of `size` bytes), with the
/// stream projector's `profile` units.
pub fn plain_play(n: u64, size: f64, profile: PerOp) -> PerOp {
    PerOp {
        read: 3.0 + count(n / 2, size),
        write: 8.0,
    }
    .plus(profile)
}

/// The plain design's lookup on a board of `n` entries.
pub fn plain_lookup(n: u64, size: f64) -> PerOp {
    PerOp {
        read: 1.0 + count(n / 2, size),
        write: 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_grows_with_the_board_and_shares_units_between_keys() {
        // 100 bytes a key: 40 keys a unit of 4 KB, halved.
        assert_eq!(count(40, 100.0), 0.5);
        assert_eq!(count(41, 100.0), 1.0);
        assert_eq!(count(500_000, 100.0), 0.5 * 12_208.0);
        assert_eq!(count(0, 100.0), 0.5);
    }

    #[test]
    fn the_plain_designs_costs() {
        let profile = PerOp {
            read: 0.0,
            write: 1.0,
        };
        let play = plain_play(10_000, 100.0, profile);
        assert_eq!(
            play,
            PerOp {
                read: 3.0 + 61.5,
                write: 9.0
            }
        );
        assert_eq!(plain_lookup(10_000, 100.0).read, 62.5);
        // $0.125 per million reads, $0.625 per million writes.
        assert_eq!(
            PerOp {
                read: 8.0,
                write: 1.6
            }
            .dollars_per_million(),
            2.0
        );
    }
}
