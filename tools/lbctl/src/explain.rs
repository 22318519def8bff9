//! `lbctl explain`: a key seen in a log or a console taken apart. Any key of the table layout
//! (the table's, the GSIs', the rank index's) or a StatelyDB key path given in hex: which item
//! it is, and each part beside its meaning (the padded score beside its value, the inverted
//! time beside the moment it stands for, the ids).
//!
//! The key crate parses; every decoding here is then confirmed by building the key again with
//! that crate's own builder and comparing, so explain holds no second copy of a key rule, and a
//! key that parses but would not be built that way (a node key under the wrong partition) is
//! refused rather than explained wrongly.

use leaderboard_keypath::{KeyPath, Segment};
use leaderboard_keys::columns::{Column, MAX_COLUMN_MAX};
use leaderboard_keys::entity::{self, ItemKey, Key};
use leaderboard_keys::erasure::Pseudonym;
use leaderboard_keys::ids::{BoardId, Email, GameId, PlayerId, SeriesId, SessionId};
use leaderboard_keys::rank::{MAX_TIEBREAK_MILLIS, Order, RankKeySpec};
use leaderboard_keys::rank_index::{self, CountedKey, LANES, journal, stage};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::{LISTING_PASS_PK, RECOUNT_PK, SWEEP_PK};
use serde::Serialize;

use crate::error::{CtlError, CtlResult};

/// A key taken apart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Explained {
    /// The key as given.
    pub key: String,
    /// The item type it names (`Score`, `Rank index node`, ...).
    pub item: String,
    /// Where the key lives: `table`, `GSI1`, `GSI2`, `sort key` (a sort key given alone) or
    /// `key path`.
    pub index: &'static str,
    /// Its parts, in key order.
    pub parts: Vec<Part>,
}

/// One part of a key: the characters it takes, and what they mean.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Part {
    /// What the part is (`board`, `score`, `time`, ...).
    pub name: &'static str,
    /// Its characters in the key.
    pub raw: String,
    /// What they stand for, where that differs from the characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

fn part(name: &'static str, raw: impl Into<String>) -> Part {
    Part {
        name,
        raw: raw.into(),
        value: None,
    }
}

fn decoded(name: &'static str, raw: impl Into<String>, value: impl Into<String>) -> Part {
    Part {
        name,
        raw: raw.into(),
        value: Some(value.into()),
    }
}

/// What is known of the board a Score key belongs to. Without it, a score is read at the
/// width its digits show, as on a `desc` board, and the `asc` reading is given beside it.
#[derive(Debug, Clone, Copy, Default)]
pub struct BoardHint {
    /// The board's order.
    pub order: Option<Order>,
    /// The board's maxScore.
    pub max_score: Option<u64>,
}

/// Takes one key apart: `"<pk> <sk>"` (a space, or ` / `, between them), a Score sort key
/// alone, or a key path in hex (`0x...` or `hex:...`).
pub fn explain(input: &str, hint: BoardHint) -> CtlResult<Explained> {
    let text = input.trim();
    if let Some(hex) = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("hex:"))
    {
        return key_path(input, hex);
    }
    let tokens: Vec<&str> = text.split_whitespace().filter(|t| *t != "/").collect();
    let (item, index, parts) = match tokens.as_slice() {
        [pk, sk] => table_key(pk, sk, hint)?,
        [sk] if sk.starts_with(entity::SCORE_PREFIX) => {
            let (item, parts) = score_key(sk, hint)?;
            (item, "sort key", parts)
        }
        _ => {
            return Err(CtlError::Usage(format!(
                "{input:?}: give a key as its partition key and sort key separated by a space \
                 (\"LEADERBOARD#season_1 #METADATA\"), a Score sort key alone, or a key path \
                 in hex (0x...)"
            )));
        }
    };
    Ok(Explained {
        key: input.to_owned(),
        item: item.to_owned(),
        index,
        parts,
    })
}

/// Takes apart every key of `explain`'s arguments. A key may be one argument (`"<pk> <sk>"`
/// quoted) or two, as people type it unquoted (`LEADERBOARD#b SCORE#...`): an argument that is
/// not a key on its own is read with the next one as its sort key.
pub fn explain_all(args: &[String], hint: BoardHint) -> CtlResult<Vec<Explained>> {
    let mut out = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match explain(arg, hint) {
            Ok(e) => out.push(e),
            Err(alone) => {
                let Some(sk) = rest.clone().next() else {
                    return Err(alone);
                };
                match explain(&format!("{arg} {sk}"), hint) {
                    Ok(e) => {
                        rest.next();
                        out.push(e);
                    }
                    Err(_) => return Err(alone),
                }
            }
        }
    }
    Ok(out)
}

