//! Sessions: AP6 (a player's recent sessions, newest first), AP7 (a game's sessions across
//! players, GSI2, newest first), AP8 (one session).

use leaderboard_keys::entity::{self, SESSION_PREFIX};
use leaderboard_keys::ids::{GameId, PlayerId, SessionId};

use crate::features::listings::Listings;
use crate::ground::error::StoreError;
use crate::ground::model::{Page, Session};
use crate::table::query::Listing;
use crate::table::request::Index;

impl Listings<'_> {
    /// AP8: one session (GetItem, consistent).
    pub async fn get_session(
        self,
        player: &PlayerId,
        session: &SessionId,
    ) -> Result<Option<Session>, StoreError> {
        self.store
            .table
            .get(&entity::session(player, session))
            .await
    }

    /// AP6: the player's sessions, newest first (ULIDs sort by time), `limit` at a time.
    pub async fn player_sessions(
        self,
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
        self.store.table.list_page(&listing, limit, cursor).await
    }

    /// AP7: a game's sessions across players, newest first: one listing of its GSI2 partition
    /// `GAME#<gameId>` and, on a game with hot boards, of its feed shards merged
    /// (`entity::feed`). Cost: one `GetItem` of the feed item, then a Query of `limit` + 1
    /// items or, across 1 + the most write shards of the game's boards (at most 33), chunks of
    /// each partition merged (`table::merge`: at most `limit` + 1 + 33 chunks' items).
    pub async fn game_sessions(
        self,
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
        let shards = self.game_feed_shards(game).await?;
        let partitions = entity::game_gsi2_pks(game, shards);
        self.store
            .table
            .list_merged(
                &listing,
                &partitions,
                (SESSION_PREFIX, SESSION_UPPER_BOUND),
                limit,
                cursor,
            )
            .await?
            .into_page()
    }

    /// The most write shards a board of `game` was created with (1 when none had more): how
    /// many shards its sessions may be spread over.
    async fn game_feed_shards(self, game: &GameId) -> Result<u8, StoreError> {
        let item = self.store.table.get_raw(&entity::game_feed(game)).await?;
        let most = item
            .as_ref()
            .and_then(|item| item.get(entity::FEED_SHARDS_ATTR))
            .and_then(|set| set.as_ns().ok())
            .into_iter()
            .flatten()
            .filter_map(|k| k.parse::<u8>().ok())
            .max()
            .unwrap_or(1);
        // A count past the most a board can have is not one a board was made with.
        Ok(most.min(entity::MAX_WRITE_SHARDS))
    }
}

/// The exclusive upper bound of Session sort keys: `'$'` is the byte after `'#'`.
const SESSION_UPPER_BOUND: &str = "SESSION$";
