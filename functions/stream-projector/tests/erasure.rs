//! An erasure under the stream projector, on DynamoDB Local's real stream: the erased player's
//! sessions and lane changes still in flight when the erasure runs (part of the stream
//! delivered before it, all of it again after) never bring back a profile or totals, no item
//! holds the player's id, and each board's rank index equals the one built from the entries
//! left.

use crate::common;
use crate::index_check;

use common::*;
use index_check::{expected_index, stored_index};
use leaderboard_keys::ids::BoardId;
use leaderboard_store::{CloseOptions, CloseProgress};

const GONE: &str = "p_gone_5e1";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_in_flight_never_bring_an_erased_player_back() {
    let mut sc = Scenario::new("erased_in_flight").await;
    let others: Vec<String> = (0..6).map(player_name).collect();
    for (i, p) in others.iter().enumerate() {
        sc.play(p, 100 + 10 * i as u64, 3, 1_000 + i as u64).await;
    }
    sc.play(GONE, 500, 3, 2_000).await;
    sc.play(GONE, 700, 2, 3_000).await;
    sc.play(&others[0], 900, 3, 4_000).await;

    // Half of the stream is projected before the erasure; the rest, the player's second
    // session among it, only after.
    let before = sc.stream().await;
    let half = before.len() / 2;
    deliver(&sc.store, &before[..half]).await;
    let receipt = sc
        .store
        .moderation()
        .erase_player(&pid(GONE), "ops", at(10_000), None)
        .await
        .unwrap();
    assert!(receipt.finished());
    deliver(&sc.store, &sc.stream().await).await;

    let left: Vec<_> = sc
        .table
        .dump()
        .await
        .into_iter()
        .filter(|i| format!("{i:?}").contains(GONE))
        .collect();
    assert!(left.is_empty(), "the id is left in {left:?}");
    let players = sc.players().await;
    assert!(!players.contains_key(GONE));
    assert_eq!(players.len(), others.len());
    assert_eq!(players[&others[0]].games_played, 2);
    for board in BOARDS {
        assert_eq!(
            stored_index(&sc.table, board).await,
            expected_index(&sc.table, &sc.store, board, &others).await,
            "{board}"
        );
    }
}

/// The leader of a board that then closed is erased: the closed board's rank index (its root's
/// leader and its last journal's step) names the pseudonym, and no item the id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_boards_rank_index_forgets_an_erased_leader() {
    let mut sc = Scenario::new("erased_leader_closed").await;
    let others: Vec<String> = (0..4).map(player_name).collect();
    for (i, p) in others.iter().enumerate() {
        sc.play(p, 100 + 10 * i as u64, 3, 1_000 + i as u64).await;
    }
    // The top score on the two boards ranked high to low.
    sc.play(GONE, 5_000, 3, 2_000).await;
    deliver(&sc.store, &sc.stream().await).await;
    let with_id = |items: &[_]| -> Vec<String> {
        items
            .iter()
            .map(|i| format!("{i:?}"))
            .filter(|i| i.contains(GONE))
            .collect()
    };
    let root = format!("RANKV2#{}", BOARDS[0]);
    let index_items: Vec<_> = sc
        .table
        .dump()
        .await
        .into_iter()
        .filter(|i| format!("{i:?}").contains(&root))
        .collect();
    assert!(
        !with_id(&index_items).is_empty(),
        "the leader is not in the index to begin with"
    );

    let end = at(366 * 86_400_000);
    for board in BOARDS {
        let progress = sc
            .store
            .close()
            .close_board(
                &BoardId::parse(board).unwrap(),
                end,
                &CloseOptions::default(),
            )
            .await
            .unwrap();
        assert!(
            matches!(progress, CloseProgress::Closed { .. }),
            "{progress:?}"
        );
    }
    deliver(&sc.store, &sc.stream().await).await;
    let receipt = sc
        .store
        .moderation()
        .erase_player(&pid(GONE), "ops", end, None)
        .await
        .unwrap();
    assert!(receipt.finished());
    deliver(&sc.store, &sc.stream().await).await;

    let left = with_id(&sc.table.dump().await);
    assert!(left.is_empty(), "the id is left in {left:?}");
    let pseudonym = receipt.pseudonym.as_str().to_owned();
    let named: Vec<_> = sc
        .table
        .dump()
        .await
        .into_iter()
        .map(|i| format!("{i:?}"))
        .filter(|i| i.contains(&root) && i.contains(&pseudonym))
        .collect();
    assert!(
        !named.is_empty(),
        "the root keeps its leader's rank under the pseudonym"
    );
}
