//! The contract's table layout: the primary and GSI keys of every item type, built from
//! validated parts, and parsed back.
//!
//! | item | pk | sk | GSI |
//! | --- | --- | --- | --- |
//! | Player | `PLAYER#<playerId>` | `#METADATA` | GSI1 `PLAYER_EMAIL#<email>` / `PLAYER#<playerId>` |
//! | Leaderboard | `LEADERBOARD#<boardId>` | `#METADATA` | GSI1 `SERIES#<seriesId>` / `BOARD#<createdAt>#<boardId>`; GSI2 `BOARDS#OPEN` / `<endsAt>#<boardId>` while open |
//! | Score | `LEADERBOARD#<boardId>` | `SCORE#<rankKey>#<playerId>` | GSI1 `PLAYER#<playerId>` / `SCORE#<boardId>` |
//! | Session | `PLAYER#<playerId>` | `SESSION#<sessionId>` | GSI2 `GAME#<gameId>` (`GAME#<gameId>#<shard>` on a hot game, see [`feed`]) / `SESSION#<sessionId>` |
//! | Final standing | `LEADERBOARD#<boardId>` | `FINAL#<rank padded to 10>` | |
//! | Season result | `PLAYER#<playerId>` | `RESULT#<boardId>` | |
//! | Entry pointer (ours) | `PLAYER#<playerId>` | `ENTRY#<boardId>` | |
//! | Rank index lane (ours) | `RANKSEQ#<boardId>` | `#WRITTEN#<lane>` | |
//! | Rank index lane, kept apart (ours, boards made before grouped lanes) | `RANKSEQ#<boardId>#<lane>` | `#WRITTEN` | |
//! | Ban (ours) | `PLAYER#<playerId>` | `#BAN` | |
//! | Idempotency key (ours) | `PLAYER#<playerId>` | `IDEMPOTENCY#<key>` | |
//! | Play rate (ours) | `PLAYER#<playerId>` | `#PLAYRATE` | |
//! | Email owner (ours) | `EMAIL#<email>` | `#OWNER` | |
//! | Audit item (ours) | `AUDIT#<playerId or pseudonym>` | `ACTION#<at>#<id>` | |
//! | Game feed (ours) | `GAME#<gameId>` | `#FEED` | |
//! | Board listing (ours) | `BOARDS` | `BOARD#<createdAt>#<boardId>` | |
//! | Erasure (ours) | `ERASED#<pseudonym>` | `#ERASURE` | GSI2 `ERASURES#PENDING` / `<startedAt>#<pseudonym>` until done |
//! | Erasure key check (ours) | `STACK` | `#ERASURE_KEY_CHECK` | |
//! | Play fence (ours) | `FENCE#<pseudonym>` | `#FENCE` | |
//! | Recount wait (ours) | `RECOUNT` | `BUSY#<playerId>` | |
//! | Guest sign-ups (ours) | `GUEST#<source>` | `SIGNUPS#<hour>` | |
//! | Entrant, entrant count (ours, [`entrants`]) | `PLAYER#<playerId>`, `LEADERBOARD#<boardId>` | `ENTRANT#<boardId>`, `#ENTRANTS` | |
//! | Reward (ours, [`rewards`]) | `PLAYER#<playerId>` | `REWARD#<rewardId>` | GSI1 `PLAYER#<playerId>` / `REWARD#<rewardId>` until claimed; GSI2 `REWARDS_CLAIMED#<playerId>` / `REWARD#<rewardId>` once claimed |
//! | League placement, cohort cursor, cohort listing (ours) | `PLAYER#<playerId>`, `LEADERBOARD#<boardId>` | `LEAGUE#...`, `COHORTS#<tier>`, `COHORT#<tier>#<number>` | |
//!
//! The entry pointer records a player's current Score sort key on a board, so that the submit
//! path finds the Score item to replace with one *strongly consistent* read (a GSI1 read can't
//! be consistent). The rank index's items are described in [`crate::rank_index`].
//!
//! ```
//! use leaderboard_keys::entity::{self, Key};
//! use leaderboard_keys::ids::{BoardId, PlayerId};
//!
//! let alice = PlayerId::parse("p_alice").unwrap();
//! let board = BoardId::parse("season_3").unwrap();
//! assert_eq!(entity::player(&alice), Key::new("PLAYER#p_alice", "#METADATA"));
//! assert_eq!(entity::score_gsi1(&alice, &board), Key::new("PLAYER#p_alice", "SCORE#season_3"));
//! assert_eq!(entity::final_standing(&board, 7).unwrap().sk, "FINAL#0000000007");
//! ```

