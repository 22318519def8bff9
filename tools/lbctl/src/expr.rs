//! `lbctl expr`: the exact Query of each access pattern, as `aws dynamodb query
//! --cli-input-json` takes it, so an operator can hand a colleague a query that keeps the
//! `begins_with`/`BETWEEN` bounds honest. Every bound comes from the key crate (the board's
//! [`RankKeySpec`], [`entity`]), the same calls the store makes. A board's entries are in one
//! partition per write shard (of its entry generation): the pattern is one Query per partition
//! ([`per_shard`]), merged in sort-key order as the store merges them.

use std::collections::BTreeMap;

use leaderboard_keys::entity::{self, SCORE_PREFIX, SCORE_UPPER_BOUND};
use leaderboard_keys::rank::{MAX_TIEBREAK_MILLIS, Order, RankKeySpec};
use serde::Serialize;

use crate::error::{CtlError, CtlResult};

/// One Query's input, in the AWS CLI's (and the DynamoDB API's) field names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct QueryInput {
    /// The table.
    pub table_name: String,
    /// The key condition, with `#`-names and `:`-values.
    pub key_condition_expression: String,
    /// `#pk`, `#sk` to the attribute names.
    pub expression_attribute_names: BTreeMap<String, String>,
    /// Each `:`-value as DynamoDB JSON (`{"S": "..."}`).
    pub expression_attribute_values: BTreeMap<String, AttrValue>,
    /// `false` reads in descending key order, which is rank order on a board.
    pub scan_index_forward: bool,
    /// The page size, where the pattern has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// `COUNT` where the pattern counts instead of listing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub select: Option<&'static str>,
    /// Strongly consistent, as the store reads a board.
    pub consistent_read: bool,
}

/// A string value in DynamoDB JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AttrValue {
    /// The string.
    #[serde(rename = "S")]
    pub s: String,
}

fn names() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("#pk".to_owned(), "pk".to_owned()),
        ("#sk".to_owned(), "sk".to_owned()),
    ])
}

fn values<const N: usize>(pairs: [(&str, String); N]) -> BTreeMap<String, AttrValue> {
    pairs
        .into_iter()
        .map(|(k, s)| (k.to_owned(), AttrValue { s }))
        .collect()
}

fn between(table: &str, pk: String, lo: String, hi: String, forward: bool) -> QueryInput {
    QueryInput {
        table_name: table.to_owned(),
        key_condition_expression: "#pk = :pk AND #sk BETWEEN :lo AND :hi".to_owned(),
        expression_attribute_names: names(),
        expression_attribute_values: values([(":pk", pk), (":lo", lo), (":hi", hi)]),
        scan_index_forward: forward,
        limit: None,
        select: None,
        consistent_read: true,
    }
}

/// A partition's items whose sort key starts with `prefix`, descending, `limit` a page.
pub fn prefix(table: &str, pk: &str, prefix: &str, limit: Option<u32>) -> QueryInput {
    QueryInput {
        table_name: table.to_owned(),
        key_condition_expression: "#pk = :pk AND begins_with(#sk, :prefix)".to_owned(),
        expression_attribute_names: names(),
        expression_attribute_values: values([
            (":pk", pk.to_owned()),
            (":prefix", prefix.to_owned()),
        ]),
        scan_index_forward: false,
        limit,
        select: None,
        consistent_read: true,
    }
}

/// The document of a pattern on a board whose entries are in `pks`: the Query of the one
/// partition, or on a board of several write shards each partition's Query and how to merge
/// them.
pub fn per_shard(
    pks: &[String],
    query: impl Fn(&str) -> CtlResult<serde_json::Value>,
) -> CtlResult<serde_json::Value> {
    if let [pk] = pks {
        return query(pk);
    }
    Ok(serde_json::json!({
        "writeShards": pks.len(),
        "merge": "the board's entries are spread over its write shards: run each Query, merge \
                  the items by sort key (descending for rank order, ascending where \
                  ScanIndexForward is true) and keep the first Limit; a COUNT is the sum of the \
                  counts",
        "queries": pks.iter().map(|pk| query(pk)).collect::<CtlResult<Vec<_>>>()?,
    }))
}

