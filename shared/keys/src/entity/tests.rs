//! The key schema's own tests: every contract key exactly, and every key parsed back.

use super::*;
use crate::ids::GameId;

fn p(s: &str) -> PlayerId {
    PlayerId::parse(s).unwrap()
}
fn b(s: &str) -> BoardId {
    BoardId::parse(s).unwrap()
}

#[test]
fn rank_index_lane_keys_exactly_and_back() {
    let season = b("season_3");
    let written = lane(&season, 9);
    assert_eq!(written, Key::new("RANKSEQ#season_3#09", "#WRITTEN"));
    assert_eq!(
        ItemKey::parse(&written.pk, &written.sk).unwrap(),
        ItemKey::Lane {
            board: season.clone(),
            lane: 9
        }
    );
    for (pk, sk) in [
        ("RANKSEQ#season_3#100", "#WRITTEN"),
        ("RANKSEQ#season_3#1", "#WRITTEN"),
        ("RANKSEQ#season_3#01", "#NODE"),
        ("RANKSEQ#season_3", "#WRITTEN"),
        ("RANKSEQ#season_3", "#WRITTEN#1"),
        ("RANKSEQ#season_3", "#WRITTEN#100"),
        ("RANKSEQ#season_3", "#WRITTEN09"),
        ("RANKSEQ#season_3#09", "#WRITTEN#09"),
    ] {
        assert!(ItemKey::parse(pk, sk).is_err(), "{pk} / {sk}");
    }
}

#[test]
fn grouped_lane_keys_share_their_board_partition_and_parse_back() {
    let season = b("season_3");
    let written = grouped_lane(&season, 9);
    assert_eq!(written, Key::new("RANKSEQ#season_3", "#WRITTEN#09"));
    assert_eq!(written.pk, lanes_pk(&season));
    assert_eq!(
        ItemKey::parse(&written.pk, &written.sk).unwrap(),
        ItemKey::Lane {
            board: season.clone(),
            lane: 9
        }
    );
    // Both layouts of one lane name the same lane, so a board's change log reads the same
    // whichever keys its lanes have.
    let apart = lane(&season, 9);
    assert_eq!(
        ItemKey::parse(&apart.pk, &apart.sk).unwrap(),
        ItemKey::parse(&written.pk, &written.sk).unwrap()
    );
}

#[test]
fn every_contract_key_exactly() {
    let alice = p("p_alice");
    let season = b("season_3");
    let sid = SessionId::parse_stored("01HW0000000000000000000000").unwrap();
    let email = Email::parse("alice@x.com").unwrap();
    let ends = Timestamp::parse_rfc3339("endsAt", "2026-12-01T00:00:00Z").unwrap();

    assert_eq!(player(&alice), Key::new("PLAYER#p_alice", "#METADATA"));
    assert_eq!(
        player_email_gsi1(&email, &alice),
        Key::new("PLAYER_EMAIL#alice@x.com", "PLAYER#p_alice")
    );
    assert_eq!(
        board(&season),
        Key::new("LEADERBOARD#season_3", "#METADATA")
    );
    assert_eq!(
        board_open_gsi2(ends, &season),
        Key::new("BOARDS#OPEN", "2026-12-01T00:00:00.000Z#season_3")
    );
    assert_eq!(
        score_gsi1(&alice, &season),
        Key::new("PLAYER#p_alice", "SCORE#season_3")
    );
    assert_eq!(
        session(&alice, &sid),
        Key::new("PLAYER#p_alice", "SESSION#01HW0000000000000000000000")
    );
    assert_eq!(
        session_gsi2(&GameId::parse("tetris").unwrap(), 1, &alice, &sid),
        Key::new("GAME#tetris", "SESSION#01HW0000000000000000000000")
    );
    assert_eq!(
        final_standing(&season, 1).unwrap(),
        Key::new("LEADERBOARD#season_3", "FINAL#0000000001")
    );
    assert_eq!(
        final_standing(&season, 9_999_999_999).unwrap().sk,
        "FINAL#9999999999"
    );
    assert_eq!(final_standing(&season, 0), Err(KeyError::RankOutOfRange(0)));
    assert!(final_standing(&season, 10_000_000_000).is_err());
    assert_eq!(
        season_result(&alice, &season),
        Key::new("PLAYER#p_alice", "RESULT#season_3")
    );
    assert_eq!(
        entry(&alice, &season),
        Key::new("PLAYER#p_alice", "ENTRY#season_3")
    );
    assert_eq!(
        idempotency(&alice, &IdempotencyKey::parse("550e8400-e29b").unwrap()),
        Key::new("PLAYER#p_alice", "IDEMPOTENCY#550e8400-e29b")
    );
}

