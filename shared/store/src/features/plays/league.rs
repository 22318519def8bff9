//! A play on a league board counts on the player's cohort of the period: the player's
//! placement, or, at their first play of the period, a seat in a cohort of their tier.
//!
//! **Placing.** A tier's cohort cursor names the cohort that takes its newcomers and how many
//! it holds; every cohort before it is full, so it is the oldest with room. A newcomer's play
//! writes, in its own transaction: their placement (on condition that they have none, so no
//! player is in two cohorts of a period however many of their plays race), and either a seat
//! in the cursor's cohort (`members + 1` on condition that the cursor still names it and it has
//! room) or, when it is full, the next cohort (the cursor moved on condition that it still
//! names the full one, the cohort's board and its listing item put, on condition that the
//! league board is still open). A play that loses a race
//! is cancelled whole and read again: it then finds the placement, the seat taken, or the
//! next cohort open. No cohort ever holds more than `cohortSize`.
//!
//! **Cost.** For each league board a play names: one consistent read of the placement (with
//! the other league boards', one `BatchGetItem`), then for a newcomer one Query (limit 1) of
//! their last placement in the series and one read of the tier's cursor, and one read of the
//! cohort's board, entry pointer and rank index root, whatever the number of cohorts. The
//! transaction takes two items more (placement, seat), five when the play opens a cohort.

use aws_sdk_dynamodb::types::TransactWriteItem;
use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::ids::{BoardId, PlayerId, TierName};
use leaderboard_keys::rank_index;
use leaderboard_keys::time::Timestamp;

use crate::features::plays::{BoardPlan, Play, PlayState, Plays};
use crate::ground::error::StoreError;
use crate::ground::items::{from_item, to_item};
use crate::ground::league::{CohortCursor, League, ListedCohort, Placement};
use crate::ground::model::Board;
use crate::rank::index_copy::RootBefore;
use crate::table::request::{Index, Params, WithParams};

/// Where a play's league board placed the player: the board's place in the play, and the
/// writes of a new placement.
pub(super) struct Seat {
    /// The board's place among the play's boards.
    index: usize,
    /// The league board.
    league: BoardId,
    /// The cohort.
    cohort: BoardId,
    /// The player's tier.
    tier: TierName,
    /// A first play's placement, and the cohort it takes a seat in.
    new: Option<NewSeat>,
}

/// A newcomer's placement, and how they get their seat.
struct NewSeat {
    placement: (Key, Placement),
    cursor: Key,
    /// The cursor as read: `None` when the tier has no cohort yet.
    read: Option<CohortCursor>,
    /// The number of the cohort the seat is in (the cursor's, or the one opened).
    number: u32,
    /// The league's cohort size.
    cohort_size: u32,
    /// The cohort opened for them (its board), when the cursor's was full.
    opened: Option<Board>,
}

