//! `lbctl explain` round-trips every key type of the layout: a key built by the key crate's
//! builders from known parts is named as its item and taken back to those same parts; the
//! seed's key-path vectors decode to their values; what is not a key is refused (exit code 2).

use lbctl::explain::{BoardHint, Explained, explain, explain_all, to_hex};
use leaderboard_keypath::{KeyPath, Segment, encode_int};
use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::erasure::Pseudonym;
use leaderboard_keys::ids::{
    BoardId, Email, GameId, IdempotencyKey, PlayerId, SeriesId, SessionId,
};
use leaderboard_keys::rank::{Order, RankKeySpec};
use leaderboard_keys::rank_index::{self, journal, stage};
use leaderboard_keys::time::Timestamp;

const AT: u64 = 1_719_100_800_000;

/// A key, the item it names, its index, and parts it must decode to.
type Case = (Key, &'static str, &'static str, Vec<(&'static str, String)>);

fn part<'a>(e: &'a Explained, name: &str) -> &'a str {
    &e.parts
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("{}: no part {name} in {:?}", e.key, e.parts))
        .raw
}

fn value<'a>(e: &'a Explained, name: &str) -> &'a str {
    e.parts
        .iter()
        .find(|p| p.name == name)
        .and_then(|p| p.value.as_deref())
        .unwrap_or_else(|| panic!("{}: no value of {name}", e.key))
}

fn of(key: &Key) -> Explained {
    explain(&format!("{} {}", key.pk, key.sk), BoardHint::default())
        .unwrap_or_else(|e| panic!("{key:?}: {e}"))
}

#[test]
fn every_item_key_is_named_and_taken_back_to_its_parts() {
    let p = PlayerId::parse("p_bob").unwrap();
    let b = BoardId::parse("season_1").unwrap();
    let g = GameId::parse("tetris").unwrap();
    let session = SessionId::from_parts(AT, 7).unwrap();
    let email = Email::parse("bob@example.com").unwrap();
    let at = Timestamp::from_millis(AT).unwrap();
    let pseudonym = Pseudonym::of(b"secret", &p);
    let idem = IdempotencyKey::parse("retry-1").unwrap();
    let cases: Vec<Case> = vec![
        (
            entity::player(&p),
            "Player",
            "table",
            vec![("player", "p_bob".into())],
        ),
        (
            entity::ban(&p),
            "Ban",
            "table",
            vec![("player", "p_bob".into())],
        ),
        (
            entity::play_rate(&p),
            "Play rate",
            "table",
            vec![("player", "p_bob".into())],
        ),
        (
            entity::email_owner(&email),
            "Email owner",
            "table",
            vec![("email", "bob@example.com".into())],
        ),
        (
            entity::erasure(&pseudonym),
            "Erasure marker",
            "table",
            vec![("pseudonym", pseudonym.to_string())],
        ),
        (
            entity::audit(&p, at, "01J0ABC"),
            "Audit item",
            "table",
            vec![
                ("subject", "p_bob".into()),
                ("at", at.to_string()),
                ("id", "01J0ABC".into()),
            ],
        ),
        (
            entity::idempotency(&p, &idem),
            "Idempotency key",
            "table",
            vec![("player", "p_bob".into()), ("key", "retry-1".into())],
        ),
        (
            entity::board(&b),
            "Leaderboard",
            "table",
            vec![("board", "season_1".into())],
        ),
        (
            entity::board_listing(at, &b),
            "Board listing",
            "table",
            vec![("createdAt", at.to_string()), ("board", "season_1".into())],
        ),
        (
            entity::board_series_gsi1(&SeriesId::parse("season").unwrap(), at, &b),
            "Leaderboard, among its series",
            "GSI1",
            vec![
                ("series", "season".into()),
                ("createdAt", at.to_string()),
                ("board", "season_1".into()),
            ],
        ),
        (
            entity::session(&p, &session),
            "Session",
            "table",
            vec![
                ("player", "p_bob".into()),
                ("session", session.as_str().into()),
            ],
        ),
        (
            entity::final_standing(&b, 7).unwrap(),
            "Final standing",
            "table",
            vec![("board", "season_1".into()), ("rank", "0000000007".into())],
        ),
        (
            entity::season_result(&p, &b),
            "Season result",
            "table",
            vec![("player", "p_bob".into()), ("board", "season_1".into())],
        ),
        (
            entity::entry(&p, &b),
            "Entry pointer",
            "table",
            vec![("player", "p_bob".into()), ("board", "season_1".into())],
        ),
        (
            entity::grouped_lane(&b, 3),
            "Rank index lane (a written count)",
            "table",
            vec![("board", "season_1".into()), ("lane", "03".into())],
        ),
        (
            entity::lane(&b, 3),
            "Rank index lane, kept apart",
            "table",
            vec![("board", "season_1".into()), ("lane", "03".into())],
        ),
        (
            rank_index::root_key(&b),
            "Rank index root",
            "table",
            vec![("board", "season_1".into())],
        ),
        (
            journal::journal_key(&b, 4),
            "Rank index journal",
            "table",
            vec![("board", "season_1".into()), ("generation", "4".into())],
        ),
        (
            stage::stage_key(&b, 1, 12),
            "Rank index rebuild's staged keys",
            "table",
            vec![
                ("board", "season_1".into()),
                ("slot", "1".into()),
                ("index", "0012".into()),
            ],
        ),
        (
            rank_index::node_key(&b, 5, "0000009850"),
            "Rank index node",
            "table",
            vec![
                ("board", "season_1".into()),
                ("generation", "5".into()),
                ("prefix", "0000009850".into()),
            ],
        ),
        (
            rank_index::repair_key(&b),
            "Rank index repair request",
            "table",
            vec![("board", "season_1".into())],
        ),
        (
            entity::player_email_gsi1(&email, &p),
            "Player, by email",
            "GSI1",
            vec![
                ("email", "bob@example.com".into()),
                ("player", "p_bob".into()),
            ],
        ),
        (
            entity::score_gsi1(&p, &b),
            "Score, among a player's entries",
            "GSI1",
            vec![("player", "p_bob".into()), ("board", "season_1".into())],
        ),
        (
            entity::board_open_gsi2(at, &b),
            "Leaderboard, among the open boards",
            "GSI2",
            vec![("endsAt", at.to_string()), ("board", "season_1".into())],
        ),
        (
            entity::session_gsi2(&g, 1, &p, &session),
            "Session, among a game's plays",
            "GSI2",
            vec![
                ("game", "tetris".into()),
                ("session", session.as_str().into()),
            ],
        ),
        (
            entity::erasure_pending_gsi2(at, &pseudonym),
            "Erasure marker, among those running",
            "GSI2",
            vec![
                ("startedAt", at.to_string()),
                ("pseudonym", pseudonym.to_string()),
            ],
        ),
    ];
    for (key, item, index, parts) in cases {
        let e = of(&key);
        assert!(
            e.item.starts_with(item),
            "{key:?}: {} is not {item}",
            e.item
        );
        assert_eq!(e.index, index, "{key:?}");
        for (name, want) in parts {
            assert_eq!(part(&e, name), want, "{key:?} {name}");
        }
    }
}

