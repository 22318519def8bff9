//! Entity <-> item mapping. Entities are serialised with `serde_dynamo` and the keys the key
//! schema built are added beside their attributes; reading ignores the key attributes.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use leaderboard_keys::entity::Key;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::StoreError;

/// A raw DynamoDB item.
pub(crate) type Item = HashMap<String, AttributeValue>;

pub(crate) fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

pub(crate) fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// The primary key attributes of `key`.
pub(crate) fn key_item(key: &Key) -> Item {
    HashMap::from([("pk".to_owned(), s(&key.pk)), ("sk".to_owned(), s(&key.sk))])
}

/// `value`'s attributes plus its primary key and, if given, its GSI1 and GSI2 keys.
pub(crate) fn to_item<T: Serialize>(
    value: &T,
    key: &Key,
    gsi1: Option<&Key>,
    gsi2: Option<&Key>,
) -> Result<Item, StoreError> {
    let mut item: Item = serde_dynamo::to_item(value)
        .map_err(|e| StoreError::corrupt(format!("{} / {}", key.pk, key.sk), e))?;
    item.insert("pk".into(), s(&key.pk));
    item.insert("sk".into(), s(&key.sk));
    if let Some(g) = gsi1 {
        item.insert("gsi1pk".into(), s(&g.pk));
        item.insert("gsi1sk".into(), s(&g.sk));
    }
    if let Some(g) = gsi2 {
        item.insert("gsi2pk".into(), s(&g.pk));
        item.insert("gsi2sk".into(), s(&g.sk));
    }
    Ok(item)
}

/// The string value of a key attribute, for errors and cursors.
pub(crate) fn key_string(item: &Item, attr: &str) -> String {
    item.get(attr)
        .and_then(|v| v.as_s().ok())
        .cloned()
        .unwrap_or_default()
}

/// An entity from its item; an item that does not map is reported with its key.
pub(crate) fn from_item<T: DeserializeOwned>(item: Item) -> Result<T, StoreError> {
    let key = format!("{} / {}", key_string(&item, "pk"), key_string(&item, "sk"));
    serde_dynamo::from_item(item).map_err(|e| StoreError::corrupt(key, e))
}
