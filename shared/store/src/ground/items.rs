//! Entity <-> item mapping. Entities are serialised with `serde_dynamo` and the keys the key
//! schema built are added beside their attributes; reading ignores the key attributes.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::ids::PlayerId;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::ground::error::StoreError;
use crate::ground::model::{Board, EntryPointer, ScoreEntry};

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

/// Reading one attribute of a raw item: `None` when it is absent or not of the asked type.
pub(crate) trait ItemExt {
    /// A string attribute.
    fn string(&self, attr: &str) -> Option<&str>;
    /// A number attribute that parses as `T`.
    fn number<T: std::str::FromStr>(&self, attr: &str) -> Option<T>;
}

impl ItemExt for Item {
    fn string(&self, attr: &str) -> Option<&str> {
        self.get(attr)?.as_s().ok().map(String::as_str)
    }

    fn number<T: std::str::FromStr>(&self, attr: &str) -> Option<T> {
        self.get(attr)?.as_n().ok()?.parse().ok()
    }
}

/// The primary key of an item (a listing's, or a page's last evaluated key): what
/// [`key_item`] made.
pub(crate) fn item_key(item: &Item) -> Key {
    Key::new(key_string(item, "pk"), key_string(item, "sk"))
}

/// The string value of a key attribute, for errors and cursors.
pub(crate) fn key_string(item: &Item, attr: &str) -> String {
    item.string(attr).unwrap_or_default().to_owned()
}

/// An entity from its item; an item that does not map is reported with its key.
pub(crate) fn from_item<T: DeserializeOwned>(item: Item) -> Result<T, StoreError> {
    let key = format!("{} / {}", key_string(&item, "pk"), key_string(&item, "sk"));
    serde_dynamo::from_item(item).map_err(|e| StoreError::corrupt(key, e))
}

/// The first of a Query's `items` as an entity, if it found any.
pub(crate) fn first_item<T: DeserializeOwned>(
    items: Option<Vec<Item>>,
) -> Result<Option<T>, StoreError> {
    items
        .unwrap_or_default()
        .into_iter()
        .next()
        .map(from_item)
        .transpose()
}

/// The Score item of a player's entry on `board`: the entry's attributes, the pointer's
/// `version` (so the pointer can be rebuilt from the Score item alone, as season close does),
/// the table key `LEADERBOARD#<b>` (its shard's, `LEADERBOARD#<b>#<shard>`, on a board of more
/// than one) / `SCORE#<rankKey>#<p>` and the GSI1 key `PLAYER#<p>` / `SCORE#<b>`.
pub(crate) fn score_item(board: &Board, pointer: &EntryPointer) -> Result<Item, StoreError> {
    score_item_at(
        score_key(board, &pointer.entry.player_id, &pointer.score_sk),
        pointer,
    )
}

/// [`score_item`] under the key `key` (of another generation of the board's entries).
pub(crate) fn score_item_at(key: Key, pointer: &EntryPointer) -> Result<Item, StoreError> {
    let gsi1 = entity::score_gsi1(&pointer.entry.player_id, &pointer.entry.board_id);
    let mut item = to_item(&pointer.score_entry(), &key, Some(&gsi1), None)?;
    item.insert("version".into(), n(pointer.version));
    Ok(item)
}

/// The key of `player`'s Score item `score_sk` on `board` (in their write shard's partition).
pub(crate) fn score_key(board: &Board, player: &PlayerId, score_sk: &str) -> Key {
    Key::new(board.score_pk(player), score_sk)
}

/// The entry pointer item `PLAYER#<p>` / `ENTRY#<b>`.
pub(crate) fn pointer_item(pointer: &EntryPointer) -> Result<Item, StoreError> {
    to_item(
        pointer,
        &entity::entry(&pointer.entry.player_id, &pointer.entry.board_id),
        None,
        None,
    )
}

/// Rebuilds the entry pointer from its Score item (see [`score_item`]).
pub(crate) fn pointer_from_score_item(item: &Item) -> Result<EntryPointer, StoreError> {
    let score_sk = key_string(item, "sk");
    let version = item.number("version").unwrap_or(1);
    let entry: ScoreEntry = from_item(item.clone())?;
    Ok(EntryPointer {
        entry: entry.entry,
        session_id: entry.session_id,
        score_sk,
        version,
        saturated: entry.saturated,
    })
}
