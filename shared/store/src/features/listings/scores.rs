//! Score reads: AP3 (top-N with a cursor), AP4 (a player's entry on a board, with its rank from
//! the rank index), AP5 (a player's entries across boards, GSI1), and the around-player window.

use leaderboard_keys::entity::{self, SCORE_PREFIX, SCORE_UPPER_BOUND};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank_index;

use crate::ground::error::StoreError;
use crate::ground::items::{first_item, from_item};
use crate::ground::model::{
    Board, BoardStatus, EntryPointer, Page, RankedEntry, ScoreEntry, shown_name,
};
use crate::rank::count::{Prefetch, RankCost};
use crate::store::Store;
use crate::table::merge::Direction;
use crate::table::query::Listing;
use crate::table::request::{Index, Params, WithParams};

/// The most entries above and below a player the around window returns on each side.
pub const MAX_AROUND: usize = 50;

/// A board and, while it is open, the player's ranked entry on it: what
/// `GET /leaderboards/{b}/players/{p}` answers from, read together ([`Listings::board_and_rank`]).
#[derive(Debug, Clone)]
pub enum BoardRank {
    /// No such board.
    NoBoard,
    /// A closed board: its final standings answer, not its live entries.
    Closed(Board),
    /// An open board and the player's entry on it, ranked (`None`: the player has none).
    Open(Board, Option<RankedEntry>),
}

/// Listings: the reads a game and its players make (scores, a player's entry and rank, around a
/// player, friends, standings and results, sessions) (the handle [`Store::listings`] gives).
#[derive(Clone, Copy)]
pub struct Listings<'a> {
    pub(crate) store: &'a Store,
}

impl Store {
    /// Listings: the reads a game and its players make (scores, a player's entry and rank,
    /// around a player, friends, standings and results, sessions).
    pub fn listings(&self) -> Listings<'_> {
        Listings { store: self }
    }
}

