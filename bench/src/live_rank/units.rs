//! What one DynamoDB request cost, from the request and response bodies the counting proxy
//! recorded: items read by key, items a Query returned, keys a counting Query read, and the read
//! and write request units
//! DynamoDB's on-demand mode bills for it.
//!
//! DynamoDB Local does not report a transaction's consumed capacity as DynamoDB would, so the
//! units are computed with DynamoDB's rules from the measured sizes of the items involved:
//! - a read by key: 1 unit per 4 KB of the item if strongly consistent, ½ if eventually
//!   consistent, 2 in a transaction; an item that is not there still costs the minimum;
//! - a Query: the sizes of the items it read summed, then rounded up to 4 KB (so many small keys
//!   share a unit); a `Select=COUNT` returns no items, so their size is the measured size of
//!   the items it counts, given by the caller;
//! - a write: 1 unit per 1 KB of the item, 2 in a transaction. A put carries its item; an
//!   update, a delete or a condition check is counted as one 1 KB unit, which is exact while
//!   every item of the table is at most 1 KB (the benchmark reports the largest).
//!
//! Stream reads are free for a Lambda trigger and cost no units here.

use serde_json::Value;

/// What requests cost (a sum over requests).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Units {
    /// Requests.
    pub requests: u64,
    /// Items read by key (GetItem, BatchGetItem, TransactGetItems).
    pub items_by_key: u64,
    /// Items a Query returned (a board's lanes).
    pub items_queried: u64,
    /// Counting Queries (`Select=COUNT`: a rank's counts), whatever they read.
    pub queries: u64,
    /// Keys Queries read (`ScannedCount`).
    pub keys_counted: u64,
    /// Read request units.
    pub read: f64,
    /// Write request units.
    pub write: f64,
    /// Items written (puts, updates, deletes; a transaction's condition checks aside).
    pub items_written: u64,
}

impl std::ops::AddAssign for Units {
    fn add_assign(&mut self, o: Units) {
        self.requests += o.requests;
        self.items_by_key += o.items_by_key;
        self.items_queried += o.items_queried;
        self.queries += o.queries;
        self.keys_counted += o.keys_counted;
        self.read += o.read;
        self.write += o.write;
        self.items_written += o.items_written;
    }
}

/// An item's size as DynamoDB bills it (attribute names plus values), from its JSON form.
pub fn item_size(item: &Value) -> usize {
    fn value(v: &Value) -> usize {
        let Some((kind, v)) = v.as_object().and_then(|o| o.iter().next()) else {
            return 1;
        };
        let number = |n: &str| {
            n.trim_start_matches(['-', '0'])
                .replace('.', "")
                .len()
                .div_ceil(2)
                + 1
        };
        match (kind.as_str(), v) {
            ("S", Value::String(s)) => s.len(),
            // Base64: three bytes in four characters.
            ("B", Value::String(s)) => s.trim_end_matches('=').len() * 3 / 4,
            ("N", Value::String(n)) => number(n),
            ("SS" | "BS", Value::Array(xs)) => {
                xs.iter().filter_map(Value::as_str).map(str::len).sum()
            }
            ("NS", Value::Array(xs)) => xs.iter().filter_map(Value::as_str).map(number).sum(),
            ("M", m) => 3 + item_size(m) + m.as_object().map_or(0, |o| o.len()),
            ("L", Value::Array(xs)) => 3 + xs.iter().map(|x| value(x) + 1).sum::<usize>(),
            _ => 1,
        }
    }
    item.as_object()
        .map_or(0, |o| o.iter().map(|(k, v)| k.len() + value(v)).sum())
}

pub(crate) fn read_units(size: usize) -> f64 {
    size.div_ceil(4096).max(1) as f64
}

/// The write units of one write of an item of `size` bytes: 1 per 1 KB, at least 1.
pub(crate) fn write_units(size: usize) -> f64 {
    size.div_ceil(1024).max(1) as f64
}

fn consistency(request: &Value) -> f64 {
    if request["ConsistentRead"].as_bool() == Some(true) {
        1.0
    } else {
        0.5
    }
}

/// The write units of one item of a write request (`Put`, `Update`, `Delete`, ...).
fn write_item(kind: &str, body: &Value) -> f64 {
    match kind {
        "Put" | "PutRequest" => write_units(item_size(&body["Item"])),
        _ => 1.0,
    }
}

