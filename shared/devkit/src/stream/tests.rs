//! The stream reader's conversion and the event source mapping's rules, without a stream.

use std::cmp::Ordering;
use std::time::Duration;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use aws_lambda_events::event::streams::DynamoDbEventResponse;
use aws_sdk_dynamodbstreams::types::{AttributeValue, Record};
use serde_json::json;

use super::*;
use aws_lambda_events::event::streams::DynamoDbBatchItemFailure;
use aws_sdk_dynamodbstreams::primitives::DateTime;
use aws_sdk_dynamodbstreams::types::{Identity, OperationType, StreamRecord, StreamViewType};

fn sdk_record(seq: &str, name: OperationType) -> Record {
    let change = StreamRecord::builder()
        .approximate_creation_date_time(DateTime::from_secs(1_767_225_600))
        .keys("pk", AttributeValue::S("PLAYER#p1".into()))
        .keys("sk", AttributeValue::S("#METADATA".into()))
        .new_image("pk", AttributeValue::S("PLAYER#p1".into()))
        .new_image("gamesPlayed", AttributeValue::N("3".into()))
        .new_image(
            "tags",
            AttributeValue::L(vec![AttributeValue::Bool(true), AttributeValue::Null(true)]),
        )
        .sequence_number(seq)
        .size_bytes(42)
        .stream_view_type(StreamViewType::NewAndOldImages)
        .build();
    Record::builder()
        .event_id("e1")
        .event_name(name)
        .event_version("1.1")
        .event_source("aws:dynamodb")
        .aws_region("ddblocal")
        .dynamodb(change)
        .build()
}

fn record(seq: &str) -> EventRecord {
    to_event_record(
        &sdk_record(seq, OperationType::Insert),
        "arn:s",
        "us-east-1",
    )
    .unwrap()
}

fn failures(ids: &[Option<&str>]) -> DynamoDbEventResponse {
    let mut r = DynamoDbEventResponse::default();
    r.batch_item_failures = ids
        .iter()
        .map(|id| {
            let mut f = DynamoDbBatchItemFailure::default();
            f.item_identifier = id.map(str::to_owned);
            f
        })
        .collect();
    r
}

#[test]
fn converts_to_the_lambda_shape() {
    let json = lambda_record_json(
        &sdk_record("100", OperationType::Insert),
        "arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/x",
        "us-east-1",
    );
    assert_eq!(json["eventName"], "INSERT");
    assert_eq!(json["eventVersion"], "1.1");
    assert_eq!(json["eventSource"], "aws:dynamodb");
    assert_eq!(json["awsRegion"], "ddblocal");
    assert_eq!(
        json["eventSourceARN"],
        "arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/x"
    );
    let d = &json["dynamodb"];
    assert_eq!(d["ApproximateCreationDateTime"], 1_767_225_600);
    assert_eq!(d["Keys"]["pk"], json!({"S": "PLAYER#p1"}));
    assert_eq!(d["NewImage"]["gamesPlayed"], json!({"N": "3"}));
    assert_eq!(
        d["NewImage"]["tags"],
        json!({"L": [{"BOOL": true}, {"NULL": true}]})
    );
    assert!(d.get("OldImage").is_none());
    assert_eq!(d["SequenceNumber"], "100");
    assert_eq!(d["SizeBytes"], 42);
    assert_eq!(d["StreamViewType"], "NEW_AND_OLD_IMAGES");
    assert!(json.get("userIdentity").is_none());

    let r: EventRecord = serde_json::from_value(json).unwrap();
    assert_eq!(r.event_name, "INSERT");
    assert_eq!(r.change.sequence_number.as_deref(), Some("100"));
    assert_eq!(r.change.size_bytes, 42);
    assert_eq!(
        r.change.approximate_creation_date_time.timestamp(),
        1_767_225_600
    );
    assert!(r.change.old_image.is_empty());
}

#[test]
fn keeps_the_ttl_identity() {
    let mut rec = sdk_record("7", OperationType::Remove);
    rec.user_identity = Some(
        Identity::builder()
            .r#type("Service")
            .principal_id("dynamodb.amazonaws.com")
            .build(),
    );
    let r = to_event_record(&rec, "arn:s", "us-east-1").unwrap();
    let who = r.user_identity.unwrap();
    assert_eq!(who.type_, "Service");
    assert_eq!(who.principal_id, "dynamodb.amazonaws.com");
}

#[test]
fn sequence_numbers_compare_numerically() {
    assert_eq!(compare_sequence_numbers("99", "100"), Ordering::Less);
    assert_eq!(compare_sequence_numbers("0100", "100"), Ordering::Equal);
    assert_eq!(compare_sequence_numbers("201", "200"), Ordering::Greater);
}

#[test]
fn checkpoint_follows_lambda() {
    let batch: Vec<_> = ["1", "2", "3", "4"].into_iter().map(record).collect();
    let ok: Result<_, String> = Ok(failures(&[]));
    assert_eq!(checkpoint(&batch, &ok), None);
    let err: Result<DynamoDbEventResponse, _> = Err("boom");
    assert_eq!(checkpoint(&batch, &err), Some(0));
    let two: Result<_, String> = Ok(failures(&[Some("4"), Some("2")]));
    assert_eq!(checkpoint(&batch, &two), Some(1));
    for bad in [None, Some(""), Some("9")] {
        let r: Result<_, String> = Ok(failures(&[Some("3"), bad]));
        assert_eq!(checkpoint(&batch, &r), Some(0), "{bad:?}");
    }
}

#[tokio::test]
async fn delivers_in_batches_and_redelivers_from_the_checkpoint() {
    let records: Vec<_> = (1..=10).map(|i| record(&i.to_string())).collect();
    let esm = EventSourceMapping {
        batch_size: 4,
        max_retries: 2,
        retry_delay: Duration::ZERO,
    };
    let mut seen: Vec<Vec<String>> = Vec::new();
    // Record 6 fails on its first delivery only; record 9 always fails.
    let mut failed_6 = false;
    let report = esm
        .deliver(&records, |e: Event| {
            let seqs: Vec<String> = e
                .records
                .iter()
                .map(|r| sequence_number(r).unwrap().to_owned())
                .collect();
            seen.push(seqs.clone());
            let mut bad = Vec::new();
            if seqs.iter().any(|s| s == "6") && !failed_6 {
                failed_6 = true;
                bad.push(Some("6"));
            }
            if seqs.iter().any(|s| s == "9") {
                bad.push(Some("9"));
            }
            let r = failures(&bad);
            async move { Ok::<_, String>(r) }
        })
        .await;
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        seen,
        [
            s(&["1", "2", "3", "4"]),
            s(&["5", "6", "7", "8"]),
            s(&["6", "7", "8", "9"]),
            s(&["9", "10"]),
            s(&["9", "10"]),
        ]
    );
    assert_eq!(report.invocations, 5);
    assert_eq!(report.retries, 3);
    let gave_up: Vec<_> = report
        .discarded
        .iter()
        .map(|r| sequence_number(r).unwrap())
        .collect();
    assert_eq!(gave_up, ["9", "10"]);
}