type Decoded = (&'static str, &'static str, Vec<Part>);

fn table_key(pk: &str, sk: &str, hint: BoardHint) -> CtlResult<Decoded> {
    let parsed = ItemKey::parse(pk, sk);
    if let Ok(item) = &parsed {
        return item_key(item, sk, hint).map(|(item, parts)| (item, "table", parts));
    }
    if let Some(found) = index_key(pk, sk)? {
        return Ok(found);
    }
    if let Some(found) = gsi_key(pk, sk)? {
        return Ok(found);
    }
    let why = parsed.err().map(|e| e.to_string()).unwrap_or_default();
    Err(CtlError::Usage(format!(
        "{pk} {sk}: not a key of the table layout ({why}); docs/table.md lists every key"
    )))
}

fn item_key(item: &ItemKey, sk: &str, hint: BoardHint) -> CtlResult<(&'static str, Vec<Part>)> {
    let player = |p: &PlayerId| part("player", p.as_str());
    let board = |b: &BoardId| part("board", b.as_str());
    Ok(match item {
        ItemKey::Player(p) => ("Player", vec![player(p)]),
        ItemKey::Ban(p) => ("Ban", vec![player(p)]),
        ItemKey::PlayRate(p) => ("Play rate (the rate limit's recent plays)", vec![player(p)]),
        ItemKey::EmailOwner(e) => ("Email owner", vec![part("email", e.as_str())]),
        ItemKey::Erasure(p) => ("Erasure marker", vec![part("pseudonym", p.to_string())]),
        ItemKey::Fence(p) => (
            "Play fence (a player's ban and erasure, which a play checks)",
            vec![part("pseudonym", p.to_string())],
        ),
        ItemKey::GuestSignUps { source, hour } => (
            "Guest sign-ups (a network's guest accounts in one hour)",
            vec![
                part("source", source.as_str()),
                part("hour", hour_of(*hour)),
            ],
        ),
        ItemKey::Audit { subject, sort_key } => {
            let rest = sort_key
                .strip_prefix(entity::ACTION_PREFIX)
                .unwrap_or(sort_key);
            let mut parts = vec![part("subject", subject.as_str())];
            if let Some((at, id)) = rest.split_once('#') {
                parts.push(part("at", at));
                parts.push(part("id", id));
            }
            ("Audit item", parts)
        }
        ItemKey::Idempotency { player: p, key } => (
            "Idempotency key of a play",
            vec![player(p), part("key", key.as_str())],
        ),
        ItemKey::Leaderboard(b) => ("Leaderboard", vec![board(b)]),
        ItemKey::BoardListing {
            created_at,
            board: b,
        } => (
            "Board listing (every board, newest last)",
            vec![part("createdAt", created_at.to_string()), board(b)],
        ),
        ItemKey::Score { board: b, .. } => {
            let (item, mut parts) = score_key(sk, hint)?;
            parts.insert(0, board(b));
            (item, parts)
        }
        ItemKey::Session { player: p, session } => (
            "Session (one play)",
            vec![player(p), session_part(session)?],
        ),
        ItemKey::FinalStanding { board: b, rank } => {
            let raw = sk.strip_prefix(entity::FINAL_PREFIX).unwrap_or(sk);
            (
                "Final standing",
                vec![board(b), decoded("rank", raw, rank.to_string())],
            )
        }
        ItemKey::SeasonResult {
            player: p,
            board: b,
        } => ("Season result", vec![player(p), board(b)]),
        ItemKey::Entry {
            player: p,
            board: b,
        } => ("Entry pointer", vec![player(p), board(b)]),
        ItemKey::Placement {
            player: p,
            series,
            period_end,
        } => (
            "League placement (a player's cohort in one period)",
            vec![
                player(p),
                part("series", series.as_str()),
                part("periodEnd", period_end.to_string()),
            ],
        ),
        ItemKey::Entrant {
            player: p,
            board: b,
        } => (
            "Entrant (a player's place and attempts on a tournament board)",
            vec![player(p), board(b)],
        ),
        ItemKey::Reward { player: p, reward } => (
            "Reward (granted by a board's close, claimed once)",
            vec![
                player(p),
                board(&reward.board),
                part("rank", reward.rank.to_string()),
                part("endsAt", reward.ends_at.to_string()),
            ],
        ),
        ItemKey::BoardAudit { board: b, sort_key } => (
            "Board audit item (an admin's action on the board)",
            vec![board(b), part("action", sort_key.as_str())],
        ),
        ItemKey::EntrantCount(b) => (
            "Entrant count (a tournament's places taken)",
            vec![board(b)],
        ),
        ItemKey::CohortCursor { board: b, tier } => (
            "Cohort cursor (the cohort a tier's newcomers join)",
            vec![board(b), part("tier", tier.as_str())],
        ),
        ItemKey::CohortListing {
            board: b,
            tier,
            number,
        } => (
            "Cohort listing (one cohort of a league's period)",
            vec![
                board(b),
                part("tier", tier.as_str()),
                part("number", number.to_string()),
            ],
        ),
        ItemKey::GameFeed(g) => (
            "Game feed (the shard counts of its game's sessions)",
            vec![part("game", g.as_str())],
        ),
        ItemKey::Lane { board: b, lane } => {
            let grouped = entity::grouped_lane(b, *lane).sk == sk;
            let item = if grouped {
                "Rank index lane (a written count)"
            } else {
                "Rank index lane, kept apart (a board made before grouped lanes)"
            };
            (item, vec![board(b), part("lane", format!("{lane:02}"))])
        }
    })
}