#[test]
fn a_score_key_decodes_to_its_score_time_and_player_on_both_orders() {
    let p = PlayerId::parse("p_bob").unwrap();
    let b = BoardId::parse("season_1").unwrap();
    for (order, max, score) in [
        (Order::Desc, 9_999_999_999, 9850),
        (Order::Asc, 999, 150),
        (Order::Desc, 999_999_999_999_999_999, 0),
    ] {
        let spec = RankKeySpec::new(order, max).unwrap();
        let sk = spec.score_sort_key(score, AT, &p).unwrap();
        let hint = BoardHint {
            order: Some(order),
            max_score: Some(max),
        };
        let e = explain(&format!("{} {sk}", entity::board_pk(&b)), hint).unwrap();
        assert!(e.item.starts_with("Score"), "{}", e.item);
        assert_eq!(part(&e, "board"), "season_1");
        assert!(
            value(&e, "score").starts_with(&format!("{score} (")),
            "{}",
            value(&e, "score")
        );
        assert!(value(&e, "time").contains(&Timestamp::from_millis(AT).unwrap().to_string()));
        assert_eq!(part(&e, "player"), "p_bob");
        // The parts put back together are the key.
        let back = format!(
            "SCORE#{}#{}#{}",
            part(&e, "score"),
            part(&e, "time"),
            part(&e, "player")
        );
        assert_eq!(back, sk);
        // Alone, as a sort key, the same parts.
        let alone = explain(&sk, hint).unwrap();
        assert_eq!(alone.index, "sort key");
        assert_eq!(alone.parts, e.parts[1..]);
    }
    // Without a hint: read at the width its digits show, as on a desc board.
    let sk = "SCORE#0000009850#8280899199999#p_bob";
    let e = explain(sk, BoardHint::default()).unwrap();
    assert!(value(&e, "score").starts_with("9850 on a desc board"));
    assert!(value(&e, "time").contains("2024-06-23T00:00:00.000Z"));
    // With tiebreak columns: each column's digits between the score and the time.
    let sk = "SCORE#0000009850#957#00042#8280899199999#p_bob";
    let e = explain(sk, BoardHint::default()).unwrap();
    assert_eq!(
        (part(&e, "column 1"), part(&e, "column 2")),
        ("957", "00042")
    );
    assert!(value(&e, "column 2").starts_with("42 on a desc column"));
    assert!(value(&e, "time").contains("2024-06-23T00:00:00.000Z"));
    assert_eq!(part(&e, "player"), "p_bob");
}

