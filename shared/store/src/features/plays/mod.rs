//! The write path of a play: one Session, posted to 1 to 10 boards atomically.
//!
//! 1. **One consistent read**: a `BatchGetItem` (strongly consistent) of the player's profile
//!    (the display name the entries take, so that a listing needs no profile reads), the
//!    player's ban and erasure marker (a banned or erased player's play is refused here, before
//!    anything is written), each board's metadata (a hot board's from the process's copy when
//!    it has one, `primitives::board_cache`), the player's entry pointer on each board, and
//!    each board's rank index root (the play's own rank is read from it afterwards). Not the
//!    Session: a repeat is rare, and is found when the play is refused (one `GetItem` then) or
//!    by the transaction's put of the Session (one `GetItem` after it), and answered with the
//!    first outcome either way.
//! 2. **Decide**, for every board: unknown board (404), closed or outside its window (409),
//!    score out of range (400) refuse the whole play before anything is written (unless it
//!    repeats a recorded play); otherwise the board's operator (`best`, `latest`, `increment`)
//!    and order give the new entry, if it changes.
//! 3. **One transaction** (`TransactWriteItems`): put the Session if it does not exist; check
//!    the player's play fence, one item a ban and an erasure both write (a ban's removal of
//!    their entries lists them after the ban is written, and an erasure writes its marker and
//!    the fence before it deletes anything, so a play must not commit after either); for
//!    every board whose entry changes, put the pointer on condition that its version is the one
//!    read, delete the old Score item on condition it exists, put the new one (both carry the
//!    name and the play's metadata), and update the player's lane on condition that the board's
//!    settings are at the version the play decided by (`rank::settings`). Concurrent plays
//!    of one player on one board serialise on the pointer's version, so there is never a second
//!    Score item and no better score is lost. A cancelled transaction is re-read and retried
//!    with jittered exponential backoff, a bounded number of times.
//!
//! **The closing fence.** Season close must see every accepted score, and no score may land
//! after it has read the entries. Every change of an entry updates the player's lane in the
//! same transaction (the rank index's written count), on condition that the lane is not closed;
//! season close closes every lane of the board before it reads the entries. So a change either
//! committed before (and the close reads it) or fails (the play reads the board again and is
//! refused). No play writes or checks the board item, which would make it one key that every
//! play touches; a play that changes no entry writes nothing on the board at all.
//!
//! **Leagues.** A league board a play names is replaced, after the read, by the player's cohort
//! of the period (their placement, or a seat taken in the play's own transaction:
//! `crate::features::plays::league`); from there on the play is an ordinary play on the cohort.
//!
//! **Tournaments.** A board with `joinRequired`, `maxEntrants` or `maxAttempts` adds one read
//! and its entrant items' writes (`crate::features::plays::entrants`).
//!
//! **Ranks** are read after the transaction committed, by `crate::features::plays::ranks`: from there on
//! the play is accepted whatever the reads do.

mod entrants;
pub mod idempotency;
mod league;
mod plan;
pub(crate) mod ranks;
pub mod rate;
mod rules;

use std::sync::Arc;
use std::time::Duration;

use aws_sdk_dynamodb::types::TransactWriteItem;
use leaderboard_keys::columns::{self, Subscores};
use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::ids::{BoardId, GameId, IdempotencyKey, PlayerId, SessionId};
use leaderboard_keys::rank_index;
use leaderboard_keys::time::Timestamp;

use crate::features::plays::idempotency::{KeyedSession, same_play};
use crate::features::plays::plan::plan_board;
use crate::features::plays::ranks::{CommittedPlay, PlayOutcome};
use crate::features::plays::rate::{PlayRate, rate_limited};
use crate::features::plays::rules::{boards_game, check_writers, feed_of};
use crate::ground::error::CancelReason;
use crate::ground::error::StoreError;
use crate::ground::items::{ItemExt, from_item, pointer_item, score_key, to_item};
use crate::ground::model::{Board, BoardOutcome, EntryPointer, Metadata, Session, Writers};
use crate::rank::index_copy::{IndexCopy, RootBefore};
use crate::rank::second_layout::score_item_in_service;
use crate::store::Store;
use crate::table::request::Params;
use crate::table::retry::Retry;

