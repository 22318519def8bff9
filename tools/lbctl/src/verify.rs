//! `lbctl verify`: a live board's invariants checked a page at a time (its memory one page of
//! 1,000 entries whatever the board's size): each Score item's key agrees with its attributes;
//! each is its player's entry (the player's entry pointer names exactly that key), so a player
//! with two Score items, an orphan Score item or a pointer gone stale shows; and the entries
//! counted equal the lanes' created counts. Each violation is reported with its keys; finding
//! any exits 4.

use std::io::Write;

use leaderboard_keys::ids::BoardId;
use leaderboard_store::model::{Board, BoardStatus};
use leaderboard_store::{MAX_PAGE_SIZE, Store};
use serde::Serialize;

use crate::browse::row;
use crate::error::{CtlError, CtlResult};
use crate::render;

/// One invariant broken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// Which: `key_mismatch`, `no_pointer`, `not_the_players_entry`, `entry_count`.
    pub kind: &'static str,
    /// The item's sort key (the board's partition), where one is at fault.
    pub key: String,
    /// What differs.
    pub detail: String,
}

/// What a check found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Score items read.
    pub entries: u64,
    /// What is wrong.
    pub violations: Vec<Violation>,
}

/// Checks `board`'s entries.
pub async fn verify(store: &Store, board: &BoardId) -> CtlResult<(Board, Report)> {
    let found = store
        .get_board(board)
        .await?
        .ok_or_else(|| CtlError::NotFound(format!("no board {board}")))?;
    if found.status == BoardStatus::Closed {
        return Err(CtlError::Usage(format!(
            "{board} is closed: its final standings are fixed, and its live entries archived"
        )));
    }
    let spec = found.spec()?;
    let mut report = Report::default();
    let mut after: Option<String> = None;
    loop {
        let (entries, pointers) = store
            .entries_with_pointers(&found, after.as_deref(), MAX_PAGE_SIZE)
            .await?;
        for stored in &entries {
            report.entries += 1;
            let key = stored.sort_key.clone();
            if let Some(why) = row(&spec, stored).mismatch {
                report.violations.push(Violation {
                    kind: "key_mismatch",
                    key: key.clone(),
                    detail: why,
                });
            }
            match pointers.get(&stored.entry.player_id) {
                None => report.violations.push(Violation {
                    kind: "no_pointer",
                    key,
                    detail: format!(
                        "{} has no entry pointer on the board",
                        stored.entry.player_id
                    ),
                }),
                Some(p) if p.score_sk != key => report.violations.push(Violation {
                    kind: "not_the_players_entry",
                    key,
                    detail: format!(
                        "{}'s entry pointer names {} (a second Score item, or a stale pointer)",
                        stored.entry.player_id, p.score_sk
                    ),
                }),
                Some(_) => {}
            }
        }
        if entries.len() < MAX_PAGE_SIZE {
            break;
        }
        after = entries.last().map(|e| e.sort_key.clone());
    }
    if found.indexed() {
        let lanes = store.score_buckets(&found, 1).await?;
        if lanes.entries != report.entries as i64 {
            report.violations.push(Violation {
                kind: "entry_count",
                key: String::new(),
                detail: format!(
                    "the lanes count {} entries, the board holds {} Score items",
                    lanes.entries, report.entries
                ),
            });
        }
    }
    Ok((found, report))
}

/// Writes the report (one JSON document, or a line a violation); violations are exit code 4.
pub fn write(out: &mut dyn Write, board: &Board, report: &Report, json: bool) -> CtlResult {
    if json {
        render::json_doc(out, report, true)?;
    } else {
        writeln!(
            out,
            "{}: {} entries checked, {} problems",
            render::board_heading(board),
            report.entries,
            report.violations.len()
        )?;
        for v in &report.violations {
            writeln!(out, "  {}  {}  {}", v.kind, v.key, v.detail)?;
        }
    }
    if report.violations.is_empty() {
        Ok(())
    } else {
        Err(CtlError::Problems(report.violations.len()))
    }
}
