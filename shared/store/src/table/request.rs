//! One way to build a request to the table. Every read and write starts from a [`Store`]
//! method here that fills in the table name (and the key or item), names its index with
//! [`Index`], and gets its expressions' placeholders from [`Params`], which puts every value
//! through `serde_dynamo` and refuses a placeholder bound twice. A request the SDK cannot build
//! is [`StoreError::Request`]: this code's fault, never the caller's.
//!
//! A request then reads as what it asks of the table: the expression text, and beside it the
//! names and values its placeholders stand for.

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemFluentBuilder;
use aws_sdk_dynamodb::operation::get_item::builders::GetItemFluentBuilder;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemFluentBuilder;
use aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder;
use aws_sdk_dynamodb::operation::scan::builders::ScanFluentBuilder;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder;
use aws_sdk_dynamodb::types::builders::{
    ConditionCheckBuilder, DeleteBuilder, PutBuilder, UpdateBuilder,
};
use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, Delete, Put, TransactWriteItem, Update,
};
use leaderboard_keys::entity::Key;
use serde::Serialize;

use crate::ground::error::CancelReason;
use crate::ground::error::StoreError;
use crate::ground::items::{Item, key_item};
use crate::table::Table;
use crate::table::retry::idempotency_token;

/// Where a Query reads: the table or one of its two global secondary indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Index {
    /// The table's own key `pk` / `sk`.
    Table,
    /// GSI1 (`gsi1pk` / `gsi1sk`): a player's entries, players by email.
    Gsi1,
    /// GSI2 (`gsi2pk` / `gsi2sk`): a game's sessions, open boards by end time.
    Gsi2,
}

impl Index {
    /// The index name a request carries (`None` for the table).
    pub(crate) fn name(self) -> Option<&'static str> {
        match self {
            Index::Table => None,
            Index::Gsi1 => Some("GSI1"),
            Index::Gsi2 => Some("GSI2"),
        }
    }

    /// The partition and sort key attributes.
    pub(crate) fn key_attrs(self) -> (&'static str, &'static str) {
        match self {
            Index::Table => ("pk", "sk"),
            Index::Gsi1 => ("gsi1pk", "gsi1sk"),
            Index::Gsi2 => ("gsi2pk", "gsi2sk"),
        }
    }
}

/// The placeholders of one request's expressions: `#name`s standing for attribute names and
/// `:value`s standing for values. Building never fails on the spot; the first mistake (a
/// placeholder without its sigil, one bound twice to different things, a value that does not
/// serialise) is kept and reported when the request is built.
#[derive(Debug, Default, Clone)]
pub(crate) struct Params {
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
    mistake: Option<String>,
}

impl Params {
    /// No placeholders yet.
    pub(crate) fn new() -> Params {
        Params::default()
    }

    /// `placeholder` (`#...`) stands for the attribute `attr`: for reserved words (`name`,
    /// `status`) and computed names (counters).
    pub(crate) fn name(
        mut self,
        placeholder: impl Into<String>,
        attr: impl Into<String>,
    ) -> Params {
        self.bind_name(placeholder.into(), attr.into());
        self
    }

    /// `placeholder` (`:...`) is `value` as `serde_dynamo` stores it: a string as S, a number
    /// as N, a bool as BOOL, a timestamp as its RFC 3339 text, an enum as its name.
    pub(crate) fn value(mut self, placeholder: impl Into<String>, value: impl Serialize) -> Params {
        let placeholder = placeholder.into();
        match serde_dynamo::to_attribute_value(value) {
            Ok(v) => self.bind_value(placeholder, v),
            Err(e) => self.note(format!("value of {placeholder}: {e}")),
        }
        self
    }

    /// `placeholder` is `value` exactly (for what serde cannot say, such as a string set).
    pub(crate) fn attr(mut self, placeholder: impl Into<String>, value: AttributeValue) -> Params {
        self.bind_value(placeholder.into(), value);
        self
    }

    fn bind_name(&mut self, placeholder: String, attr: String) {
        if !placeholder.starts_with('#') {
            return self.note(format!("name placeholder {placeholder} must start with #"));
        }
        if let Some(old) = self.names.get(&placeholder)
            && *old != attr
        {
            return self.note(format!("{placeholder} bound to {old} and {attr}"));
        }
        self.names.insert(placeholder, attr);
    }

    fn bind_value(&mut self, placeholder: String, value: AttributeValue) {
        if !placeholder.starts_with(':') {
            return self.note(format!("value placeholder {placeholder} must start with :"));
        }
        if let Some(old) = self.values.get(&placeholder)
            && *old != value
        {
            return self.note(format!("{placeholder} bound to two values"));
        }
        self.values.insert(placeholder, value);
    }

    fn note(&mut self, mistake: String) {
        self.mistake.get_or_insert(mistake);
    }

