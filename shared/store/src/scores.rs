//! Score reads: AP3 (top-N with a cursor), AP4 (a player's entry on a board), AP5 (a player's
//! entries across boards, GSI1), AP10 (exact rank by counting the entries above), and the
//! around-player window.

use leaderboard_keys::entity::{self, Key, SCORE_PREFIX, SCORE_UPPER_BOUND};
use leaderboard_keys::ids::{BoardId, PlayerId};

use crate::items::{from_item, s};
use crate::model::{Board, EntryPointer, Page, RankedEntry, ScoreEntry};
use crate::query::Listing;
use crate::rank_index::IndexAnswer;
use crate::{Store, StoreError};

/// The most entries above and below a player the around window returns on each side.
pub const MAX_AROUND: usize = 50;

/// The exact rank of a sort key, with what it cost to find.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankCount {
    /// 1 = top.
    pub rank: u64,
    /// Requests made: index snapshots, plus one Query per 1 MB page counted.
    pub requests: u32,
    /// Items read: the index items of every snapshot, plus every entry counted.
    pub items: u64,
    /// Whether the rank index answered (else it was counted).
    pub indexed: bool,
}

fn ranked(entry: ScoreEntry, rank: u64) -> RankedEntry {
    RankedEntry {
        rank,
        player_id: entry.player_id,
        score: entry.score,
        attained_at: entry.attained_at,
    }
}

