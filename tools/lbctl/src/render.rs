//! Writing a command's answer: aligned text for people, one JSON document for scripts.

use std::io::Write;

use serde::Serialize;

use crate::error::CtlResult;
use crate::explain::Explained;

/// One JSON document, pretty in text mode (expr's output is JSON either way: it is what the
/// AWS CLI reads).
pub fn json_doc<T: Serialize>(out: &mut dyn Write, doc: &T, compact: bool) -> CtlResult {
    if compact {
        serde_json::to_writer(&mut *out, doc).map_err(std::io::Error::from)?;
    } else {
        serde_json::to_writer_pretty(&mut *out, doc).map_err(std::io::Error::from)?;
    }
    writeln!(out)?;
    Ok(())
}

/// A board as its pages head it: `season_1 (desc, maxScore 9999999999, open)`.
pub fn board_heading(board: &leaderboard_store::model::Board) -> String {
    format!(
        "{} ({}, maxScore {}, {})",
        board.board_id,
        board.order.as_str(),
        board.max_score,
        board.status.as_str()
    )
}

/// Explained keys: per key a heading, then its parts with their characters lined up.
pub fn explained(out: &mut dyn Write, keys: &[Explained], json: bool) -> CtlResult {
    if json {
        return json_doc(out, &keys, true);
    }
    for (i, k) in keys.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "{}", k.key.trim())?;
        match k.index {
            "key path" => writeln!(out, "  {}", k.item)?,
            "sort key" => writeln!(out, "  {}: a sort key, given alone", k.item)?,
            index => writeln!(out, "  {}: {index} key", k.item)?,
        }
        let name_w = k.parts.iter().map(|p| p.name.len()).max().unwrap_or(0);
        let raw_w = k.parts.iter().map(|p| p.raw.len()).max().unwrap_or(0);
        for p in &k.parts {
            match &p.value {
                Some(v) => writeln!(out, "  {:name_w$}  {:raw_w$}  {v}", p.name, p.raw)?,
                None => writeln!(out, "  {:name_w$}  {}", p.name, p.raw)?,
            }
        }
    }
    Ok(())
}

/// Aligned columns under a header row; `right[i]` right-aligns column i (numbers). Trailing
/// spaces are trimmed.
pub fn table(
    out: &mut dyn Write,
    head: &[&str],
    rows: &[Vec<String>],
    right: &[bool],
) -> CtlResult {
    let mut widths: Vec<usize> = head.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut s = String::new();
        for (i, cell) in cells.enumerate() {
            let w = widths.get(i).copied().unwrap_or(0);
            if i > 0 {
                s.push_str("  ");
            }
            if right.get(i).copied().unwrap_or(false) {
                s.push_str(&format!("{cell:>w$}"));
            } else {
                s.push_str(&format!("{cell:<w$}"));
            }
        }
        s.trim_end().to_owned()
    };
    writeln!(out, "{}", line(&mut head.iter().copied()))?;
    for row in rows {
        writeln!(out, "{}", line(&mut row.iter().map(String::as_str)))?;
    }
    Ok(())
}
