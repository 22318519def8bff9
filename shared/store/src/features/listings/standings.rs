//! Reads of closed boards: the final standings (`FINAL#<rank>` items, in rank order) and each
//! player's season results (`RESULT#<boardId>` items in the player's partition). Season close
//! writes them; after close they answer top-N, rank and around.

use leaderboard_keys::entity::{self, FINAL_PREFIX, RESULT_PREFIX};
use leaderboard_keys::ids::{BoardId, PlayerId};

use crate::features::listings::Listings;
use crate::ground::error::StoreError;
use crate::ground::items::from_item;
use crate::ground::model::{FinalStanding, Page, RankedEntry, SeasonResult};
use crate::table::query::Listing;
use crate::table::request::{Index, Params};

impl Listings<'_> {
    /// A closed board's final standings in rank order, `limit` at a time.
    pub async fn final_standings(
        self,
        board: &BoardId,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<RankedEntry>, StoreError> {
        let listing = Listing::new("final", Index::Table, entity::board_pk(board), FINAL_PREFIX);
        let page: Page<FinalStanding> = self.store.table.list_page(&listing, limit, cursor).await?;
        Ok(page.map(|f| f.entry.ranked(f.rank, None)))
    }

    /// The final standings ranked `first..=last` of a closed board (by key, one Query).
    pub async fn final_standings_between(
        self,
        board: &BoardId,
        first: u64,
        last: u64,
    ) -> Result<Vec<RankedEntry>, StoreError> {
        let first = first.max(1);
        if last < first {
            return Ok(Vec::new());
        }
        let lo = entity::final_standing(board, first)?;
        let hi = entity::final_standing(board, last)?;
        let out = self
            .store
            .table
            .range_query(&lo.pk, &lo.sk, &hi.sk, Params::new())?
            .send()
            .await
            .map_err(|e| StoreError::sdk("Query(final window)", e))?;
        out.items
            .unwrap_or_default()
            .into_iter()
            .map(|i| from_item::<FinalStanding>(i).map(|f| f.entry.ranked(f.rank, None)))
            .collect()
    }

    /// A player's result on a closed board (GetItem, consistent).
    pub async fn season_result(
        self,
        player: &PlayerId,
        board: &BoardId,
    ) -> Result<Option<SeasonResult>, StoreError> {
        self.store
            .table
            .get(&entity::season_result(player, board))
            .await
    }

    /// A player's results on closed boards, by board id, `limit` at a time after `cursor` (one
    /// Query a page: results never expire, so a daily player's grow without end).
    pub async fn player_results(
        self,
        player: &PlayerId,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<SeasonResult>, StoreError> {
        let listing = Listing::new(
            "results",
            Index::Table,
            entity::player_pk(player),
            RESULT_PREFIX,
        );
        self.store.table.list_page(&listing, limit, cursor).await
    }
}
