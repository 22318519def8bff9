//! Boards: creation (`POST /leaderboards`), AP9 (metadata by id), the listing of boards
//! (`GET /leaderboards`: every board, or one series', newest first), and bulk import of entries.

use crate::rank::lanes::LaneKeys;
use leaderboard_keys::columns;
use leaderboard_keys::entity::{self, BOARD_LIST, BOARD_PREFIX, ItemKey};
use leaderboard_keys::ids::{BoardId, PlayerId, SeriesId};
use leaderboard_keys::time::Timestamp;

use crate::ground::error::StoreError;
use crate::ground::items::{from_item, item_key, pointer_item, score_item};
use crate::ground::model::{Board, Entry, EntryPointer, NewBoard, Page};
use crate::store::Store;
use crate::table::batch::BatchStats;
use crate::table::query::Listing;
use crate::table::request::Index;

/// The most boards a page of [`Boards::list_boards`] reads: one `BatchGetItem`.
pub const MAX_BOARDS_PAGE: usize = 100;

/// Boards: create one, read one, list them, and import a board's entries (the handle
/// [`Store::boards`] gives).
#[derive(Clone, Copy)]
pub struct Boards<'a> {
    pub(crate) store: &'a Store,
}

impl Store {
    /// Boards: create one, read one, list them, and import a board's entries.
    pub fn boards(&self) -> Boards<'_> {
        Boards { store: self }
    }
}

