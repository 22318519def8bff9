//! The devkit's stream reader on DynamoDB Local's real stream, as the projector's tests and the
//! local stack's poller use it: records in order, the position kept between reads, a start
//! after a given sequence number, and a poll loop feeding the projector.

use crate::common;

use common::*;
use leaderboard_devkit::stream::{
    EventSourceMapping, StartingPosition, StreamReader, compare_sequence_numbers,
};
use leaderboard_keys::time::Timestamp;
use std::cmp::Ordering;
use stream_projector::project;

fn seqs(records: &[aws_lambda_events::event::dynamodb::EventRecord]) -> Vec<String> {
    records.iter().map(|r| seq(r).to_owned()).collect()
}

#[tokio::test]
async fn reads_in_order_keeps_its_position_and_starts_after_a_sequence_number() {
    let mut sc = Scenario::new("reader").await;
    sc.play("p_r", 1, 3, 1_000).await;
    let mut reader = StreamReader::for_table(
        &sc.table.endpoint,
        &sc.table.name,
        StartingPosition::TrimHorizon,
    )
    .await
    .unwrap();
    assert!(reader.stream_arn().contains(&sc.table.name));

    // Three boards of one game (each with its listing item, and the game's feed item, which
    // the first creates and the others' add of the same shard count leaves unchanged), then a
    // play on three boards: Session, and a pointer, a Score and a rank index written count per
    // board, then the Session's MODIFY that keeps the ranks read after the write.
    let first = reader.read(usize::MAX).await.unwrap();
    assert_eq!(first.len(), 3 * 2 + 1 + 1 + 3 * 3 + 1);
    assert!(
        first
            .windows(2)
            .all(|w| { compare_sequence_numbers(seq(&w[0]), seq(&w[1])) == Ordering::Less })
    );
    assert!(first.iter().all(|r| {
        r.event_source.as_deref() == Some("aws:dynamodb")
            && r.event_source_arn.as_deref() == Some(reader.stream_arn())
            && r.event_version.as_deref() == Some("1.1")
    }));
    assert_eq!(reader.last_sequence_number(), first.last().map(seq));
    assert!(reader.read(10).await.unwrap().is_empty(), "caught up");

    // New writes: only they come, `max` at a time. On all three boards, so that the play
    // changes entries whatever its board order (2 is worse than 1 on the ascending board).
    sc.play("p_r", 2, 3, 2_000).await;
    let a = reader.read(1).await.unwrap();
    let b = reader.read(usize::MAX).await.unwrap();
    assert_eq!(a.len(), 1);
    // The rest: the two entries that improved each change their pointer, Score (a new sort
    // key: REMOVE and INSERT) and written count; then the Session's MODIFY.
    assert_eq!(b.len(), 2 * 4 + 1, "{b:#?}");
    let all = sc.stream().await;
    let mut both = first.clone();
    both.extend(a);
    both.extend(b);
    assert_eq!(seqs(&both), seqs(&all));

    // A reader started after a record's sequence number reads what follows it.
    let from = seq(&all[4]).to_owned();
    let mut later = StreamReader::for_table(
        &sc.table.endpoint,
        &sc.table.name,
        StartingPosition::AfterSequenceNumber(from),
    )
    .await
    .unwrap();
    assert_eq!(seqs(&later.read_to_end().await.unwrap()), seqs(&all[5..]));
}

#[tokio::test]
async fn a_poller_feeds_the_projector_as_the_stream_grows() {
    // The local stack's loop: read what is new, deliver it with the mapping's semantics.
    let mut sc = Scenario::new("poller").await;
    let mut reader = StreamReader::for_table(
        &sc.table.endpoint,
        &sc.table.name,
        StartingPosition::TrimHorizon,
    )
    .await
    .unwrap();
    let esm = EventSourceMapping {
        batch_size: 7,
        ..EventSourceMapping::default()
    };
    for round in 0..3u64 {
        sc.random_plays(15, 4, 2).await;
        let records = reader.read(usize::MAX).await.unwrap();
        let report = esm
            .deliver(&records, |e| {
                let store = &sc.store;
                async move { Ok::<_, String>(project(store, e.records, Timestamp::now()).await) }
            })
            .await;
        assert_eq!(report.retries, 0, "round {round}");
        sc.assert_totals(&sc.expected(&[])).await;
    }
}
