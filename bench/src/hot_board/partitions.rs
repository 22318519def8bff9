//! Where write units land (and the type both tallies are kept in): the write units of recorded DynamoDB requests by partition key, on
//! the table and on each global secondary index, computed with DynamoDB's billing rules from
//! the requests' keys and item sizes (DynamoDB Local reports no consumed capacity).
//!
//! - the table: a put costs 1 unit per 1 KB of its item, an update, a delete or a condition
//!   check 1 (exact while the items are at most 1 KB, as here); twice that in a transaction;
//! - an index: a put of an item carrying the index's keys costs 1 unit per 1 KB of the item
//!   (both indexes project every attribute) on the index's partition key, in a transaction or
//!   not. An update or a delete of an item with index keys also writes the index, but its
//!   request does not carry them: the items written so here (a Score item's delete, removing
//!   its player's GSI1 entry) hold per-player keys, never shared ones, and are left out.
//!
//! Only requests that succeeded (HTTP 200) are counted.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::live_rank::units::{item_size, write_units};

/// Where a write lands: the table or an index, and a partition key value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Partition {
    /// `table`, `GSI1` or `GSI2`.
    pub on: &'static str,
    /// The partition key value.
    pub key: String,
}

/// Units by partition: a run's write units (this file), or its read units ([`super::reads`]).
#[derive(Debug, Default, Clone)]
pub struct Units(pub BTreeMap<Partition, f64>);

/// The indexes and their partition key attributes.
const INDEXES: [(&str, &str); 2] = [("GSI1", "gsi1pk"), ("GSI2", "gsi2pk")];

fn string<'a>(v: &'a Value, attr: &str) -> Option<&'a str> {
    v[attr]["S"].as_str()
}

impl Units {
    /// Adds the write units of one request (`op` as the proxy names it, its request body).
    pub fn add_writes(&mut self, op: &str, status: u16, request: &[u8]) {
        if status != 200 {
            return;
        }
        let req: Value = serde_json::from_slice(request).unwrap_or(Value::Null);
        match op {
            "PutItem" => self.put(&req["Item"], 1.0),
            "UpdateItem" | "DeleteItem" => self.keyed(&req["Key"], 1.0),
            "TransactWriteItems" => {
                for item in req["TransactItems"].as_array().into_iter().flatten() {
                    for (kind, body) in item.as_object().into_iter().flatten() {
                        match kind.as_str() {
                            "Put" => self.put(&body["Item"], 2.0),
                            _ => self.keyed(&body["Key"], 2.0),
                        }
                    }
                }
            }
            "BatchWriteItem" => {
                let tables = req["RequestItems"].as_object().into_iter().flatten();
                for write in tables.flat_map(|(_, w)| w.as_array().into_iter().flatten()) {
                    if let Some(put) = write.get("PutRequest") {
                        self.put(&put["Item"], 1.0);
                    } else if let Some(delete) = write.get("DeleteRequest") {
                        self.keyed(&delete["Key"], 1.0);
                    }
                }
            }
            _ => {}
        }
    }

    fn put(&mut self, item: &Value, factor: f64) {
        let size = write_units(item_size(item));
        if let Some(pk) = string(item, "pk") {
            self.charge("table", pk, factor * size);
        }
        for (index, attr) in INDEXES {
            if let Some(pk) = string(item, attr) {
                self.charge(index, pk, size);
            }
        }
    }

    fn keyed(&mut self, key: &Value, factor: f64) {
        if let Some(pk) = string(key, "pk") {
            self.charge("table", pk, factor);
        }
    }

    pub(crate) fn charge(&mut self, on: &'static str, key: &str, units: f64) {
        *self
            .0
            .entry(Partition {
                on,
                key: key.to_owned(),
            })
            .or_default() += units;
    }

    /// Every unit counted.
    pub fn total(&self) -> f64 {
        self.0.values().sum()
    }

    /// The partitions `keep` accepts, busiest first.
    pub fn busiest(&self, keep: impl Fn(&Partition) -> bool) -> Vec<(&Partition, f64)> {
        let mut all: Vec<(&Partition, f64)> = self
            .0
            .iter()
            .filter(|(p, _)| keep(p))
            .map(|(p, u)| (p, *u))
            .collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        all
    }
}

