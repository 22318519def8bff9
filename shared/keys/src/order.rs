//! Which values rank higher: a board's order, and each tiebreak column's.

use std::fmt;
use std::str::FromStr;

/// Which scores rank higher on a board.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Higher is better (points).
    #[default]
    Desc,
    /// Lower is better (times, strokes).
    Asc,
}

impl Order {
    /// The API spelling, `desc` or `asc`.
    pub fn as_str(self) -> &'static str {
        match self {
            Order::Desc => "desc",
            Order::Asc => "asc",
        }
    }

    /// Whether `a` is a strictly better score than `b` on a board of this order.
    pub fn is_better(self, a: u64, b: u64) -> bool {
        match self {
            Order::Desc => a > b,
            Order::Asc => a < b,
        }
    }
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Order {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "desc" => Ok(Order::Desc),
            "asc" => Ok(Order::Asc),
            _ => Err(()),
        }
    }
}
