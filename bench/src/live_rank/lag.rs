//! A board's index lag as the table holds it: its lanes' written counts against its root's
//! watermarks, read together.

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes};
use leaderboard_keys::entity;
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank_index::{LANES, WRITTEN_ATTR, root_key, watermark_attr};

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Board `id`'s lanes' written counts summed, and how many of those changes its index has not
/// applied: one consistent `BatchGetItem` of its root and grouped lanes.
pub async fn board_lag(client: &Client, table: &str, id: &BoardId) -> Result<(u64, u64), String> {
    let mut keys = vec![root_key(id)];
    keys.extend((0..LANES).map(|lane| entity::grouped_lane(id, lane)));
    let mut ka = KeysAndAttributes::builder().consistent_read(true);
    for k in &keys {
        ka = ka.keys(HashMap::from([
            ("pk".to_owned(), AttributeValue::S(k.pk.clone())),
            ("sk".to_owned(), AttributeValue::S(k.sk.clone())),
        ]));
    }
    let resp = client
        .batch_get_item()
        .request_items(table, ka.build().map_err(err)?)
        .send()
        .await
        .map_err(err)?;
    let items = resp
        .responses
        .and_then(|mut r| r.remove(table))
        .unwrap_or_default();
    let num = |item: &HashMap<String, AttributeValue>, attr: &str| {
        item.get(attr)
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let root_pk = &keys[0].pk;
    let (mut written, mut applied) = (0, 0);
    for item in &items {
        if item.get("pk").and_then(|v| v.as_s().ok()) == Some(root_pk) {
            applied += (0..LANES)
                .map(|l| num(item, &watermark_attr(l)))
                .sum::<u64>();
        } else {
            written += num(item, WRITTEN_ATTR);
        }
    }
    Ok((written, written.saturating_sub(applied)))
}