/// What a partition holds, for the report: the item kinds the table layout names.
pub fn kind(p: &Partition) -> &'static str {
    let k = p.key.as_str();
    match p.on {
        "GSI1" if k.starts_with("PLAYER#") => "a player's entries (GSI1)",
        "GSI2" if k.starts_with("GAME#") && k.matches('#').count() > 1 => {
            "a game feed shard (GSI2)"
        }
        "GSI2" if k.starts_with("GAME#") => "a game's feed (GSI2)",
        "GSI2" if k == "BOARDS#OPEN" => "the open boards (GSI2)",
        "table" if k.starts_with("PLAYER#") => "a player's items",
        "table" if k.starts_with("ERASED#") => "a player's erasure marker (checked)",
        "table" if k.starts_with("LEADERBOARD#") && k.matches('#').count() > 1 => {
            "a board's write shard (Score items)"
        }
        "table" if k.starts_with("LEADERBOARD#") => "a plain board's Score items (and its item)",
        "table" if k.starts_with("RANKSEQ#") && k.matches('#').count() > 1 => {
            "a rank index lane kept apart"
        }
        "table" if k.starts_with("RANKSEQ#") => "a board's grouped lanes",
        "table" if k.starts_with("RANKV2#") && k.matches('#').count() > 1 => {
            "a rank index node partition"
        }
        "table" if k.starts_with("RANKV2#") => "a rank index root (and its journals)",
        _ => "other",
    }
}

/// Whether a partition takes the writes of one player only (their own items and index
/// entries, the check of their erasure marker): never shared, whatever the board's rate.
pub fn per_player(p: &Partition) -> bool {
    p.key.starts_with("PLAYER#") || p.key.starts_with("ERASED#")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units_of(op: &str, body: &str) -> Units {
        let mut u = Units::default();
        u.add_writes(op, 200, body.as_bytes());
        u
    }

    fn at(u: &Units, on: &'static str, key: &str) -> f64 {
        u.0.get(&Partition {
            on,
            key: key.into(),
        })
        .copied()
        .unwrap_or(0.0)
    }

    #[test]
    fn a_transactions_puts_count_twice_on_the_table_and_once_on_each_index() {
        let body = r##"{"TransactItems": [
            {"Put": {"Item": {"pk": {"S": "PLAYER#p"}, "sk": {"S": "SESSION#1"},
                               "gsi2pk": {"S": "GAME#g#03"}, "gsi2sk": {"S": "SESSION#1"}}}},
            {"Update": {"Key": {"pk": {"S": "RANKSEQ#b#04"}, "sk": {"S": "#WRITTEN"}}}},
            {"Delete": {"Key": {"pk": {"S": "LEADERBOARD#b#01"}, "sk": {"S": "SCORE#1#p"}}}},
            {"ConditionCheck": {"Key": {"pk": {"S": "PLAYER#p"}, "sk": {"S": "#BAN"}}}}
        ]}"##;
        let u = units_of("TransactWriteItems", body);
        assert_eq!(at(&u, "table", "PLAYER#p"), 4.0);
        assert_eq!(at(&u, "GSI2", "GAME#g#03"), 1.0);
        assert_eq!(at(&u, "table", "RANKSEQ#b#04"), 2.0);
        assert_eq!(at(&u, "table", "LEADERBOARD#b#01"), 2.0);
        assert_eq!(u.total(), 9.0);
        let busiest = u.busiest(|p| !per_player(p));
        assert_eq!(busiest.len(), 3);
        assert_eq!(kind(busiest[0].0), "a board's write shard (Score items)");
    }

    #[test]
    fn a_large_put_counts_a_unit_a_kilobyte_and_failures_count_nothing() {
        let big = "x".repeat(2_500);
        let body = format!(r#"{{"Item": {{"pk": {{"S": "RANKV2#b"}}, "v": {{"S": "{big}"}}}}}}"#);
        assert_eq!(at(&units_of("PutItem", &body), "table", "RANKV2#b"), 3.0);
        let mut u = Units::default();
        u.add_writes("PutItem", 400, body.as_bytes());
        assert_eq!(u.total(), 0.0);
        let batch = r#"{"RequestItems": {"t": [
            {"PutRequest": {"Item": {"pk": {"S": "RANKV2#b#1#07"}, "sk": {"S": "12"}}}},
            {"DeleteRequest": {"Key": {"pk": {"S": "RANKV2#b#1#07"}, "sk": {"S": "13"}}}}
        ]}}"#;
        assert_eq!(
            at(&units_of("BatchWriteItem", batch), "table", "RANKV2#b#1#07"),
            2.0
        );
        assert_eq!(units_of("Query", batch).total(), 0.0);
    }
}