#[test]
fn parse_back_every_item_type() {
    let cases = [
        ("PLAYER#p1", "#METADATA", ItemKey::Player(p("p1"))),
        ("PLAYER#p1", "#BAN", ItemKey::Ban(p("p1"))),
        ("PLAYER#p1", "#PLAYRATE", ItemKey::PlayRate(p("p1"))),
        (
            "GUEST#0123456789abcdef",
            "SIGNUPS#492000",
            ItemKey::GuestSignUps {
                source: crate::guest::GuestSource::parse("0123456789abcdef").unwrap(),
                hour: 492_000,
            },
        ),
        (
            "EMAIL#a@x.com",
            "#OWNER",
            ItemKey::EmailOwner(Email::parse("a@x.com").unwrap()),
        ),
        (
            "AUDIT#p1",
            "ACTION#2026-01-01T00:00:00.000Z#01JDAW6K2Z8Q4T1V5X7Y9B3C5D",
            ItemKey::Audit {
                subject: p("p1"),
                sort_key: "ACTION#2026-01-01T00:00:00.000Z#01JDAW6K2Z8Q4T1V5X7Y9B3C5D".into(),
            },
        ),
        (
            "ERASED#erased_0123456789abcdef",
            "#ERASURE",
            ItemKey::Erasure(crate::erasure::Pseudonym::parse("erased_0123456789abcdef").unwrap()),
        ),
        (
            "PLAYER#p1",
            "IDEMPOTENCY#retry #2/a b",
            ItemKey::Idempotency {
                player: p("p1"),
                key: IdempotencyKey::parse("retry #2/a b").unwrap(),
            },
        ),
        ("LEADERBOARD#b1", "#METADATA", ItemKey::Leaderboard(b("b1"))),
        (
            "LEADERBOARD#b1",
            "SCORE#0000000001#9999999999999#p1",
            ItemKey::Score {
                board: b("b1"),
                sort_key: "SCORE#0000000001#9999999999999#p1".into(),
            },
        ),
        (
            "PLAYER#p1",
            "SESSION#01HW0000000000000000000000",
            ItemKey::Session {
                player: p("p1"),
                session: SessionId::parse_stored("01HW0000000000000000000000").unwrap(),
            },
        ),
        (
            "LEADERBOARD#b1",
            "FINAL#0000000042",
            ItemKey::FinalStanding {
                board: b("b1"),
                rank: 42,
            },
        ),
        (
            "PLAYER#p1",
            "RESULT#b1",
            ItemKey::SeasonResult {
                player: p("p1"),
                board: b("b1"),
            },
        ),
        (
            "PLAYER#p1",
            "ENTRY#b1",
            ItemKey::Entry {
                player: p("p1"),
                board: b("b1"),
            },
        ),
    ];
    for (pk, sk, want) in cases {
        assert_eq!(ItemKey::parse(pk, sk).unwrap(), want, "{pk} {sk}");
    }
    for (pk, sk) in [
        ("PLAYER#p1", "#META"),
        ("PLAYER#p1", "#BANNED"),
        ("PLAYER#p#1", "#METADATA"),
        ("PLAYER#", "#METADATA"),
        ("LEADERBOARD#b1", "FINAL#42"),
        ("LEADERBOARD#b1", "FINAL#0000000000"),
        ("PLAYER#p1", "SESSION#nope"),
        ("GAME#g", "SESSION#01HW0000000000000000000000"),
    ] {
        assert!(ItemKey::parse(pk, sk).is_err(), "{pk} {sk}");
    }
}

