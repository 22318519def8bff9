//! AP10 (exact rank) and the around-player window.

use super::*;

/// At least `want` positions to check, from every part of the board: every `step`-th, the
/// last three, the edges of the full-tie runs (equal score and time, so ordered by playerId
/// alone) in the middle and at the end of the board, and then the top of the board (which is
/// full of ties) until there are `want`. A rank costs one read of every entry above, so the
/// sample leans to the top while still reaching every page.
fn sample(expected: &[RankedEntry], want: usize, step: usize) -> BTreeSet<usize> {
    let last = expected.len() - 1;
    let mut picks: BTreeSet<usize> = (0..=last).step_by(step).collect();
    picks.extend([last - 2, last - 1, last]);
    // the full-tie run around `at`: its first index and its last
    let run = |at: usize| {
        let same =
            |a: &RankedEntry, b: &RankedEntry| a.score == b.score && a.attained_at == b.attained_at;
        let (mut i, mut j) = (at, at);
        while i > 0 && same(&expected[i - 1], &expected[at]) {
            i -= 1;
        }
        while j < last && same(&expected[j + 1], &expected[at]) {
            j += 1;
        }
        (i, j)
    };
    for at in [expected.len() / 2, last] {
        let (i, j) = run(at);
        assert!(j >= i + 3, "no full tie at {at}");
        picks.extend([i - 1, i, i + 1, j - 1, j]);
    }
    let mut top = 0;
    while picks.len() < want {
        picks.insert(top);
        top += 1;
    }
    assert!(
        top > 2 && run(0).1 > 0,
        "the top must be sampled, ties included"
    );
    picks
}