impl Store {
    /// AP3: the board's entries in rank order, `limit` (1..=1000) at a time, with their ranks.
    /// Pass the returned cursor for the next page.
    pub async fn top_scores(
        &self,
        board: &BoardId,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<RankedEntry>, StoreError> {
        let listing = Listing {
            name: "top",
            index: None,
            partition: entity::board_pk(board),
            sk_prefix: SCORE_PREFIX,
            forward: false,
        };
        let raw = self.list(&listing, limit, cursor).await?;
        let offset = raw.offset;
        let page: Page<ScoreEntry> = raw.into_page()?;
        Ok(Page {
            items: page
                .items
                .into_iter()
                .zip(offset + 1..)
                .map(|(e, rank)| ranked(e, rank))
                .collect(),
            next_cursor: page.next_cursor,
        })
    }

    /// The player's entry pointer on a board (GetItem, consistent): the current Score item's
    /// sort key and its version.
    pub async fn entry_pointer(
        &self,
        board: &BoardId,
        player: &PlayerId,
    ) -> Result<Option<EntryPointer>, StoreError> {
        self.get(&entity::entry(player, board)).await
    }

    /// AP4: the player's entry on a board, as seed 002 reads it: GSI1 `PLAYER#<p>` /
    /// `SCORE#<board>`. GSI reads are eventually consistent; [`Store::player_rank`] reads the
    /// entry pointer instead, consistently.
    pub async fn player_entry(
        &self,
        board: &BoardId,
        player: &PlayerId,
    ) -> Result<Option<ScoreEntry>, StoreError> {
        let key = entity::score_gsi1(player, board);
        let out = self
            .client
            .query()
            .table_name(&self.table)
            .index_name("GSI1")
            .key_condition_expression("gsi1pk = :pk AND gsi1sk = :sk")
            .expression_attribute_values(":pk", s(key.pk))
            .expression_attribute_values(":sk", s(key.sk))
            .send()
            .await
            .map_err(|e| StoreError::sdk("Query(GSI1 entry)", e))?;
        out.items
            .unwrap_or_default()
            .into_iter()
            .next()
            .map(from_item)
            .transpose()
    }

    /// AP5: the player's entries across boards (GSI1 `PLAYER#<p>` / `begins_with SCORE#`), in
    /// board id order, every page.
    pub async fn player_entries(&self, player: &PlayerId) -> Result<Vec<ScoreEntry>, StoreError> {
        let listing = Listing {
            name: "player_scores",
            index: Some("GSI1"),
            partition: entity::player_pk(player),
            sk_prefix: SCORE_PREFIX,
            forward: true,
        };
        self.list_all(&listing).await
    }

    /// AP10: the exact rank of the entry whose Score sort key is `score_sk`: one plus the number
    /// of entries above it, counted with consistent Queries that follow every 1 MB page.
    pub async fn rank_of(&self, board: &BoardId, score_sk: &str) -> Result<RankCount, StoreError> {
        let (above, requests) = self
            .count_range(
                &entity::board_pk(board),
                &entity::score_sort_keys_above(score_sk),
                SCORE_UPPER_BOUND,
            )
            .await?;
        Ok(RankCount {
            rank: above + 1,
            requests,
            items: above,
            indexed: false,
        })
    }

    /// The exact rank of `score_sk` on `board`: from the rank index when a consistent snapshot
    /// shows it has applied every committed change (and, if given, that the entry pointer still
    /// has the version read), else counted (AP10). The cost of both is in the answer.
    pub async fn rank_with_index(
        &self,
        board: &Board,
        score_sk: &str,
        pointer: Option<(&Key, u64)>,
    ) -> Result<RankCount, StoreError> {
        let lookup = self.index_above(board, score_sk, pointer).await?;
        match lookup.answer {
            IndexAnswer::Above(above) => Ok(RankCount {
                rank: above + 1,
                requests: lookup.requests,
                items: lookup.items,
                indexed: true,
            }),
            IndexAnswer::Behind => {
                let counted = self.rank_of(&board.leaderboard_id, score_sk).await?;
                Ok(RankCount {
                    requests: counted.requests + lookup.requests,
                    items: counted.items + lookup.items,
                    ..counted
                })
            }
        }
    }

    /// The rank of the player's current entry (read as `pointer`): see
    /// [`Store::rank_with_index`].
    async fn pointer_rank(
        &self,
        board: &Board,
        pointer: &EntryPointer,
    ) -> Result<RankCount, StoreError> {
        let key = entity::entry(&pointer.player_id, &board.leaderboard_id);
        self.rank_with_index(board, &pointer.score_sk, Some((&key, pointer.version)))
            .await
    }

    /// AP4 + AP10: the player's entry on a board with its exact rank, or `None` if the player has
    /// no entry there. Reads the entry pointer consistently, then ranks it with the index (or
    /// counts while the index is behind).
    pub async fn player_rank(
        &self,
        board: &Board,
        player: &PlayerId,
    ) -> Result<Option<RankedEntry>, StoreError> {
        Ok(self
            .player_rank_counted(board, player)
            .await?
            .map(|(entry, _)| entry))
    }

    /// [`Store::player_rank`] with what the rank cost (one more request for the pointer).
    pub async fn player_rank_counted(
        &self,
        board: &Board,
        player: &PlayerId,
    ) -> Result<Option<(RankedEntry, RankCount)>, StoreError> {
        let Some(pointer) = self.entry_pointer(&board.leaderboard_id, player).await? else {
            return Ok(None);
        };
        let mut count = self.pointer_rank(board, &pointer).await?;
        count.requests += 1;
        count.items += 1;
        Ok(Some((ranked(pointer.entry(), count.rank), count)))
    }

    /// Up to `n` (1..=50) entries above the player, the player's own, and up to `n` below, in
    /// rank order with exact ranks; `None` if the player has no entry on the board.
    pub async fn around_player(
        &self,
        board: &Board,
        player: &PlayerId,
        n: usize,
    ) -> Result<Option<Vec<RankedEntry>>, StoreError> {
        if n == 0 || n > MAX_AROUND {
            return Err(StoreError::Invalid(format!(
                "n must be between 1 and {MAX_AROUND}"
            )));
        }
        let Some(pointer) = self.entry_pointer(&board.leaderboard_id, player).await? else {
            return Ok(None);
        };
        let pk = entity::board_pk(&board.leaderboard_id);
        let own = &pointer.score_sk;
        let rank = self.pointer_rank(board, &pointer).await?.rank;
        // The n entries just above: ascending from the player's key, then reversed.
        let above = self
            .window(
                &pk,
                &entity::score_sort_keys_above(own),
                SCORE_UPPER_BOUND,
                true,
                n,
            )
            .await?;
        // The n entries just below: descending from the player's key (inclusive, so n + 1).
        let below = self.window(&pk, SCORE_PREFIX, own, false, n + 1).await?;
        let mut out = Vec::with_capacity(2 * n + 1);
        let above_len = above.len() as u64;
        for (i, e) in above.into_iter().rev().enumerate() {
            // Saturating: a concurrent write between the count and the window can't underflow.
            out.push(ranked(
                e,
                (rank + i as u64).saturating_sub(above_len).max(1),
            ));
        }
        out.push(ranked(pointer.entry(), rank));
        let below = below
            .into_iter()
            .filter(|e| e.player_id != pointer.player_id)
            .take(n);
        for (i, e) in below.enumerate() {
            out.push(ranked(e, rank + 1 + i as u64));
        }
        Ok(Some(out))
    }

    /// Up to `limit` Score entries of partition `pk` with sort keys in `lo..=hi`, read
    /// consistently in the given direction.
    async fn window(
        &self,
        pk: &str,
        lo: &str,
        hi: &str,
        forward: bool,
        limit: usize,
    ) -> Result<Vec<ScoreEntry>, StoreError> {
        let out = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("pk = :pk AND sk BETWEEN :lo AND :hi")
            .expression_attribute_values(":pk", s(pk))
            .expression_attribute_values(":lo", s(lo))
            .expression_attribute_values(":hi", s(hi))
            .scan_index_forward(forward)
            .consistent_read(true)
            .limit(limit as i32)
            .send()
            .await
            .map_err(|e| StoreError::sdk("Query(window)", e))?;
        out.items
            .unwrap_or_default()
            .into_iter()
            .map(from_item::<ScoreEntry>)
            .collect()
    }
}