use crate::KeyError;
use crate::bucket::bucket_of;
use crate::erasure::Pseudonym;
use crate::guest::GuestSource;
use crate::ids::{BoardId, Email, IdempotencyKey, PlayerId, SeriesId, SessionId};
use crate::pad::{Width, pad_into, parse_padded};
use crate::time::Timestamp;

/// Partition prefix of a player's items.
pub const PLAYER_PREFIX: &str = "PLAYER#";
/// Partition prefix of a board's items.
pub const LEADERBOARD_PREFIX: &str = "LEADERBOARD#";
/// The sort key of an entity's own metadata item.
pub const METADATA: &str = "#METADATA";
/// GSI1 partition prefix of the email lookup.
pub const PLAYER_EMAIL_PREFIX: &str = "PLAYER_EMAIL#";
/// GSI2 partition of the open boards (sparse: only open boards carry it).
pub const BOARDS_OPEN: &str = "BOARDS#OPEN";
/// Sort key prefix of Score items (and of their GSI1 sort key).
pub const SCORE_PREFIX: &str = "SCORE#";
/// Sort key prefix of Session items (and of their GSI2 sort key).
pub const SESSION_PREFIX: &str = "SESSION#";
/// GSI2 partition prefix of a game's sessions.
pub const GAME_PREFIX: &str = "GAME#";
/// Sort key prefix of Final standing items.
pub const FINAL_PREFIX: &str = "FINAL#";
/// Sort key prefix of Season result items.
pub const RESULT_PREFIX: &str = "RESULT#";
/// Sort key prefix of a player's entry pointers (this project's addition).
pub const ENTRY_PREFIX: &str = "ENTRY#";
/// The sort key of a player's ban (this project's addition).
pub const BAN: &str = "#BAN";
/// Partition prefix of an email address's owner item (this project's addition).
pub const EMAIL_PREFIX: &str = "EMAIL#";
/// The sort key of an email address's owner item.
pub const OWNER: &str = "#OWNER";
/// Partition prefix of a source's guest sign-ups (this project's addition).
pub const GUEST_PREFIX: &str = "GUEST#";
/// Sort key prefix of a source's guest sign-ups in one hour.
pub const SIGNUPS_PREFIX: &str = "SIGNUPS#";
/// The sort key of a player's recent plays, for the rate limit (this project's addition).
pub const PLAY_RATE: &str = "#PLAYRATE";
/// Partition prefix of a player's audit trail: `AUDIT#<playerId>` (this project's addition).
pub const AUDIT_PREFIX: &str = "AUDIT#";
/// Sort key prefix of an audit item.
pub const ACTION_PREFIX: &str = "ACTION#";
/// Partition prefix of an erasure's marker: `ERASED#<pseudonym>` (this project's addition).
pub const ERASED_PREFIX: &str = "ERASED#";
/// Sort key of an erasure's marker.
pub const ERASURE: &str = "#ERASURE";
/// Partition prefix of a player's play fence.
pub const FENCE_PREFIX: &str = "FENCE#";
/// Sort key of a player's play fence.
pub const FENCE: &str = "#FENCE";
/// GSI2 partition of the erasures still running (sparse: a finished one leaves it).
pub const ERASURES_PENDING: &str = "ERASURES#PENDING";

/// The partition of a recount run's items (its run and its waits).
pub const RECOUNT_PK: &str = "RECOUNT";
/// The sort key prefix of a recount run's wait for a player.
pub const RECOUNT_WAIT_PREFIX: &str = "BUSY#";

