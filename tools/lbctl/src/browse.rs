//! `lbctl browse`: a board's entries in key order, each stored sort key beside its parts
//! decoded (the padded score and its value, each tiebreak column's, the inverted time and the
//! moment), so the padding lines up on screen. A key whose parts disagree with its item's attributes is flagged: the
//! board's order then lies (a key written by another rule, or an item changed by hand).

use std::io::Write;

use leaderboard_keys::columns::{Subscores, named};
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
    /// The key's tiebreak column digits, as stored (inverted on an `asc` column); none on a
    /// board without columns.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub padded_columns: Vec<String>,
    /// The key's inverted time digits (`9999999999999 - attainedAt`); empty after close.
    pub inverted_time: String,
    /// The player.
    pub player_id: String,
    /// The score (the item's).
    pub score: u64,
    /// When it was attained (the item's), RFC 3339.
    pub attained_at: String,
    /// Its tiebreak columns' values (the item's), by name.
    #[serde(skip_serializing_if = "Subscores::is_empty")]
    pub subscores: Subscores,
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
    let rows = page.entries.iter().map(|e| row(&board, &spec, e)).collect();
    Ok((board, rows))
}

pub(crate) fn row(board: &Board, spec: &RankKeySpec, stored: &StoredEntry) -> Row {
    let e = &stored.entry;
    let mut row = Row {
        rank: stored.rank,
        sort_key: stored.sort_key.clone(),
        padded_score: String::new(),
        padded_columns: Vec::new(),
        inverted_time: String::new(),
        player_id: e.player_id.to_string(),
        score: e.score,
        attained_at: e.attained_at.to_string(),
        subscores: e.subscores.clone(),
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
                // The key parsed: its fields are `<score>[#<column>...]#<time>#<player>`.
                let rank_key = &stored.sort_key["SCORE#".len()..][..spec.rank_key_len()];
                let mut fields = rank_key.split('#');
                row.padded_score = fields.next().unwrap_or_default().to_owned();
                row.padded_columns = fields
                    .by_ref()
                    .take(spec.column_count())
                    .map(str::to_owned)
                    .collect();
                row.inverted_time = fields.next().unwrap_or_default().to_owned();
                let at = e.attained_at.as_millis();
                let subscores = named(&board.columns, &key.subscores);
                if (key.score, &subscores, key.attained_at_ms, &key.player_id)
                    != (e.score, &e.subscores, at, &e.player_id)
                {
                    row.mismatch = Some(format!(
                        "the key says score {}, subscores {subscores:?}, time {} ({}), player {}",
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
    let has_columns = !board.columns.is_empty();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut c = vec![r.rank.to_string(), r.sort_key.clone()];
            let values = board.columns.iter().map(|col| {
                let value = r.subscores.get(col.name.as_str());
                format!("{} {}", col.name, value.map_or("-".into(), u64::to_string))
            });
            let values: Vec<String> = values.collect();
            if live {
                c.push(format!("{} = {}", r.padded_score, r.score));
                if has_columns {
                    c.push(format!(
                        "{} = {}",
                        r.padded_columns.join("#"),
                        values.join(", ")
                    ));
                }
                c.push(format!("{} = {}", r.inverted_time, r.attained_at));
            } else {
                c.push(r.score.to_string());
                if has_columns {
                    c.push(values.join(", "));
                }
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
    let (score, columns, time) = if live {
        (
            "SCORE (padded = value)",
            "COLUMNS (padded = values)",
            "TIME (inverted = attainedAt)",
        )
    } else {
        ("SCORE", "COLUMNS", "ATTAINED AT")
    };
    let mut head = vec!["RANK", "SORT KEY", score];
    let mut right = vec![true, false, true];
    if has_columns {
        head.push(columns);
        right.push(false);
    }
    head.extend([time, "PLAYER", ""]);
    right.extend([false, false, false]);
    render::table(out, &head, &cells, &right)
}
