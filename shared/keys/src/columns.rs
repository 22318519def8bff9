//! Tiebreak columns (a board's `columns`): up to [`MAX_COLUMNS`] values a board ranks by after
//! the score, each in its own order, before earlier attainment. Each is a fixed-width decimal
//! field of the rank key between the score and the tiebreak ([`crate::rank`]), so that byte
//! order stays rank order and the rank index counts a column's digits as it counts the
//! score's.
//!
//! Fixed-width fields rather than the key path codec (`leaderboard-keypath`): the rank index
//! is a trie of decimal digits over keys of one length per board, which fixed widths keep;
//! `lbctl browse` shows a key as the numbers it holds; and a column costs the digits of its
//! `max` (13 at most), where the codec's variable-length bytes would give the trie no fixed
//! levels to count by.
//!
//! ```
//! use leaderboard_keys::columns::{Column, Subscores, ordered, unknown};
//!
//! let columns: Vec<Column> =
//!     serde_json::from_str(r#"[{"name": "time", "order": "asc", "max": 99999}]"#).unwrap();
//! let given: Subscores = [("time".to_owned(), 53_211)].into_iter().collect();
//! assert_eq!(ordered(&columns, &given).unwrap(), [53_211]);
//! assert!(ordered(&columns, &Subscores::new()).is_err());
//! assert!(unknown([&columns[..]], &given).is_none());
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::KeyError;
use crate::ids::{ColumnName, IdError};
use crate::order::Order;
use crate::pad::Width;

/// The most tiebreak columns a board may have.
pub const MAX_COLUMNS: usize = 2;
/// The largest `max` a column may have (10^12: 13 digits in the key).
pub const MAX_COLUMN_MAX: u64 = 1_000_000_000_000;

/// A board's tiebreak column as `POST /leaderboards` gives it and the board shows it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Column {
    /// Its name: the key of its value in `subscores`.
    pub name: ColumnName,
    /// `desc` (higher ranks higher) or `asc` (lower ranks higher).
    pub order: Order,
    /// The largest value a play may give it (1 to [`MAX_COLUMN_MAX`]).
    pub max: u64,
}

impl Column {
    /// The column `name` (checked as an id is) of `order` and `max` (checked with the board's
    /// other columns, [`check_columns`]).
    pub fn new(name: &str, order: Order, max: u64) -> Result<Column, IdError> {
        Ok(Column {
            name: ColumnName::parse(name)?,
            order,
            max,
        })
    }
}

/// Columns as people read them: `time 3600000, kills 999` (each name and `max`).
pub fn listed(columns: &[Column]) -> String {
    let named: Vec<String> = columns
        .iter()
        .map(|c| format!("{} {}", c.name, c.max))
        .collect();
    named.join(", ")
}

/// A play's or an entry's column values, by column name.
pub type Subscores = BTreeMap<String, u64>;

/// Checks a new board's `columns`: at most [`MAX_COLUMNS`], names unique and not `score`, each
/// `max` within 1..=[`MAX_COLUMN_MAX`]. The message says which rule broke.
pub fn check_columns(columns: &[Column]) -> Result<(), String> {
    if columns.len() > MAX_COLUMNS {
        return Err(format!(
            "columns takes at most {MAX_COLUMNS} tiebreak columns, not {}",
            columns.len()
        ));
    }
    let mut names = BTreeSet::new();
    for column in columns {
        let name = column.name.as_str();
        if name == "score" {
            return Err("a column may not be named score: the score is ranked first".into());
        }
        if !names.insert(name) {
            return Err(format!(
                "column names must be unique: {name:?} is given twice"
            ));
        }
        if !(1..=MAX_COLUMN_MAX).contains(&column.max) {
            return Err(format!(
                "column {name:?} has max {}; it must be 1 to {MAX_COLUMN_MAX}",
                column.max
            ));
        }
    }
    Ok(())
}

/// What is wrong with a play's `subscores`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubscoreError {
    /// A column of a board has no value.
    #[error("subscores must give every column of the board: {0:?} is missing")]
    Missing(String),
    /// A value names no column of any board of the play.
    #[error("subscores gives {0:?}, which is not a column of the play's boards")]
    Unknown(String),
    /// A value above its column's `max`.
    #[error("subscore {name:?} is {value}, above the column's max {max}")]
    OutOfRange {
        /// The column.
        name: String,
        /// The value given.
        value: u64,
        /// The column's `max`.
        max: u64,
    },
}

/// The values of `subscores` in the order of `columns`, checked: every column given, each
/// within `0..=max`. Names that are no column of these are left to [`unknown`]: a play on
/// boards of different columns gives each its own.
pub fn ordered(columns: &[Column], subscores: &Subscores) -> Result<Vec<u64>, SubscoreError> {
    columns
        .iter()
        .map(|column| {
            let name = column.name.as_str();
            let value = *subscores
                .get(name)
                .ok_or_else(|| SubscoreError::Missing(name.to_owned()))?;
            if value > column.max {
                return Err(SubscoreError::OutOfRange {
                    name: name.to_owned(),
                    value,
                    max: column.max,
                });
            }
            Ok(value)
        })
        .collect()
}

/// A name of `subscores` that is a column of none of a play's boards (`boards`, each its
/// columns), if any: every value a play gives must rank it somewhere.
pub fn unknown<'a>(
    boards: impl IntoIterator<Item = &'a [Column]> + Clone,
    subscores: &'a Subscores,
) -> Option<SubscoreError> {
    subscores
        .keys()
        .find(|name| {
            !boards
                .clone()
                .into_iter()
                .any(|columns| columns.iter().any(|c| c.name.as_str() == name.as_str()))
        })
        .map(|name| SubscoreError::Unknown(name.clone()))
}

