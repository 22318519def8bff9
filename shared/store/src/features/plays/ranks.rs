//! The answer to a committed play: each board's rank after the write, read once, and kept in
//! the Session so that a repeated request gets the same answer.
//!
//! The rank is read from the rank index after the transaction committed (not on every
//! attempt): the play's own change counts even before the index applied it, because the
//! player's entry as the index holds it is never counted above the new one. Once the write has
//! committed the play is accepted whatever these reads do: a rank that fails to read, or that
//! the caller's deadline cuts off, stays unread (rank 0, no freshness) and a repeat of the play
//! reads it again.

use std::future::Future;

use leaderboard_keys::entity;
use leaderboard_keys::ids::SessionId;
use tokio::time::Instant;

use crate::features::plays::Plays;
use crate::features::plays::Recorded;
use crate::ground::error::StoreError;
use crate::ground::freshness::Freshness;
use crate::ground::model::Session;
use crate::rank::count::{Prefetch, RankCost};
use crate::rank::index_copy::RootBefore;
use crate::table::request::{Params, WithParams};

/// What recording a play did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayOutcome {
    /// The Session as stored: its outcomes are the per-board results.
    pub session: Session,
    /// Whether the session existed already (nothing was written this time).
    pub duplicate: bool,
    /// How many read-decide-write attempts it took (1 without contention).
    pub attempts: u32,
    /// What reading the ranks cost (after the write, once).
    pub rank_cost: RankCost,
}

/// A play whose write is settled: written now, or found written by an earlier request with
/// the same session id or `Idempotency-Key`. [`Plays::rank_play`] reads its ranks; from here on the play is
/// answered as accepted whatever the rank reads do.
pub struct CommittedPlay {
    recorded: Recorded,
}

impl CommittedPlay {
    pub(crate) fn new(recorded: Recorded) -> CommittedPlay {
        CommittedPlay { recorded }
    }

    /// The session a repeat was answered with (`None` when this play wrote): under its key,
    /// that may be another id than the one the repeat carried.
    pub fn duplicate_of(&self) -> Option<&SessionId> {
        match &self.recorded {
            Recorded::New(..) => None,
            Recorded::Duplicate(session, _) => Some(&session.session_id),
        }
    }
}

/// `work`, or `None` when `deadline` comes first.
async fn before<T>(deadline: Option<Instant>, work: impl Future<Output = T>) -> Option<T> {
    match deadline {
        Some(at) => tokio::time::timeout_at(at, work).await.ok(),
        None => Some(work.await),
    }
}

impl Plays<'_> {
    /// The answer to a committed play: each board's rank, read once, until `deadline`. This
    /// never fails: the play is saved, so a rank that cannot be read (an error, or no time
    /// left) stays unread (rank 0, no freshness) and a repeat of the play reads it again.
    pub async fn rank_play(
        self,
        committed: CommittedPlay,
        deadline: Option<Instant>,
    ) -> PlayOutcome {
        let (mut session, plans, attempts) = match committed.recorded {
            Recorded::Duplicate(session, attempts) => {
                let (session, rank_cost) = self.rank_duplicate(session, deadline).await;
                return PlayOutcome {
                    session,
                    duplicate: true,
                    attempts,
                    rank_cost,
                };
            }
            Recorded::New(session, plans, attempts) => (session, plans, attempts),
        };
        let mut rank_cost = RankCost::default();
        let mut ranked = false;
        for (outcome, plan) in session.outcomes.iter_mut().zip(&plans) {
            // The entry after the play: the new one, or the one kept.
            let Some(entry) = plan.new.as_ref().or(plan.old.as_ref()) else {
                continue;
            };
            let read = self.store.table.own_rank(
                &plan.board,
                &session.player_id,
                &entry.score_sk,
                Prefetch::AfterPlay(plan.root.clone()),
            );
            match before(deadline, read).await {
                Some(Ok((estimate, cost))) => {
                    outcome.rank = estimate.rank();
                    outcome.freshness = Some(Freshness::of(outcome.rank, &estimate));
                    rank_cost = rank_cost.plus(cost);
                    ranked = true;
                    // A hot board's lanes, read all by this rank, tended (`rank::lane_caps`).
                    if let RootBefore::Copy(copy) = &plan.root {
                        let tend = self.store.table.tend_offered(&plan.board, copy);
                        before(deadline, tend).await;
                    }
                }
                Some(Err(e)) => {
                    tracing::warn!(error = %e, board = %plan.board.board_id, "rank not read after the play");
                }
                None => {
                    tracing::warn!(session = %session.session_id, "no time left for the play's ranks");
                    break;
                }
            }
        }
        // The play has committed: failing to keep its ranks must not answer it as failed (a
        // repeated request then reads them again).
        if ranked {
            match before(deadline, self.store_outcomes(&session)).await {
                Some(Ok(())) => {}
                Some(Err(e)) => {
                    tracing::warn!(error = %e, session = %session.session_id, "ranks not kept in the session")
                }
                None => {
                    tracing::warn!(session = %session.session_id, "no time left to keep the ranks")
                }
            }
        }
        PlayOutcome {
            session,
            duplicate: false,
            attempts,
            rank_cost,
        }
    }

    /// Keeps the ranks read after the write in the Session, so that a repeated request is
    /// answered with them. A Session whose ranks were never stored (the function stopped in
    /// between) is answered with ranks read when it is repeated.
    async fn store_outcomes(self, session: &Session) -> Result<(), StoreError> {
        let key = entity::session(&session.player_id, &session.session_id);
        self.store
            .table
            .update_request(&key, "SET outcomes = :o")
            .condition_expression("attribute_exists(pk)")
            .params(Params::new().value(":o", &session.outcomes))?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(session ranks)", e))?;
        Ok(())
    }

    /// A repeated play's answer: the first outcome, with ranks read now (until `deadline`)
    /// for the boards whose rank was not stored with it; one that cannot be read stays unread.
    async fn rank_duplicate(
        self,
        mut session: Session,
        deadline: Option<Instant>,
    ) -> (Session, RankCost) {
        let mut rank_cost = RankCost::default();
        for outcome in &mut session.outcomes {
            if outcome.freshness.is_some() {
                continue;
            }
            let read = async {
                let Some(board) = self.store.table.board(outcome.counted_on()).await? else {
                    return Ok(None);
                };
                self.store
                    .rank()
                    .player_rank_counted(&board, &session.player_id)
                    .await
            };
            match before(deadline, read).await {
                Some(Ok(Some((entry, cost)))) => {
                    outcome.rank = entry.rank;
                    outcome.freshness = entry.freshness;
                    rank_cost = rank_cost.plus(cost);
                }
                Some(Ok(None)) => {}
                Some(Err(e)) => {
                    tracing::warn!(error = %e, board = %outcome.board_id, "rank not read for a repeated play");
                }
                None => break,
            }
        }
        (session, rank_cost)
    }
}
