//! Where read units land: the read units of recorded DynamoDB requests by partition key, on the
//! table and on each global secondary index, computed with DynamoDB's billing rules from the
//! requests and the items they returned (DynamoDB Local reports no consumed capacity): a read
//! by key costs 1 unit per 4 KB of its item (a missing item 1), a Query 1 unit per 4 KB of the
//! items it returned together (at least 1; a `Select=COUNT` Query those it read, at
//! [`SCORE_ITEM_BYTES`] a key); half that when eventually consistent, twice when
//! transactional. A partition holds 3,000 read units a second, whatever the table's capacity:
//! a key that every play of a board reads consistently caps the board's plays at 3,000 over its
//! units a play.
//!
//! Only requests that succeeded (HTTP 200) are counted.

use serde_json::Value;

use crate::hot_board::partitions::Units;
use crate::live_rank::units::{item_size, read_units};

/// The bytes a `Select=COUNT` Query is billed for each key it read: what a Score item holds
/// (about 224 bytes, `docs/rank-index.md`), the only items the capped counts read.
const SCORE_ITEM_BYTES: usize = 224;

/// The partition key attribute of the table or of the index a request names.
fn partition_attr(index: Option<&str>) -> (&'static str, &'static str) {
    match index {
        Some("GSI1") => ("GSI1", "gsi1pk"),
        Some("GSI2") => ("GSI2", "gsi2pk"),
        _ => ("table", "pk"),
    }
}

fn pk_of(v: &Value, attr: &str) -> Option<String> {
    v[attr]["S"].as_str().map(str::to_owned)
}

/// 1 when consistent, 0.5 when not.
fn consistency(request: &Value) -> f64 {
    if request["ConsistentRead"].as_bool() == Some(true) {
        1.0
    } else {
        0.5
    }
}

