//! The write path of a play: one Session, posted to 1 to 10 boards atomically.
//!
//! 1. **One consistent read**: a `BatchGetItem` (strongly consistent) of the session (for
//!    idempotency), each board's metadata, and the player's entry pointer on each board.
//! 2. **Decide**, for every board: unknown board (404), closed or outside its window (409),
//!    score out of range (400) refuse the whole play before anything is written; otherwise the
//!    board's operator (`best`, `latest`, `increment`) and order give the new entry, if it
//!    changes.
//! 3. **One transaction** (`TransactWriteItems`): put the Session if it does not exist; for
//!    every board whose entry changes, put the pointer on condition that its version is the one
//!    read, delete the old Score item on condition it exists, put the new one. Concurrent plays
//!    of one player on one board serialise on the pointer's version, so there is never a second
//!    Score item and no better score is lost. A cancelled transaction is re-read and retried
//!    with jittered exponential backoff, a bounded number of times.
//!
//! **The closing fence.** Season close must see every accepted score. A `ConditionCheck` on
//! the board item in every transaction would give that, but would make the board item a hot spot
//! where every concurrent submission conflicts with every other. Instead the check is included
//! only when the board ends within [`FENCE_WINDOW_MS`] of the moment the transaction is sent: a
//! transaction sent earlier is bounded by a timeout well inside the window, so it commits before
//! the board ends, and season close only starts on ended boards.
//!
//! **Ranks.** Each board's outcome carries the player's rank after the write. It is counted
//! just before the transaction (the entry being replaced is discounted), so it can be stored in
//! the Session and a repeated request gets the first answer.

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{ConditionCheck, Delete, KeysAndAttributes, Put, TransactWriteItem};
use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::ids::{BoardId, GameId, PlayerId, SessionId};
use leaderboard_keys::time::Timestamp;
use rand::Rng;

use crate::error::CancelReason;
use crate::items::{
    Item, from_item, key_item, key_string, n, pointer_item, s, score_item, to_item,
};
use crate::model::{Board, BoardOutcome, EntryPointer, Operator, Session};
use crate::{Store, StoreError};

/// The most boards one play may count on.
pub const MAX_BOARDS_PER_PLAY: usize = 10;

/// How close to its end a board must be for a play's transaction to check its status.
pub const FENCE_WINDOW_MS: u64 = 60_000;

/// The longest a play's transaction may take before it is abandoned: well inside the fence
/// window.
const TRANSACTION_TIMEOUT: Duration = Duration::from_secs(20);

/// How many times a play is re-read and retried after a conflict.
const MAX_ATTEMPTS: u32 = 60;

/// One play to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Play {
    /// Whose play (from the verified token, never from the body).
    pub player_id: PlayerId,
    /// Its id; a repeat of it is answered with the first outcome.
    pub session_id: SessionId,
    /// The game; when absent, the game of the first of its boards that has one (a play without
    /// either is refused).
    pub game_id: Option<GameId>,
    /// The score.
    pub score: u64,
    /// How long the play took, if the game said.
    pub duration_sec: Option<u64>,
    /// The boards it counts on, 1 to 10, distinct.
    pub leaderboard_ids: Vec<BoardId>,
}

/// What recording a play did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayOutcome {
    /// The Session as stored: its outcomes are the per-board results.
    pub session: Session,
    /// Whether the session existed already (nothing was written this time).
    pub duplicate: bool,
    /// How many read-decide-write attempts it took (1 without contention).
    pub attempts: u32,
}

/// A fresh ULID session id for a play at `now`.
pub fn new_session_id(now: Timestamp) -> Result<SessionId, StoreError> {
    SessionId::from_parts(now.as_millis(), rand::rng().random())
        .map_err(|e| StoreError::Key(e.into()))
}

/// What was read for a play.
struct PlayState {
    session: Option<Session>,
    boards: Vec<Option<Board>>,
    pointers: Vec<Option<EntryPointer>>,
}

/// The change a play makes on one board.
struct BoardPlan {
    board: Board,
    old: Option<EntryPointer>,
    /// The new entry, if the entry changes.
    new: Option<EntryPointer>,
    outcome: BoardOutcome,
}

impl Play {
    fn check(&self) -> Result<(), StoreError> {
        let ids = &self.leaderboard_ids;
        if ids.is_empty() || ids.len() > MAX_BOARDS_PER_PLAY {
            return Err(StoreError::Invalid(format!(
                "leaderboardIds must list 1 to {MAX_BOARDS_PER_PLAY} boards"
            )));
        }
        for (i, id) in ids.iter().enumerate() {
            if ids[..i].contains(id) {
                return Err(StoreError::Invalid(format!(
                    "leaderboardIds lists {id} twice"
                )));
            }
        }
        Ok(())
    }
}