impl Listings<'_> {
    /// AP3: the board's entries in rank order, `limit` (1..=1000) at a time, with their ranks.
    /// Pass the returned cursor for the next page. One Query of at most `limit` + 1 items,
    /// eventually consistent; on a board of K write shards, chunks of each shard, merged
    /// (`table::merge`: K Queries and one a refill, at most `limit` + 1 + K chunks' items).
    pub async fn top_scores(
        self,
        board: &Board,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<RankedEntry>, StoreError> {
        // The shards of a sharded board are merged under their generation's prefix, which
        // binds the cursor (a cursor of a generation a widening switched from is refused).
        let pks = board.score_pks();
        let pk = entity::entries_pk(&board.board_id, board.entry_generation);
        let listing = Listing::new("top", Index::Table, pk, SCORE_PREFIX).descending();
        let range = (SCORE_PREFIX, SCORE_UPPER_BOUND);
        let raw = self
            .store
            .table
            .list_merged(&listing, &pks, range, limit, cursor)
            .await?;
        let offset = raw.offset;
        let page: Page<ScoreEntry> = raw.into_page()?;
        // Positional ranks: the cursor's offset, then one more per entry.
        let mut rank = offset;
        Ok(page.map(|e| {
            rank += 1;
            e.entry.ranked(rank, None)
        }))
    }

    /// The player's entry pointer on a board (GetItem, consistent): the current Score item's
    /// sort key and its version.
    pub async fn entry_pointer(
        self,
        board: &BoardId,
        player: &PlayerId,
    ) -> Result<Option<EntryPointer>, StoreError> {
        self.store.table.get(&entity::entry(player, board)).await
    }

    /// AP4: the player's entry on a board, as seed 002 reads it: GSI1 `PLAYER#<p>` /
    /// `SCORE#<board>`. GSI reads are eventually consistent; [`Listings::player_rank`] reads the
    /// entry pointer instead, consistently.
    pub async fn player_entry(
        self,
        board: &BoardId,
        player: &PlayerId,
    ) -> Result<Option<ScoreEntry>, StoreError> {
        let key = entity::score_gsi1(player, board);
        let out = self
            .store
            .table
            .query_request(Index::Gsi1)
            .key_condition_expression("gsi1pk = :pk AND gsi1sk = :sk")
            .params(Params::new().value(":pk", key.pk).value(":sk", key.sk))?
            .send()
            .await
            .map_err(|e| StoreError::sdk("Query(GSI1 entry)", e))?;
        first_item(out.items)
    }

    /// AP5: the player's entries across boards (GSI1 `PLAYER#<p>` / `begins_with SCORE#`), in
    /// board id order, `limit` at a time after `cursor` (one Query a page, whatever the number
    /// of boards the player has played).
    pub async fn player_entries(
        self,
        player: &PlayerId,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<ScoreEntry>, StoreError> {
        let listing = Listing::new(
            "player_scores",
            Index::Gsi1,
            entity::player_pk(player),
            SCORE_PREFIX,
        );
        let mut page: Page<ScoreEntry> =
            self.store.table.list_page(&listing, limit, cursor).await?;
        for e in &mut page.items {
            e.entry.name = Some(shown_name(e.entry.name.take(), &e.entry.player_id));
        }
        Ok(page)
    }

    /// AP4 with its rank: the player's entry on a board with its rank and how fresh it is, or
    /// `None` if the player has no entry there. Reads the entry pointer consistently, then ranks
    /// it from the rank index (see `rank::lookup`): never a count of the board.
    pub async fn player_rank(
        self,
        board: &Board,
        player: &PlayerId,
    ) -> Result<Option<RankedEntry>, StoreError> {
        Ok(self
            .store
            .rank()
            .player_rank_counted(board, player)
            .await?
            .map(|(entry, _)| entry))
    }

    /// [`Boards::get_board`](crate::Boards::get_board) and [`Listings::player_rank`] in one: the board, the player's entry
    /// pointer and the index's root in one consistent `BatchGetItem` (one request fewer). On an
    /// open board the rank then reads the path's nodes (after the root, as the snapshot needs),
    /// the tail when the player's group holds others, and the lanes: 3 requests (4 with the
    /// tail) and 21 items read by key at the default width; a board made before the index
    /// (until the migration moves it) is ranked by its capped count alone. A closed board is
    /// answered as it is, unranked.
    pub async fn board_and_rank(
        self,
        id: &BoardId,
        player: &PlayerId,
    ) -> Result<BoardRank, StoreError> {
        // The root comes along: the snapshot's nodes must be read after it.
        let keys = [
            entity::board(id),
            entity::entry(player, id),
            rank_index::root_key(id),
        ];
        let mut found = self
            .store
            .table
            .batch_get(&keys, "BatchGetItem(board, pointer)")
            .await?;
        let Some(board) = found.take(&keys[0]) else {
            return Ok(BoardRank::NoBoard);
        };
        let board: Board = from_item(board)?;
        if board.status == BoardStatus::Closed {
            return Ok(BoardRank::Closed(board));
        }
        let Some(pointer) = found.take(&keys[1]) else {
            return Ok(BoardRank::Open(board, None));
        };
        let before = Prefetch::Root(found.take(&keys[2]).unwrap_or_default());
        let (entry, _, _) = self
            .store
            .table
            .rank_pointer(
                &board,
                &from_item::<EntryPointer>(pointer)?.on_board(&board)?,
                before,
            )
            .await?;
        Ok(BoardRank::Open(board, Some(entry)))
    }

    /// Up to `n` (1..=50) entries above the player, the player's own, and up to `n` below, in
    /// rank order, ranked from the player's rank (see [`Listings::player_rank`]) and as fresh;
    /// `None` if the player has no entry on the board.
    pub async fn around_player(
        self,
        board: &Board,
        player: &PlayerId,
        n: usize,
    ) -> Result<Option<Vec<RankedEntry>>, StoreError> {
        if n == 0 || n > MAX_AROUND {
            return Err(StoreError::Invalid(format!(
                "n must be between 1 and {MAX_AROUND}"
            )));
        }
        let mut cost = RankCost::default();
        let Some((pointer, before)) = self
            .store
            .table
            .pointer_and_size(board, player, &mut cost)
            .await?
        else {
            return Ok(None);
        };
        let pks = board.score_pks();
        let own = &pointer.score_sk;
        let (me, freshness, _) = self
            .store
            .table
            .rank_pointer(board, &pointer, before)
            .await?;
        let rank = me.rank;
        // The neighbours' ranks are the player's plus their position, as fresh as the player's.
        let at = |e: ScoreEntry, rank: u64| e.entry.ranked(rank, Some(freshness.for_rank(rank)));
        // The n entries just above: ascending from the player's key, then reversed.
        let above = self
            .window(
                &pks,
                (&entity::score_sort_keys_above(own), SCORE_UPPER_BOUND),
                Direction::Up,
                n,
            )
            .await?;
        // The n entries just below: descending from the player's key (inclusive, so n + 1).
        let below = self
            .window(&pks, (SCORE_PREFIX, own), Direction::Down, n + 1)
            .await?;
        let mut out = Vec::with_capacity(2 * n + 1);
        let above_len = above.len() as u64;
        for (i, e) in above.into_iter().rev().enumerate() {
            // Saturating: a concurrent write between the count and the window can't underflow.
            out.push(at(
                e,
                rank.saturating_add(i as u64)
                    .saturating_sub(above_len)
                    .max(1),
            ));
        }
        out.push(me);
        let below = below
            .into_iter()
            .filter(|e| e.entry.player_id != pointer.entry.player_id)
            .take(n);
        for (i, e) in below.enumerate() {
            out.push(at(e, rank.saturating_add(1 + i as u64)));
        }
        Ok(Some(out))
    }

    /// Up to `limit` Score entries of the board's partitions `pks` with sort keys in
    /// `lo..=hi`, read consistently in `direction` (one Query a write shard, merged).
    async fn window(
        self,
        pks: &[String],
        range: (&str, &str),
        direction: Direction,
        limit: usize,
    ) -> Result<Vec<ScoreEntry>, StoreError> {
        self.store
            .table
            .read_merged(pks, range, direction, None, limit)
            .await?
            .into_iter()
            .map(from_item::<ScoreEntry>)
            .collect()
    }
}