impl Plays<'_> {
    /// Seats the player of `play` in a cohort of every league board it names: the board, entry
    /// pointer and rank index root `state` read for a league board become its cohort's. A play
    /// naming a cohort itself is refused: plays name the league.
    pub(super) async fn seat(
        self,
        play: &Play,
        state: &mut PlayState,
        now: Timestamp,
    ) -> Result<Vec<Seat>, StoreError> {
        let mut leagues = Vec::new();
        for (index, board) in state.boards.iter().enumerate() {
            let Some(board) = board else { continue };
            if let Some(league) = &board.cohort_of {
                return Err(StoreError::Invalid(format!(
                    "leaderboard {} is a cohort of the league {league}: a play names the \
                     league, and counts on the player's cohort",
                    board.board_id
                )));
            }
            if board.is_league() {
                board.check_open_at(now)?;
                leagues.push((index, board.clone()));
            }
        }
        if leagues.is_empty() {
            return Ok(Vec::new());
        }
        let player = &play.player_id;
        let keys = leagues
            .iter()
            .map(|(_, l)| placement_key(player, l))
            .collect::<Result<Vec<_>, _>>()?;
        let mut found = self
            .store
            .table
            .batch_get(&keys, "BatchGetItem(placements)")
            .await?;
        let mut seats = Vec::with_capacity(leagues.len());
        let mut cohorts = Vec::new();
        for ((index, league), key) in leagues.into_iter().zip(keys) {
            let seat = match found.take(&key) {
                Some(item) => {
                    let placed: Placement = from_item(item)?;
                    Seat {
                        index,
                        league: league.board_id,
                        cohort: placed.cohort_id,
                        tier: placed.tier,
                        new: None,
                    }
                }
                None => self.new_seat(player, index, &league, key, now).await?,
            };
            match seat.new.as_ref().and_then(|n| n.opened.as_ref()) {
                Some(opened) => {
                    state.boards[index] = Some(opened.clone());
                    state.pointers[index] = None;
                    state.roots[index] = RootBefore::default();
                }
                None => cohorts.push((index, seat.cohort.clone())),
            }
            seats.push(seat);
        }
        self.read_cohorts(player, &cohorts, state).await?;
        Ok(seats)
    }

    /// A newcomer's seat on `league`: their tier (the last period of the series they played
    /// left them in it; the lowest for a player new to it), and the tier's cohort with room,
    /// or the next one.
    async fn new_seat(
        self,
        player: &PlayerId,
        index: usize,
        league: &Board,
        key: Key,
        now: Timestamp,
    ) -> Result<Seat, StoreError> {
        let rules = league.league.as_ref().ok_or_else(|| not_a_league(league))?;
        let tier = self.tier_of(player, league, rules, &key).await?;
        let cursor = entity::cohort_cursor(&league.board_id, &tier);
        let read: Option<CohortCursor> = self.store.table.get(&cursor).await?;
        let (number, opened) = match read {
            Some(c) if c.members < rules.cohort_size => (c.number, None),
            Some(c) => (c.number + 1, Some(league.cohort(&tier, c.number + 1, now)?)),
            None => (1, Some(league.cohort(&tier, 1, now)?)),
        };
        let cohort = crate::ground::league::cohort_id(&league.board_id, &tier, number)?;
        let placement = Placement {
            board_id: league.board_id.clone(),
            cohort_id: cohort.clone(),
            tier: tier.clone(),
            placed_at: now,
            tier_after: None,
            movement: None,
        };
        Ok(Seat {
            index,
            league: league.board_id.clone(),
            cohort,
            tier,
            new: Some(NewSeat {
                placement: (key, placement),
                cursor,
                read,
                number,
                cohort_size: rules.cohort_size,
                opened,
            }),
        })
    }

    /// The tier `player` plays `league`'s period in: where the last period of its series they
    /// played left them (one Query, newest first, of their placements before this period's
    /// `key`), or the lowest.
    async fn tier_of(
        self,
        player: &PlayerId,
        league: &Board,
        rules: &League,
        key: &Key,
    ) -> Result<TierName, StoreError> {
        let out = self
            .store
            .table
            .query_request(Index::Table)
            .key_condition_expression("pk = :pk AND sk BETWEEN :first AND :this")
            .params(
                Params::new()
                    .value(":pk", entity::player_pk(player))
                    .value(":first", entity::placement_prefix(&league.series()))
                    .value(":this", key.sk.as_str()),
            )?
            .scan_index_forward(false)
            .limit(1)
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| StoreError::sdk("Query(last placement)", e))?;
        let last: Option<Placement> = out
            .items
            .unwrap_or_default()
            .into_iter()
            .next()
            .map(from_item)
            .transpose()?;
        // A tier the league no longer has (its settings cannot change, but an item may be
        // older than them) starts the player again at the lowest.
        Ok(last
            .map(|p| p.next_tier().clone())
            .filter(|t| rules.tier_index(t).is_some())
            .unwrap_or_else(|| rules.lowest().clone()))
    }

    /// Reads each cohort's board, the player's entry pointer on it and its rank index root
    /// (one `BatchGetItem`) into `state`, in the place of the league board's.
    async fn read_cohorts(
        self,
        player: &PlayerId,
        cohorts: &[(usize, BoardId)],
        state: &mut PlayState,
    ) -> Result<(), StoreError> {
        if cohorts.is_empty() {
            return Ok(());
        }
        let mut keys = Vec::with_capacity(cohorts.len() * 3);
        for (_, cohort) in cohorts {
            keys.push(entity::board(cohort));
            keys.push(entity::entry(player, cohort));
            keys.push(rank_index::root_key(cohort));
        }
        let mut found = self
            .store
            .table
            .batch_get(&keys, "BatchGetItem(cohorts)")
            .await?;
        for ((index, cohort), keys) in cohorts.iter().zip(keys.chunks(3)) {
            let board: Board = found
                .take(&keys[0])
                .map(from_item)
                .transpose()?
                .ok_or_else(|| StoreError::NotFound {
                    what: "cohort",
                    id: cohort.to_string(),
                })?;
            state.boards[*index] = Some(board);
            state.pointers[*index] = found.take(&keys[1]).map(from_item).transpose()?;
            state.roots[*index] = RootBefore::Read(found.take(&keys[2]).unwrap_or_default());
        }
        Ok(())
    }

    /// The writes of the play's new placements: each placement, and its seat.
    pub(super) fn seat_writes(self, seats: &[Seat]) -> Result<Vec<TransactWriteItem>, StoreError> {
        let table = &self.store.table;
        let mut items = Vec::new();
        for seat in seats {
            let Some(new) = &seat.new else { continue };
            let (key, placement) = &new.placement;
            items.push(table.tx_put(
                to_item(placement, key, None, None)?,
                Some("attribute_not_exists(pk)"),
                Params::new(),
            )?);
            let Some(opened) = &new.opened else {
                // Seats taken meanwhile do not cancel this one while the cohort has room.
                items.push(
                    table.tx_update_if(
                        &new.cursor,
                        "SET members = members + :one",
                        "#number = :n AND members < :size",
                        Params::new()
                            .name("#number", "number")
                            .value(":one", 1u32)
                            .value(":n", new.number)
                            .value(":size", new.cohort_size),
                    )?,
                );
                continue;
            };
            let number = new.number;
            let cursor = CohortCursor { number, members: 1 };
            let (condition, params) = match new.read {
                None => ("attribute_not_exists(pk)", Params::new()),
                Some(read) => (
                    "#number = :n",
                    Params::new()
                        .name("#number", "number")
                        .value(":n", read.number),
                ),
            };
            items.push(table.tx_put(
                to_item(&cursor, &new.cursor, None, None)?,
                Some(condition),
                params,
            )?);
            // Due when its league ends, as any board: its close publishes its BoardClosed.
            let due = opened
                .ends_at
                .map(|end| entity::board_open_gsi2(end, &opened.board_id));
            items.push(table.tx_put(
                to_item(opened, &entity::board(&opened.board_id), None, due.as_ref())?,
                Some("attribute_not_exists(pk)"),
                Params::new(),
            )?);
            // No cohort opens once the league's close began: it counts them then.
            items.push(table.tx_board_open(&seat.league)?);
            let listed = ListedCohort {
                cohort_id: opened.board_id.clone(),
                tier: seat.tier.clone(),
                number,
                opened_at: opened.created_at,
                members: 0,
            };
            let listing = entity::cohort_listing(&seat.league, &seat.tier, number)?;
            let mut item = to_item(&listed, &listing, None, None)?;
            item.remove("members");
            items.push(table.tx_put(item, Some("attribute_not_exists(pk)"), Params::new())?);
        }
        Ok(items)
    }
}

/// Labels the plans of league boards: the outcome names the league board the play asked for,
/// and the cohort and tier it counted on.
pub(super) fn label(plans: &mut [BoardPlan], seats: &[Seat]) {
    for seat in seats {
        if let Some(plan) = plans.get_mut(seat.index) {
            plan.outcome.board_id = seat.league.clone();
            plan.outcome.cohort_id = Some(seat.cohort.clone());
            plan.outcome.tier = Some(seat.tier.clone());
        }
    }
}

/// The key of `player`'s placement in the period of league board `league`.
fn placement_key(player: &PlayerId, league: &Board) -> Result<Key, StoreError> {
    let end = league.ends_at.ok_or_else(|| not_a_league(league))?;
    Ok(entity::placement(player, &league.series(), end)?)
}

fn not_a_league(board: &Board) -> StoreError {
    let key = entity::board(&board.board_id);
    StoreError::corrupt(
        format!("{} / {}", key.pk, key.sk),
        "a league board without its settings or its end",
    )
}