    /// The maps a request carries: an empty map is left out, as DynamoDB refuses one.
    fn into_maps(self) -> Result<PlaceholderMaps, StoreError> {
        if let Some(m) = self.mistake {
            return Err(StoreError::Request(m));
        }
        let names = (!self.names.is_empty()).then_some(self.names);
        let values = (!self.values.is_empty()).then_some(self.values);
        Ok((names, values))
    }
}

/// The names and values maps of a request, each absent when empty.
type PlaceholderMaps = (
    Option<HashMap<String, String>>,
    Option<HashMap<String, AttributeValue>>,
);

/// A request builder that takes expression placeholders.
pub(crate) trait WithParams: Sized {
    /// Sets the request's placeholder names and values (all of them: a second call would
    /// replace the first's), or reports the first mistake made while binding them.
    fn params(self, params: Params) -> Result<Self, StoreError>;
}

macro_rules! with_params {
    ($($builder:ty),* $(,)?) => {$(
        impl WithParams for $builder {
            fn params(self, params: Params) -> Result<Self, StoreError> {
                let (names, values) = params.into_maps()?;
                Ok(self
                    .set_expression_attribute_names(names)
                    .set_expression_attribute_values(values))
            }
        }
    )*};
}

with_params!(
    QueryFluentBuilder,
    ScanFluentBuilder,
    UpdateItemFluentBuilder,
    PutItemFluentBuilder,
    DeleteItemFluentBuilder,
    PutBuilder,
    UpdateBuilder,
    DeleteBuilder,
    ConditionCheckBuilder,
);

impl Table {
    /// A Scan of the whole table (a run over every board, never a request's read).
    pub(crate) fn scan_request(&self) -> ScanFluentBuilder {
        self.client.scan().table_name(&self.name)
    }

    /// A Query on `index` of the table.
    pub(crate) fn query_request(&self, index: Index) -> QueryFluentBuilder {
        self.client
            .query()
            .table_name(&self.name)
            .set_index_name(index.name().map(str::to_owned))
    }

    /// A Query of the table's partition `pk` for the sort keys in `lo..=hi` (`more` binds the
    /// placeholders of anything the caller adds, such as a filter).
    pub(crate) fn range_query(
        &self,
        pk: &str,
        lo: &str,
        hi: &str,
        more: Params,
    ) -> Result<QueryFluentBuilder, StoreError> {
        self.query_request(Index::Table)
            .key_condition_expression("pk = :pk AND sk BETWEEN :lo AND :hi")
            .params(more.value(":pk", pk).value(":lo", lo).value(":hi", hi))
    }

    /// A strongly consistent GetItem of `key`.
    pub(crate) fn get_request(&self, key: &Key) -> GetItemFluentBuilder {
        self.client
            .get_item()
            .table_name(&self.name)
            .set_key(Some(key_item(key)))
            .consistent_read(true)
    }

    /// A PutItem of `item`.
    pub(crate) fn put_request(&self, item: Item) -> PutItemFluentBuilder {
        self.client
            .put_item()
            .table_name(&self.name)
            .set_item(Some(item))
    }

    /// A DeleteItem of `key`.
    pub(crate) fn delete_request(&self, key: &Key) -> DeleteItemFluentBuilder {
        self.client
            .delete_item()
            .table_name(&self.name)
            .set_key(Some(key_item(key)))
    }

    /// An UpdateItem of `key` with `update`.
    pub(crate) fn update_request(
        &self,
        key: &Key,
        update: impl Into<String>,
    ) -> UpdateItemFluentBuilder {
        self.client
            .update_item()
            .table_name(&self.name)
            .set_key(Some(key_item(key)))
            .update_expression(update)
    }

    /// Sends one transaction with a fresh idempotency token. A cancelled one is
    /// [`StoreError::TransactionCanceled`] with a reason per item; anything else keeps
    /// DynamoDB's code under `operation`.
    pub(crate) async fn transact(
        &self,
        items: Vec<TransactWriteItem>,
        operation: &'static str,
    ) -> Result<(), StoreError> {
        let sent = self
            .client
            .transact_write_items()
            .set_transact_items(Some(items))
            .client_request_token(idempotency_token())
            .send()
            .await;
        match sent {
            Ok(_) => Ok(()),
            Err(e) => match e.as_service_error() {
                Some(TransactWriteItemsError::TransactionCanceledException(c)) => {
                    Err(StoreError::TransactionCanceled {
                        reasons: CancelReason::of(c),
                    })
                }
                _ => Err(StoreError::sdk(operation, e)),
            },
        }
    }

    /// A transaction's put of `item`, on `condition` when one is given.
    pub(crate) fn tx_put(
        &self,
        item: Item,
        condition: Option<&str>,
        params: Params,
    ) -> Result<TransactWriteItem, StoreError> {
        let put = Put::builder()
            .table_name(&self.name)
            .set_item(Some(item))
            .set_condition_expression(condition.map(str::to_owned))
            .params(params)?
            .build()?;
        Ok(TransactWriteItem::builder().put(put).build())
    }