/// What one request cost; `counted_item_size` is the size of the items a `Select=COUNT`
/// Query counts.
pub fn of(op: &str, request: &[u8], response: &[u8], counted_item_size: usize) -> Units {
    let req: Value = serde_json::from_slice(request).unwrap_or(Value::Null);
    let resp: Value = serde_json::from_slice(response).unwrap_or(Value::Null);
    let mut u = Units {
        requests: 1,
        ..Units::default()
    };
    match op {
        "GetItem" => {
            u.items_by_key = 1;
            u.read = consistency(&req) * read_units(item_size(&resp["Item"]));
        }
        "BatchGetItem" => {
            for (table, asked) in req["RequestItems"].as_object().into_iter().flatten() {
                let keys = asked["Keys"].as_array().map_or(0, Vec::len);
                let found = resp["Responses"][table]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                u.items_by_key += keys as u64;
                let c = consistency(asked);
                u.read += found
                    .iter()
                    .map(|i| c * read_units(item_size(i)))
                    .sum::<f64>()
                    + c * keys.saturating_sub(found.len()) as f64;
            }
        }
        "TransactGetItems" => {
            let asked = req["TransactItems"].as_array().map_or(0, Vec::len);
            u.items_by_key = asked as u64;
            let found = resp["Responses"].as_array().cloned().unwrap_or_default();
            let sizes: f64 = found
                .iter()
                .map(|r| read_units(item_size(&r["Item"])))
                .sum();
            u.read = 2.0 * (sizes + asked.saturating_sub(found.len()) as f64);
        }
        "Query" | "Scan" => {
            let scanned = resp["ScannedCount"].as_u64().unwrap_or(0);
            if req["Select"].as_str() == Some("COUNT") {
                u.queries = 1;
                u.keys_counted = scanned;
            } else {
                u.items_queried = resp["Count"].as_u64().unwrap_or(0);
            }
            let size = match resp["Items"].as_array() {
                Some(items) => items.iter().map(item_size).sum(),
                None => scanned as usize * counted_item_size,
            };
            u.read = consistency(&req) * read_units(size);
        }
        "TransactWriteItems" => {
            for item in req["TransactItems"].as_array().into_iter().flatten() {
                if let Some((kind, body)) = item.as_object().and_then(|o| o.iter().next()) {
                    u.write += 2.0 * write_item(kind, body);
                    u.items_written += u64::from(kind != "ConditionCheck");
                }
            }
        }
        "BatchWriteItem" => {
            for writes in req["RequestItems"]
                .as_object()
                .into_iter()
                .flat_map(|o| o.values())
            {
                for w in writes.as_array().into_iter().flatten() {
                    if let Some((kind, body)) = w.as_object().and_then(|o| o.iter().next()) {
                        u.write += write_item(kind, body);
                        u.items_written += 1;
                    }
                }
            }
        }
        "PutItem" => {
            u.write = write_item("Put", &req);
            u.items_written = 1;
        }
        "UpdateItem" | "DeleteItem" => {
            u.write = 1.0;
            u.items_written = 1;
        }
        _ => {}
    }
    u
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn bytes(v: Value) -> Vec<u8> {
        serde_json::to_vec(&v).unwrap()
    }

    #[test]
    fn item_sizes_follow_dynamodbs_rules() {
        // "pk" + "ab", "n" + 3 significant digits (2 bytes + 1).
        assert_eq!(
            item_size(&json!({"pk": {"S": "ab"}, "n": {"N": "00123"}})),
            4 + 1 + 3
        );
        // A map: 3 + its names and values + 1 per entry.
        assert_eq!(
            item_size(&json!({"m": {"M": {"a": {"S": "xy"}}}})),
            1 + 3 + 3 + 1
        );
        assert_eq!(item_size(&json!({"s": {"SS": ["a", "bc"]}})), 1 + 3);
    }

    #[test]
    fn reads_by_key_cost_by_consistency_and_size() {
        let big = "x".repeat(5000);
        let get = of(
            "GetItem",
            &bytes(json!({"ConsistentRead": true})),
            &bytes(json!({"Item": {"v": {"S": big}}})),
            0,
        );
        assert_eq!((get.items_by_key, get.read), (1, 2.0));
        let batch = of(
            "BatchGetItem",
            &bytes(json!({"RequestItems": {"t": {"Keys": [{}, {}, {}]}}})),
            &bytes(json!({"Responses": {"t": [{"a": {"S": "b"}}]}})),
            0,
        );
        // Eventually consistent: ½ per item, found or not.
        assert_eq!((batch.items_by_key, batch.read), (3, 1.5));
        let tx = of(
            "TransactGetItems",
            &bytes(json!({"TransactItems": [{"Get": {}}, {"Get": {}}]})),
            &bytes(json!({"Responses": [{"Item": {"a": {"S": "b"}}}, {}]})),
            0,
        );
        assert_eq!((tx.items_by_key, tx.read), (2, 4.0));
    }

    #[test]
    fn a_count_costs_the_size_of_what_it_counted() {
        let count = of(
            "Query",
            &bytes(json!({"Select": "COUNT"})),
            &bytes(json!({"Count": 1000, "ScannedCount": 1000})),
            100,
        );
        // 100,000 bytes: 25 units of 4 KB, halved.
        assert_eq!(
            (count.queries, count.keys_counted, count.read),
            (1, 1000, 12.5)
        );
    }

    #[test]
    fn writes_cost_per_kilobyte_and_double_in_a_transaction() {
        let big = "x".repeat(1500);
        let tx = of(
            "TransactWriteItems",
            &bytes(json!({"TransactItems": [
                {"Put": {"Item": {"v": {"S": big}}}},
                {"Update": {}},
                {"Delete": {}},
            ]})),
            b"{}",
            0,
        );
        assert_eq!(tx.write, 2.0 * (2.0 + 1.0 + 1.0));
        let batch = of(
            "BatchWriteItem",
            &bytes(json!({"RequestItems": {"t": [{"PutRequest": {"Item": {"a": {"S": "b"}}}}]}})),
            b"{}",
            0,
        );
        assert_eq!(batch.write, 1.0);
        assert_eq!(of("Streams.GetRecords", b"{}", b"{}", 0).read, 0.0);
    }
}
