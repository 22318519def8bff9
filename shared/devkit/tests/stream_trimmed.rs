//! The stream reader on DynamoDB Local when other tables are written: Local numbers stream
//! records from one counter shared by every table of the instance (every item change on any
//! table, and every new shard, takes the next number), while an iterator taken on a still empty
//! shard points at the shard's `StartingSequenceNumber`. Once a write elsewhere has taken a
//! number between the shard's creation and the table's first write, Local answers every such
//! iterator (and each empty page's `NextShardIterator`, which keeps the same position) with
//! `TrimmedDataAccessException`, although nothing was trimmed. The reader must still return
//! every record exactly once, in order, and must not skip what it cannot prove is there.

use aws_lambda_events::event::dynamodb::EventRecord;
use aws_sdk_dynamodb::types::AttributeValue;
use leaderboard_devkit::stream::{
    self, StartingPosition, StreamReader, compare_sequence_numbers, sequence_number,
};
use leaderboard_devkit::testing::TestTable;
use std::cmp::Ordering;

/// Writes a new item `(pk, "#A")` to `table`.
async fn put(table: &TestTable, pk: &str) {
    table
        .client
        .put_item()
        .table_name(&table.name)
        .item("pk", AttributeValue::S(pk.into()))
        .item("sk", AttributeValue::S("#A".into()))
        .send()
        .await
        .unwrap_or_else(|e| panic!("put {pk} in {}: {e:?}", table.name));
}

fn seqs(records: &[EventRecord]) -> Vec<String> {
    records
        .iter()
        .map(|r| sequence_number(r).expect("a sequence number").to_owned())
        .collect()
}

/// The `pk` of each record's keys, in order.
fn keys(records: &[EventRecord]) -> Vec<String> {
    records
        .iter()
        .map(|r| {
            let item: serde_json::Value = serde_dynamo::from_item(r.change.keys.clone()).unwrap();
            item["pk"].as_str().expect("a pk").to_owned()
        })
        .collect()
}

#[tokio::test]
async fn reads_every_record_once_after_polling_an_empty_shard_while_other_tables_are_written() {
    let table = TestTable::new("trimmed").await;
    let other = TestTable::without_stream("trimmed_other").await;
    let mut reader =
        StreamReader::for_table(&table.endpoint, &table.name, StartingPosition::TrimHorizon)
            .await
            .unwrap();

    // The poller's first polls: the shard is empty, its iterator stays at the shard's start.
    assert!(reader.read(100).await.unwrap().is_empty());
    assert!(reader.read(100).await.unwrap().is_empty());

    // A write to another table takes the next sequence number, so the table's first record
    // lands after its shard's start; then writes to both, interleaved.
    put(&other, "gap").await;
    let mut expected = Vec::new();
    let mut got = Vec::new();
    for k in 0..15 {
        let pk = format!("k{k:02}");
        put(&table, &pk).await;
        put(&other, &pk).await;
        expected.push(pk);
        if k == 9 {
            // Read what is there, as a poller does, in small pages.
            loop {
                let page = reader.read(4).await.unwrap();
                if page.is_empty() {
                    break;
                }
                assert!(page.len() <= 4);
                got.extend(page);
            }
            assert_eq!(keys(&got), expected, "caught up after 10 writes");
            assert_eq!(
                reader.last_sequence_number(),
                seqs(&got).last().map(String::as_str)
            );
        }
    }
    // The rest.
    got.extend(reader.read_to_end().await.unwrap());
    assert!(reader.read(100).await.unwrap().is_empty(), "caught up");

    // The whole stream, as a fresh reader (whose shard is not empty) sees it.
    let all = StreamReader::for_table(&table.endpoint, &table.name, StartingPosition::TrimHorizon)
        .await
        .unwrap()
        .read_to_end()
        .await
        .unwrap();
    assert_eq!(keys(&all), expected, "the stream has one INSERT per write");
    assert!(all.iter().all(|r| r.event_name == "INSERT"));
    // Every record exactly once, in stream order.
    assert_eq!(seqs(&got), seqs(&all));
    assert!(got.windows(2).all(|w| compare_sequence_numbers(
        sequence_number(&w[0]).unwrap(),
        sequence_number(&w[1]).unwrap()
    ) == Ordering::Less));
}

#[tokio::test]
async fn does_not_skip_records_after_a_position_local_calls_trimmed() {
    // A reader started after the shard's starting sequence number, which is no record: Local
    // answers its iterator with TrimmedDataAccessException once the first record lands further
    // on. That a fresh TRIM_HORIZON would lose nothing here is Local's quirk, not something the
    // reader can prove on DynamoDB, so it reports the error (and keeps reporting it) instead of
    // skipping to the oldest record.
    let table = TestTable::new("trimmed_after").await;
    let other = TestTable::without_stream("trimmed_after_other").await;
    let arn = stream::stream_arn(&table.client, &table.name)
        .await
        .unwrap();
    let streams = stream::client(&table.endpoint);
    let desc = streams
        .describe_stream()
        .stream_arn(&arn)
        .send()
        .await
        .unwrap();
    let shards = desc.stream_description().unwrap().shards();
    assert_eq!(shards.len(), 1);
    let start = shards[0]
        .sequence_number_range()
        .and_then(|r| r.starting_sequence_number())
        .unwrap()
        .to_owned();
    let mut reader = StreamReader::new(streams, arn, StartingPosition::AfterSequenceNumber(start));
    assert!(reader.read(100).await.unwrap().is_empty());
    put(&other, "gap").await;
    put(&other, "gap2").await;
    put(&table, "k00").await;
    for _ in 0..2 {
        let err = reader.read(100).await.unwrap_err().to_string();
        assert!(err.contains("TrimmedDataAccessException"), "{err}");
        assert_eq!(reader.last_sequence_number(), None);
    }
}