fn session_part(session: &SessionId) -> CtlResult<Part> {
    let made = Timestamp::from_millis(session.timestamp_ms())?;
    Ok(decoded(
        "session",
        session.as_str(),
        format!("a ULID made {made}"),
    ))
}

/// A Score sort key: the padded score, the inverted time, the player, and where the rank index
/// counts it.
fn score_key(sk: &str, hint: BoardHint) -> CtlResult<(&'static str, Vec<Part>)> {
    let counted = CountedKey::parse(sk)?;
    // `<score>[#<column>...]#<time>#<player>`, as the parse above checked.
    let rest = &sk[entity::SCORE_PREFIX.len()..];
    let ranked = rest.rsplitn(3, '#').nth(2).unwrap_or_default();
    let time = counted.tiebreak();
    let mut fields = ranked.split('#');
    let padded = fields.next().unwrap_or_default();
    let columns: Vec<&str> = fields.collect();
    let widest = |digits: &str| {
        10u64
            .checked_pow(digits.len() as u32)
            .map_or(u64::MAX, |p| p - 1)
    };
    // A column's order is its board's: read as written (a desc column's value).
    let guessed: Vec<Column> = (columns.iter().enumerate())
        .map(|(i, field)| {
            Ok(Column::new(
                &format!("column{}", i + 1),
                Order::Desc,
                widest(field).min(MAX_COLUMN_MAX),
            )?)
        })
        .collect::<CtlResult<_>>()?;
    let order = hint.order.unwrap_or(Order::Desc);
    let spec = RankKeySpec::new(order, hint.max_score.unwrap_or(widest(padded)))?
        .with_columns(&guessed)?;
    let parsed = spec.parse_score_sort_key(sk)?;
    let (score, subs, at) = (parsed.score, &parsed.subscores, parsed.attained_at_ms);
    if spec.score_sort_key_with(score, subs, at, &parsed.player_id)? != sk {
        return Err(CtlError::Usage(format!(
            "{sk}: not a Score sort key as boards build them"
        )));
    }
    let score = match (hint.order, order) {
        (Some(_), Order::Desc) => format!("{} (desc board)", parsed.score),
        (Some(_), Order::Asc) => {
            format!(
                "{} (asc board: maxScore {} - {padded})",
                parsed.score,
                spec.max_score()
            )
        }
        (None, _) => format!(
            "{} on a desc board; on an asc board, maxScore - {}",
            parsed.score, parsed.score
        ),
    };
    let at = Timestamp::from_millis(parsed.attained_at_ms)?;
    let time_value = format!(
        "attainedAt {at} ({MAX_TIEBREAK_MILLIS} - {time} = {} ms; earlier ranks higher)",
        parsed.attained_at_ms
    );
    // A key does not say its board's lane count: the lane on a board of ten (1 to 10 shards).
    let lane = counted.lane(LANES);
    let mut parts = vec![decoded("score", padded, score)];
    for (i, (field, value)) in columns.iter().zip(subs).enumerate() {
        let says = format!("{value} on a desc column; on an asc one, its max - {value}");
        parts.push(decoded(["column 1", "column 2"][i.min(1)], *field, says));
    }
    parts.extend([
        decoded("time", time, time_value),
        part("player", parsed.player_id.as_str()),
        decoded(
            "index group",
            counted.group(),
            format!("rank index lane {lane:02} (of {LANES}); one group is one score within 100 s"),
        ),
    ]);
    Ok(("Score (a player's entry on a board)", parts))
}