/// The new entry of `board` after a play of `score` at `now`, given the current one.
fn plan_board(
    board: Board,
    old: Option<EntryPointer>,
    play: &Play,
    now: Timestamp,
) -> Result<BoardPlan, StoreError> {
    let spec = board.spec()?;
    let order = board.order;
    let out_of_range = |score| StoreError::ScoreOutOfRange {
        board: board.leaderboard_id.clone(),
        score,
        max_score: board.max_score,
    };
    spec.check_score(play.score)
        .map_err(|_| out_of_range(play.score))?;
    // The rules do not depend on the order in which concurrent plays commit (a play's `now` is
    // fixed before its retries): `best` keeps the better score, and of equal scores the earlier
    // one (it ranks higher); `latest` keeps the play with the greatest (time, session id);
    // `increment` adds every play once and its time never goes backwards.
    let new_entry: Option<(u64, Timestamp)> = match (&old, board.operator) {
        (None, _) => Some((play.score, now)),
        (Some(cur), Operator::Best) => (order.is_better(play.score, cur.score)
            || (play.score == cur.score && now < cur.attained_at))
            .then_some((play.score, now)),
        (Some(cur), Operator::Latest) => ((now, &play.session_id)
            > (cur.attained_at, &cur.session_id))
            .then_some((play.score, now)),
        (Some(_), Operator::Increment) if play.score == 0 => None,
        (Some(cur), Operator::Increment) => {
            let total = cur
                .score
                .checked_add(play.score)
                .filter(|&t| t <= board.max_score)
                .ok_or_else(|| out_of_range(cur.score.saturating_add(play.score)))?;
            Some((total, now.max(cur.attained_at)))
        }
    };
    let new = match new_entry {
        None => None,
        Some((score, attained_at)) => Some(EntryPointer {
            leaderboard_id: board.leaderboard_id.clone(),
            player_id: play.player_id.clone(),
            score,
            attained_at,
            session_id: play.session_id.clone(),
            score_sk: spec.score_sort_key(score, attained_at.as_millis(), &play.player_id)?,
            version: old.as_ref().map_or(1, |o| o.version + 1),
        }),
    };
    let best = new
        .as_ref()
        .or(old.as_ref())
        .map_or(play.score, |e| e.score);
    // Improved: the entry is new, or now ranks higher than before.
    let improved = match (&old, &new) {
        (None, _) => true,
        (Some(o), Some(n)) => n.score_sk > o.score_sk,
        (Some(_), None) => false,
    };
    Ok(BoardPlan {
        outcome: BoardOutcome {
            leaderboard_id: board.leaderboard_id.clone(),
            best,
            improved,
            rank: 0,
        },
        board,
        old,
        new,
    })
}

fn backoff(attempt: u32) -> Duration {
    // Full jitter over an exponential ceiling of 5 ms .. 320 ms.
    let ceiling = 5u64 << attempt.min(6);
    Duration::from_millis(rand::rng().random_range(1..=ceiling))
}

impl Store {
    /// Records a play: the Session, and the player's entry on every board it counts on, all or
    /// nothing. A repeated `session_id` of the same player returns the first outcome with
    /// `duplicate: true` and writes nothing, also when the two requests race.
    pub async fn record_play(
        &self,
        play: &Play,
        now: Timestamp,
    ) -> Result<PlayOutcome, StoreError> {
        play.check()?;
        for attempt in 1..=MAX_ATTEMPTS {
            let state = self.read_play_state(play).await?;
            if let Some(session) = state.session {
                return Ok(PlayOutcome {
                    session,
                    duplicate: true,
                    attempts: attempt,
                });
            }
            let mut plans = self.plan_play(play, state, now)?;
            let game_id = play
                .game_id
                .clone()
                .or_else(|| plans.iter().find_map(|p| p.board.game_id.clone()))
                .ok_or_else(|| StoreError::Invalid("gameId is required".into()))?;
            for plan in &mut plans {
                plan.outcome.rank = self.rank_after(plan, &play.player_id).await?;
            }
            let session = Session {
                player_id: play.player_id.clone(),
                session_id: play.session_id.clone(),
                leaderboard_ids: play.leaderboard_ids.clone(),
                game_id,
                score: play.score,
                duration_sec: play.duration_sec,
                attained_at: now,
                outcomes: plans.iter().map(|p| p.outcome.clone()).collect(),
            };
            match self.write_play(&session, &plans).await {
                Ok(()) => {
                    return Ok(PlayOutcome {
                        session,
                        duplicate: false,
                        attempts: attempt,
                    });
                }
                Err(StoreError::TransactionCanceled { reasons }) => {
                    // Item 0 is the Session: it exists, so a concurrent request with the same
                    // session id won. Answer with its outcome.
                    if reasons.first() == Some(&CancelReason::ConditionalCheckFailed)
                        && let Some(session) =
                            self.get_session(&play.player_id, &play.session_id).await?
                    {
                        return Ok(PlayOutcome {
                            session,
                            duplicate: true,
                            attempts: attempt,
                        });
                    }
                    if !CancelReason::all_retryable(&reasons) {
                        return Err(StoreError::TransactionCanceled { reasons });
                    }
                    tracing::debug!(attempt, ?reasons, "play transaction cancelled; retrying");
                }
                Err(e) if e.is_retryable() => {
                    tracing::debug!(attempt, error = %e, "play transaction failed; retrying");
                }
                Err(e) => return Err(e),
            }
            tokio::time::sleep(backoff(attempt)).await;
        }
        Err(StoreError::Contention {
            attempts: MAX_ATTEMPTS,
        })
    }