/// A recount run's wait for `player`'s plays to settle: `RECOUNT` / `BUSY#<playerId>` (an
/// erasure deletes it with the player's items).
pub fn recount_wait(player: &PlayerId) -> Key {
    Key::new(RECOUNT_PK, format!("{RECOUNT_WAIT_PREFIX}{player}"))
}

/// The stack's check of its erasure secret (see [`crate::erasure::key_check`]): one item.
pub fn erasure_key_check() -> Key {
    Key::new("STACK", "#ERASURE_KEY_CHECK")
}
/// Sort key prefix of a play's idempotency key (this project's addition).
pub const IDEMPOTENCY_PREFIX: &str = "IDEMPOTENCY#";

/// GSI1 partition prefix of a board series: `SERIES#<seriesId>` (this project's addition).
pub const SERIES_PREFIX: &str = "SERIES#";
/// The partition of the board listing items, every board newest last (this project's addition).
pub const BOARD_LIST: &str = "BOARDS";
/// Sort key prefix of a board listing item and of a series' GSI1 sort key.
pub const BOARD_PREFIX: &str = "BOARD#";

/// Partition prefix of a rank index written count.
pub const LANE_PREFIX: &str = "RANKSEQ#";
/// Sort key of a rank index written count kept apart, and the prefix of a grouped one's.
pub const LANE_SK: &str = "#WRITTEN";
/// The exclusive upper bound of the Score sort keys of a board: `'$'` is the byte after `'#'`.
pub const SCORE_UPPER_BOUND: &str = "SCORE$";

/// Final standing ranks are padded to this many digits.
pub const FINAL_RANK_DIGITS: u8 = 10;

const FINAL_RANK_WIDTH: Width = Width::fixed(FINAL_RANK_DIGITS);

/// A partition key and sort key pair, of the table or of a GSI.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    /// The partition key (`pk`, `gsi1pk` or `gsi2pk`).
    pub pk: String,
    /// The sort key (`sk`, `gsi1sk` or `gsi2sk`).
    pub sk: String,
}

impl Key {
    /// A key from its two parts.
    pub fn new(pk: impl Into<String>, sk: impl Into<String>) -> Key {
        Key {
            pk: pk.into(),
            sk: sk.into(),
        }
    }
}

fn join(prefix: &str, id: &str) -> String {
    let mut s = String::with_capacity(prefix.len() + id.len());
    s.push_str(prefix);
    s.push_str(id);
    s
}

/// `PLAYER#<playerId>`: the partition of a player's profile, sessions, results and pointers.
pub fn player_pk(player: &PlayerId) -> String {
    join(PLAYER_PREFIX, player.as_str())
}

/// `LEADERBOARD#<boardId>`: the partition of a board's metadata, scores and final standings.
pub fn board_pk(board: &BoardId) -> String {
    join(LEADERBOARD_PREFIX, board.as_str())
}

/// The most write shards a board may have: a board of K shards spreads its Score items over K
/// partition keys, so it takes K times the writes one partition key allows.
pub const MAX_WRITE_SHARDS: u8 = 32;

/// The write shard (`0..shards`) of a player's entry on a board of `shards`: a fixed function
/// of the playerId (FNV-1a of it, as the rank index's lanes), so a player's entry never moves.
pub fn shard_of(player: &PlayerId, shards: u8) -> u8 {
    bucket_of(player.as_str(), shards.max(1))
}

/// The partition of a board's write shard `shard`: `LEADERBOARD#<boardId>#<shard, 2 digits>`.
pub fn shard_pk(board: &BoardId, shard: u8) -> String {
    format!("{}#{shard:02}", board_pk(board))
}

/// The partition of `player`'s Score item on a board of `shards` write shards: the board's own,
/// `LEADERBOARD#<boardId>`, on a board of one; its shard's on a board of more.
pub fn score_pk(board: &BoardId, shards: u8, player: &PlayerId) -> String {
    generation_score_pk(board, 0, shards, player)
}

/// Every partition holding a board's Score items, in shard order.
pub fn score_pks(board: &BoardId, shards: u8) -> Vec<String> {
    generation_score_pks(board, 0, shards)
}

