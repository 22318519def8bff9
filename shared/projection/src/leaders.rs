//! `NewLeader`: the projector over a store that tells a publisher of every change of a board's
//! leader its batches make. The rank index's apply finds the change (from the batch's lane
//! changes and the leader its root keeps, see `leaderboard_store::LeaderWatch`) and asks for
//! it to be published before its root records it: a publication that fails fails the board's
//! apply, whose records are then re-delivered and publish the same event (its id is the lane
//! change that made the leader). Several changes of the lead within one journal of a batch are
//! one event, from the leader before to the one after. An event names an erased player (the
//! leader or the one before) by their pseudonym: one BatchGetItem of their erasure markers
//! before each publication.

use leaderboard_events::{Event, NewLeader, Publisher};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank_index::LaneChange;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::{
    LaneApplyOutcome, LeaderChange, LeaderWatch, ProjectedSession, ProjectionOutcome, Store,
    StoreError,
};

use crate::{LaneIndex, Projection};

/// The store, publishing `NewLeader` with its publisher.
#[derive(Clone)]
pub struct Announcing {
    store: Store,
    publisher: Publisher,
}

impl Announcing {
    /// `store`, publishing with `publisher` (off: the leader is followed, nothing published).
    pub fn new(store: Store, publisher: Publisher) -> Announcing {
        Announcing { store, publisher }
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }
}

impl Projection for Announcing {
    async fn project(
        &self,
        player: &PlayerId,
        sessions: &[ProjectedSession],
        now: Timestamp,
    ) -> Result<ProjectionOutcome, StoreError> {
        self.store
            .projection()
            .project_sessions(player, sessions, now)
            .await
    }
}

impl LaneIndex for Announcing {
    async fn apply_lanes(
        &self,
        board: &BoardId,
        changes: &[LaneChange],
    ) -> Result<LaneApplyOutcome, StoreError> {
        let announcer = Announcer {
            store: &self.store,
            publisher: &self.publisher,
        };
        self.store
            .rank()
            .apply_lane_changes_watched(board, changes, &announcer)
            .await
    }
}

/// A publisher as the index's watch.
struct Announcer<'a> {
    store: &'a Store,
    publisher: &'a Publisher,
}

impl LeaderWatch for Announcer<'_> {
    async fn new_leader(&self, change: &LeaderChange) -> Result<(), String> {
        if !self.publisher.is_on() {
            return Ok(());
        }
        // A change applied after a player's erasure began (a projector that lagged or was
        // stopped) names their pseudonym, never their id: an event cannot be recalled.
        let named: Vec<PlayerId> = std::iter::once(&change.leader)
            .chain(change.previous.as_ref())
            .filter_map(|p| PlayerId::parse(p).ok())
            .collect();
        let erased = self
            .store
            .moderation()
            .erased_among(&named)
            .await
            .map_err(|e| e.to_string())?;
        // At most two entries: a lookup by the text the change holds, not a second parse.
        let shown = |p: &str| {
            erased
                .iter()
                .find(|(id, _)| id.as_str() == p)
                .map_or_else(|| p.to_owned(), |(_, ps)| ps.to_string())
        };
        let event = NewLeader::new(
            change.board.as_str(),
            change.cause,
            &shown(&change.leader),
            change.score,
            change.previous.as_deref().map(shown),
        );
        self.publisher.publish(&[Event::NewLeader(event)]).await
    }
}