    /// The one consistent read of a play.
    async fn read_play_state(&self, play: &Play) -> Result<PlayState, StoreError> {
        let session_key = entity::session(&play.player_id, &play.session_id);
        let board_keys: Vec<Key> = play.leaderboard_ids.iter().map(entity::board).collect();
        let pointer_keys: Vec<Key> = play
            .leaderboard_ids
            .iter()
            .map(|b| entity::entry(&play.player_id, b))
            .collect();
        let mut wanted: Vec<Item> = vec![key_item(&session_key)];
        wanted.extend(board_keys.iter().map(key_item));
        wanted.extend(pointer_keys.iter().map(key_item));
        let mut found: HashMap<(String, String), Item> = HashMap::new();
        let mut pending = Some(
            KeysAndAttributes::builder()
                .set_keys(Some(wanted))
                .consistent_read(true)
                .build()
                .map_err(|e| StoreError::Invalid(e.to_string()))?,
        );
        let mut round = 0u32;
        while let Some(keys) = pending.take() {
            if round > 0 {
                tokio::time::sleep(backoff(round)).await;
            }
            round += 1;
            if round > MAX_ATTEMPTS {
                return Err(StoreError::Contention { attempts: round });
            }
            let out = self
                .client
                .batch_get_item()
                .request_items(&self.table, keys)
                .send()
                .await
                .map_err(|e| StoreError::sdk("BatchGetItem(play)", e))?;
            for item in out
                .responses
                .unwrap_or_default()
                .remove(&self.table)
                .unwrap_or_default()
            {
                found.insert((key_string(&item, "pk"), key_string(&item, "sk")), item);
            }
            pending = out
                .unprocessed_keys
                .unwrap_or_default()
                .remove(&self.table)
                .filter(|k| !k.keys().is_empty());
        }
        let mut take = |k: &Key| found.remove(&(k.pk.clone(), k.sk.clone()));
        Ok(PlayState {
            session: take(&session_key).map(from_item).transpose()?,
            boards: board_keys
                .iter()
                .map(|k| take(k).map(from_item).transpose())
                .collect::<Result<_, _>>()?,
            pointers: pointer_keys
                .iter()
                .map(|k| take(k).map(from_item).transpose())
                .collect::<Result<_, _>>()?,
        })
    }

    /// Checks every board and plans every change; the first refusal refuses the whole play.
    fn plan_play(
        &self,
        play: &Play,
        state: PlayState,
        now: Timestamp,
    ) -> Result<Vec<BoardPlan>, StoreError> {
        let mut boards = Vec::with_capacity(state.boards.len());
        for (id, board) in play.leaderboard_ids.iter().zip(state.boards) {
            boards.push(board.ok_or_else(|| StoreError::NotFound {
                what: "leaderboard",
                id: id.to_string(),
            })?);
        }
        for board in &boards {
            board
                .accepts_at(now)
                .map_err(|why| StoreError::BoardClosed {
                    board: board.leaderboard_id.clone(),
                    why,
                })?;
        }
        boards
            .into_iter()
            .zip(state.pointers)
            .map(|(board, old)| plan_board(board, old, play, now))
            .collect()
    }

