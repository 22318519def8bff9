//! `lbctl boards`: the boards, newest first, from the board listing (every board's listing
//! item, or one series' GSI1 partition), a page of at most 100 a request, filtered by status and
//! game, until `limit` boards are shown or the listing ends.

use std::io::Write;

use leaderboard_keys::ids::{GameId, SeriesId};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{Board, BoardStatus};
use leaderboard_store::{MAX_BOARDS_PAGE, Store};

use crate::error::CtlResult;
use crate::render;

/// Which boards to show.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only boards of this status (`open` includes those past their end, not closing yet).
    pub status: Option<BoardStatus>,
    /// Only this game's.
    pub game: Option<GameId>,
    /// Only this series' (one Query a page, the series' own partition).
    pub series: Option<SeriesId>,
}

impl Filter {
    fn keeps(&self, b: &Board) -> bool {
        self.status.is_none_or(|s| b.status == s)
            && self
                .game
                .as_ref()
                .is_none_or(|g| b.game_id.as_ref() == Some(g))
    }
}

/// Up to `limit` boards that `filter` keeps, newest first, and the pages read.
pub async fn boards(store: &Store, filter: &Filter, limit: usize) -> CtlResult<(Vec<Board>, u32)> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let page = store
            .boards()
            .list_boards(
                filter.series.as_ref(),
                MAX_BOARDS_PAGE,
                cursor.as_deref(),
                |b| filter.keeps(b),
            )
            .await?;
        pages += 1;
        out.extend(page.items);
        cursor = page.next_cursor;
        if out.len() >= limit || cursor.is_none() {
            out.truncate(limit);
            return Ok((out, pages));
        }
    }
}

/// Writes the boards as aligned columns, or one JSON array.
pub fn write(out: &mut dyn Write, boards: &[Board], now: Timestamp, json: bool) -> CtlResult {
    if json {
        return render::json_doc(out, &boards, true);
    }
    let cells: Vec<Vec<String>> = boards
        .iter()
        .map(|b| {
            let ended = b.status == BoardStatus::Open && b.ends_at.is_some_and(|e| now >= e);
            vec![
                b.board_id.to_string(),
                b.series().to_string(),
                b.game_id
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                if ended { "ended" } else { b.status.as_str() }.to_owned(),
                b.order.as_str().to_owned(),
                b.max_score.to_string(),
                b.created_at.to_string(),
                b.ends_at.map(|e| e.to_string()).unwrap_or_default(),
                b.player_count.map(|n| n.to_string()).unwrap_or_default(),
            ]
        })
        .collect();
    let head = [
        "BOARD",
        "SERIES",
        "GAME",
        "STATUS",
        "ORDER",
        "MAX SCORE",
        "CREATED",
        "ENDS",
        "PLAYERS",
    ];
    let right = [false, false, false, false, false, true, false, false, true];
    render::table(out, &head, &cells, &right)
}
