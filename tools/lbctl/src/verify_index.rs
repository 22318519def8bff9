//! The rank index's part of `lbctl verify`: its watermarks against the lanes' written counts,
//! and its counters against the entries, node by node, as the entries stream past in key
//! order ([`Tally`]: a node's count is complete once the stream leaves its prefix). Memory: the
//! current key's path, the page's completed nodes and at most [`MAX_FINDINGS`] differences,
//! whatever the board's size. Reads: the nodes each page completes, 100 a `BatchGetItem`.
//!
//! Counters and entries agree only while nothing is pending: the check reads the root and the
//! lanes before the entries and after them, and compares only when both reads are the same
//! and every watermark is at its lane's written count (the board was *quiet*). A lane behind
//! is waited for up to `settle`; one whose watermark did not move in that time is reported
//! (`watermark_behind`: a change the index never got), one that moved is the stream at work.

use std::time::{Duration, Instant};

use leaderboard_keys::rank_index::{
    CountedKey, Counters, Layout, Tally, differences, node_key, root_key,
};
use leaderboard_store::model::Board;
use leaderboard_store::{IndexState, Store};

use crate::error::CtlResult;
use crate::verify_report::Violation;

/// The most counter differences kept; past it they are counted, not listed.
pub const MAX_FINDINGS: usize = 1_000;

/// A node's differing child labels, as (label, stored count, entries under it).
type Differences = Vec<(String, i64, i64)>;

/// How often a lane behind is read again while it is waited for.
const POLL: Duration = Duration::from_millis(500);

/// A check of one board's index under way.
pub struct IndexCheck<'a> {
    store: &'a Store,
    board: &'a Board,
    layout: Layout,
    before: IndexState,
    tally: Tally,
    /// Nodes the stream completed whose stored counters are still to be read.
    completed: Vec<(String, Counters)>,
    /// (node prefix, its differing labels), in the order found.
    found: Vec<(String, Differences)>,
    /// Differences past [`MAX_FINDINGS`].
    more: u64,
    /// What the watermarks' check found.
    pub violations: Vec<Violation>,
    /// Why counters were not compared, if they were not.
    pub notes: Vec<String>,
}