/// The partition of a board's entries of `generation` (a widened board's entries are a new
/// generation, in partitions of their own): the board's own on generation 0,
/// `LEADERBOARD#<boardId>#E<generation>` after; on a board of several write shards, the
/// prefix of its shards' partitions (and what a top-N cursor is bound to).
pub fn entries_pk(board: &BoardId, generation: u64) -> String {
    match generation {
        0 => board_pk(board),
        g => format!("{}#E{g}", board_pk(board)),
    }
}

/// [`score_pk`] of the board's entries of `generation`: `LEADERBOARD#<boardId>#E<g>` (and
/// `#<shard, 2 digits>` on a board of more than one shard) from generation 1 on.
pub fn generation_score_pk(
    board: &BoardId,
    generation: u64,
    shards: u8,
    player: &PlayerId,
) -> String {
    let pk = entries_pk(board, generation);
    match shards {
        0 | 1 => pk,
        k => format!("{pk}#{:02}", shard_of(player, k)),
    }
}

/// [`score_pks`] of the board's entries of `generation`.
pub fn generation_score_pks(board: &BoardId, generation: u64, shards: u8) -> Vec<String> {
    let pk = entries_pk(board, generation);
    match shards {
        0 | 1 => vec![pk],
        k => (0..k).map(|s| format!("{pk}#{s:02}")).collect(),
    }
}

/// The Player item.
pub fn player(player: &PlayerId) -> Key {
    Key::new(player_pk(player), METADATA)
}

/// The Player item's GSI1 key, present only when an email is set.
pub fn player_email_gsi1(email: &Email, player: &PlayerId) -> Key {
    Key::new(join(PLAYER_EMAIL_PREFIX, email.as_str()), player_pk(player))
}

/// The GSI1 partition to look a player up by email.
pub fn player_email_gsi1_pk(email: &Email) -> String {
    join(PLAYER_EMAIL_PREFIX, email.as_str())
}

/// The Leaderboard item.
pub fn board(board: &BoardId) -> Key {
    Key::new(board_pk(board), METADATA)
}

/// The Leaderboard item's GSI2 key while it is open: `BOARDS#OPEN` / `<endsAt>#<boardId>`, so
/// the open boards are listed in the order they end.
pub fn board_open_gsi2(ends_at: Timestamp, board: &BoardId) -> Key {
    Key::new(BOARDS_OPEN, format!("{ends_at}#{}", board.as_str()))
}

/// The exclusive upper bound of `BOARDS#OPEN` sort keys of boards that ended by `now`: every
/// key `<endsAt>#<boardId>` with `endsAt <= now` sorts below `<now>$`.
pub fn boards_open_ended_by(now: Timestamp) -> String {
    format!("{now}$")
}

/// Parses a `BOARDS#OPEN` GSI2 sort key back to `(endsAt, boardId)`.
pub fn parse_board_open_gsi2_sk(sk: &str) -> Result<(Timestamp, BoardId), KeyError> {
    let (ends_at, board) = sk
        .split_once('#')
        .ok_or_else(|| KeyError::malformed(sk, "not an open-board GSI2 sort key"))?;
    let t = Timestamp::parse_rfc3339("endsAt", ends_at)?;
    Ok((t, BoardId::parse(board)?))
}

/// A Leaderboard item's GSI1 key: `SERIES#<seriesId>` / `BOARD#<createdAt>#<boardId>`, so that a
/// series' boards list newest first in one Query.
pub fn board_series_gsi1(series: &SeriesId, created_at: Timestamp, board: &BoardId) -> Key {
    Key::new(
        series_gsi1_pk(series),
        format!("{BOARD_PREFIX}{created_at}#{board}"),
    )
}

/// The GSI1 partition of a series' boards.
pub fn series_gsi1_pk(series: &SeriesId) -> String {
    join(SERIES_PREFIX, series.as_str())
}

/// A board's listing item: `BOARDS` / `BOARD#<createdAt>#<boardId>`, written with the board, so that
/// every board lists newest first in one partition.
pub fn board_listing(created_at: Timestamp, board: &BoardId) -> Key {
    Key::new(BOARD_LIST, format!("{BOARD_PREFIX}{created_at}#{board}"))
}

