//! `lbctl browse`: a board's entries in key order, each stored sort key beside its parts
//! decoded (the padded score and its value, the inverted time and the moment), so the padding
//! lines up on screen. A key whose parts disagree with its item's attributes is flagged: the
//! board's order then lies (a key written by another rule, or an item changed by hand).

use std::io::Write;

use leaderboard_keys::entity::ItemKey;
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank::{MAX_TIEBREAK_MILLIS, RankKeySpec};
use leaderboard_store::model::{Board, BoardStatus};
use leaderboard_store::{Store, StoredEntry};
use serde::Serialize;

use crate::error::{CtlError, CtlResult};
use crate::render;

/// One entry as browse shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    /// Its position in key order.
    pub rank: u64,
    /// The stored sort key.
    pub sort_key: String,
    /// The key's score digits, as stored (inverted on an `asc` board).
    pub padded_score: String,
    /// The key's inverted time digits (`9999999999999 - attainedAt`); empty after close.
    pub inverted_time: String,
    /// The player.
    pub player_id: String,
    /// The score (the item's).
    pub score: u64,
    /// When it was attained (the item's), RFC 3339.
    pub attained_at: String,
    /// Where the key and the item disagree, what differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mismatch: Option<String>,
}

/// The board and a page of its entries from rank `from`.
pub async fn rows(
    store: &Store,
    board: &BoardId,
    from: u64,
    limit: usize,
) -> CtlResult<(Board, Vec<Row>)> {
    let board = store
        .boards()
        .get_board(board)
        .await?
        .ok_or_else(|| CtlError::NotFound(format!("no board {board}")))?;
    let spec = board.spec()?;
    let page = store.inspect().stored_entries(&board, from, limit).await?;
    let rows = page.entries.iter().map(|e| row(&spec, e)).collect();
    Ok((board, rows))
}

pub(crate) fn row(spec: &RankKeySpec, stored: &StoredEntry) -> Row {
    let e = &stored.entry;
    let mut row = Row {
        rank: stored.rank,
        sort_key: stored.sort_key.clone(),
        padded_score: String::new(),
        inverted_time: String::new(),
        player_id: e.player_id.to_string(),
        score: e.score,
        attained_at: e.attained_at.to_string(),
        mismatch: None,
    };
    let pk = leaderboard_keys::entity::board_pk(&e.board_id);
    match ItemKey::parse(&pk, &stored.sort_key) {
        Ok(ItemKey::FinalStanding { rank, .. }) => {
            row.padded_score = e.score.to_string();
            if rank != stored.rank {
                row.mismatch = Some(format!("the key says rank {rank}"));
            }
        }
        Ok(ItemKey::Score { .. }) => match spec.parse_score_sort_key(&stored.sort_key) {
            Ok(key) => {
                let w = spec.width().digits() as usize;
                let rank_key = &stored.sort_key["SCORE#".len()..];
                row.padded_score = rank_key[..w].to_owned();
                row.inverted_time = rank_key[w + 1..w + 14].to_owned();
                let at = e.attained_at.as_millis();
                if (key.score, key.attained_at_ms, &key.player_id) != (e.score, at, &e.player_id) {
                    row.mismatch = Some(format!(
                        "the key says score {}, time {} ({}), player {}",
                        key.score,
                        key.attained_at_ms,
                        MAX_TIEBREAK_MILLIS - key.attained_at_ms,
                        key.player_id
                    ));
                }
            }
            Err(why) => row.mismatch = Some(why.to_string()),
        },
        Ok(_) | Err(_) => row.mismatch = Some("not a Score or Final standing key".into()),
    }
    row
}

/// Writes the page: a heading and aligned columns, or one JSON document.
pub fn write(out: &mut dyn Write, board: &Board, rows: &[Row], json: bool) -> CtlResult {
    if json {
        return render::json_doc(
            out,
            &serde_json::json!({"leaderboardId": board.board_id, "status": board.status.as_str(), "entries": rows}),
            true,
        );
    }
    let live = board.status != BoardStatus::Closed;
    writeln!(
        out,
        "{}: {}",
        render::board_heading(board),
        match (rows.first(), rows.last()) {
            (Some(a), Some(b)) => format!("ranks {} to {}, in key order", a.rank, b.rank),
            _ => "no entries there".to_owned(),
        }
    )?;
    if rows.is_empty() {
        return Ok(());
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut c = vec![r.rank.to_string(), r.sort_key.clone()];
            if live {
                c.push(format!("{} = {}", r.padded_score, r.score));
                c.push(format!("{} = {}", r.inverted_time, r.attained_at));
            } else {
                c.push(r.score.to_string());
                c.push(r.attained_at.clone());
            }
            c.push(r.player_id.clone());
            c.push(
                r.mismatch
                    .as_ref()
                    .map(|m| format!("! {m}"))
                    .unwrap_or_default(),
            );
            c
        })
        .collect();
    let head = if live {
        [
            "RANK",
            "SORT KEY",
            "SCORE (padded = value)",
            "TIME (inverted = attainedAt)",
            "PLAYER",
            "",
        ]
    } else {
        ["RANK", "SORT KEY", "SCORE", "ATTAINED AT", "PLAYER", ""]
    };
    render::table(
        out,
        &head,
        &cells,
        &[true, false, true, false, false, false],
    )
}