impl<'a> IndexCheck<'a> {
    /// Reads the index's state, waiting up to `settle` for lanes behind.
    pub async fn start(
        store: &'a Store,
        board: &'a Board,
        settle: Duration,
    ) -> CtlResult<IndexCheck<'a>> {
        let layout = Layout::new(board.spec()?.ranked_digits());
        let first = store.rank().index_state(board).await?;
        let deadline = Instant::now() + settle;
        let mut state = first.clone();
        while !state.pending().is_empty() && Instant::now() < deadline {
            tokio::time::sleep(POLL.min(deadline - Instant::now())).await;
            state = store.rank().index_state(board).await?;
        }
        let mut check = IndexCheck {
            store,
            board,
            layout,
            before: state.clone(),
            tally: Tally::new(layout),
            completed: Vec::new(),
            found: Vec::new(),
            more: 0,
            violations: Vec::new(),
            notes: Vec::new(),
        };
        let root = root_sort_key(board);
        for (lane, applied, written) in state.pending() {
            let moved = first.watermarks.get(&lane) != state.watermarks.get(&lane);
            let (kind, detail) = if applied > written {
                (
                    "watermark_ahead",
                    format!("lane {lane}: applied change {applied}, {written} written"),
                )
            } else if moved {
                check.notes.push(format!(
                    "lane {lane} is being applied ({applied} of {written}): the stream is at work"
                ));
                continue;
            } else {
                (
                    "watermark_behind",
                    format!(
                        "lane {lane}: applied {applied} of {written} changes, unmoved for {} s",
                        settle.as_secs()
                    ),
                )
            };
            check
                .violations
                .push(Violation::new(kind, root.clone(), detail));
        }
        Ok(check)
    }

    /// Counts the entry at `sort_key`, the next in key order.
    pub fn add(&mut self, sort_key: &str) {
        let Ok(key) = CountedKey::parse(sort_key) else {
            return;
        };
        if let Some(done) = self.tally.add(&key) {
            self.completed.extend(done);
        }
    }

    /// Compares the nodes completed so far with their stored counters.
    pub async fn compare_completed(&mut self) -> CtlResult {
        let completed = std::mem::take(&mut self.completed);
        let (root, mut nodes): (Vec<_>, Vec<_>) =
            completed.into_iter().partition(|(p, _)| p.is_empty());
        if self.before.compact {
            // The compact layout stores a node only while two keys or more share it (an entry
            // of one names its key): the others are not there to compare.
            nodes.retain(|(_, counted)| counted.values().sum::<i64>() >= 2);
        }
        let prefixes: Vec<String> = nodes.iter().map(|(p, _)| p.clone()).collect();
        let stored = self
            .store
            .rank()
            .index_nodes(self.board, self.before.generation, &prefixes)
            .await?;
        for ((prefix, counted), (_, stored)) in nodes.iter().zip(stored) {
            self.note(prefix, &stored.unwrap_or_default(), counted);
        }
        for (_, counted) in root {
            let stored = self.before.root.clone();
            self.note("", &stored, &counted);
        }
        Ok(())
    }

    fn note(&mut self, prefix: &str, stored: &Counters, counted: &Counters) {
        let diffs = differences(stored, counted);
        if diffs.is_empty() {
            return;
        }
        if self.found.len() < MAX_FINDINGS {
            self.found.push((prefix.to_owned(), diffs));
        } else {
            self.more += 1;
        }
    }

    /// Finishes the check of a board whose stream held `entries` entries: the last nodes, then
    /// the state read again. The problems found, and the notes (one says when the board was not
    /// quiet, so that its counters were not compared).
    pub async fn finish(mut self, entries: u64) -> CtlResult<(Vec<Violation>, Vec<String>)> {
        let tally = std::mem::replace(&mut self.tally, Tally::new(self.layout));
        self.completed.extend(tally.finish());
        self.compare_completed().await?;
        let after = self.store.rank().index_state(self.board).await?;
        let quiet = after == self.before && after.pending().is_empty();
        let mut violations = std::mem::take(&mut self.violations);
        let mut notes = std::mem::take(&mut self.notes);
        if !quiet {
            notes.push(
                "the index had changes pending or took some while the entries were read: its \
                 counters and the lanes' count were not compared"
                    .to_owned(),
            );
            return Ok((violations, notes));
        }
        if after.entries != entries as i64 {
            violations.push(Violation::new(
                "entry_count",
                String::new(),
                format!(
                    "the lanes count {} entries, the board holds {entries} Score items",
                    after.entries
                ),
            ));
        }
        for (prefix, diffs) in self.first_causes() {
            let key = if prefix.is_empty() {
                root_sort_key(self.board)
            } else {
                let k = node_key(&self.board.board_id, self.before.generation, &prefix);
                format!("{} {}", k.pk, k.sk)
            };
            let detail = diffs
                .iter()
                .map(|(label, stored, counted)| {
                    format!("c{label} counts {stored}, {counted} entries under it")
                })
                .collect::<Vec<_>>()
                .join("; ");
            violations.push(Violation::new("index_count", key, detail));
        }
        if self.more > 0 {
            notes.push(format!("{} more index nodes differ", self.more));
        }
        Ok((violations, notes))
    }

    /// The differences whose parent's counter for them agrees: below a counter that is off,
    /// every node is off for the same reason (a key the index never counted, say).
    fn first_causes(&self) -> Vec<(String, Differences)> {
        let off: std::collections::BTreeSet<(String, String)> = self
            .found
            .iter()
            .flat_map(|(p, diffs)| diffs.iter().map(move |(l, _, _)| (p.clone(), l.clone())))
            .collect();
        let width = self.layout.stored_digits();
        self.found
            .iter()
            .filter(|(prefix, _)| {
                let full = format!("{prefix:0<width$}");
                let level = (1..self.layout.levels())
                    .find(|&l| self.layout.prefix(&full, l).len() == prefix.len());
                let Some(level) = level else {
                    return true;
                };
                let parent = self.layout.prefix(&full, level - 1).to_owned();
                let label = self.layout.label(&full, level - 1).to_owned();
                !off.contains(&(parent, label))
            })
            .cloned()
            .collect()
    }
}

/// The root's key, as a violation names it.
fn root_sort_key(board: &Board) -> String {
    let k = root_key(&board.board_id);
    format!("{} {}", k.pk, k.sk)
}