    /// A transaction's update of `key` with `update`.
    pub(crate) fn tx_update(
        &self,
        key: &Key,
        update: &str,
        params: Params,
    ) -> Result<TransactWriteItem, StoreError> {
        self.tx_update_on(key, update, None, params)
    }

    /// A transaction's update of `key` with `update`, on `condition`.
    pub(crate) fn tx_update_if(
        &self,
        key: &Key,
        update: &str,
        condition: &str,
        params: Params,
    ) -> Result<TransactWriteItem, StoreError> {
        self.tx_update_on(key, update, Some(condition), params)
    }

    fn tx_update_on(
        &self,
        key: &Key,
        update: &str,
        condition: Option<&str>,
        params: Params,
    ) -> Result<TransactWriteItem, StoreError> {
        let update = Update::builder()
            .table_name(&self.name)
            .set_key(Some(key_item(key)))
            .update_expression(update)
            .set_condition_expression(condition.map(str::to_owned))
            .params(params)?
            .build()?;
        Ok(TransactWriteItem::builder().update(update).build())
    }

    /// A transaction's delete of `key`, on `condition` (none when empty).
    pub(crate) fn tx_delete(
        &self,
        key: &Key,
        condition: &str,
        params: Params,
    ) -> Result<TransactWriteItem, StoreError> {
        let delete = Delete::builder()
            .table_name(&self.name)
            .set_key(Some(key_item(key)))
            .set_condition_expression((!condition.is_empty()).then(|| condition.to_owned()))
            .params(params)?
            .build()?;
        Ok(TransactWriteItem::builder().delete(delete).build())
    }

    /// A transaction's check that `key` meets `condition`, writing nothing.
    pub(crate) fn tx_check(
        &self,
        key: &Key,
        condition: &str,
        params: Params,
    ) -> Result<TransactWriteItem, StoreError> {
        let check = ConditionCheck::builder()
            .table_name(&self.name)
            .set_key(Some(key_item(key)))
            .condition_expression(condition)
            .params(params)?
            .build()?;
        Ok(TransactWriteItem::builder().condition_check(check).build())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ground::model::BoardStatus;
    use leaderboard_keys::time::Timestamp;

    #[test]
    fn values_are_stored_as_serde_dynamo_stores_them() {
        let now = Timestamp::from_millis(1_767_225_600_000).unwrap();
        let (names, values) = Params::new()
            .name("#status", "status")
            .value(":s", "x")
            .value(":n", 7u64)
            .value(":t", true)
            .value(":now", now)
            .value(":open", BoardStatus::Open)
            .into_maps()
            .unwrap();
        assert_eq!(names.unwrap()["#status"], "status");
        let values = values.unwrap();
        assert_eq!(values[":s"], AttributeValue::S("x".into()));
        assert_eq!(values[":n"], AttributeValue::N("7".into()));
        assert_eq!(values[":t"], AttributeValue::Bool(true));
        assert_eq!(values[":now"], AttributeValue::S(now.to_string()));
        assert_eq!(values[":open"], AttributeValue::S("open".into()));
    }

    #[test]
    fn no_placeholders_leave_both_maps_out() {
        assert!(matches!(Params::new().into_maps(), Ok((None, None))));
    }

    #[test]
    fn mistakes_in_placeholders_are_request_errors() {
        let mistakes = [
            Params::new().name("status", "status"),
            Params::new().value("v", 1u64),
            Params::new().name("#a", "x").name("#a", "y"),
            Params::new().value(":a", 1u64).value(":a", 2u64),
            // a map with non-string keys has no DynamoDB form
            Params::new().value(":m", HashMap::from([((1, 2), 3)])),
        ];
        for p in mistakes {
            assert!(
                matches!(p.clone().into_maps(), Err(StoreError::Request(_))),
                "{p:?}"
            );
        }
        // the same binding twice is no mistake
        let same = Params::new().value(":a", 1u64).value(":a", 1u64);
        assert!(same.into_maps().is_ok());
    }

    #[test]
    fn a_transaction_item_with_a_mistake_is_never_built() {
        let store = Table::new(
            aws_sdk_dynamodb::Client::from_conf(
                aws_sdk_dynamodb::Config::builder()
                    .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
                    .build(),
            ),
            "t".into(),
            &[0; 32],
        );
        let key = Key::new("p", "s");
        let bad = Params::new().value("v", 1u64);
        assert!(matches!(
            store.tx_update(&key, "SET v = :v", bad),
            Err(StoreError::Request(_))
        ));
        assert!(
            store
                .tx_update(&key, "SET v = :v", Params::new().value(":v", 1u64))
                .is_ok()
        );
    }
}