#[test]
fn open_board_keys_sort_by_end_and_parse_back() {
    let a = Timestamp::from_millis(1_000).unwrap();
    let z = Timestamp::from_millis(2_000).unwrap();
    let ka = board_open_gsi2(a, &b("zz"));
    let kz = board_open_gsi2(z, &b("aa"));
    assert!(ka.sk < kz.sk);
    assert!(ka.sk < boards_open_ended_by(a));
    assert!(kz.sk > boards_open_ended_by(a));
    assert_eq!(parse_board_open_gsi2_sk(&kz.sk).unwrap(), (z, b("aa")));
    assert!(parse_board_open_gsi2_sk("nope").is_err());
}

#[test]
fn board_listing_and_series_keys_sort_by_creation_and_parse_back() {
    use crate::ids::SeriesId;
    let a = Timestamp::from_millis(1_767_225_600_000).unwrap();
    let z = Timestamp::from_millis(1_767_225_600_001).unwrap();
    let (ka, kz) = (board_listing(a, &b("zz")), board_listing(z, &b("aa")));
    assert_eq!(ka, Key::new("BOARDS", "BOARD#2026-01-01T00:00:00.000Z#zz"));
    assert!(ka.sk < kz.sk);
    assert_eq!(
        ItemKey::parse(&kz.pk, &kz.sk).unwrap(),
        ItemKey::BoardListing {
            created_at: z,
            board: b("aa")
        }
    );
    let daily = SeriesId::parse("daily").unwrap();
    let g = board_series_gsi1(&daily, a, &b("daily_2026-01-01"));
    assert_eq!(
        g,
        Key::new(
            "SERIES#daily",
            "BOARD#2026-01-01T00:00:00.000Z#daily_2026-01-01"
        )
    );
    assert_eq!(
        parse_board_listing_sk(&g.sk).unwrap(),
        (a, b("daily_2026-01-01"))
    );
    assert!(parse_board_listing_sk("nope").is_err());
    assert!(ItemKey::parse("BOARDS", "BOARD#2026-01-01T00:00:00.000Z#bad/id").is_err());
    assert!(ItemKey::parse("BOARDS", "2026-01-01T00:00:00.000Z#zz").is_err());
}

#[test]
fn keys_above_bound() {
    let sk = "SCORE#0000000005#9999999999999#p1";
    let lo = score_sort_keys_above(sk);
    assert!(lo.as_str() > sk);
    assert!("SCORE#0000000005#9999999999999#p1x" > lo.as_str());
    assert!("SCORE#0000000006#0000000000000#a" > lo.as_str());
    assert!(SCORE_UPPER_BOUND > "SCORE#9999999999#9999999999999#zzzz");
}

#[test]
fn a_players_write_shard_is_fixed_and_a_board_of_one_shard_keeps_its_own_partition() {
    let board = b("weekly_xp");
    assert_eq!(score_pk(&board, 1, &p("p_bob")), "LEADERBOARD#weekly_xp");
    assert_eq!(score_pks(&board, 1), ["LEADERBOARD#weekly_xp"]);
    let pks = score_pks(&board, MAX_WRITE_SHARDS);
    assert_eq!(pks.len(), 32);
    assert_eq!(
        (pks[0].as_str(), pks[31].as_str()),
        ("LEADERBOARD#weekly_xp#00", "LEADERBOARD#weekly_xp#31")
    );
    // Every player lands on one of the board's shards, the same one every time, and 1,000
    // players use all 8 shards of a board of 8.
    let mut used = std::collections::BTreeSet::new();
    for i in 0..1_000 {
        let player = p(&format!("p{i}"));
        let pk = score_pk(&board, 8, &player);
        assert_eq!(pk, score_pk(&board, 8, &player));
        assert!(score_pks(&board, 8).contains(&pk));
        used.insert(pk);
    }
    assert_eq!(used.len(), 8);
}

