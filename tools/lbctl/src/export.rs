//! `lbctl export`: a board's standings, live or (after close) final, as CSV or JSON, for prize
//! payouts and audits. Read with the API's own listing, 1,000 entries a page, each page written
//! out before the next is read: a board of millions is never held in memory. The JSON entries
//! are the API's entries, field for field.

use std::io::Write;

use indicatif::{ProgressBar, ProgressStyle};
use leaderboard_keys::ids::BoardId;
use leaderboard_store::model::{BoardStatus, RankedEntry};
use leaderboard_store::{MAX_PAGE_SIZE, Store};

use crate::error::{CtlError, CtlResult};

/// The output format.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// `rank,playerId,name,score,attainedAt,metadata`, with a header row.
    #[default]
    Csv,
    /// One JSON array of the API's entries.
    Json,
}

/// The CSV header.
pub const CSV_HEADER: &str = "rank,playerId,name,score,attainedAt,metadata";

/// Writes every entry of `board` to `out`, page by page; `progress` shows a bar on the
/// terminal. Returns the entries written.
pub async fn export(
    store: &Store,
    board: &BoardId,
    format: Format,
    out: &mut dyn Write,
    progress: bool,
) -> CtlResult<u64> {
    let found = store
        .boards()
        .get_board(board)
        .await?
        .ok_or_else(|| CtlError::NotFound(format!("no board {board}")))?;
    let closed = found.status == BoardStatus::Closed;
    let bar = if !progress {
        ProgressBar::hidden()
    } else if let (true, Some(n)) = (closed, found.player_count) {
        ProgressBar::new(n)
    } else {
        ProgressBar::new_spinner()
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {pos} entries {wide_bar} {per_sec} {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    match format {
        Format::Csv => writeln!(out, "{CSV_HEADER}")?,
        Format::Json => write!(out, "[")?,
    }
    let mut written = 0u64;
    let mut cursor: Option<String> = None;
    loop {
        let page = if closed {
            store
                .listings()
                .final_standings(board, MAX_PAGE_SIZE, cursor.as_deref())
                .await?
        } else {
            store
                .listings()
                .top_scores(&found, MAX_PAGE_SIZE, cursor.as_deref())
                .await?
        };
        for e in &page.items {
            match format {
                Format::Csv => writeln!(out, "{}", csv_row(e))?,
                Format::Json => {
                    let sep = if written == 0 { "\n" } else { ",\n" };
                    let doc = serde_json::to_string(e).map_err(std::io::Error::from)?;
                    write!(out, "{sep}{doc}")?;
                }
            }
            written += 1;
        }
        bar.set_position(written);
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    if format == Format::Json {
        writeln!(out, "\n]")?;
    }
    bar.finish_and_clear();
    Ok(written)
}

fn csv_row(e: &RankedEntry) -> String {
    let metadata = e
        .metadata
        .as_ref()
        .and_then(|m| serde_json::to_string(m).ok())
        .unwrap_or_default();
    [
        e.rank.to_string(),
        e.player_id.to_string(),
        csv_field(&e.name),
        e.score.to_string(),
        e.attained_at.to_string(),
        csv_field(&metadata),
    ]
    .join(",")
}

/// A field quoted when it holds a comma, a quote or a line break (RFC 4180), its quotes
/// doubled. A field starting with `=`, `+`, `-` or `@` is prefixed with `'` so a spreadsheet
/// does not run a player's name as a formula.
pub fn csv_field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@']) {
        format!("'{s}")
    } else {
        s.to_owned()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}