/// The most boards one play may count on.
pub const MAX_BOARDS_PER_PLAY: usize = 10;

/// The place in a play's transaction of the check of the player's play fence (after the
/// Session): a ban or an erasure that commits before the play cancels it there, so no play of
/// a banned player commits after the ban's removal of their entries has listed them, and none
/// commits after an erasure has listed the player's items.
const FENCE_CHECK: usize = 1;

/// The place of the put of the play's `Idempotency-Key`, when it has one: a request with the
/// same key that commits first cancels the play there.
const KEY_PUT: usize = 2;

/// The longest a play's transaction may take before it is abandoned (and retried, or answered
/// as failed).
const TRANSACTION_TIMEOUT: Duration = Duration::from_secs(20);

/// One play to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Play {
    /// Whose play (from the verified token, never from the body).
    pub player_id: PlayerId,
    /// Its id; a repeat of it is answered with the first outcome.
    pub session_id: SessionId,
    /// The client's `Idempotency-Key`, if it sent one: a repeat of it is answered with the
    /// first outcome too, whatever `session_id` the repeat carries (`crate::features::plays::idempotency`).
    pub idempotency_key: Option<IdempotencyKey>,
    /// The game; when absent, the game its boards name, if those that name one agree (else
    /// the play is refused).
    pub game_id: Option<GameId>,
    /// The score.
    pub score: u64,
    /// How long the play took, if the game said.
    pub duration_sec: Option<u64>,
    /// The boards it counts on, 1 to 10, distinct.
    pub board_ids: Vec<BoardId>,
    /// What the game attached to the play: kept on the Session and on every entry it changes.
    pub metadata: Option<Metadata>,
    /// The play's tiebreak column values by column name: every column of each of its boards,
    /// no other (empty when its boards have none).
    pub subscores: Subscores,
}

/// How a play's write ended.
pub(crate) enum Recorded {
    /// Written now: the Session (ranks not read yet), its plans, and the attempts it took.
    New(Session, Vec<BoardPlan>, u32),
    /// A request with the same session id (or key) wrote first: its Session, and the attempts.
    Duplicate(Session, u32),
}

/// What was read for a play.
struct PlayState {
    /// The session the play's `Idempotency-Key` names, if the key was used before.
    keyed: Option<SessionId>,
    /// The name the player's entries take: the profile's, else the player's id.
    name: String,
    boards: Vec<Option<Board>>,
    /// The boards decided from the process's copies (`primitives::board_cache`): a refusal
    /// on them is decided again from the boards read then.
    cached: Vec<BoardId>,
    pointers: Vec<Option<EntryPointer>>,
    /// Each board's rank index root (empty where there is none), or the process's copy of a
    /// hot board's index: the play's own rank is read from it after the transaction (its
    /// nodes must be read after the root).
    roots: Vec<RootBefore>,
    /// The player's recent plays, when the rate limit is on.
    rate: PlayRate,
    /// Whether a board names the game the play names (the game's feed item exists): such a
    /// game's feed lists only plays one of its boards took (`rules::feed_of`).
    game_claimed: bool,
}

/// What a play was decided to write: its plans, the rate log to write back (when the limit is
/// on) and its `gameId`.
type Decided = (Vec<BoardPlan>, Option<Vec<u64>>, GameId);

/// The change a play makes on one board.
pub(crate) struct BoardPlan {
    pub(crate) board: Board,
    /// The board's rank index root as read before the play (empty where there is none), or
    /// the process's copy of its index.
    pub(crate) root: RootBefore,
    pub(crate) old: Option<EntryPointer>,
    /// The new entry, if the entry changes.
    pub(crate) new: Option<EntryPointer>,
    pub(crate) outcome: BoardOutcome,
}