#[test]
fn a_widened_boards_entries_are_a_generation_in_partitions_of_their_own() {
    let board = b("weekly_xp");
    let bob = p("p_bob");
    assert_eq!(
        generation_score_pk(&board, 0, 1, &bob),
        score_pk(&board, 1, &bob)
    );
    assert_eq!(generation_score_pks(&board, 0, 8), score_pks(&board, 8));
    assert_eq!(
        generation_score_pk(&board, 2, 1, &bob),
        "LEADERBOARD#weekly_xp#E2"
    );
    let pks = generation_score_pks(&board, 2, 8);
    assert_eq!(
        (pks[0].as_str(), pks[7].as_str()),
        ("LEADERBOARD#weekly_xp#E2#00", "LEADERBOARD#weekly_xp#E2#07")
    );
    // The same shard in every generation.
    let shard = &score_pk(&board, 8, &bob)["LEADERBOARD#weekly_xp".len()..];
    assert!(generation_score_pk(&board, 2, 8, &bob).ends_with(shard));
}

#[test]
fn a_games_feed_item_parses_back() {
    let g = GameId::parse("tetris").unwrap();
    let feed = game_feed(&g);
    assert_eq!(
        ItemKey::parse(&feed.pk, &feed.sk).unwrap(),
        ItemKey::GameFeed(g)
    );
    assert!(ItemKey::parse("GAME#tetris", "#FEEDS").is_err());
    assert!(ItemKey::parse("GAME#bad id", "#FEED").is_err());
}

#[test]
fn league_items_parse_back() {
    use crate::ids::{SeriesId, TierName};
    let p = PlayerId::parse("p_ann").unwrap();
    let series = SeriesId::parse("league.week").unwrap();
    let end = Timestamp::from_millis(1_767_225_600_000).unwrap();
    let placed = placement(&p, &series, end).unwrap();
    assert_eq!(
        (placed.pk.as_str(), placed.sk.as_str()),
        ("PLAYER#p_ann", "LEAGUE#league.week#1767225600000")
    );
    assert_eq!(
        ItemKey::parse(&placed.pk, &placed.sk).unwrap(),
        ItemKey::Placement {
            player: p,
            series: series.clone(),
            period_end: end
        }
    );
    assert!(placed.sk.starts_with(&placement_prefix(&series)));
    let board = BoardId::parse("league_2026-w01").unwrap();
    let gold = TierName::parse("gold").unwrap();
    let cursor = cohort_cursor(&board, &gold);
    assert_eq!(cursor.sk, "COHORTS#gold");
    assert_eq!(
        ItemKey::parse(&cursor.pk, &cursor.sk).unwrap(),
        ItemKey::CohortCursor {
            board: board.clone(),
            tier: gold.clone()
        }
    );
    let listed = cohort_listing(&board, &gold, 42).unwrap();
    assert_eq!(listed.sk, "COHORT#gold#000042");
    assert!(listed.sk.starts_with(&cohort_listing_prefix(Some(&gold))));
    assert!(listed.sk.starts_with(&cohort_listing_prefix(None)));
    assert_eq!(
        ItemKey::parse(&listed.pk, &listed.sk).unwrap(),
        ItemKey::CohortListing {
            board,
            tier: gold,
            number: 42
        }
    );
    assert!(ItemKey::parse("PLAYER#p_ann", "LEAGUE#league.week#12").is_err());
    assert!(ItemKey::parse("LEADERBOARD#l", "COHORT#gold#x").is_err());
}

#[test]
fn a_fence_parses_back() {
    let pseudonym = crate::erasure::Pseudonym::parse("erased_0123456789abcdef").unwrap();
    let key = fence(&pseudonym);
    assert_eq!(
        (key.pk.as_str(), key.sk.as_str()),
        ("FENCE#erased_0123456789abcdef", "#FENCE")
    );
    assert_eq!(
        ItemKey::parse(&key.pk, &key.sk).unwrap(),
        ItemKey::Fence(pseudonym)
    );
    assert!(ItemKey::parse("FENCE#p_ann", "#FENCE").is_err());
}
