//! `lbctl verify`: a live board's invariants checked a page of 1,000 entries at a time (its
//! memory one page and the index check's path, whatever the board's size): each Score item's
//! key agrees with its attributes; each is its player's entry (the player's pointer names
//! exactly that key), so a second entry, an orphan Score item or a stale pointer shows; the
//! rank index's counters equal the entries under them and its watermarks the lanes' written
//! counts ([`crate::verify_index`]); and, asked for (`--player`), players' totals equal their
//! sessions and each of their entry pointers names a Score item that exists.
//! Every open board with `--all`. Each violation is reported with its keys; any left exits 4.
//!
//! `--repair` fixes what is safely fixable, as it goes and idempotently: a Score item that is
//! not its player's entry is made it (the pointer rebuilt) or, when the pointer names another
//! that exists, deleted ([`EntryRepairs::repair_entry`](leaderboard_store::EntryRepairs::repair_entry)); a board with any such repair or any index
//! problem has its index rebuilt live from its entries; a player's totals are recounted from
//! their sessions; a Score item a player's pointer names and that is gone is put back from the
//! pointer ([`EntryRepairs::restore_entry`](leaderboard_store::EntryRepairs::restore_entry)). A Score item whose key disagrees with its attributes is
//! left: which of the two is right is for a person to say.

use std::io::Write;
use std::time::Duration;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_store::model::{Board, BoardStatus};
use leaderboard_store::{EntryRepair, MAX_PAGE_SIZE, Store};

use crate::browse::row;
use crate::error::{CtlError, CtlResult};
use crate::verify_index::IndexCheck;
pub use crate::verify_report::{MAX_LISTED, Report, Violation};
use crate::verify_totals;

/// `verify`'s arguments.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The board.
    #[arg(conflicts_with = "all")]
    pub board: Option<String>,
    /// Every open board.
    #[arg(long)]
    pub all: bool,
    /// A player whose totals to check against their sessions, and whose entry pointers
    /// against the Score items they name (again for more).
    #[arg(long = "player")]
    pub players: Vec<String>,
    /// Also check the totals of every player with an entry on the boards checked (reads all
    /// of each one's sessions).
    #[arg(long)]
    pub totals: bool,
    /// Fix what is safely fixable, and say what was done.
    #[arg(long)]
    pub repair: bool,
    /// Seconds a lane's watermark may stand still behind its written count before it is a
    /// problem (the stream normally applies a change within a second).
    #[arg(long, default_value_t = 10)]
    pub settle: u64,
}

/// Runs `verify` as asked: a board, every open one, players; writes the report.
pub async fn run(store: &Store, args: VerifyArgs, out: &mut dyn Write, json: bool) -> CtlResult {
    let mut report = Report::default();
    let settle = Duration::from_secs(args.settle);
    let boards = match (&args.board, args.all) {
        (Some(b), _) => vec![BoardId::parse(b)?],
        (None, true) => open_boards(store).await?,
        (None, false) if !args.players.is_empty() => Vec::new(),
        (None, false) => {
            return Err(CtlError::Usage(
                "name a board, --all or --player <player>".into(),
            ));
        }
    };
    // Lost entries first: one put back is then counted by the board's check like any other.
    for p in &args.players {
        let player = PlayerId::parse(p)?;
        let only = args.board.as_ref().and(boards.first());
        lost_entries(store, &player, only, args.repair, &mut report).await?;
    }
    let single = args.board.is_some();
    for id in &boards {
        let board = match checked_board(store, id).await {
            Err(CtlError::Usage(why)) if !single => {
                report.notes.push(why);
                continue;
            }
            found => found?,
        };
        verify_board(store, &board, &args, settle, &mut report).await?;
    }
    for p in &args.players {
        let player = PlayerId::parse(p)?;
        verify_totals::check(store, &player, args.repair, &mut report).await?;
    }
    report.close();
    write(out, &report, json)
}

/// `player`'s entry pointers on open boards (`only`: that one) whose Score item is gone, each
/// put back from its pointer with `repair` (the pointer holds the score, time and session).
async fn lost_entries(
    store: &Store,
    player: &PlayerId,
    only: Option<&BoardId>,
    repair: bool,
    report: &mut Report,
) -> CtlResult {
    for (board, key) in store.entry_repair().lost_entries(player, only).await? {
        let mut lost = Violation::new(
            "lost_entry",
            key,
            format!("{player}'s entry pointer names a Score item that is gone"),
        );
        if repair {
            lost.repaired = Some(
                match store.entry_repair().restore_entry(&board, player).await? {
                    EntryRepair::Restored => "restored from the entry pointer".to_owned(),
                    _ => "nothing to do any more".to_owned(),
                },
            );
        }
        lost.leaderboard_id = Some(board.to_string());
        report.add(lost);
    }
    Ok(())
}

/// Every open board, by the listing of boards.
async fn open_boards(store: &Store) -> CtlResult<Vec<BoardId>> {
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = store
            .boards()
            .list_boards(
                None,
                leaderboard_store::MAX_BOARDS_PAGE,
                cursor.as_deref(),
                |b| b.status == BoardStatus::Open,
            )
            .await?;
        ids.extend(page.items.into_iter().map(|b| b.board_id));
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => return Ok(ids),
        }
    }
}

