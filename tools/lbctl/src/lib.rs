//! `lbctl`, the operator's tool: see a board as the table holds it. It talks to the table as
//! the functions do (`TABLE_NAME`, the SDK's region, profile and `AWS_ENDPOINT_URL`), through the
//! store and key crates, so it holds no second copy of a key rule.
//!
//! Each command is a module: [`boards`] (the boards, newest first), [`browse`] (entries in key
//! order, keys decoded), [`explain`] (a key taken apart), [`expr`] (an access pattern's exact
//! Query), [`export`] (standings as CSV or JSON), [`stats`] (a board's shape from its rank
//! index), [`verify`] (a board's invariants checked, and repaired on request), [`replay`] (the
//! dead-letter queue's stream batches applied again), [`moderate`] (ban, unban, remove, erase,
//! audit), [`recount`] (a player's totals, or every player's), [`widen`] (a live board to a
//! larger maxScore). `--json` prints one JSON document for scripts; [`error`] lists the exit
//! codes.

pub mod admin;
pub mod boards;
pub mod browse;
pub mod connect;
pub mod create_board;
mod ctl;
pub mod error;
pub mod explain;
pub mod export;
pub mod expr;
mod expr_cmd;
pub mod leagues;
pub mod moderate;
pub mod recount;
mod render;
pub mod replay;
pub mod stats;
pub mod verify;
pub mod verify_index;
pub mod verify_report;
pub mod verify_totals;
pub mod widen;

use std::io::Write;

use clap::{Args, Parser, Subcommand, ValueEnum};
use leaderboard_keys::ids::{BoardId, PlayerId, TierName};
use leaderboard_keys::rank::Order;

pub use connect::Connection;
pub use ctl::Ctl;
pub use error::{CtlError, CtlResult};

const EXAMPLES: &str = "\
Examples (the local stack: bash scripts/run prints its table and endpoint):
  export TABLE_NAME=leaderboard AWS_ENDPOINT_URL=http://127.0.0.1:8000
  lbctl explain 'LEADERBOARD#season_1 SCORE#0000009850#8280899199999#p_bob'
  lbctl explain 0x706f7374010904d200201a  (a StatelyDB key path)
  lbctl expr top season_1 --limit 10 > top.json
  aws dynamodb query --cli-input-json file://top.json

Exit codes: 0 done; 1 the table could not be read or the output written; 2 a wrong
command line or argument; 3 no such board, player or entry; 4 verify found problems; 141 the output closed early
(a pipe into head).";

/// The command line.
#[derive(Parser, Debug)]
#[command(name = "lbctl", version, about = "See a leaderboard's boards as the table holds them", after_help = EXAMPLES)]
pub struct Cli {
    /// Where the table is.
    #[command(flatten)]
    pub connection: Connection,
    /// Print one JSON document, for scripts, instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// What `lbctl boards` does besides listing.
#[derive(Subcommand, Debug)]
pub enum BoardsCommand {
    /// Create a board with the fields of `POST /leaderboards` (the same checks, the same
    /// defaults): the first board of a fresh deployment from a terminal.
    #[command(
        after_help = "Examples:\n  lbctl boards create season_1 --name 'Season 1' --game chess --ends-at 2027-03-01T00:00:00Z --recurrence season\n  lbctl boards create daily_2026-12-01 --name Daily --recurrence daily --ends-at 2026-12-02T00:00:00Z\n  lbctl boards create cup_1 --name Cup --cron '0 18 * * FRI' --timezone Europe/Berlin --join-required --max-entrants 64 --max-attempts 3 --reward 1=gold --reward 2-10=silver --reward 10%=badge\n  lbctl boards create coins --name Coins --operator increment --max-score 1000000\n  lbctl boards create cup --body @cup.json"
    )]
    Create(Box<create_board::CreateArgs>),
}

