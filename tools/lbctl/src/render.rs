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
        writeln!(out, "  {}: {} key", k.item, k.index)?;
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
