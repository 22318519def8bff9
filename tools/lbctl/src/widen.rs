//! `lbctl widen`: a live board moved to a larger `maxScore`, or a larger `max` of a tiebreak
//! column, while plays go on (docs/widen.md),
//! the store's widening run taken to its end a step at a time, with a progress bar on the
//! terminal. Stopped at any point, the same command goes on where the run is. `--dry-run`
//! prints the plan and its cost and writes nothing.

use std::io::Write;
use std::time::Duration;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use leaderboard_keys::columns::{self, Column};
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::time::Timestamp;
use leaderboard_keys::widen::Widening;
use leaderboard_store::widening::WideningStep;
use leaderboard_store::{Store, WIDEN_GRACE, WidenOptions, WidenPlan, WidenProgress, WidenTo};
use serde_json::json;

use crate::error::CtlResult;
use crate::render;

/// `widen`'s arguments.
#[derive(Args, Debug)]
pub struct WidenArgs {
    /// The board.
    pub board: String,
    /// The new maxScore: larger than the board's.
    #[arg(long, required_unless_present = "column")]
    pub max_score: Option<u64>,
    /// A tiebreak column's new max, `name=max` (repeatable): larger than the column's.
    #[arg(long, value_parser = column_max)]
    pub column: Vec<(String, u64)>,
    /// Print the plan and its cost; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Entries a step of the copy and of the old entries' deletion (1 to 1000).
    #[arg(long, default_value_t = 500)]
    pub page: usize,
    /// Seconds the old entries stay after the switch, for reads that began before it (at
    /// least a request's time budget).
    #[arg(long, default_value_t = WIDEN_GRACE.as_secs())]
    pub grace: u64,
}

/// Runs `lbctl widen`.
pub async fn run(store: &Store, args: WidenArgs, out: &mut dyn Write, json: bool) -> CtlResult {
    let id = BoardId::parse(&args.board)?;
    let now = Timestamp::now();
    let to = WidenTo {
        max_score: args.max_score,
        columns: args.column.clone(),
    };
    let plan = store.rank().widen_plan(&id, to.clone(), now).await?;
    if args.dry_run {
        return write_plan(out, &plan, json);
    }
    let options = WidenOptions {
        page: args.page.clamp(1, 1_000),
        grace: Duration::from_secs(args.grace),
        now,
    };
    let bar = progress(plan.entries);
    let mut copied = 0u64;
    let board = loop {
        match store.rank().widen_step(&id, to.clone(), &options).await {
            Ok(WidenProgress::Done(board)) => break board,
            Ok(WidenProgress::Running { step, copied: c }) => {
                copied += c;
                bar.set_position(copied.min(plan.entries));
                bar.set_message(step_name(step));
            }
            Err(e) => {
                bar.abandon();
                return Err(e.into());
            }
        }
    };
    bar.finish_and_clear();
    let doc = json!({"leaderboardId": board.board_id, "maxScore": board.max_score,
        "columns": board.columns, "entryGeneration": board.entry_generation,
        "entriesCopied": copied});
    if json {
        return render::json_doc(out, &doc, true);
    }
    writeln!(
        out,
        "{}: maxScore {}{} (entries generation {}, {copied} copied by this run)",
        board.board_id,
        board.max_score,
        columns_text(&board.columns),
        board.entry_generation
    )?;
    Ok(())
}

/// `--column name=max`.
fn column_max(arg: &str) -> Result<(String, u64), String> {
    let (name, max) = arg
        .split_once('=')
        .ok_or_else(|| format!("{arg:?}: give a column as name=max"))?;
    let max = max
        .parse()
        .map_err(|_| format!("{arg:?}: the max must be a whole number"))?;
    Ok((name.to_owned(), max))
}

/// A board's columns as `, columns time 99999, kills 999` (nothing without).
fn columns_text(columns: &[Column]) -> String {
    match columns.is_empty() {
        true => String::new(),
        false => format!(", columns {}", columns::listed(columns)),
    }
}

/// What the step a run is at does, for the bar.
fn step_name(step: WideningStep) -> &'static str {
    match step {
        WideningStep::Copy => "copying the entries",
        WideningStep::Index => "building the rank index at the new width",
        WideningStep::Retire => "deleting the old entries after the grace period",
    }
}

/// The plan: what the new maxScore asks, and what the run writes.
fn write_plan(out: &mut dyn Write, plan: &WidenPlan, json: bool) -> CtlResult {
    let board = &plan.board;
    let (change, to_width) = match plan.widening {
        Widening::AlreadyThere => ("none", board.spec()?.width().digits()),
        Widening::RaiseOnly { to } => ("raise", to.width().digits()),
        Widening::Rekey { to, .. } => ("rekey", to.width().digits()),
    };
    let from_width = board.spec()?.width().digits();
    let under_way = board.widening.as_ref().map(|run| step_name(run.step));
    if json {
        let doc = json!({"leaderboardId": board.board_id,
            "from": {"maxScore": board.max_score, "width": from_width},
            "to": {"maxScore": plan.max_score, "width": to_width, "columns": plan.columns},
            "change": change, "entries": plan.entries, "itemsToWrite": plan.items_to_write,
            "writeUnits": plan.write_units, "underWay": under_way});
        return render::json_doc(out, &doc, true);
    }
    writeln!(
        out,
        "{}: maxScore {} -> {} (width {from_width} -> {to_width} digits){}",
        board.board_id,
        board.max_score,
        plan.max_score,
        match board.columns == plan.columns {
            true => String::new(),
            false => format!(
                "; columns {} -> {}",
                columns::listed(&board.columns),
                columns::listed(&plan.columns)
            ),
        }
    )?;
    match plan.widening {
        Widening::AlreadyThere => writeln!(out, "  nothing to do")?,
        Widening::RaiseOnly { .. } => writeln!(
            out,
            "  the keys stay: maxScore raised (1 item, 1 write unit)"
        )?,
        Widening::Rekey { .. } => writeln!(
            out,
            "  re-key {} entries: {} items to write, about {} write units, plus the rank index's build",
            plan.entries, plan.items_to_write, plan.write_units
        )?,
    }
    if let Some(step) = under_way {
        writeln!(
            out,
            "  a run is under way: {step}; running it again goes on"
        )?;
    }
    Ok(())
}

/// A bar of the entries copied, on a terminal.
fn progress(entries: u64) -> ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(entries);
    bar.set_style(
        ProgressStyle::with_template("{pos}/{len} entries {wide_bar} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