/// Parses a board listing item's sort key (or a series' GSI1 sort key) back.
pub fn parse_board_listing_sk(sk: &str) -> Result<(Timestamp, BoardId), KeyError> {
    let (at, board) = sk
        .strip_prefix(BOARD_PREFIX)
        .and_then(|rest| rest.split_once('#'))
        .ok_or_else(|| KeyError::malformed(sk, "not BOARD#<createdAt>#<boardId>"))?;
    Ok((
        Timestamp::parse_rfc3339("createdAt", at)?,
        BoardId::parse(board)?,
    ))
}

/// A Score item's GSI1 key: `PLAYER#<playerId>` / `SCORE#<boardId>` (AP4, AP5).
pub fn score_gsi1(player: &PlayerId, board: &BoardId) -> Key {
    Key::new(player_pk(player), join(SCORE_PREFIX, board.as_str()))
}

/// The inclusive lower bound of the Score sort keys ranked above `sort_key` on its board. The
/// sort keys above are `(sort_key, "SCORE$")`; DynamoDB's `BETWEEN` is inclusive, so the lower
/// bound is the smallest string greater than `sort_key`: itself followed by U+0000.
pub fn score_sort_keys_above(sort_key: &str) -> String {
    let mut s = String::with_capacity(sort_key.len() + 1);
    s.push_str(sort_key);
    s.push('\0');
    s
}

/// A Session item: `PLAYER#<playerId>` / `SESSION#<sessionId>`.
pub fn session(player: &PlayerId, session: &SessionId) -> Key {
    Key::new(player_pk(player), join(SESSION_PREFIX, session.as_str()))
}

/// A Final standing item: `LEADERBOARD#<boardId>` / `FINAL#<rank padded to 10>`.
pub fn final_standing(board: &BoardId, rank: u64) -> Result<Key, KeyError> {
    if rank == 0 || rank > FINAL_RANK_WIDTH.max_value() {
        return Err(KeyError::RankOutOfRange(rank));
    }
    let mut sk = String::with_capacity(FINAL_PREFIX.len() + FINAL_RANK_DIGITS as usize);
    sk.push_str(FINAL_PREFIX);
    pad_into(rank, FINAL_RANK_WIDTH, &mut sk)?;
    Ok(Key::new(board_pk(board), sk))
}

/// A Season result item: `PLAYER#<playerId>` / `RESULT#<boardId>`.
pub fn season_result(player: &PlayerId, board: &BoardId) -> Key {
    Key::new(player_pk(player), join(RESULT_PREFIX, board.as_str()))
}

/// A player's entry pointer on a board: `PLAYER#<playerId>` / `ENTRY#<boardId>`.
pub fn entry(player: &PlayerId, board: &BoardId) -> Key {
    Key::new(player_pk(player), join(ENTRY_PREFIX, board.as_str()))
}

/// A rank index lane kept apart (its written count), as boards made before grouped lanes keep
/// them: `RANKSEQ#<boardId>#<lane, 2 digits>` / `#WRITTEN`, one partition key a lane.
pub fn lane(board: &BoardId, lane: u8) -> Key {
    Key::new(format!("{LANE_PREFIX}{board}#{lane:02}"), LANE_SK)
}

/// A rank index lane in its board's group: `RANKSEQ#<boardId>` / `#WRITTEN#<lane, 2 digits>`.
/// A board's lanes share one partition key so that one strongly consistent Query reads them
/// all (about 1.5 KB: one read unit, where ten items read by key are ten); a play still
/// writes one lane of ten.
pub fn grouped_lane(board: &BoardId, lane: u8) -> Key {
    Key::new(lanes_pk(board), format!("{LANE_SK}#{lane:02}"))
}

/// The partition key of a board's grouped lanes: `RANKSEQ#<boardId>`.
pub fn lanes_pk(board: &BoardId) -> String {
    format!("{LANE_PREFIX}{board}")
}