/// The rank index's own items and the schedule's checkpoints.
fn index_key(pk: &str, sk: &str) -> CtlResult<Option<Decoded>> {
    let confirm = |built: Key| built.pk == pk && built.sk == sk;
    if pk == rank_index::REPAIR_PK {
        let b = BoardId::parse(sk)?;
        if confirm(rank_index::repair_key(&b)) {
            return Ok(Some((
                "Rank index repair request",
                "table",
                vec![part("board", sk)],
            )));
        }
    }
    if pk == SWEEP_PK {
        return Ok(Some((
            "Rank layout pass cursor",
            "table",
            vec![part("cursor", sk)],
        )));
    }
    if pk == LISTING_PASS_PK {
        return Ok(Some((
            "Board listing pass cursor",
            "table",
            vec![part("cursor", sk)],
        )));
    }
    if pk == RECOUNT_PK {
        return Ok(Some(("Recount run item", "table", vec![part("item", sk)])));
    }
    let Some(rest) = pk.strip_prefix("RANKV2#") else {
        return Ok(None);
    };
    let fields: Vec<&str> = rest.split('#').collect();
    let number = |s: &str| s.parse::<u64>().ok();
    Ok(match fields.as_slice() {
        [b] => {
            let id = BoardId::parse(b)?;
            if confirm(rank_index::root_key(&id)) {
                Some(("Rank index root", "table", vec![part("board", *b)]))
            } else if let Some(g) = sk.rsplit('#').next().and_then(number)
                && confirm(journal::journal_key(&id, g))
            {
                let parts = vec![part("board", *b), part("generation", g.to_string())];
                Some(("Rank index journal", "table", parts))
            } else {
                None
            }
        }
        [b, "STAGE"] => {
            let id = BoardId::parse(b)?;
            let (slot, index) = sk.split_once('#').unwrap_or_default();
            match (slot.parse::<u8>(), index.parse::<usize>()) {
                (Ok(s), Ok(i)) if confirm(stage::stage_key(&id, s, i)) => Some((
                    "Rank index rebuild's staged keys",
                    "table",
                    vec![part("board", *b), part("slot", slot), part("index", index)],
                )),
                _ => None,
            }
        }
        [b, g, partition] => {
            let id = BoardId::parse(b)?;
            match number(g) {
                Some(generation) if confirm(rank_index::node_key(&id, generation, sk)) => Some((
                    "Rank index node",
                    "table",
                    vec![
                        part("board", *b),
                        part("generation", *g),
                        decoded("partition", *partition, "a hash of the prefix"),
                        decoded(
                            "prefix",
                            sk,
                            format!(
                                "the first {} stored digits (score, then inverted time) of the \
                                 keys it counts",
                                sk.len()
                            ),
                        ),
                    ],
                )),
                _ => None,
            }
        }
        _ => None,
    })
}