/// Plays: record, commit and rank a play, once per idempotency key, at the player's rate (the
/// handle [`Store::plays`] gives).
#[derive(Clone, Copy)]
pub struct Plays<'a> {
    pub(crate) store: &'a Store,
}

impl Store {
    /// Plays: record, commit and rank a play, once per idempotency key, at the player's rate.
    pub fn plays(&self) -> Plays<'_> {
        Plays { store: self }
    }
}

impl Plays<'_> {
    /// Records a play: the Session, and the player's entry on every board it counts on, all or
    /// nothing. A repeated `session_id` of the same player returns the first outcome with
    /// `duplicate: true` and writes nothing, also when the two requests race. Each board's rank
    /// is read once, after the write succeeded ([`Plays::commit_play`], then
    /// [`Plays::rank_play`] with no deadline).
    pub async fn record_play(self, play: &Play, now: Timestamp) -> Result<PlayOutcome, StoreError> {
        let committed = self.commit_play(play, now).await?;
        Ok(self.rank_play(committed, None).await)
    }

    /// The write of a player's own play, retried on conflicts, or the Session an earlier
    /// request with the same session id wrote. Every refusal is here, before anything is
    /// written.
    pub async fn commit_play(
        self,
        play: &Play,
        now: Timestamp,
    ) -> Result<CommittedPlay, StoreError> {
        self.commit_play_by(play, Writers::Players, now).await
    }

    /// The same, posted `by` a player (their own play) or a game server (for the player it
    /// names): each board takes plays only from its `writers` ([`StoreError::Forbidden`]).
    pub async fn commit_play_by(
        self,
        play: &Play,
        by: Writers,
        now: Timestamp,
    ) -> Result<CommittedPlay, StoreError> {
        play.check()?;
        let written = self.write_with_retries(play, by, now).await?;
        Ok(CommittedPlay::new(written))
    }

    /// Read, decide, write, retried on conflicts: the Session as written (ranks not read yet)
    /// and its plans, or the Session a request with the same id wrote first.
    async fn write_with_retries(
        self,
        play: &Play,
        by: Writers,
        now: Timestamp,
    ) -> Result<Recorded, StoreError> {
        for attempt in Retry::PLAY.attempts() {
            // Only a first attempt decides from copies of boards: a retry reads them, so a
            // play is never refused from a copy, even on its last attempt.
            let mut state = self.read_play_state(play, attempt == 1).await?;
            if let Some(session) = self.recorded(play, &mut state).await? {
                same_play(&session, play)?;
                return Ok(Recorded::Duplicate(session, attempt));
            }
            // A refusal decided from a copy of a board is decided again from the board read
            // now (`primitives::board_cache`): the copy may be older than the settings.
            let cached = std::mem::take(&mut state.cached);
            let forget = || self.store.boards_cached.forget(&cached);
            // A league board's cohort takes its place (`league`).
            let seats = match self.seat(play, &mut state, now).await {
                Ok(seats) => seats,
                Err(_) if forget() => continue,
                Err(refusal) => return self.repeat_or(refusal, play, attempt).await,
            };
            let entrant_reads = self.read_entrants(play, &state.boards).await?;
            let read_rate = std::mem::take(&mut state.rate);
            let game_claimed = state.game_claimed;
            let decided = self.decide(play, state, &read_rate, by, now);
            let (mut plans, rate, game_id) = match decided {
                Ok(decided) => decided,
                Err(_) if forget() => continue,
                Err(refusal) => return self.repeat_or(refusal, play, attempt).await,
            };
            let admitted = match entrants::admit(&plans, &entrant_reads, play) {
                Ok(admitted) => admitted,
                Err(_) if forget() => continue,
                Err(refusal) => return self.repeat_or(refusal, play, attempt).await,
            };
            league::label(&mut plans, &seats);
            let session = Session {
                player_id: play.player_id.clone(),
                session_id: play.session_id.clone(),
                board_ids: play.board_ids.clone(),
                game_id,
                score: play.score,
                duration_sec: play.duration_sec,
                attained_at: now,
                metadata: play.metadata.clone(),
                subscores: play.subscores.clone(),
                outcomes: plans.iter().map(|p| p.outcome.clone()).collect(),
            };
            let rate = rate.as_deref().map(|times| (&read_rate, times));
            let mut seated = self.seat_writes(&seats)?;
            seated.extend(self.entrant_writes(play, &admitted, now)?);
            let written = self.write_play(play, &session, &plans, rate, game_claimed, seated);
            match written.await {
                Ok(()) => return Ok(Recorded::New(session, plans, attempt)),
                Err(StoreError::TransactionCanceled { reasons }) => {
                    // Item 0 is the Session: it exists, so a concurrent request with the same
                    // session id won. Answer with its outcome.
                    if reasons.first() == Some(&CancelReason::ConditionalCheckFailed)
                        && let Some(session) = self
                            .store
                            .table
                            .get(&entity::session(&play.player_id, &play.session_id))
                            .await?
                    {
                        same_play(&session, play)?;
                        return Ok(Recorded::Duplicate(session, attempt));
                    }
                    // A request with the same key won: the next read finds its session.
                    if play.idempotency_key.is_some()
                        && reasons.get(KEY_PUT) == Some(&CancelReason::ConditionalCheckFailed)
                    {
                        continue;
                    }
                    if reasons.get(FENCE_CHECK) == Some(&CancelReason::ConditionalCheckFailed) {
                        return Err(self.store.fence_refusal(&play.player_id).await?);
                    }
                    if !CancelReason::all_retryable(&reasons) {
                        return Err(StoreError::TransactionCanceled { reasons });
                    }
                    // A copy of a board older than its settings fails the lane's version.
                    forget();
                    tracing::debug!(attempt, ?reasons, "play transaction cancelled; retrying");
                }
                Err(e) if e.is_retryable() => {
                    tracing::debug!(attempt, error = %e, "play transaction failed; retrying");
                }
                Err(e) => return Err(e),
            }
            Retry::PLAY.pause(attempt).await;
        }
        Err(Retry::PLAY.exhausted())
    }

    /// The board rules, the rate limit and the game of a play: its plans, the rate log to write
    /// back (when the limit is on) and its `gameId`, or the refusal.
    fn decide(
        self,
        play: &Play,
        state: PlayState,
        read_rate: &PlayRate,
        by: Writers,
        now: Timestamp,
    ) -> Result<Decided, StoreError> {
        let plans = self.plan_play(play, state, by, now)?;
        // Each board took its own columns' values; a value no board ranks by is a mistake.
        let boards = plans.iter().map(|p| &p.board.columns[..]);
        if let Some(unknown) = columns::unknown(boards, &play.subscores) {
            return Err(StoreError::Invalid(unknown.to_string()));
        }
        // After the board rules: a play no board takes is refused as such, not as one too
        // many.
        let rate = match self.store.plays_per_minute {
            0 => None,
            limit => Some(
                read_rate
                    .admit(limit, now.as_millis())
                    .map_err(|wait| rate_limited(&play.player_id, wait))?,
            ),
        };
        let game_id = match &play.game_id {
            Some(game) => game.clone(),
            None => boards_game(&plans)?,
        };
        Ok((plans, rate, game_id))
    }

    /// The one consistent read of a play (with `copies`, a hot board's item only when the
    /// process has no copy of it).
    async fn read_play_state(self, play: &Play, copies: bool) -> Result<PlayState, StoreError> {
        let copies: Vec<Option<Board>> = play
            .board_ids
            .iter()
            .map(|id| copies.then(|| self.store.boards_cached.get(id)).flatten())
            .collect();
        let board_keys: Vec<Key> = play.board_ids.iter().map(entity::board).collect();
        let pointer_keys: Vec<Key> = play
            .board_ids
            .iter()
            .map(|b| entity::entry(&play.player_id, b))
            .collect();
        // The profile comes along for its name, and the ban for the refusal: items more, no
        // request more.
        let player_key = entity::player(&play.player_id);
        let ban_key = entity::ban(&play.player_id);
        let erasure_key = self.store.erasure_marker(&play.player_id);
        let mut keys = vec![player_key.clone(), ban_key.clone(), erasure_key.clone()];
        // Each board's index root: items more, no request more (see `PlayState::roots`), but
        // for a hot board whose index this process holds a copy of (`rank::index_copy`).
        let index_copies: Vec<Option<Arc<IndexCopy>>> = play
            .board_ids
            .iter()
            .map(|id| self.store.index_copies.get(id))
            .collect();
        let root_keys: Vec<Key> = play.board_ids.iter().map(rank_index::root_key).collect();
        let unread = board_keys
            .iter()
            .zip(&copies)
            .filter(|(_, copy)| copy.is_none());
        keys.extend(unread.map(|(key, _)| key.clone()));
        keys.extend(pointer_keys.iter().cloned());
        let unread_roots = root_keys.iter().zip(&index_copies);
        keys.extend(
            unread_roots
                .filter(|(_, copy)| copy.is_none())
                .map(|(key, _)| key.clone()),
        );
        let idempotency_key = play
            .idempotency_key
            .as_ref()
            .map(|k| entity::idempotency(&play.player_id, k));
        keys.extend(idempotency_key.iter().cloned());
        let rate_key =
            (self.store.plays_per_minute > 0).then(|| entity::play_rate(&play.player_id));
        keys.extend(rate_key.iter().cloned());
        let feed_key = play.game_id.as_ref().map(entity::game_feed);
        keys.extend(feed_key.iter().cloned());
        let mut found = self
            .store
            .table
            .batch_get(&keys, "BatchGetItem(play)")
            .await?;
        if found.take(&erasure_key).is_some() {
            return Err(StoreError::Erased {
                player: play.player_id.clone(),
            });
        }
        if found.take(&ban_key).is_some() {
            return Err(StoreError::Banned {
                player: play.player_id.clone(),
            });
        }
        let rate = PlayRate::from_item(rate_key.and_then(|k| found.take(&k)).as_ref());
        let game_claimed = feed_key.is_some_and(|k| found.take(&k).is_some());
        let (mut boards, mut cached) = (Vec::with_capacity(copies.len()), Vec::new());
        for ((id, key), copy) in play.board_ids.iter().zip(&board_keys).zip(copies) {
            let board = match copy {
                Some(copy) => {
                    cached.push(id.clone());
                    Some(copy)
                }
                None => {
                    let read = found.take(key).map(from_item::<Board>).transpose()?;
                    if let Some(board) = &read {
                        self.store.boards_cached.keep(board);
                    }
                    read
                }
            };
            boards.push(board);
        }
        let mut take = |k: &Key| found.take(k);
        let keyed: Option<KeyedSession> = idempotency_key
            .and_then(|k| take(&k))
            .map(from_item)
            .transpose()?;
        let roots = root_keys
            .iter()
            .zip(index_copies)
            .zip(&boards)
            .map(|((k, copy), board)| match copy {
                Some(copy) => RootBefore::Copy(copy),
                None => {
                    let root = take(k).unwrap_or_default();
                    // A hot board's root as just read becomes the process's copy.
                    let copy = board
                        .as_ref()
                        .and_then(|b| self.store.index_copies.keep(b, root.clone()));
                    copy.map_or(RootBefore::Read(root), RootBefore::Copy)
                }
            })
            .collect();
        Ok(PlayState {
            keyed: keyed.map(|k| k.session_id),
            name: take(&player_key)
                .and_then(|p| {
                    p.string("name")
                        .filter(|n| !n.is_empty())
                        .map(str::to_owned)
                })
                .unwrap_or_else(|| play.player_id.to_string()),
            boards,
            cached,
            pointers: pointer_keys
                .iter()
                .map(|k| take(k).map(from_item).transpose())
                .collect::<Result<_, _>>()?,
            roots,
            rate,
            game_claimed,
        })
    }

    /// Checks every board and plans every change; the first refusal refuses the whole play.
    fn plan_play(
        self,
        play: &Play,
        state: PlayState,
        by: Writers,
        now: Timestamp,
    ) -> Result<Vec<BoardPlan>, StoreError> {
        let mut boards = Vec::with_capacity(state.boards.len());
        for (id, board) in play.board_ids.iter().zip(state.boards) {
            boards.push(board.ok_or_else(|| StoreError::NotFound {
                what: "leaderboard",
                id: id.to_string(),
            })?);
        }
        for board in &boards {
            check_writers(board, by)?;
            board.check_open_at(now)?;
        }
        boards
            .into_iter()
            .zip(state.roots)
            .zip(state.pointers)
            .map(|(board_and_root, old)| plan_board(board_and_root, old, play, &state.name, now))
            .collect()
    }

    /// The one transaction of a play.
    async fn write_play(
        self,
        play: &Play,
        session: &Session,
        plans: &[BoardPlan],
        rate: Option<(&PlayRate, &[u64])>,
        game_claimed: bool,
        seated: Vec<TransactWriteItem>,
    ) -> Result<(), StoreError> {
        // The play's time: its Session's.
        let played_at = session.attained_at;
        let session_key = entity::session(&session.player_id, &session.session_id);
        let gsi2 = feed_of(session, plans, game_claimed).map(|shards| {
            entity::session_gsi2(
                &session.game_id,
                shards,
                &session.player_id,
                &session.session_id,
            )
        });
        let mut items = vec![
            self.store.table.tx_put(
                to_item(session, &session_key, None, gsi2.as_ref())?,
                Some("attribute_not_exists(pk)"),
                Params::new(),
            )?,
            // A ban or an erasure that commits first refuses the play (see `FENCE_CHECK`).
            self.store.tx_fenced(&session.player_id)?,
        ];
        // The play's key, if it has one, on condition that it is new (see `KEY_PUT`).
        if let Some(key) = &play.idempotency_key {
            items.push(self.tx_put_key(play, key, played_at)?);
        }
        for plan in plans {
            let board = &plan.board;
            let Some(new) = &plan.new else { continue };
            let (condition, params) = match &plan.old {
                None => ("attribute_not_exists(pk)", Params::new()),
                Some(old) => ("version = :v", Params::new().value(":v", old.version)),
            };
            items.push(
                self.store
                    .table
                    .tx_put(pointer_item(new)?, Some(condition), params)?,
            );
            if let Some(old) = &plan.old
                && old.score_sk != new.score_sk
            {
                items.push(self.store.table.tx_delete(
                    &score_key(board, &old.entry.player_id, &old.score_sk),
                    "attribute_exists(pk)",
                    Params::new(),
                )?);
            }
            items.push(self.store.table.tx_put(
                score_item_in_service(board, new)?,
                None,
                Params::new(),
            )?);
            items.extend(self.store.table.second_layout_writes(
                board,
                plan.old.as_ref(),
                Some(new),
            )?);
            // Every board's lane, indexed or not: a board made before the index counts its
            // changes there too, so that its migration can tell when plays moved it.
            let old_key = plan.old.as_ref().map(|old| old.score_sk.as_str());
            items.push(self.store.table.written_update(
                board,
                &new.entry.player_id,
                old_key,
                Some(&new.score_sk),
            )?);
        }
        // The rate log, on condition that it is as read: a play of the player's that commits
        // first cancels this one, which reads the log again.
        if let Some((read, times)) = rate {
            items.push(self.tx_play_rate(&play.player_id, read, times, played_at)?);
        }
        // New league placements and their seats, on condition that they are still free; a
        // tournament's entrants and attempts, on condition that they are within its limits.
        items.extend(seated);
        let send = self.store.table.transact(items, "TransactWriteItems(play)");
        tokio::time::timeout(TRANSACTION_TIMEOUT, send)
            .await
            .map_err(|_| StoreError::Dynamo {
                code: Some("Timeout".into()),
                operation: "TransactWriteItems(play)",
                message: format!("no answer within {TRANSACTION_TIMEOUT:?}"),
            })?
    }
}