    /// The player's rank on the plan's board once the plan is written: from the rank index
    /// when it has applied every committed change (and still counts the entry read), else
    /// counted.
    async fn rank_after(&self, plan: &BoardPlan, player: &PlayerId) -> Result<u64, StoreError> {
        let board = &plan.board;
        let (target, replaced_above) = match (&plan.old, &plan.new) {
            (Some(old), None) => (&old.score_sk, false),
            // The entry being replaced is still there and counted if it sorts above.
            (old, Some(new)) => (
                &new.score_sk,
                old.as_ref().is_some_and(|o| o.score_sk > new.score_sk),
            ),
            (None, None) => return Ok(0),
        };
        let pointer_key = entity::entry(player, &board.leaderboard_id);
        let pointer = plan.old.as_ref().map(|o| (&pointer_key, o.version));
        let rank = self.rank_with_index(board, target, pointer).await?.rank;
        Ok(rank - u64::from(replaced_above))
    }

    /// The one transaction of a play.
    async fn write_play(&self, session: &Session, plans: &[BoardPlan]) -> Result<(), StoreError> {
        let put = |item: Item, condition: Option<&str>| -> Result<TransactWriteItem, StoreError> {
            Ok(TransactWriteItem::builder()
                .put(
                    Put::builder()
                        .table_name(&self.table)
                        .set_item(Some(item))
                        .set_condition_expression(condition.map(str::to_owned))
                        .build()
                        .map_err(|e| StoreError::Invalid(e.to_string()))?,
                )
                .build())
        };
        let session_key = entity::session(&session.player_id, &session.session_id);
        let gsi2 = entity::session_gsi2(&session.game_id, &session.session_id);
        let mut items = vec![put(
            to_item(session, &session_key, None, Some(&gsi2))?,
            Some("attribute_not_exists(pk)"),
        )?];
        let now = Timestamp::now();
        for plan in plans {
            let board = &plan.board;
            let near_end = board
                .ends_at
                .is_some_and(|end| now.plus_millis(FENCE_WINDOW_MS) >= end);
            if near_end {
                items.push(
                    TransactWriteItem::builder()
                        .condition_check(
                            ConditionCheck::builder()
                                .table_name(&self.table)
                                .set_key(Some(key_item(&entity::board(&board.leaderboard_id))))
                                .condition_expression("#status = :open")
                                .expression_attribute_names("#status", "status")
                                .expression_attribute_values(":open", s("open"))
                                .build()
                                .map_err(|e| StoreError::Invalid(e.to_string()))?,
                        )
                        .build(),
                );
            }
            let Some(new) = &plan.new else { continue };
            let mut pointer_put = Put::builder()
                .table_name(&self.table)
                .set_item(Some(pointer_item(new)?));
            pointer_put = match &plan.old {
                None => pointer_put.condition_expression("attribute_not_exists(pk)"),
                Some(old) => pointer_put
                    .condition_expression("version = :v")
                    .expression_attribute_values(":v", n(old.version)),
            };
            items.push(
                TransactWriteItem::builder()
                    .put(
                        pointer_put
                            .build()
                            .map_err(|e| StoreError::Invalid(e.to_string()))?,
                    )
                    .build(),
            );
            let board_pk = entity::board_pk(&board.leaderboard_id);
            if let Some(old) = &plan.old
                && old.score_sk != new.score_sk
            {
                items.push(
                    TransactWriteItem::builder()
                        .delete(
                            Delete::builder()
                                .table_name(&self.table)
                                .set_key(Some(key_item(&Key::new(&board_pk, &old.score_sk))))
                                .condition_expression("attribute_exists(pk)")
                                .build()
                                .map_err(|e| StoreError::Invalid(e.to_string()))?,
                        )
                        .build(),
                );
            }
            items.push(put(score_item(new)?, None)?);
            if board.rank_index {
                items.push(self.written_update(&board.leaderboard_id, &new.player_id)?);
            }
        }
        // Unique per attempt: the SDK's own retries of this request stay idempotent, and no two
        // attempts or plays share one (DynamoDB remembers tokens for 10 minutes).
        let token = format!("{:032x}", rand::rng().random::<u128>());
        let send = self
            .client
            .transact_write_items()
            .set_transact_items(Some(items))
            .client_request_token(token)
            .send();
        let result = tokio::time::timeout(TRANSACTION_TIMEOUT, send)
            .await
            .map_err(|_| StoreError::Dynamo {
                code: Some("Timeout".into()),
                operation: "TransactWriteItems(play)",
                message: format!("no answer within {TRANSACTION_TIMEOUT:?}"),
            })?;
        match result {
            Ok(_) => Ok(()),
            Err(e) => match e.as_service_error() {
                Some(TransactWriteItemsError::TransactionCanceledException(c)) => {
                    Err(StoreError::TransactionCanceled {
                        reasons: CancelReason::of(c),
                    })
                }
                _ => Err(StoreError::sdk("TransactWriteItems(play)", e)),
            },
        }
    }
}