/// `lbctl leagues`.
#[derive(Subcommand, Debug)]
pub enum LeaguesCommand {
    /// A league period's cohorts, tier by tier in the order they opened, with their players.
    #[command(
        after_help = "Examples:\n  lbctl leagues cohorts weekly_2026-w48\n  lbctl leagues cohorts weekly_2026-w48 --tier gold --json"
    )]
    Cohorts {
        /// The league board (one period).
        board: String,
        /// Only this tier's cohorts.
        #[arg(long)]
        tier: Option<String>,
        /// The most cohorts shown.
        #[arg(long, default_value_t = 100)]
        limit: usize,
    },
    /// A player's tier history in a league's series: each period they played, newest first,
    /// its cohort and tier, and where its end moved them.
    #[command(after_help = "Examples:\n  lbctl leagues player p_ann weekly_2026-w48")]
    Player {
        /// The player.
        player: String,
        /// Any league board of the series.
        board: String,
    },
}

/// `lbctl admin`.
#[derive(Subcommand, Debug)]
pub enum AdminCommand {
    /// Create an admin: a user of the stack's pool (or one that exists) in the `admin` group,
    /// with the password given, or a temporary one Cognito emails. Run again, it changes
    /// nothing but the password given.
    #[command(
        after_help = "Examples:\n  lbctl admin create ops@studio.example --user-pool-id eu-west-1_AbC --password-file - < pw\n  LBCTL_USER_POOL_ID=eu-west-1_AbC lbctl admin create ops@studio.example"
    )]
    Create(Box<admin::CreateAdminArgs>),
}