/// The subscores of `values`, given in the order of `columns`, by name (as entries show them).
pub fn named(columns: &[Column], values: &[u64]) -> Subscores {
    columns
        .iter()
        .zip(values)
        .map(|(c, v)| (c.name.as_str().to_owned(), *v))
        .collect()
}

/// A column as the rank key writes it: its order, its `max`, and the width that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ColumnKey {
    order: Order,
    max: u64,
    width: Width,
}

impl ColumnKey {
    /// The key field of a column of `order` and `max` (1 to [`MAX_COLUMN_MAX`]).
    pub fn new(order: Order, max: u64) -> Result<ColumnKey, KeyError> {
        if !(1..=MAX_COLUMN_MAX).contains(&max) {
            return Err(KeyError::Overflow {
                value: max,
                width: 13,
                max: MAX_COLUMN_MAX,
            });
        }
        Ok(ColumnKey {
            order,
            max,
            width: Width::for_max(max),
        })
    }

    /// The key field of `column`.
    pub fn of(column: &Column) -> Result<ColumnKey, KeyError> {
        ColumnKey::new(column.order, column.max)
    }

    /// Its width in digits.
    pub fn width(&self) -> Width {
        self.width
    }

    /// Its order.
    pub fn order(&self) -> Order {
        self.order
    }

    /// Its `max`.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The number written for `value`: itself, or `max - value` on an `asc` column.
    pub fn ordered_value(&self, value: u64) -> Result<u64, KeyError> {
        if value > self.max {
            return Err(KeyError::ScoreOutOfRange {
                score: value,
                max_score: self.max,
            });
        }
        Ok(match self.order {
            Order::Desc => value,
            Order::Asc => self.max - value,
        })
    }

    /// The value a written number stands for, or `None` when no value writes it.
    pub fn value_of(&self, written: u64) -> Option<u64> {
        (written <= self.max).then(|| match self.order {
            Order::Desc => written,
            Order::Asc => self.max - written,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, order: Order, max: u64) -> Column {
        Column::new(name, order, max).unwrap()
    }

    #[test]
    fn a_board_takes_two_distinct_columns_within_range() {
        let time = column("time", Order::Asc, 99_999);
        let moves = column("moves", Order::Asc, 999);
        assert_eq!(check_columns(&[time.clone(), moves.clone()]), Ok(()));
        assert_eq!(check_columns(&[]), Ok(()));
        let refused = [
            vec![time.clone(), moves.clone(), column("x", Order::Desc, 9)],
            vec![time.clone(), time.clone()],
            vec![column("score", Order::Desc, 9)],
            vec![column("t", Order::Desc, 0)],
            vec![column("t", Order::Desc, MAX_COLUMN_MAX + 1)],
        ];
        for columns in refused {
            assert!(check_columns(&columns).is_err(), "{columns:?}");
        }
        assert_eq!(
            check_columns(&[column("t", Order::Desc, MAX_COLUMN_MAX)]),
            Ok(())
        );
        assert_eq!(listed(&[time, moves]), "time 99999, moves 999");
    }

    #[test]
    fn subscores_give_every_column_and_nothing_else() {
        let columns = [
            column("time", Order::Asc, 99_999),
            column("kills", Order::Desc, 50),
        ];
        let given = |pairs: &[(&str, u64)]| -> Subscores {
            pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
        };
        assert_eq!(
            ordered(&columns, &given(&[("kills", 3), ("time", 7)])),
            Ok(vec![7, 3])
        );
        assert_eq!(
            ordered(&columns, &given(&[("time", 7)])),
            Err(SubscoreError::Missing("kills".into()))
        );
        // a name no board of the play has is unknown; one another board has is its own
        let extra = given(&[("time", 7), ("kills", 3), ("x", 1)]);
        assert_eq!(ordered(&columns, &extra), Ok(vec![7, 3]));
        assert_eq!(
            unknown([&columns[..]], &extra),
            Some(SubscoreError::Unknown("x".into()))
        );
        let other = [column("x", Order::Desc, 9)];
        assert_eq!(unknown([&columns[..], &other[..]], &extra), None);
        assert_eq!(
            unknown([&[][..]], &given(&[("time", 7)])),
            Some(SubscoreError::Unknown("time".into()))
        );
        assert!(matches!(
            ordered(&columns, &given(&[("time", 7), ("kills", 51)])),
            Err(SubscoreError::OutOfRange {
                value: 51,
                max: 50,
                ..
            })
        ));
        assert_eq!(
            named(&columns, &[7, 3]),
            given(&[("time", 7), ("kills", 3)])
        );
    }

    #[test]
    fn a_column_writes_its_value_in_its_order() {
        let asc = ColumnKey::new(Order::Asc, 999).unwrap();
        assert_eq!(asc.width().digits(), 3);
        assert_eq!(asc.ordered_value(10), Ok(989));
        assert_eq!(asc.value_of(989), Some(10));
        assert_eq!(asc.value_of(1000), None);
        assert!(asc.ordered_value(1000).is_err());
        let desc = ColumnKey::new(Order::Desc, MAX_COLUMN_MAX).unwrap();
        assert_eq!(desc.width().digits(), 13);
        assert!(ColumnKey::new(Order::Desc, 0).is_err());
    }
}