/// A player's ban: `PLAYER#<playerId>` / `#BAN`, present while the player is banned.
pub fn ban(player: &PlayerId) -> Key {
    Key::new(player_pk(player), BAN)
}

/// The owner of an email address: `EMAIL#<email>` / `#OWNER`, naming the one player whose
/// profile holds it.
pub fn email_owner(email: &Email) -> Key {
    Key::new(join(EMAIL_PREFIX, email.as_str()), OWNER)
}

/// A player's recent accepted plays: `PLAYER#<playerId>` / `#PLAYRATE`, the times the rate
/// limit counts.
pub fn play_rate(player: &PlayerId) -> Key {
    Key::new(player_pk(player), PLAY_RATE)
}

/// A play's idempotency key: `PLAYER#<playerId>` / `IDEMPOTENCY#<key>`, naming the session the
/// key's first play wrote.
pub fn idempotency(player: &PlayerId, key: &IdempotencyKey) -> Key {
    Key::new(player_pk(player), join(IDEMPOTENCY_PREFIX, key.as_str()))
}

/// An erasure's marker: `ERASED#<pseudonym>` / `#ERASURE`. Written before anything of the
/// player is deleted and kept afterwards: it refuses the player's plays and profile writes, and
/// holds the erasure's receipt.
pub fn erasure(pseudonym: &Pseudonym) -> Key {
    Key::new(join(ERASED_PREFIX, pseudonym.as_str()), ERASURE)
}

/// A player's play fence: `FENCE#<pseudonym>` / `#FENCE`, with `banned` while the player is
/// banned and `erasing` once their erasure began. A play's transaction checks this one item
/// for both (a ban or an erasure that commits first cancels it); keyed by the pseudonym, it
/// names no one and outlives the erasure, as the marker does.
pub fn fence(pseudonym: &Pseudonym) -> Key {
    Key::new(join(FENCE_PREFIX, pseudonym.as_str()), FENCE)
}

/// The partition of the audit trail of `subject` (a playerId, or an erased player's
/// pseudonym): `AUDIT#<subject>`.
pub fn audit_pk(subject: &PlayerId) -> String {
    join(AUDIT_PREFIX, subject.as_str())
}

/// An item of a board's audit trail: `LEADERBOARD#<boardId>` / `ACTION#<at>#<id>`.
pub fn board_audit(board: &BoardId, at: Timestamp, id: &str) -> Key {
    Key::new(board_pk(board), format!("{ACTION_PREFIX}{at}#{id}"))
}

/// An audit item: `AUDIT#<subject>` / `ACTION#<at>#<id>`, newest last in key order; `id`
/// (unique per action) keeps two actions of one millisecond apart.
pub fn audit(subject: &PlayerId, at: Timestamp, id: &str) -> Key {
    Key::new(audit_pk(subject), format!("{ACTION_PREFIX}{at}#{id}"))
}

/// A source's guest sign-ups in one hour (`hour`: whole hours since the epoch):
/// `GUEST#<source>` / `SIGNUPS#<hour>`.
pub fn guest_signups(source: &GuestSource, hour: u64) -> Key {
    Key::new(
        format!("{GUEST_PREFIX}{source}"),
        format!("{SIGNUPS_PREFIX}{hour}"),
    )
}

/// An erasure's GSI2 key while it runs: `ERASURES#PENDING` / `<startedAt>#<pseudonym>`, oldest
/// first, so that the schedule finishes an erasure its request could not.
pub fn erasure_pending_gsi2(started_at: Timestamp, pseudonym: &Pseudonym) -> Key {
    Key::new(ERASURES_PENDING, format!("{started_at}#{pseudonym}"))
}

/// A lane or a write shard as keys write it: exactly two decimal digits.
fn parse_two_digits(s: &str) -> Option<u8> {
    (s.len() == 2 && s.bytes().all(|c| c.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

mod entrants;
mod feed;
mod item_key;
mod league;
mod rewards;
pub use entrants::*;
pub use feed::*;
pub use item_key::ItemKey;
pub use league::*;
pub use rewards::*;

#[cfg(test)]
mod tests;