/// The commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// The boards, newest first: every board, or one series' (its own partition), filtered by
    /// status and game.
    #[command(
        after_help = "Examples:\n  lbctl boards\n  lbctl boards --open --series daily --limit 1\n  lbctl boards --closed --game tetris --json"
    )]
    #[command(args_conflicts_with_subcommands = true)]
    Boards {
        /// Create a board instead of listing them.
        #[command(subcommand)]
        create: Option<BoardsCommand>,
        /// Only open boards (those past their end too, until their close begins).
        #[arg(long, conflicts_with = "closed")]
        open: bool,
        /// Only closed boards.
        #[arg(long)]
        closed: bool,
        /// Only this game's boards.
        #[arg(long)]
        game: Option<String>,
        /// Only this series' boards (`daily` for daily_2026-11-26 and its successors).
        #[arg(long)]
        series: Option<String>,
        /// The most boards shown.
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
    /// Leagues: a period's cohorts, a player's tier history.
    #[command(subcommand)]
    Leagues(LeaguesCommand),
    /// Take keys apart: the item each names and its parts decoded (the table's keys, the GSIs',
    /// the rank index's, or a StatelyDB key path in hex). Needs no table.
    #[command(
        after_help = "Examples:\n  lbctl explain 'LEADERBOARD#season_1 SCORE#0000009850#8280899199999#p_bob'\n  lbctl explain 'PLAYER#p_bob ENTRY#season_1' 'RANKV2#season_1 #ROOT'\n  lbctl explain SCORE#150#8280899199999#p_ann --order asc --max-score 999\n  lbctl explain 0x706f7374010904d200201a"
    )]
    Explain(ExplainArgs),
    /// Print the exact Query of an access pattern, ready for `aws dynamodb query
    /// --cli-input-json file://q.json`.
    #[command(
        after_help = "Examples:\n  lbctl expr top season_1 --limit 10\n  lbctl expr rank season_1 p_bob\n  lbctl expr around season_1 p_bob --n 3 --side above\n  lbctl expr between season_1 1000 2000\n  lbctl expr prefix 'PLAYER#p_bob' 'RESULT#'"
    )]
    Expr {
        /// The access pattern.
        #[command(subcommand)]
        pattern: Pattern,
    },
    /// A board's entries in key order from a rank: each stored sort key beside its padded
    /// score and inverted time decoded (a closed board's final standings after close). A key
    /// that disagrees with its item is flagged with `!`.
    #[command(
        after_help = "Examples:\n  lbctl browse season_1\n  lbctl browse season_1 --from 1000 --limit 50\n\nFrom rank R past 1,000 on a live board, its rank index finds R's group when it has applied every change (at most 9 reads); else the R - 1 keys above are read first (key-only Queries of 1 MB)."
    )]
    Browse {
        /// The board.
        board: String,
        /// The first rank shown.
        #[arg(long, default_value_t = 1)]
        from: u64,
        /// How many entries (1 to 1000).
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// A board's standings, live or (after close) final, as CSV or JSON: the API's entries,
    /// read 1,000 a page and written as they come.
    #[command(
        after_help = "Examples:\n  lbctl export season_1 --out season_1.csv\n  lbctl export season_1 --format json > season_1.json"
    )]
    Export {
        /// The board.
        board: String,
        /// The format.
        #[arg(long, value_enum, default_value_t)]
        format: export::Format,
        /// A file to write (stdout without it; a progress bar shows on the terminal with it).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
    },
    /// Admins of the stack's user pool (Cognito, with the operator's AWS credentials).
    #[command(subcommand)]
    Admin(AdminCommand),
    /// An admin's token, for `authorization: Bearer` on the admin routes: the user signed in
    /// with its password through Cognito's admin flow.
    #[command(
        after_help = "Examples:\n  lbctl token --user ops@studio.example --user-pool-id eu-west-1_AbC --client-id 1h2j3k --password-file - < pw\n  curl -H \"authorization: Bearer $(lbctl token --user ops@studio.example --password-file pw)\" $API/admin/leaderboards/season_1/stats"
    )]
    Token(Box<admin::TokenArgs>),
    /// Moderation: ban, unban, remove, erase, audit.
    #[command(flatten)]
    Moderation(moderate::Moderation),
    /// Recount players' lifetimeScore and gamesPlayed from their sessions: one player, or all
    /// of them (resumable). Needs the stack's ERASURE_SECRET (erased players are passed over).
    #[command(
        after_help = "Examples:\n  lbctl recount p_bob\n  lbctl recount --all --by ops_alice"
    )]
    Recount {
        /// The player.
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        player: Option<String>,
        /// Every player.
        #[arg(long)]
        all: bool,
        /// The operator asking (for --all).
        #[arg(long, env = "LBCTL_OPERATOR", required_if_eq("all", "true"))]
        by: Option<String>,
    },
    /// Check live boards' invariants (each Score item's key agrees with it and is its
    /// player's entry; the rank index's counters equal the entries, its watermarks the lanes')
    /// and players' totals against their sessions; --repair fixes what is safely fixable.
    /// Exit code 4 when something is wrong (and left).
    #[command(
        after_help = "Examples:\n  lbctl verify season_1\n  lbctl verify --all --repair\n  lbctl verify --player p_bob --repair\n  lbctl verify season_1 --totals"
    )]
    Verify(verify::VerifyArgs),
    /// Re-deliver the stream batches the projector gave up on (its dead-letter queue's
    /// messages) to the projection, each session counted once; each message is deleted once
    /// applied, and one that still fails stays, with the reason. Needs the stack's
    /// ERASURE_SECRET. Exit code 4 when messages are left.
    #[command(
        after_help = "Examples:\n  lbctl replay-dlq --queue https://sqs.eu-west-1.amazonaws.com/123456789012/leaderboard-ProjectorFailures-1A2B --dry-run\n  LBCTL_DLQ_URL=... lbctl replay-dlq"
    )]
    ReplayDlq(replay::ReplayArgs),
    /// A board's shape: entries, score percentiles and the score distribution, read from the
    /// rank index's upper levels in a bounded number of requests (never a scan of the board).
    #[command(
        after_help = "Examples:\n  lbctl stats season_1\n  lbctl stats season_1 --rows 10 --json"
    )]
    Stats {
        /// The board.
        board: String,
        /// The histogram's most bars.
        #[arg(long, default_value_t = 20)]
        rows: usize,
    },
    /// Move a live board to a larger maxScore, or a tiebreak column to a larger max, while
    /// plays go on (its entries and rank index re-keyed at the new widths, switched at once);
    /// resumable: run it again to go on.
    #[command(
        after_help = "Examples:\n  lbctl widen season_1 --max-score 99999999999 --dry-run\n  lbctl widen season_1 --max-score 99999999999\n  lbctl widen race_1 --column time=99999999"
    )]
    Widen(widen::WidenArgs),
}

/// A board's order, on the command line.
#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum OrderArg {
    /// Higher is better.
    Desc,
    /// Lower is better.
    Asc,
}