/// Keys of the two GSIs.
fn gsi_key(pk: &str, sk: &str) -> CtlResult<Option<Decoded>> {
    let confirm = |built: Key| built.pk == pk && built.sk == sk;
    if let Some(e) = pk.strip_prefix(entity::PLAYER_EMAIL_PREFIX)
        && let Some(p) = sk.strip_prefix(entity::PLAYER_PREFIX)
    {
        let (email, player) = (Email::parse(e)?, PlayerId::parse(p)?);
        if confirm(entity::player_email_gsi1(&email, &player)) {
            let parts = vec![part("email", e), part("player", p)];
            return Ok(Some(("Player, by email", "GSI1", parts)));
        }
    }
    if let Some(series) = pk.strip_prefix(entity::SERIES_PREFIX) {
        let (created_at, board) = entity::parse_board_listing_sk(sk)?;
        let id = SeriesId::parse(series)?;
        if confirm(entity::board_series_gsi1(&id, created_at, &board)) {
            let parts = vec![
                part("series", series),
                part("createdAt", created_at.to_string()),
                part("board", board.as_str()),
            ];
            return Ok(Some((
                "Leaderboard, among its series' boards",
                "GSI1",
                parts,
            )));
        }
    }
    if let Some(p) = pk.strip_prefix(entity::PLAYER_PREFIX)
        && let Some(b) = sk.strip_prefix(entity::SCORE_PREFIX)
    {
        let (player, board) = (PlayerId::parse(p)?, BoardId::parse(b)?);
        if confirm(entity::score_gsi1(&player, &board)) {
            let parts = vec![part("player", p), part("board", b)];
            return Ok(Some(("Score, among a player's entries", "GSI1", parts)));
        }
    }
    if pk == entity::BOARDS_OPEN {
        let (ends, board) = entity::parse_board_open_gsi2_sk(sk)?;
        if confirm(entity::board_open_gsi2(ends, &board)) {
            let parts = vec![
                part("endsAt", ends.to_string()),
                part("board", board.as_str()),
            ];
            return Ok(Some(("Leaderboard, among the open boards", "GSI2", parts)));
        }
    }
    if let Some((game, shard)) = entity::parse_game_shard_gsi2_pk(pk)
        && let Some(s) = sk.strip_prefix(entity::SESSION_PREFIX)
    {
        let session = SessionId::parse_stored(s)?;
        if confirm(Key::new(entity::game_shard_gsi2_pk(&game, shard), sk)) {
            let parts = vec![
                part("game", game.as_str()),
                part("shard", format!("{shard:02}")),
                session_part(&session)?,
            ];
            return Ok(Some((
                "Session, among a hot game's plays (its player's shard)",
                "GSI2",
                parts,
            )));
        }
    }
    if let Some(g) = pk.strip_prefix(entity::GAME_PREFIX)
        && let Some(s) = sk.strip_prefix(entity::SESSION_PREFIX)
    {
        let game = GameId::parse(g)?;
        let session = SessionId::parse_stored(s)?;
        if confirm(Key::new(entity::game_gsi2_pk(&game), sk)) {
            let parts = vec![part("game", g), session_part(&session)?];
            return Ok(Some(("Session, among a game's plays", "GSI2", parts)));
        }
    }
    if pk == entity::ERASURES_PENDING
        && let Some((at, p)) = sk.rsplit_once('#')
    {
        let started = Timestamp::parse_rfc3339("startedAt", at)?;
        let pseudonym = Pseudonym::parse(p)?;
        if confirm(entity::erasure_pending_gsi2(started, &pseudonym)) {
            let parts = vec![part("startedAt", at), part("pseudonym", p)];
            return Ok(Some(("Erasure marker, among those running", "GSI2", parts)));
        }
    }
    Ok(None)
}

/// A StatelyDB key path in hex: each segment, typed, in order.
fn key_path(input: &str, hex: &str) -> CtlResult<Explained> {
    let bytes = from_hex(hex)
        .ok_or_else(|| CtlError::Usage(format!("{input:?}: not an even number of hex digits")))?;
    let path = KeyPath::decode(&bytes)
        .map_err(|e| CtlError::Usage(format!("{input:?}: not a key path: {e}")))?;
    let parts = path
        .segments()
        .iter()
        .map(|s| match s {
            Segment::Str(v) => decoded("string", to_hex(v.as_bytes()), v.clone()),
            Segment::Int(v) => decoded("int", int_hex(*v), v.to_string()),
            Segment::Bytes(v) => part("bytes", to_hex(v)),
        })
        .collect();
    Ok(Explained {
        key: input.to_owned(),
        item: format!("StatelyDB key path {path}"),
        index: "key path",
        parts,
    })
}

fn int_hex(v: i128) -> String {
    leaderboard_keypath::encode_int(v).map_or_else(|_| String::new(), |b| to_hex(&b))
}

/// Lower-case hex of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn from_hex(hex: &str) -> Option<Vec<u8>> {
    let hex: String = hex
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .collect();
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

/// An hour since the epoch as the time it starts.
fn hour_of(hour: u64) -> String {
    hour.checked_mul(3_600_000)
        .and_then(|ms| leaderboard_keys::time::Timestamp::from_millis(ms).ok())
        .map_or_else(|| hour.to_string(), |t| format!("{hour} = {t}"))
}