async fn checked_board(store: &Store, board: &BoardId) -> CtlResult<Board> {
    let found = store
        .boards()
        .get_board(board)
        .await?
        .ok_or_else(|| CtlError::NotFound(format!("no board {board}")))?;
    if found.status == BoardStatus::Closed {
        return Err(CtlError::Usage(format!(
            "{board} is closed: its final standings are fixed, and its live entries archived"
        )));
    }
    Ok(found)
}

/// Checks (and repairs) one board, adding to `report`.
async fn verify_board(
    store: &Store,
    board: &Board,
    args: &VerifyArgs,
    settle: Duration,
    report: &mut Report,
) -> CtlResult {
    let spec = board.spec()?;
    let id = board.board_id.to_string();
    // A closing board's entries are the close's to move: checked, never changed.
    let repair = args.repair && board.status == BoardStatus::Open;
    if args.repair && !repair {
        report
            .notes
            .push(format!("{id} is closing: checked, not repaired"));
    }
    let mut index = match board.indexed() {
        true => Some(IndexCheck::start(store, board, settle).await?),
        false => None,
    };
    let (mut entries, mut removed, mut repaired) = (0u64, 0u64, false);
    let bar = progress(board);
    let mut after: Option<String> = None;
    loop {
        let (page, pointers) = store
            .inspect()
            .entries_with_pointers(board, after.as_deref(), MAX_PAGE_SIZE)
            .await?;
        for stored in &page {
            entries += 1;
            let key = stored.sort_key.clone();
            if let Some(index) = index.as_mut() {
                index.add(&key);
            }
            if let Some(why) = row(board, &spec, stored).mismatch {
                let mut v = Violation::new("key_mismatch", key.clone(), why);
                v.leaderboard_id = Some(id.clone());
                report.add(v);
            }
            let player = &stored.entry.player_id;
            let mut broken = match pointers.get(player) {
                None => Violation::new(
                    "no_pointer",
                    key.clone(),
                    format!("{player} has no entry pointer on the board"),
                ),
                Some(p) if p.score_sk != key => Violation::new(
                    "not_the_players_entry",
                    key.clone(),
                    format!(
                        "{player}'s entry pointer names {} (a second Score item, or a stale pointer)",
                        p.score_sk
                    ),
                ),
                Some(_) => continue,
            };
            if repair {
                broken.repaired = Some(
                    match store
                        .entry_repair()
                        .repair_entry(&board.board_id, &key)
                        .await?
                    {
                        EntryRepair::Repointed => "re-pointed: the player's entry now".to_owned(),
                        EntryRepair::Removed => {
                            removed += 1;
                            "deleted: the player's pointer names their entry".to_owned()
                        }
                        EntryRepair::Restored | EntryRepair::Unchanged => {
                            "nothing to do any more".to_owned()
                        }
                    },
                );
                repaired = true;
            }
            broken.leaderboard_id = Some(id.clone());
            report.add(broken);
        }
        if let Some(index) = index.as_mut() {
            index.compare_completed().await?;
        }
        bar.inc(page.len() as u64);
        if args.totals {
            for stored in &page {
                let player = &stored.entry.player_id;
                verify_totals::check(store, player, args.repair, report).await?;
            }
        }
        if page.len() < MAX_PAGE_SIZE {
            break;
        }
        after = page.last().map(|e| e.sort_key.clone());
    }
    bar.finish_and_clear();
    if let Some(index) = index {
        let (mut more, notes) = index.finish(entries - removed).await?;
        report
            .notes
            .extend(notes.into_iter().map(|n| format!("{id}: {n}")));
        if repair && (repaired || !more.is_empty()) {
            let rebuilt = store.rank().rebuild_lane_index(board).await?;
            let done = format!(
                "the rank index rebuilt from {} entries (generation {})",
                rebuilt.entries, rebuilt.generation
            );
            for v in &mut more {
                v.repaired = Some(done.clone());
            }
            if more.is_empty() {
                report.notes.push(format!("{id}: {done}"));
            }
        }
        for mut v in more {
            v.leaderboard_id = Some(id.clone());
            report.add(v);
        }
    }
    report.boards += 1;
    report.entries += entries;
    Ok(())
}

/// A spinner with the entries read, on a terminal.
fn progress(board: &Board) -> ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {prefix} {pos} entries {per_sec}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.set_prefix(board.board_id.to_string());
    bar
}

/// Writes the report (one JSON document, or a line a violation); violations left are exit
/// code 4.
pub fn write(out: &mut dyn Write, report: &Report, json: bool) -> CtlResult {
    if json {
        crate::render::json_doc(out, report, true)?;
    } else {
        let count = |n: u64, what: &str| match n {
            1 => format!("1 {what}"),
            n => format!("{n} {what}s"),
        };
        writeln!(
            out,
            "checked {} ({}) and {}: {}, {} repaired",
            count(report.boards, "board"),
            count(report.entries, "entry").replace("entrys", "entries"),
            count(report.players, "player"),
            count(report.problems(), "problem"),
            report.problems() - report.left()
        )?;
        for v in &report.violations {
            let on = v.leaderboard_id.as_deref().unwrap_or("");
            writeln!(out, "  {}  {on}  {}  {}", v.kind, v.key, v.detail)?;
            if let Some(done) = &v.repaired {
                writeln!(out, "    repaired: {done}")?;
            }
        }
        if report.unlisted > 0 {
            writeln!(out, "  ... and {} more problems", report.unlisted)?;
        }
        for n in &report.notes {
            writeln!(out, "  note: {n}")?;
        }
    }
    match report.left() {
        0 => Ok(()),
        n => Err(CtlError::Problems(n as usize)),
    }
}