impl From<OrderArg> for Order {
    fn from(o: OrderArg) -> Order {
        match o {
            OrderArg::Desc => Order::Desc,
            OrderArg::Asc => Order::Asc,
        }
    }
}

/// `explain`'s arguments.
#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// Keys: "<pk> <sk>" (quoted, or as two arguments), a Score sort key alone, or 0x<hex> for
    /// a key path.
    #[arg(required = true)]
    pub keys: Vec<String>,
    /// The order of the board a Score key is on (read as desc without it).
    #[arg(long)]
    pub order: Option<OrderArg>,
    /// The maxScore of the board a Score key is on (the width of its digits without it).
    #[arg(long)]
    pub max_score: Option<u64>,
}

/// Which of the around window's two Queries.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The entries just above the player.
    Above,
    /// The player's own and the entries just below.
    Below,
}

/// `expr`'s access patterns.
#[derive(Subcommand, Debug)]
pub enum Pattern {
    /// Top-N: the board's entries in rank order.
    Top {
        /// The board.
        board: String,
        /// How many.
        #[arg(long, default_value_t = 100)]
        limit: u32,
    },
    /// The count a player's rank is made of on a board not on the rank index (rank = Count +
    /// 1). Reads the player's entry pointer unless --sort-key is given.
    Rank {
        /// The board.
        board: String,
        /// The player.
        player: String,
        /// The player's Score sort key, instead of reading it.
        #[arg(long)]
        sort_key: Option<String>,
    },
    /// The around window: the n entries above the player, and the player's and n below.
    Around {
        /// The board.
        board: String,
        /// The player.
        player: String,
        /// Entries on each side.
        #[arg(long, default_value_t = 5)]
        n: u32,
        /// One of the two Queries only (both, as one JSON object, without it).
        #[arg(long)]
        side: Option<Side>,
        /// The player's Score sort key, instead of reading it.
        #[arg(long)]
        sort_key: Option<String>,
    },
    /// The entries scoring between two scores (inclusive), in rank order. Reads the board's
    /// order and maxScore unless both are given.
    Between {
        /// The board.
        board: String,
        /// One end of the score range.
        from: u64,
        /// The other end.
        to: u64,
        /// The board's order, instead of reading it.
        #[arg(long)]
        order: Option<OrderArg>,
        /// The board's maxScore, instead of reading it.
        #[arg(long)]
        max_score: Option<u64>,
    },
    /// Any partition's items whose sort key starts with a prefix, descending.
    Prefix {
        /// The partition key.
        pk: String,
        /// The sort key prefix.
        prefix: String,
        /// A page size.
        #[arg(long)]
        limit: Option<u32>,
    },
}

/// Parses `args` (without the program's name) and runs the command against `ctl`'s table:
/// what tests call.
pub async fn run_args<I, S>(ctl: &Ctl, args: I, out: &mut dyn Write) -> CtlResult
where
    I: IntoIterator<Item = S>,
    S: Into<std::ffi::OsString> + Clone,
{
    let argv = std::iter::once("lbctl".into()).chain(args.into_iter().map(Into::into));
    let cli = Cli::try_parse_from(argv).map_err(|e| CtlError::Usage(e.to_string()))?;
    run(ctl, cli.command, out).await
}

