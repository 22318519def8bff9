//! Benchmark report fragments (std only, so the other crates' benches can include this file with
//! `#[path = "../../../bench/src/fragment.rs"] mod fragment;` without a dependency).
//!
//! The convention `scripts/bench` assembles `BENCHMARKS.md` from:
//! - every part writes one Markdown fragment `$BENCH_OUT/<nn>-<name>.md` (a `## ` section), and
//!   the script concatenates them in name order;
//! - a part with an issue target appends one line per target to
//!   `$BENCH_OUT/targets-$BENCH_PART.tsv` (`BENCH_PART` is set by the script, `misc` without it):
//!   `target<TAB>measured<TAB>met|missed`; the script turns them into the summary table.
//!
//! Without `BENCH_OUT` nothing is written (plain `cargo bench` just prints).
#![allow(dead_code)]

use std::io::Write;

/// Prints a line and keeps it for the report fragment: `say!(md)` for an empty line,
/// `say!(md, "format", args..)` for a formatted one (`md` is a `String`).
#[allow(unused_macros)]
macro_rules! say {
    ($md:ident) => {{
        println!();
        $md.push('\n');
    }};
    ($md:ident, $($t:tt)*) => {{
        let line = format!($($t)*);
        println!("{line}");
        $md.push_str(&line);
        $md.push('\n');
    }};
}
#[allow(unused_imports)]
pub(crate) use say;
use std::path::PathBuf;

/// `$BENCH_OUT`, when set and not empty.
pub fn out_dir() -> Option<PathBuf> {
    std::env::var_os("BENCH_OUT")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Writes `$BENCH_OUT/<file>` (e.g. `50-keys.md`) if `BENCH_OUT` is set. Returns the path.
pub fn write(file: &str, markdown: &str) -> Option<PathBuf> {
    let dir = out_dir()?;
    std::fs::create_dir_all(&dir).ok()?;
    let path = dir.join(file);
    std::fs::write(&path, markdown).ok()?;
    eprintln!("wrote {}", path.display());
    Some(path)
}

/// Appends a target line (`target`, what was measured, whether it was met) to
/// `$BENCH_OUT/targets-$BENCH_PART.tsv` if `BENCH_OUT` is set.
pub fn target(target: &str, measured: &str, met: bool) {
    let Some(dir) = out_dir() else { return };
    let _ = std::fs::create_dir_all(&dir);
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(format!(
            "targets-{}.tsv",
            std::env::var("BENCH_PART")
                .ok()
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| "misc".into())
        )))
    {
        let clean = |s: &str| s.replace(['\t', '\n'], " ");
        let _ = writeln!(
            f,
            "{}\t{}\t{}",
            clean(target),
            clean(measured),
            if met { "met" } else { "missed" }
        );
    }
}

/// Where criterion writes its results: `$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`,
/// else `<repo>/target/criterion` (criterion's own order, with the repository's target dir in
/// place of its `cargo metadata` call). `repo` is the repository root.
pub fn criterion_dir(repo: &std::path::Path) -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(home);
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR").filter(|v| !v.is_empty()) {
        return PathBuf::from(target).join("criterion");
    }
    repo.join("target/criterion")
}

/// One criterion result: its id (`group/function`), and the median with its 95% interval, in
/// nanoseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// `group/function` as criterion names the folders.
    pub id: String,
    /// Median, ns.
    pub median: f64,
    /// Lower bound of the median's confidence interval, ns.
    pub lower: f64,
    /// Upper bound, ns.
    pub upper: f64,
}

/// The number after `"key":` in `text` (from `from`), and where it ends.
fn number_after(text: &str, key: &str, from: usize) -> Option<(f64, usize)> {
    let at = text[from..].find(&format!("\"{key}\""))? + from;
    let rest = &text[at + key.len() + 2..];
    let colon = rest.find(':')?;
    let num: String = rest[colon + 1..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))
        .collect();
    Some((
        num.parse().ok()?,
        at + key.len() + 2 + colon + 1 + num.len(),
    ))
}

/// The median of a criterion `estimates.json` text.
pub fn parse_estimates(id: &str, text: &str) -> Option<Estimate> {
    let start = text.find("\"median\"")?;
    // Inside the median object: its interval first, then the point estimate.
    let (lower, _) = number_after(text, "lower_bound", start)?;
    let (upper, _) = number_after(text, "upper_bound", start)?;
    let (median, _) = number_after(text, "point_estimate", start)?;
    Some(Estimate {
        id: id.to_owned(),
        median,
        lower,
        upper,
    })
}

/// Every `<dir>/<group>/<function>/new/estimates.json` of these groups, sorted by id.
pub fn criterion_results(dir: &std::path::Path, groups: &[&str]) -> Vec<Estimate> {
    let mut out = Vec::new();
    for group in groups {
        let Ok(entries) = std::fs::read_dir(dir.join(group)) else {
            continue;
        };
        for e in entries.flatten() {
            let file = e.path().join("new/estimates.json");
            if let Ok(text) = std::fs::read_to_string(&file) {
                let id = format!("{group}/{}", e.file_name().to_string_lossy());
                if let Some(est) = parse_estimates(&id, &text) {
                    out.push(est);
                }
            }
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// A duration in ns, in the unit that reads best.
pub fn human_ns(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.1} ns")
    }
}

/// Criterion results as a Markdown table (median and 95% interval).
pub fn criterion_table(results: &[Estimate]) -> String {
    let mut s = String::from("| benchmark | median | 95% CI |\n| --- | ---: | --- |\n");
    for r in results {
        s.push_str(&format!(
            "| {} | {} | {} .. {} |\n",
            r.id,
            human_ns(r.median),
            human_ns(r.lower),
            human_ns(r.upper)
        ));
    }
    s
}