/// AP3, top-N: the Score items of one partition of a board (`pk`) in rank order, `limit` of
/// them.
pub fn top(table: &str, pk: &str, limit: u32) -> QueryInput {
    prefix(table, pk, SCORE_PREFIX, Some(limit))
}

/// The count a rank is made of on a board not on the rank index: the Score items above
/// `sort_key` (the player's). The rank is the `Count` plus one. On an indexed board the
/// service reads the index instead, and counts only near the top (capped).
pub fn rank(table: &str, pk: &str, sort_key: &str) -> QueryInput {
    let mut q = between(
        table,
        pk.to_owned(),
        entity::score_sort_keys_above(sort_key),
        SCORE_UPPER_BOUND.to_owned(),
        true,
    );
    q.select = Some("COUNT");
    q
}

/// The around window: the `n` entries just above the player (ascending from their key: reverse
/// them for rank order) and the `n` just below with the player's own (descending, `n + 1`).
pub fn around(table: &str, pk: &str, sort_key: &str, n: u32) -> (QueryInput, QueryInput) {
    let mut above = between(
        table,
        pk.to_owned(),
        entity::score_sort_keys_above(sort_key),
        SCORE_UPPER_BOUND.to_owned(),
        true,
    );
    above.limit = Some(n);
    let mut below = between(
        table,
        pk.to_owned(),
        SCORE_PREFIX.to_owned(),
        sort_key.to_owned(),
        false,
    );
    below.limit = Some(n + 1);
    (above, below)
}

/// The entries scoring `lo..=hi` (either order of the two) on a board of `spec`, in rank order.
pub fn score_range(
    table: &str,
    pk: &str,
    spec: &RankKeySpec,
    lo: u64,
    hi: u64,
) -> CtlResult<QueryInput> {
    let (lo, hi) = (lo.min(hi), lo.max(hi));
    spec.check_score(lo)?;
    spec.check_score(hi)?;
    // The best and worst of the range in rank order: on an asc board the lowest score ranks
    // first.
    let (best, worst) = match spec.order() {
        Order::Desc => (hi, lo),
        Order::Asc => (lo, hi),
    };
    // The smallest key of the worst score is its latest time (tiebreak 0...0) with no player;
    // every key of the best score is below its earliest time followed by '$', the byte after
    // the '#' that starts the player.
    let low = format!(
        "{SCORE_PREFIX}{}",
        spec.rank_key(worst, MAX_TIEBREAK_MILLIS)?
    );
    let high = format!("{SCORE_PREFIX}{}$", spec.rank_key(best, 0)?);
    if low >= high {
        return Err(CtlError::Usage("an empty score range".into()));
    }
    Ok(between(table, pk.to_owned(), low, high, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_holds_exactly_its_scores_in_both_orders() {
        let b = entity::board_pk(&leaderboard_keys::ids::BoardId::parse("b").unwrap());
        let p = leaderboard_keys::ids::PlayerId::parse("p").unwrap();
        for order in [Order::Desc, Order::Asc] {
            let spec = RankKeySpec::new(order, 999).unwrap();
            let q = score_range("t", &b, &spec, 10, 20).unwrap();
            let (lo, hi) = (
                &q.expression_attribute_values[":lo"].s,
                &q.expression_attribute_values[":hi"].s,
            );
            for (score, inside) in [(9, false), (10, true), (15, true), (20, true), (21, false)] {
                for at in [0, 1_719_100_800_000, MAX_TIEBREAK_MILLIS] {
                    let k = spec.score_sort_key(score, at, &p).unwrap();
                    assert_eq!(lo <= &k && &k <= hi, inside, "{order:?} {score} {at}: {k}");
                }
            }
        }
    }
}