impl Units {
    /// Adds the read units of one request (`op` as the proxy names it, its request and
    /// response bodies).
    pub fn add_reads(&mut self, op: &str, status: u16, request: &[u8], response: &[u8]) {
        if status != 200 {
            return;
        }
        let req: Value = serde_json::from_slice(request).unwrap_or(Value::Null);
        let resp: Value = serde_json::from_slice(response).unwrap_or(Value::Null);
        match op {
            "GetItem" => {
                let size = item_size(&resp["Item"]);
                if let Some(pk) = pk_of(&req["Key"], "pk") {
                    self.charge("table", &pk, consistency(&req) * read_units(size));
                }
            }
            "BatchGetItem" => {
                for (table, asked) in req["RequestItems"].as_object().into_iter().flatten() {
                    let c = consistency(asked);
                    let found = resp["Responses"][table]
                        .as_array()
                        .cloned()
                        .unwrap_or_default();
                    // Each key is one read: the item found under it, or a unit for none.
                    for key in asked["Keys"].as_array().into_iter().flatten() {
                        let Some(pk) = pk_of(key, "pk") else { continue };
                        let item = found
                            .iter()
                            .find(|i| i["pk"] == key["pk"] && i["sk"] == key["sk"]);
                        let size = item.map_or(0, item_size);
                        self.charge("table", &pk, c * read_units(size));
                    }
                }
            }
            "TransactGetItems" => {
                let asked = req["TransactItems"].as_array().cloned().unwrap_or_default();
                let found = resp["Responses"].as_array().cloned().unwrap_or_default();
                for (i, get) in asked.iter().enumerate() {
                    let Some(pk) = pk_of(&get["Get"]["Key"], "pk") else {
                        continue;
                    };
                    let size = found.get(i).map_or(0, |r| item_size(&r["Item"]));
                    self.charge("table", &pk, 2.0 * read_units(size));
                }
            }
            "Query" => {
                let (on, attr) = partition_attr(req["IndexName"].as_str());
                let Some(pk) = query_partition(&req, attr) else {
                    return;
                };
                let size: usize = match req["Select"].as_str() {
                    // A count returns no items but is billed for those it read.
                    Some("COUNT") => {
                        resp["ScannedCount"].as_u64().unwrap_or(0) as usize * SCORE_ITEM_BYTES
                    }
                    _ => resp["Items"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(item_size)
                        .sum(),
                };
                self.charge(on, &pk, consistency(&req) * read_units(size));
            }
            _ => {}
        }
    }
}

/// The partition key value a Query's `KeyConditionExpression` names: the value of its
/// `<attr> = :v` comparison, the attribute given directly or through a `#name`.
fn query_partition(req: &Value, attr: &str) -> Option<String> {
    let expr = req["KeyConditionExpression"].as_str()?;
    let names = &req["ExpressionAttributeNames"];
    expr.split(" AND ")
        .chain(expr.split(" and "))
        .filter_map(|part| part.split_once('='))
        .find_map(|(name, value)| {
            let name = name.trim().trim_start_matches('(');
            let name = names[name].as_str().unwrap_or(name);
            (name == attr)
                .then(|| {
                    req["ExpressionAttributeValues"][value.trim().trim_end_matches(')')]["S"]
                        .as_str()
                })
                .flatten()
                .map(str::to_owned)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units_of(op: &str, req: &str, resp: &str) -> Units {
        let mut u = Units::default();
        u.add_reads(op, 200, req.as_bytes(), resp.as_bytes());
        u
    }

    fn at(u: &Units, on: &'static str, key: &str) -> f64 {
        u.0.get(&crate::hot_board::partitions::Partition {
            on,
            key: key.into(),
        })
        .copied()
        .unwrap_or(0.0)
    }

    #[test]
    fn reads_by_key_charge_each_keys_partition_by_consistency() {
        let req = r##"{"RequestItems": {"t": {"ConsistentRead": true, "Keys": [
            {"pk": {"S": "LEADERBOARD#b"}, "sk": {"S": "#METADATA"}},
            {"pk": {"S": "RANKV2#b"}, "sk": {"S": "#ROOT"}},
            {"pk": {"S": "PLAYER#p"}, "sk": {"S": "ENTRY#b"}}
        ]}}}"##;
        let resp = r##"{"Responses": {"t": [
            {"pk": {"S": "RANKV2#b"}, "sk": {"S": "#ROOT"}, "c": {"S": "1"}},
            {"pk": {"S": "LEADERBOARD#b"}, "sk": {"S": "#METADATA"}}
        ]}}"##;
        let u = units_of("BatchGetItem", req, resp);
        assert_eq!(at(&u, "table", "LEADERBOARD#b"), 1.0);
        assert_eq!(at(&u, "table", "RANKV2#b"), 1.0);
        // Not found: still a unit.
        assert_eq!(at(&u, "table", "PLAYER#p"), 1.0);
        let get = r##"{"Key": {"pk": {"S": "LEADERBOARD#b"}, "sk": {"S": "#METADATA"}}}"##;
        assert_eq!(
            at(&units_of("GetItem", get, "{}"), "table", "LEADERBOARD#b"),
            0.5
        );
        let tx = r##"{"TransactItems": [{"Get": {"Key": {"pk": {"S": "RANKV2#b"}, "sk": {"S": "#ROOT"}}}}]}"##;
        assert_eq!(
            at(&units_of("TransactGetItems", tx, "{}"), "table", "RANKV2#b"),
            2.0
        );
    }

    #[test]
    fn a_query_charges_the_partition_its_key_condition_names() {
        let big = "x".repeat(5_000);
        let req = r##"{"IndexName": "GSI1", "ConsistentRead": false,
            "KeyConditionExpression": "#p = :pk AND begins_with(gsi1sk, :s)",
            "ExpressionAttributeNames": {"#p": "gsi1pk"},
            "ExpressionAttributeValues": {":pk": {"S": "PLAYER#p"}, ":s": {"S": "ENTRY#"}}}"##;
        let resp = format!(r#"{{"Items": [{{"v": {{"S": "{big}"}}}}]}}"#);
        assert_eq!(at(&units_of("Query", req, &resp), "GSI1", "PLAYER#p"), 1.0);
        let lanes = r##"{"ConsistentRead": true, "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": "RANKSEQ#b"}}}"##;
        assert_eq!(
            at(
                &units_of("Query", lanes, r##"{"Items": []}"##),
                "table",
                "RANKSEQ#b"
            ),
            1.0
        );
        // A count is billed for the keys it read, not for the items it returned (none).
        let count = r##"{"Select": "COUNT", "ConsistentRead": true,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :lo AND :hi",
            "ExpressionAttributeValues": {":pk": {"S": "LEADERBOARD#b#03"}}}"##;
        let counted = units_of("Query", count, r##"{"Count": 900, "ScannedCount": 1000}"##);
        assert_eq!(at(&counted, "table", "LEADERBOARD#b#03"), 55.0);
        let mut failed = Units::default();
        failed.add_reads("Query", 400, lanes.as_bytes(), b"{}");
        assert_eq!(failed.total(), 0.0);
    }
}
