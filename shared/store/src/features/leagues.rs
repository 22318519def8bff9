//! Leagues as players, games and operators read them: a player's standing in the current
//! period of a league (their tier, cohort, rank in it, and the ranks that move up and down), a
//! period's cohorts, paged, and a player's tier history in a league's series. Placing players is the plays' (`plays::league`), moving them the
//! close's (`close::league`).

use leaderboard_keys::entity;
use leaderboard_keys::ids::{BoardId, PlayerId, TierName};
use serde::Serialize;

use crate::ground::error::StoreError;
use crate::ground::freshness::Freshness;
use crate::ground::league::{League, ListedCohort, Placement};
use crate::ground::model::{Board, BoardStatus, Page, SeasonResult};
use crate::store::Store;
use crate::table::query::Listing;
use crate::table::request::Index;

/// The most cohorts a page of [`Leagues::cohorts`] lists.
pub const MAX_COHORTS_PAGE: usize = 100;

/// A player's standing in one period of a league (`GET /players/{p}/leagues/{L}`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeagueStanding {
    /// The league board of the period.
    #[serde(rename = "leaderboardId")]
    pub board_id: BoardId,
    /// The player's tier in the period.
    pub tier: TierName,
    /// Their cohort.
    pub cohort_id: BoardId,
    /// Their rank in it.
    pub rank: u64,
    /// How fresh the rank is (the cohort's `playerCount` with it).
    #[serde(flatten)]
    pub freshness: Freshness,
    /// The ranks that move one tier up at the period's end, if any do.
    pub promote_ranks: Option<[u64; 2]>,
    /// The ranks that move one tier down, if any do (with the cohort's count as it is now).
    pub relegate_ranks: Option<[u64; 2]>,
}

/// Leagues: a player's standing in a period, a period's cohorts (the handle
/// [`Store::leagues`] gives).
#[derive(Clone, Copy)]
pub struct Leagues<'a> {
    pub(crate) store: &'a Store,
}

impl Store {
    /// Leagues: a player's standing in a period, a period's cohorts.
    pub fn leagues(&self) -> Leagues<'_> {
        Leagues { store: self }
    }
}

impl Leagues<'_> {
    /// League board `id`, with its settings: [`StoreError::NotFound`] when there is no such
    /// board or it is not a league.
    async fn league(self, id: &BoardId) -> Result<(Board, League), StoreError> {
        let board = self.store.table.board(id).await?;
        match board {
            Some(board) if board.is_league() => match board.league.clone() {
                Some(league) => Ok((board, league)),
                None => Err(not_a_league(id)),
            },
            _ => Err(not_a_league(id)),
        }
    }

    /// `player`'s standing in league board `id`'s period, `None` before their first play of
    /// it: the board, the placement, the cohort and the rank in it (a closed cohort's from the
    /// player's result): 5 requests or fewer, whatever the league's size.
    pub async fn standing(
        self,
        player: &PlayerId,
        id: &BoardId,
    ) -> Result<Option<LeagueStanding>, StoreError> {
        let (board, league) = self.league(id).await?;
        let Some(end) = board.ends_at else {
            return Ok(None);
        };
        let key = entity::placement(player, &board.series(), end)?;
        let Some(placement) = self.store.table.get::<Placement>(&key).await? else {
            return Ok(None);
        };
        let Some(cohort) = self.store.table.board(&placement.cohort_id).await? else {
            return Ok(None);
        };
        let ranked = if cohort.status == BoardStatus::Closed {
            let result: Option<SeasonResult> = self
                .store
                .table
                .get(&entity::season_result(player, &cohort.board_id))
                .await?;
            result.map(|r| (r.rank, Freshness::exact(r.rank, r.player_count)))
        } else {
            let ranked = self
                .store
                .rank()
                .player_rank_counted(&cohort, player)
                .await?;
            ranked.and_then(|(e, _)| e.freshness.map(|f| (e.rank, f)))
        };
        let Some((rank, freshness)) = ranked else {
            return Ok(None);
        };
        let tier = placement.tier;
        Ok(Some(LeagueStanding {
            promote_ranks: league.promote_ranks(&tier).map(|(a, b)| [a, b]),
            relegate_ranks: league
                .relegate_ranks(&tier, freshness.player_count)
                .map(|(a, b)| [a, b]),
            board_id: board.board_id,
            tier,
            cohort_id: placement.cohort_id,
            rank,
            freshness,
        }))
    }

    /// `player`'s placements in the series of league board `id`, newest period first, at most
    /// `limit` (1..=100): their tier history (each period's tier, and where its end moved
    /// them). One Query.
    pub async fn history(
        self,
        player: &PlayerId,
        id: &BoardId,
        limit: usize,
    ) -> Result<Vec<Placement>, StoreError> {
        if !(1..=MAX_COHORTS_PAGE).contains(&limit) {
            return Err(StoreError::Invalid(format!(
                "limit must be between 1 and {MAX_COHORTS_PAGE}"
            )));
        }
        let (board, _) = self.league(id).await?;
        let prefix = entity::placement_prefix(&board.series());
        let listing = Listing::new(
            "placements",
            Index::Table,
            entity::player_pk(player),
            prefix,
        )
        .descending();
        Ok(self
            .store
            .table
            .list_page(&listing, limit, None)
            .await?
            .items)
    }

    /// League board `id`'s cohorts, of one `tier` (none for a tier the league does not have)
    /// or every tier (tier by tier, in the order they opened), `limit` (1..=100) a page: one Query of the listing and one of the tiers'
    /// cursors (each cohort's `members`).
    pub async fn cohorts(
        self,
        id: &BoardId,
        tier: Option<&TierName>,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<ListedCohort>, StoreError> {
        if !(1..=MAX_COHORTS_PAGE).contains(&limit) {
            return Err(StoreError::Invalid(format!(
                "limit must be between 1 and {MAX_COHORTS_PAGE}"
            )));
        }
        let (_, league) = self.league(id).await?;
        let prefix = entity::cohort_listing_prefix(tier);
        let listing = Listing::new("cohorts", Index::Table, entity::board_pk(id), prefix);
        let mut page: Page<ListedCohort> =
            self.store.table.list_page(&listing, limit, cursor).await?;
        let cursors = self.store.table.cohort_cursors(id).await?;
        for cohort in &mut page.items {
            cohort.members = match cursors.iter().find(|(t, _)| t == &cohort.tier) {
                Some((_, c)) if c.number == cohort.number => c.members,
                _ => league.cohort_size,
            };
        }
        Ok(page)
    }
}

fn not_a_league(id: &BoardId) -> StoreError {
    StoreError::NotFound {
        what: "league",
        id: id.to_string(),
    }
}
