//! Boards as the features share them: reading a board's metadata, writing a new board (with
//! its listing item), the condition that keeps a write off a board that is no longer open, and
//! the boards a player has a live entry on.

use aws_sdk_dynamodb::types::{AttributeValue, TransactWriteItem};
use leaderboard_keys::entity::{self, ItemKey};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::time::Timestamp;

use crate::ground::error::{CancelReason, StoreError};
use crate::ground::items::{ItemExt, key_item, s, to_item};
use crate::ground::model::{Board, BoardStatus};
use crate::table::Table;
use crate::table::request::{Index, Params, WithParams};

impl Table {
    /// A board's metadata (GetItem, consistent).
    pub(crate) async fn board(&self, id: &BoardId) -> Result<Option<Board>, StoreError> {
        self.get(&entity::board(id)).await
    }

    /// Writes `board` if no board with its id exists, in one transaction with its listing item
    /// (so that every board lists): the board under its series' GSI1 key, and under GSI2's open
    /// boards while open with an end.
    pub(crate) async fn put_new_board(&self, board: &Board) -> Result<(), StoreError> {
        let id = &board.board_id;
        let gsi2 = match (board.status, board.ends_at) {
            (BoardStatus::Open, Some(end)) => Some(entity::board_open_gsi2(end, id)),
            _ => None,
        };
        let gsi1 = entity::board_series_gsi1(&board.series(), board.created_at, id);
        let item = to_item(board, &entity::board(id), Some(&gsi1), gsi2.as_ref())?;
        let put = self.tx_put(item, Some("attribute_not_exists(pk)"), Params::new())?;
        let list = self.tx_put_listing(board.created_at, id)?;
        let mut items = vec![put, list];
        // A board's game has a feed item: it claims the game's feed for the game's boards
        // (`plays::rules::feed_of`), and a hot board's game spreads its sessions over the
        // board's shards, which the item says before any play can (see `entity::feed`).
        if let Some(game) = &board.game_id {
            items.push(
                self.tx_update(
                    &entity::game_feed(game),
                    "ADD #shards :k",
                    Params::new()
                        .name("#shards", entity::FEED_SHARDS_ATTR)
                        .attr(
                            ":k",
                            AttributeValue::Ns(vec![board.write_shards.to_string()]),
                        ),
                )?,
            );
        }
        match self.transact(items, "TransactWriteItems(board)").await {
            Err(StoreError::TransactionCanceled { reasons })
                if reasons.first() == Some(&CancelReason::ConditionalCheckFailed) =>
            {
                Err(StoreError::AlreadyExists {
                    what: "leaderboard",
                    id: id.to_string(),
                })
            }
            other => other,
        }
    }

    /// A transaction's put of board `id`'s listing item (`BOARDS` / `BOARD#<createdAt>#<id>`).
    pub(crate) fn tx_put_listing(
        &self,
        created_at: Timestamp,
        id: &BoardId,
    ) -> Result<TransactWriteItem, StoreError> {
        let mut listed = key_item(&entity::board_listing(created_at, id));
        listed.insert("leaderboardId".into(), s(id.as_str()));
        self.tx_put(listed, None, Params::new())
    }

    /// A transaction's check that the board `id` is still open (an admin's removal or repair
    /// of an entry, a widening's copy: never a play's, which the lanes fence, see
    /// `Table::close_lanes`).
    pub(crate) fn tx_board_open(&self, id: &BoardId) -> Result<TransactWriteItem, StoreError> {
        self.tx_check(
            &entity::board(id),
            "#status = :open",
            Params::new()
                .name("#status", "status")
                .value(":open", BoardStatus::Open),
        )
    }

    /// The boards on which `player` has a live (not archived) entry pointer, in board id
    /// order: a strongly consistent Query of the player's partition, every page.
    pub(crate) async fn live_entry_boards(
        &self,
        player: &PlayerId,
    ) -> Result<Vec<BoardId>, StoreError> {
        let mut boards = Vec::new();
        let query = self
            .query_request(Index::Table)
            .key_condition_expression("pk = :pk AND begins_with(sk, :entry)")
            .filter_expression("attribute_not_exists(#ttl)")
            .projection_expression("pk, sk")
            .params(
                Params::new()
                    .name("#ttl", "ttl")
                    .value(":pk", entity::player_pk(player))
                    .value(":entry", entity::ENTRY_PREFIX),
            )?
            .consistent_read(true);
        self.query_pages("Query(entry pointers)", query, |out| {
            for item in out.items.unwrap_or_default() {
                let (pk, sk) = (item.string("pk"), item.string("sk"));
                if let Ok(ItemKey::Entry { board, .. }) =
                    ItemKey::parse(pk.unwrap_or_default(), sk.unwrap_or_default())
                {
                    boards.push(board);
                }
            }
            Ok(())
        })
        .await?;
        Ok(boards)
    }
}
