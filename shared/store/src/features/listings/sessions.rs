//! Sessions: AP6 (a player's recent sessions, newest first), AP7 (a game's sessions across
//! players, GSI2, newest first), AP8 (one session).

use leaderboard_keys::entity::{self, SESSION_PREFIX};
use leaderboard_keys::ids::{GameId, PlayerId, SessionId};

use crate::ground::error::StoreError;
use crate::ground::model::{Page, Session};
use crate::store::Store;
use crate::table::query::Listing;
use crate::table::request::Index;

impl Store {
    /// AP8: one session (GetItem, consistent).
    pub async fn get_session(
        &self,
        player: &PlayerId,
        session: &SessionId,
    ) -> Result<Option<Session>, StoreError> {
        self.table.get(&entity::session(player, session)).await
    }

    /// AP6: the player's sessions, newest first (ULIDs sort by time), `limit` at a time.
    pub async fn player_sessions(
        &self,
        player: &PlayerId,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<Session>, StoreError> {
        let listing = Listing::new(
            "player_sessions",
            Index::Table,
            entity::player_pk(player),
            SESSION_PREFIX,
        )
        .descending();
        self.table.list_page(&listing, limit, cursor).await
    }

    /// AP7: a game's sessions across players (GSI2 `GAME#<gameId>`), newest first.
    pub async fn game_sessions(
        &self,
        game: &GameId,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<Session>, StoreError> {
        let listing = Listing::new(
            "game_sessions",
            Index::Gsi2,
            entity::game_gsi2_pk(game),
            SESSION_PREFIX,
        )
        .descending();
        self.table.list_page(&listing, limit, cursor).await
    }
}