impl Boards<'_> {
    /// Creates an open board, in one transaction with its listing item: listed under its
    /// series (GSI1), and under GSI2's sparse `BOARDS#OPEN` while open and has an end. A board
    /// with this id already: [`StoreError::AlreadyExists`], nothing changed. A
    /// recurring board whose successor's id would not be valid is refused
    /// ([`StoreError::Invalid`]), so that its rollover cannot fail at its first close.
    pub async fn create_board(self, new: NewBoard, now: Timestamp) -> Result<Board, StoreError> {
        let board = Board::create(new, now)?;
        let next = crate::ground::successor::successor(&board).map_err(|why| {
            StoreError::Invalid(format!(
                "leaderboardId cannot recur: {why}; choose a shorter id"
            ))
        })?;
        // A league's next period opens cohorts under its successor's id.
        if let (Some(league), Some(next)) = (&board.league, &next) {
            league.check_cohort_ids(&next.board_id)?;
        }
        self.store.table.put_new_board(&board).await?;
        Ok(board)
    }

    /// AP9: a board's metadata (GetItem, consistent).
    pub async fn get_board(self, board: &BoardId) -> Result<Option<Board>, StoreError> {
        self.store.table.board(board).await
    }

    /// The boards, newest first, `limit` (1..=100) read a page: a series' (one Query of its
    /// GSI1 partition, whole boards) or every board's (one Query of the listing items, then one
    /// `BatchGetItem` of their boards, strongly consistent). Only boards `keep` accepts are
    /// answered, so a filtered page may hold fewer than `limit`, even none, with a cursor still
    /// to follow. A board stored before the listing (no listing item, no series key) is listed
    /// once season close's pass has reached it ([`BoardListing::list_old_boards`](crate::BoardListing::list_old_boards)).
    pub async fn list_boards(
        self,
        series: Option<&SeriesId>,
        limit: usize,
        cursor: Option<&str>,
        keep: impl Fn(&Board) -> bool,
    ) -> Result<Page<Board>, StoreError> {
        if !(1..=MAX_BOARDS_PAGE).contains(&limit) {
            return Err(StoreError::Invalid(format!(
                "limit must be between 1 and {MAX_BOARDS_PAGE}"
            )));
        }
        if let Some(series) = series {
            let pk = entity::series_gsi1_pk(series);
            let listing = Listing::new("series", Index::Gsi1, pk, BOARD_PREFIX).descending();
            let raw = self.store.table.list(&listing, limit, cursor).await?;
            let page: Page<Board> = raw.into_page()?;
            return Ok(Page {
                items: page.items.into_iter().filter(|b| keep(b)).collect(),
                next_cursor: page.next_cursor,
            });
        }
        let listing =
            Listing::new("boards", Index::Table, BOARD_LIST.to_owned(), BOARD_PREFIX).descending();
        let raw = self.store.table.list(&listing, limit, cursor).await?;
        let ids: Vec<BoardId> = raw
            .items
            .iter()
            .filter_map(|item| {
                let k = item_key(item);
                match ItemKey::parse(&k.pk, &k.sk) {
                    Ok(ItemKey::BoardListing { board, .. }) => Some(board),
                    _ => None,
                }
            })
            .collect();
        if ids.is_empty() {
            return Ok(Page {
                items: Vec::new(),
                next_cursor: raw.next_cursor,
            });
        }
        let keys: Vec<_> = ids.iter().map(entity::board).collect();
        let mut found = self
            .store
            .table
            .batch_get(&keys, "BatchGetItem(boards)")
            .await?;
        let mut items = Vec::with_capacity(keys.len());
        for key in &keys {
            if let Some(item) = found.take(key) {
                let board: Board = from_item(item)?;
                if keep(&board) {
                    items.push(board);
                }
            }
        }
        Ok(Page {
            items,
            next_cursor: raw.next_cursor,
        })
    }

    /// Bulk-loads entries onto a board: each player's Score item and entry pointer, with
    /// batched writes. For seeding, migrations and benchmarks, never beside live plays on the
    /// same board: it is not conditional, and a player must appear once. Entries must be in the
    /// board's score range. The lanes count the entries but carry no change for them, so a
    /// board's index shows them as lag until [`Rank::build_rank_index`](crate::Rank::build_rank_index) runs (or the
    /// repair run, which the first play after the import asks for).
    pub async fn import_entries(
        self,
        board: &Board,
        entries: &[(PlayerId, u64, Timestamp)],
    ) -> Result<BatchStats, StoreError> {
        let ranked: Vec<_> = entries
            .iter()
            .map(|(p, score, at)| (p.clone(), *score, Vec::new(), *at))
            .collect();
        self.import_ranked_entries(board, &ranked).await
    }

    /// [`Boards::import_entries`] on a board with tiebreak columns: each entry with its
    /// columns' values, in the board's column order.
    pub async fn import_ranked_entries(
        self,
        board: &Board,
        entries: &[(PlayerId, u64, Vec<u64>, Timestamp)],
    ) -> Result<BatchStats, StoreError> {
        if board.widening.is_some() {
            return Err(StoreError::Invalid(format!(
                "leaderboard {} is widening: import after its switch",
                board.board_id
            )));
        }
        let spec = board.spec()?;
        let mut items = Vec::with_capacity(entries.len() * 2);
        let lanes = LaneKeys::of(board);
        let mut written = vec![0u64; usize::from(lanes.count)];
        for (player, score, subscores, at) in entries {
            board.check_score(*score)?;
            let pointer = EntryPointer {
                entry: Entry {
                    board_id: board.board_id.clone(),
                    player_id: player.clone(),
                    score: *score,
                    attained_at: *at,
                    name: None,
                    metadata: None,
                    subscores: columns::named(&board.columns, subscores),
                },
                session_id: crate::ground::session_id::new_session_id(*at)?,
                score_sk: spec.score_sort_key_with(*score, subscores, at.as_millis(), player)?,
                version: 1,
                saturated: false,
            };
            items.push(score_item(board, &pointer)?);
            items.push(pointer_item(&pointer)?);
            written[usize::from(lanes.lane_of(player))] += 1;
        }
        // Counted as written before they are: an import that fails half way leaves the index
        // looking behind (ranks are counted), never ahead. Every board's lanes count, as a
        // play's do.
        self.store.table.add_written(board, &written).await?;
        self.store.table.put_all(items).await
    }
}
