//! A board widened (docs/widen.md) while plays go on, its lane records then delivered from
//! DynamoDB Local's real stream to the rank index: the plays held between the index step's
//! scan and its switch (a gate on the switch's transaction) reach the new index only by their
//! changes at the new width (`chgw`). Afterwards the index equals the one built from the new
//! generation's entries, every watermark is its lane's written count, and a score above the old
//! `maxScore` ranks first.

use crate::common;
use crate::index_check;

use common::*;
use futures::StreamExt;
use index_check::stored_index;
use leaderboard_devkit::local::gated_client;
use leaderboard_devkit::testing::{RawItem, TestTable, s};
use leaderboard_keys::entity::ItemKey;
use leaderboard_keys::rank::Order;
use leaderboard_keys::rank_index::{CountedKey, LANES, Watermarks, build};
use leaderboard_store::model::Operator;
use leaderboard_store::model::RankLayout;
use leaderboard_store::{WidenOptions, WidenProgress};
use stream_projector::rank_index;

const ENTRIES: usize = 1_000;
const MAX: u64 = 99_999;

/// The index built from the board's generation-1 entries, and its lanes' written counts.
fn expected(
    dump: &[RawItem],
    board: &str,
) -> (leaderboard_keys::rank_index::NodeCounters, Watermarks) {
    let pk = format!("LEADERBOARD#{board}#E1");
    let keys: Vec<CountedKey> = dump
        .iter()
        .filter(|i| s(i, "pk") == Some(pk.as_str()))
        .filter_map(|i| s(i, "sk").filter(|k| k.starts_with("SCORE#")))
        .map(|k| CountedKey::parse(k).unwrap())
        .collect();
    let mut written = Watermarks::default();
    for item in dump
        .iter()
        .filter(|i| s(i, "pk") == Some(format!("RANKSEQ#{board}").as_str()))
    {
        let lane: u8 = s(item, "sk")
            .unwrap()
            .rsplit('#')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let w: u64 = item["written"].as_n().unwrap().parse().unwrap();
        assert!(lane < LANES);
        if w > 0 {
            written.0.insert(lane, w);
        }
    }
    (build(&keys), written)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn changes_between_the_index_steps_scan_and_its_switch_reach_the_new_index_at_the_new_width()
{
    let table = TestTable::on_process_local("widen_stream").await;
    let store = store_for(&table, table.client.clone());
    let mut new = new_board("wide", Order::Desc, Operator::Best, RankLayout::V2);
    new.max_score = 999;
    let board = store.boards().create_board(new, at(0)).await.unwrap();
    let entries: Vec<_> = (0..ENTRIES)
        .map(|i| {
            (
                pid(&format!("w{i:04}")),
                (i as u64 * 7) % 1_000,
                at(i as u64),
            )
        })
        .collect();
    store
        .boards()
        .import_entries(&board, &entries)
        .await
        .unwrap();
    store.rank().build_rank_index(&board).await.unwrap();
    let id = board.board_id.clone();
    let options = WidenOptions {
        page: 200,
        grace: std::time::Duration::ZERO,
        now: at(0),
    };
    // Begun, copied while 4 sessions play at once.
    let mut copying = store.rank().widen_step(&id, MAX, &options).await.unwrap();
    let mut ms = 10_000;
    while !matches!(
        copying,
        WidenProgress::Running {
            step: leaderboard_store::widening::WideningStep::Index,
            ..
        }
    ) {
        futures::stream::iter(0..8u64)
            .map(|i| {
                let (store, id) = (store.clone(), id.clone());
                ms += 1;
                let at_ms = ms;
                async move {
                    let player = format!("w{:04}", (at_ms * 37 + i * 11) % ENTRIES as u64);
                    play_on(&store, &id, &player, (at_ms * 13) % 1_000, at_ms).await
                }
            })
            .buffer_unordered(4)
            .collect::<Vec<()>>()
            .await;
        copying = store.rank().widen_step(&id, MAX, &options).await.unwrap();
    }
    // The index step, held at its switch: plays come after its scan settled the lanes.
    let (client, gate) = gated_client(&table.endpoint, "TransactWriteItems:switchedAt");
    let gated = store_for(&table, client);
    let (switching_id, switching_options) = (id.clone(), options);
    let switching = tokio::spawn(async move {
        gated
            .rank()
            .widen_step(&switching_id, MAX, &switching_options)
            .await
            .unwrap()
    });
    assert!(gate.reached().await);
    for (i, player) in ["w0001", "w0002", "late_1", "late_2"].iter().enumerate() {
        play_on(&store, &id, player, 990 + i as u64, 900_000 + i as u64).await;
    }
    gate.release();
    switching.await.unwrap();
    // The old generation retired.
    loop {
        if let WidenProgress::Done(b) = store.rank().widen_step(&id, MAX, &options).await.unwrap() {
            assert_eq!((b.max_score, b.entry_generation), (MAX, 1));
            break;
        }
    }
    // WHEN the board's lane records are delivered, in stream order
    let records = leaderboard_devkit::stream::StreamReader::for_table(
        &table.endpoint,
        &table.name,
        leaderboard_devkit::stream::StartingPosition::TrimHorizon,
    )
    .await
    .unwrap()
    .read_to_end()
    .await
    .unwrap();
    let lanes: Vec<_> = records
        .iter()
        .filter(|r| {
            matches!(ItemKey::parse(&record_key(r, "pk"), &record_key(r, "sk")),
                Ok(ItemKey::Lane { board, .. }) if board == id)
        })
        .cloned()
        .collect();
    let wide = lanes
        .iter()
        .filter(|r| r.change.new_image.inner().contains_key("chgw"))
        .count();
    assert!(wide >= 4, "{wide} changes recorded at both widths");
    for batch in lanes.chunks(100) {
        let failed = rank_index::index(&store, &rank_index::plan(batch))
            .await
            .failures;
        assert!(failed.is_empty(), "{failed:?}");
    }
    // THEN the index is the one the new generation's entries build, at every lane's count
    let want = expected(&table.dump().await, "wide");
    assert_eq!(stored_index(&table, "wide").await, want);
    // AND a score above the old maxScore ranks first
    play_on(&store, &id, "record", 50_000, 1_000_000).await;
    let board = store.boards().get_board(&id).await.unwrap().unwrap();
    let ranked = store
        .listings()
        .player_rank(&board, &pid("record"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((ranked.rank, ranked.score), (1, 50_000));
    // AND the late players rank where the new generation lists them
    let top = store
        .listings()
        .top_scores(&board, 100, None)
        .await
        .unwrap();
    for player in ["late_1", "late_2"] {
        let at = top
            .items
            .iter()
            .position(|e| e.player_id.as_str() == player)
            .unwrap();
        let late = store
            .listings()
            .player_rank(&board, &pid(player))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(late.rank, at as u64 + 1, "{player}");
    }
}
