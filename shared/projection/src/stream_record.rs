//! The table's stream records read with the DynamoDB Streams API (by `lbctl replay` and the
//! local stack's poller) as Lambda delivers them to the projector: the SDK record converted to
//! the JSON of a Lambda event record, attribute values in DynamoDB JSON; and the order of
//! sequence numbers.

use std::cmp::Ordering;
use std::collections::HashMap;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_sdk_dynamodbstreams::types::{AttributeValue, Record};
use serde_json::{Map, Value, json};

fn item_json(item: Option<&HashMap<String, AttributeValue>>) -> Option<Value> {
    let item = item.filter(|i| !i.is_empty())?;
    let item = serde_dynamo::Item::from(item.clone());
    // An item always serialises: string keys, and values that are DynamoDB JSON.
    serde_json::to_value(item).ok()
}

/// One stream record as the JSON Lambda delivers it. `stream_arn` becomes `eventSourceARN`;
/// `region` is used when the record does not name one.
pub fn lambda_record_json(record: &Record, stream_arn: &str, region: &str) -> Value {
    let mut change = Map::new();
    if let Some(d) = record.dynamodb() {
        if let Some(t) = d.approximate_creation_date_time() {
            // Lambda sends whole seconds.
            change.insert("ApproximateCreationDateTime".into(), json!(t.secs()));
        }
        for (name, item) in [
            ("Keys", d.keys()),
            ("NewImage", d.new_image()),
            ("OldImage", d.old_image()),
        ] {
            if let Some(v) = item_json(item) {
                change.insert(name.into(), v);
            }
        }
        if let Some(seq) = d.sequence_number() {
            change.insert("SequenceNumber".into(), json!(seq));
        }
        change.insert("SizeBytes".into(), json!(d.size_bytes().unwrap_or(0)));
        if let Some(view) = d.stream_view_type() {
            change.insert("StreamViewType".into(), json!(view.as_str()));
        }
    }
    let mut out = Map::new();
    out.insert(
        "eventID".into(),
        json!(record.event_id().unwrap_or_default()),
    );
    out.insert(
        "eventName".into(),
        json!(record.event_name().map(|n| n.as_str()).unwrap_or_default()),
    );
    out.insert(
        "eventVersion".into(),
        json!(record.event_version().unwrap_or("1.1")),
    );
    out.insert(
        "eventSource".into(),
        json!(record.event_source().unwrap_or("aws:dynamodb")),
    );
    out.insert(
        "awsRegion".into(),
        json!(record.aws_region().unwrap_or(region)),
    );
    out.insert("dynamodb".into(), Value::Object(change));
    out.insert("eventSourceARN".into(), json!(stream_arn));
    if let Some(who) = record.user_identity() {
        out.insert(
            "userIdentity".into(),
            json!({
                "type": who.r#type().unwrap_or_default(),
                "principalId": who.principal_id().unwrap_or_default(),
            }),
        );
    }
    Value::Object(out)
}

/// One stream record as the Lambda event record the function receives.
pub fn to_event_record(
    record: &Record,
    stream_arn: &str,
    region: &str,
) -> Result<EventRecord, String> {
    serde_json::from_value(lambda_record_json(record, stream_arn, region))
        .map_err(|e| format!("stream record as a Lambda event: {e}"))
}

/// A Lambda DynamoDB event of `records`.
pub fn event(records: impl IntoIterator<Item = EventRecord>) -> Event {
    let mut event = Event::default();
    event.records = records.into_iter().collect();
    event
}

/// The sequence number of a Lambda event record, if it has one.
pub fn sequence_number(record: &EventRecord) -> Option<&str> {
    record.change.sequence_number.as_deref()
}

/// Numeric order of two sequence numbers (decimal strings of up to 40 digits, of any length).
pub fn compare_sequence_numbers(a: &str, b: &str) -> Ordering {
    let a = a.trim_start_matches('0');
    let b = b.trim_start_matches('0');
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}
