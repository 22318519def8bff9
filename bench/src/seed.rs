//! The four functions, their representative events from `events/`, and the data that makes
//! each event do real work: shared by the cold-start harness and the CPU benchmark.

use std::time::{SystemTime, UNIX_EPOCH};

use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank::Order;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::Store;
use leaderboard_store::model::{NewBoard, Operator, Recurrence};

/// The board the HTTP events name.
pub const BOARD: &str = "season_3";
/// Entries on it.
pub const BOARD_ENTRIES: usize = 100;
/// Entries on each board season close closes.
pub const CLOSE_ENTRIES: usize = 20;

/// A function of the stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Function {
    /// submit-score.
    SubmitScore,
    /// leaderboard-api: the anonymous reads.
    LeaderboardApi,
    /// leaderboard-writes (a binary of the leaderboard-api package): the routes that need a
    /// token.
    LeaderboardWrites,
    /// stream-projector.
    StreamProjector,
    /// season-close.
    SeasonClose,
}

impl Function {
    /// All five, in the order reports list them.
    pub const ALL: [Function; 5] = [
        Function::SubmitScore,
        Function::LeaderboardApi,
        Function::LeaderboardWrites,
        Function::StreamProjector,
        Function::SeasonClose,
    ];

    /// The binary's name.
    pub fn name(self) -> &'static str {
        match self {
            Function::SubmitScore => "submit-score",
            Function::LeaderboardApi => "leaderboard-api",
            Function::LeaderboardWrites => "leaderboard-writes",
            Function::StreamProjector => "stream-projector",
            Function::SeasonClose => "season-close",
        }
    }

    /// The representative event, relative to the repository root.
    pub fn event_path(self) -> &'static str {
        match self {
            Function::SubmitScore => "events/submit-score/post-board-scores.json",
            Function::LeaderboardApi => "events/leaderboard-api/get-top-scores.json",
            Function::LeaderboardWrites => "events/leaderboard-api/put-players-me.json",
            Function::StreamProjector => "events/stream-projector/captured-plays.json",
            Function::SeasonClose => "events/season-close/scheduled-event.json",
        }
    }

    /// What the event does, for the reports.
    pub fn work(self) -> &'static str {
        match self {
            Function::SubmitScore => {
                "POST /leaderboards/season_3/scores (p_bob, 9850) on a 100-entry board"
            }
            Function::LeaderboardApi => {
                "GET /leaderboards/season_3/scores?limit=10 on a 100-entry board"
            }
            Function::LeaderboardWrites => "PUT /players/me: the caller's profile",
            Function::StreamProjector => {
                "19 captured stream records, 3 Session INSERTs of 2 players"
            }
            Function::SeasonClose => "scheduled run closing one due 20-entry board",
        }
    }

    /// The event's text.
    pub fn event(self) -> String {
        let path = leaderboard_devkit::repo_root().join(self.event_path());
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
    }
}

fn ts(ms: u64) -> Timestamp {
    Timestamp::from_millis(ms).expect("a valid timestamp")
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

async fn board(store: &Store, id: &str, starts: u64, ends: u64, entries: usize) {
    let now = Timestamp::now();
    let b = store
        .boards()
        .create_board(
            NewBoard {
                order: Order::Desc,
                operator: Operator::Best,
                max_score: 9_999_999_999,
                starts_at: Some(ts(starts)),
                ends_at: Some(ts(ends)),
                recurrence: Recurrence::None,
                ..NewBoard::named(BoardId::parse(id).expect("a board id"), id.into())
            },
            ts(starts.min(now.as_millis())),
        )
        .await
        .unwrap_or_else(|e| panic!("create board {id}: {e}"));
    if entries > 0 {
        let list: Vec<_> = (0..entries)
            .map(|i| {
                (
                    PlayerId::parse(&format!("p{i:04}")).expect("a player id"),
                    1 + (i as u64 * 7919) % 5000,
                    ts(starts + 1000 + i as u64),
                )
            })
            .collect();
        store
            .boards()
            .import_entries(&b, &list)
            .await
            .unwrap_or_else(|e| panic!("entries of {id}: {e}"));
    }
}

/// The data every event needs: the open board `season_3` with 100 entries, and the profiles
/// of the players the events name.
pub async fn base(store: &Store) {
    let now = now_ms();
    board(
        store,
        BOARD,
        now - 3_600_000,
        now + 30 * 86_400_000,
        BOARD_ENTRIES,
    )
    .await;
    for p in ["p_alice", "p_bob"] {
        store
            .players()
            .put_profile(
                &PlayerId::parse(p).expect("a player id"),
                p,
                None,
                Timestamp::now(),
            )
            .await
            .unwrap_or_else(|e| panic!("profile {p}: {e}"));
    }
}

/// What one more invocation of `f` needs: season close gets a fresh due board (ended a minute
/// ago) to close; the others need nothing more.
pub async fn before_invocation(store: &Store, f: Function, n: usize) {
    if f == Function::SeasonClose {
        let now = now_ms();
        board(
            store,
            &format!("due_{n:05}"),
            now - 7_200_000,
            now - 60_000,
            CLOSE_ENTRIES,
        )
        .await;
    }
}