#[tokio::test]
async fn ap10_exact_ranks_from_the_index_on_a_board_of_15000() {
    let (table, store) = bulk_store("ap10").await;
    let board = common::board(&store, "big", Order::Desc, Operator::Best).await;
    // GIVEN 15,000 entries: 40 scores and 25 times, so many share a score and many more than
    // one share score and time (full ties, ordered by playerId bytes); ids of mixed
    // characters and lengths
    let prefixes = ["p_", "P-", "p.", "z", "player_with_a_longer_id_", "A"];
    let entries: Vec<Entry> = (0..15_000u64)
        .map(|i| {
            let j = i * 7_919 % 15_000; // scatter the import order
            (
                pid(&format!("{}{j}", prefixes[(j % 6) as usize])),
                (j * 13 % 40) * 25,
                at(10_000 + (j / 40 % 25) * 1_000),
            )
        })
        .collect();
    let started = std::time::Instant::now();
    import(&store, &board, &entries).await;
    eprintln!("imported 15,000 entries in {:?}", started.elapsed());
    let expected = rank_order(Order::Desc, entries);
    // AND its rank index (layout v2, the default) built from its entries
    store.rank().build_rank_index(&board).await.unwrap();
    let big = stored_board(&store, "big").await;

    // WHEN the last player's rank is read
    let (last, cost) = store
        .rank()
        .player_rank_counted(&big, &expected[14_999].player_id)
        .await
        .unwrap()
        .unwrap();
    // THEN it is exact from the index: the pointer with the root, one snapshot of the root and
    // the key's path, the group's tail counted when others share it, the lanes
    assert_eq!(exact(last, 15_000).rank, 15_000);
    assert_within_v2_bounds(&cost);
    // AND what a lookup says it cost is what it sent: 30 lookups, one at a time, through a
    // client that counts every request
    let (client, counter) = leaderboard_devkit::local::counting_client(&table.endpoint);
    let counted = common::store_with_client(&table, client);
    for i in (0..15_000).step_by(500) {
        counter.reset();
        let (entry, cost) = counted
            .rank()
            .player_rank_counted(&big, &expected[i].player_id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(exact(entry, 15_000), expected[i], "position {i}");
        assert_eq!(
            counter.total(),
            u64::from(cost.requests),
            "{:?}",
            counter.snapshot()
        );
        assert_within_v2_bounds(&cost);
    }

    // AND top-N lists the whole board in the same order, 1,000 a page
    assert_eq!(top_pages(&store, "big", 1000).await.concat(), expected);

    // WHEN a sample of players (the top, the bottom, spread, full ties) read their ranked entry
    let picks = sample(&expected, 300, 2_500);
    assert!(picks.len() >= 300, "{}", picks.len());
    let started = std::time::Instant::now();
    let got: Vec<(usize, Option<(RankedEntry, RankCost)>)> =
        futures::stream::iter(picks.iter().map(|&i| {
            let store = store.clone();
            let player = expected[i].player_id.clone();
            async move {
                let big = stored_board(&store, "big").await;
                let r = store.rank().player_rank_counted(&big, &player).await?;
                Ok::<_, StoreError>((i, r))
            }
        }))
        .buffer_unordered(3)
        .try_collect()
        .await
        .unwrap();
    eprintln!("{} ranks in {:?}", picks.len(), started.elapsed());
    // THEN each is the entry at its place in the contract's order, exact
    let mut tails = 0;
    for (i, r) in got {
        let (entry, cost) = r.unwrap();
        assert_eq!(exact(entry, 15_000), expected[i], "position {i}");
        assert_within_v2_bounds(&cost);
        tails += cost.count_queries;
    }
    // every group here is one score and time of 15 players: each lookup counted its tail
    assert_eq!(tails, picks.len() as u32);

    // AND season close counts the 15,000 entries from the board's lanes: one Query, where
    // counting its Score items took one per 1 MB of them (four here). No page of the walk:
    // the lease, the board read again once closing, its 10 lanes closed, the count and its
    // record.
    let (counting, counter) = crate::census::counted_on(&table);
    let options = leaderboard_store::CloseOptions {
        max_pages: Some(0),
        ..Default::default()
    };
    let close = counting.close();
    let ended = at(366 * 86_400_000);
    let (r, c) =
        crate::census::census(&counter, close.close_board(&bid("big"), ended, &options)).await;
    assert!(
        matches!(
            r.unwrap(),
            leaderboard_store::CloseProgress::Paused {
                done: 0,
                total: 15_000,
                ..
            }
        ),
        "the close counts 15,000"
    );
    assert_eq!(c, "GetItem 2, Query 1, UpdateItem 14");
    drop_table(&table).await;
}

/// A layout v2 lookup's bound, whatever the board's size: at most 4 requests, 20 items read by
/// key (pointer and root, root and the 8 nodes of the path, 10 lanes) and 1,000 keys counted.
fn assert_within_v2_bounds(cost: &RankCost) {
    assert!(cost.requests <= 4, "{cost:?}");
    assert!(cost.items <= 20, "{cost:?}");
    assert!(
        cost.count_queries <= 1 && cost.keys_counted <= 1_000,
        "{cost:?}"
    );
}

#[tokio::test]
async fn ap10_exact_rank_on_an_asc_board() {
    let (_table, store) = store("ap10_asc").await;
    let board = store
        .boards()
        .create_board(new_board("golf", Order::Asc, Operator::Best, 200), at(0))
        .await
        .unwrap();
    // GIVEN 600 entries on strokes 60..=80 at 6 times, plus a few plays
    let entries: Vec<Entry> = (0..600u64)
        .map(|i| (pid(&format!("g{i}")), 60 + i * 7 % 21, at(i * 11 % 6)))
        .collect();
    import(&store, &board, &entries).await;
    store.rank().build_rank_index(&board).await.unwrap();
    let mut all = entries;
    for (i, (player, score)) in [("pa", 59), ("pb", 60), ("pc", 200), ("pd", 0)]
        .into_iter()
        .enumerate()
    {
        let ms = 100 + i as u64;
        submit(&store, player, score, &["golf"], ms).await;
        all.push((pid(player), score, at(ms)));
    }
    let expected = rank_order(Order::Asc, all);
    assert_eq!(expected[0].player_id.as_str(), "pd");
    assert_eq!(expected[1].player_id.as_str(), "pa");
    assert_eq!(expected[603].player_id.as_str(), "pc");
    // WHEN every player's rank is read
    let golf = stored_board(&store, "golf").await;
    let got: Vec<_> = futures::stream::iter(
        expected
            .iter()
            .map(|e| store.listings().player_rank(&golf, &e.player_id)),
    )
    .buffered(4)
    .try_collect()
    .await
    .unwrap();
    // THEN each of the first EXACT_TOP is exact (the index has applied none of the 4 plays
    // here, so the capped count of the keys above makes it so): lower first, ties by the
    // earlier time, then playerId bytes; below them the index answers, within its lag
    for (i, (want, got)) in expected.iter().zip(got).enumerate() {
        let got = got.expect("every player has an entry");
        if (i as u64) < EXACT_TOP {
            assert_eq!(&exact(got, 604), want);
            continue;
        }
        let f = got.freshness.expect("an own rank carries its freshness");
        assert!(f.rank_lag <= 4, "{got:?}");
        assert!(
            got.rank.abs_diff(want.rank) <= f.rank_lag,
            "{got:?}, want {want:?}"
        );
        assert_eq!(got.player_id, want.player_id);
    }
    // AND top_scores agrees
    assert_eq!(top_pages(&store, "golf", 1000).await.concat(), expected);
}

// ---------------------------------------------------------------------------------------------
// Around a player
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn around_player_at_the_top_the_bottom_and_the_middle() {
    let (_table, store) = store("around").await;
    let board = common::board(&store, "b", Order::Desc, Operator::Best).await;
    // GIVEN 40 entries with ties
    let entries: Vec<Entry> = (0..40u64)
        .map(|i| (pid(&format!("p{i:02}")), i * 3 % 8, at(i % 3)))
        .collect();
    import(&store, &board, &entries).await;
    let expected = rank_order(Order::Desc, entries);
    let len = expected.len();
    for i in [0, 1, 2, 4, 19, 20, 35, 37, 38, 39] {
        for n in 1..=5 {
            // WHEN the window of n around the player at position i is read
            let got = store
                .listings()
                .around_player(&stored_board(&store, "b").await, &expected[i].player_id, n)
                .await
                .unwrap()
                .unwrap();
            // THEN up to n above, the player, up to n below, with exact ranks
            let want = &expected[i.saturating_sub(n)..(i + n + 1).min(len)];
            let got: Vec<RankedEntry> = got.into_iter().map(|e| exact(e, 40)).collect();
            assert_eq!(got, want, "position {i}, n {n}");
        }
    }
    // AND n = 50 on a board of 40 is the whole board, from anywhere
    for i in [0, 21, 39] {
        let got = store
            .listings()
            .around_player(&stored_board(&store, "b").await, &expected[i].player_id, 50)
            .await
            .unwrap()
            .unwrap();
        let got: Vec<RankedEntry> = got.into_iter().map(|e| exact(e, 40)).collect();
        assert_eq!(got, expected);
    }
    // AND a player with no entry gets None; n = 0 and n = 51 are Invalid
    assert_eq!(
        store
            .listings()
            .around_player(&stored_board(&store, "b").await, &pid("p_none"), 3)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store
            .listings()
            .around_player(
                &stored_board(&store, "nope").await,
                &expected[0].player_id,
                3
            )
            .await
            .unwrap(),
        None
    );
    let p = &expected[10].player_id;
    assert!(is_invalid(
        store
            .listings()
            .around_player(&stored_board(&store, "b").await, p, 0)
            .await
    ));
    assert!(is_invalid(
        store
            .listings()
            .around_player(&stored_board(&store, "b").await, p, 51)
            .await
    ));
    // AND a board of one: just the player
    let solo = common::board(&store, "solo", Order::Asc, Operator::Best).await;
    import(&store, &solo, &[(pid("only"), 5, at(1))]).await;
    assert_eq!(
        store
            .listings()
            .around_player(&stored_board(&store, "solo").await, &pid("only"), 5)
            .await
            .unwrap()
            .unwrap(),
        [RankedEntry {
            subscores: Default::default(),
            metadata: None,
            name: "only".into(),
            rank: 1,
            player_id: pid("only"),
            score: 5,
            attained_at: at(1),
            freshness: Some(Freshness::exact(1, 1)),
        }]
    );
}