/// Runs one command, writing its output to `out`.
pub async fn run(ctl: &Ctl, command: Command, out: &mut dyn Write) -> CtlResult {
    match command {
        Command::Explain(args) => {
            let hint = explain::BoardHint {
                order: args.order.map(Order::from),
                max_score: args.max_score,
            };
            let explained = explain::explain_all(&args.keys, hint)?;
            render::explained(out, &explained, ctl.json)
        }
        Command::Expr { pattern } => {
            let doc = expr_cmd::expr_doc(ctl, pattern).await?;
            render::json_doc(out, &doc, ctl.json)
        }
        Command::Browse { board, from, limit } => {
            if !(1..=leaderboard_store::MAX_PAGE_SIZE).contains(&limit) {
                return Err(CtlError::Usage("--limit must be 1 to 1000".into()));
            }
            let (board, rows) =
                browse::rows(ctl.store().await?, &BoardId::parse(&board)?, from, limit).await?;
            browse::write(out, &board, &rows, ctl.json)
        }
        Command::Boards {
            create: Some(BoardsCommand::Create(args)),
            ..
        } => {
            let board = create_board::create(ctl.store().await?, &args).await?;
            create_board::write(out, &board, ctl.json)
        }
        Command::Boards {
            create: None,
            open,
            closed,
            game,
            series,
            limit,
        } => {
            use leaderboard_keys::ids::{GameId, SeriesId};
            let filter = boards::Filter {
                status: match (open, closed) {
                    (true, _) => Some(leaderboard_store::model::BoardStatus::Open),
                    (_, true) => Some(leaderboard_store::model::BoardStatus::Closed),
                    _ => None,
                },
                game: game.map(|g| GameId::parse(&g)).transpose()?,
                series: series.map(|s| SeriesId::parse(&s)).transpose()?,
            };
            let (found, _) = boards::boards(ctl.store().await?, &filter, limit).await?;
            let now = leaderboard_keys::time::Timestamp::now();
            boards::write(out, &found, now, ctl.json)
        }
        Command::Leagues(LeaguesCommand::Cohorts { board, tier, limit }) => {
            let tier = tier.map(|t| TierName::parse(&t)).transpose()?;
            let found = leagues::cohorts(
                ctl.store().await?,
                &BoardId::parse(&board)?,
                tier.as_ref(),
                limit,
            )
            .await?;
            leagues::write_cohorts(out, &found, ctl.json)
        }
        Command::Leagues(LeaguesCommand::Player { player, board }) => {
            let (player, board) = (PlayerId::parse(&player)?, BoardId::parse(&board)?);
            let found = leagues::history(ctl.store().await?, &player, &board).await?;
            leagues::write_history(out, &found, ctl.json)
        }
        Command::Admin(AdminCommand::Create(args)) => {
            admin::create_admin(ctl.sdk_elsewhere().await?, &args, out, ctl.json).await
        }
        Command::Token(args) => {
            admin::token(ctl.sdk_elsewhere().await?, &args, out, ctl.json).await
        }
        Command::Moderation(command) => {
            let store = ctl.moderation_store().await?;
            moderate::run(&store, command, out, ctl.json).await
        }
        // clap allows a player or `--all`, and `--by` with `--all`.
        Command::Recount { player, by, .. } => {
            let store = ctl.moderation_store().await?;
            match player {
                Some(p) => recount::player(&store, &p, out, ctl.json).await,
                None => {
                    recount::all(&store, by.as_deref().unwrap_or_default(), out, ctl.json).await
                }
            }
        }
        Command::Verify(args) => {
            // A repair writes what the erasure markers guard: the stack's secret names them.
            let store = match args.repair {
                true => ctl.moderation_store().await?,
                false => ctl.store().await?.clone(),
            };
            verify::run(&store, args, out, ctl.json).await
        }
        Command::ReplayDlq(args) => {
            let store = ctl.moderation_store().await?;
            replay::run(&store, ctl.sdk().await?, args, out, ctl.json).await
        }
        Command::Widen(args) => widen::run(ctl.store().await?, args, out, ctl.json).await,
        Command::Stats { board, rows } => {
            let (board, stats) = stats::stats(ctl.store().await?, &BoardId::parse(&board)?).await?;
            stats::write(out, &board, &stats, rows, ctl.json)
        }
        Command::Export {
            board,
            format,
            out: file,
        } => {
            let board = BoardId::parse(&board)?;
            let store = ctl.store().await?;
            let Some(path) = file else {
                export::export(store, &board, format, out, false).await?;
                return Ok(());
            };
            let f = std::fs::File::create(&path)
                .map_err(|e| CtlError::Failed(format!("cannot create {}: {e}", path.display())))?;
            let mut w = std::io::BufWriter::new(f);
            let n = export::export(store, &board, format, &mut w, true).await?;
            w.flush()?;
            let doc = serde_json::json!({"leaderboardId": board, "entries": n, "out": path});
            if ctl.json {
                render::json_doc(out, &doc, true)
            } else {
                writeln!(out, "{n} entries of {board} written to {}", path.display())?;
                Ok(())
            }
        }
    }
}