#[test]
fn the_seeds_key_path_vectors_decode_to_their_values() {
    let ints: &[i128] = &[
        1,
        6,
        255,
        256,
        1234,
        -1,
        -2,
        0,
        -255,
        -257,
        1_678_901_234,
        42,
        (1 << 32) - 1,
        (1 << 40) - 1,
        -((1 << 56) + 1),
        u64::MAX as i128,
        -(u64::MAX as i128),
    ];
    for &v in ints {
        let path = KeyPath::new(vec![Segment::int(v).unwrap()]).unwrap();
        let e = explain(
            &format!("0x{}", to_hex(&path.encode())),
            BoardHint::default(),
        )
        .unwrap();
        assert_eq!(e.index, "key path");
        assert_eq!(e.parts.len(), 1);
        assert_eq!(e.parts[0].name, "int");
        assert_eq!(e.parts[0].raw, to_hex(&encode_int(v).unwrap()), "{v}");
        assert_eq!(e.parts[0].value.as_deref(), Some(v.to_string().as_str()));
    }
    // The seed's whole example: /user-<uuid>/post-1234/comment-1678901234/react-42, 63 bytes.
    let uuid = [
        0x4c, 0x9d, 0x36, 0xe5, 0x6b, 0x19, 0x4e, 0x6a, 0x82, 0x8c, 0x22, 0x6e, 0xd6, 0x67, 0x45,
        0x8a,
    ];
    let path = KeyPath::new(vec![
        Segment::string("user").unwrap(),
        Segment::bytes(uuid).unwrap(),
        Segment::string("post").unwrap(),
        Segment::int(1234).unwrap(),
        Segment::string("comment").unwrap(),
        Segment::int(1_678_901_234).unwrap(),
        Segment::string("react").unwrap(),
        Segment::int(42).unwrap(),
    ])
    .unwrap();
    let hex = to_hex(&path.encode());
    assert_eq!(hex.len(), 126);
    let e = explain(&format!("hex:{hex}"), BoardHint::default()).unwrap();
    assert_eq!(
        e.item,
        "StatelyDB key path /user/0x4c9d36e56b194e6a828c226ed667458a/post/1234/comment/1678901234/react/42"
    );
    let kinds: Vec<&str> = e.parts.iter().map(|p| p.name).collect();
    assert_eq!(
        kinds,
        [
            "string", "bytes", "string", "int", "string", "int", "string", "int"
        ]
    );
    assert_eq!(e.parts[1].raw, to_hex(&uuid));
    assert_eq!(e.parts[5].value.as_deref(), Some("1678901234"));
}

#[test]
fn what_is_not_a_key_is_refused_with_exit_code_2() {
    for bad in [
        "FOO BAR",
        "LEADERBOARD#season_1 SCORE#12#34#p",
        "LEADERBOARD#bad/id #METADATA",
        // A node under a partition its prefix does not hash to.
        "RANKV2#season_1#5#00 0000009850",
        "0x0102",
        "0xabc",
        "PLAYER#p_bob",
    ] {
        let e = explain(bad, BoardHint::default()).expect_err(bad);
        assert_eq!(e.exit_code(), 2, "{bad}: {e}");
    }
}

#[test]
fn a_key_typed_as_two_arguments_is_read_as_one() {
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let two = explain_all(
        &args(&[
            "LEADERBOARD#season_1",
            "#METADATA",
            "PLAYER#p_bob #METADATA",
        ]),
        BoardHint::default(),
    )
    .unwrap();
    assert_eq!(two.len(), 2);
    assert_eq!(
        two[0].item,
        of(&entity::board(&BoardId::parse("season_1").unwrap())).item
    );
    assert_eq!(two[0].key, "LEADERBOARD#season_1 #METADATA");
    // A partition key with nothing after it, or followed by what is no sort key: refused.
    for bad in [&["PLAYER#p_bob"][..], &["PLAYER#p_bob", "FOO"]] {
        let e = explain_all(&args(bad), BoardHint::default()).expect_err("refused");
        assert_eq!(e.exit_code(), 2, "{bad:?}: {e}");
    }
}
