//! `lbctl boards create`: a board from a terminal, with the fields and the checks of
//! `POST /leaderboards`. The flags are the API body's fields (or `--body` gives the body
//! whole); the body is read as the API reads it (unknown fields refused, the same defaults),
//! and the store creates the board as the API does: one conditional write, refused with
//! nothing written when the board exists or a field is not valid.

use std::io::Write;

use clap::Args;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::model::{Board, NewBoard};
use leaderboard_store::{Store, StoreError};
use serde_json::{Map, Value, json};

use crate::error::{CtlError, CtlResult};
use crate::render;

/// The board to create: `POST /leaderboards`'s fields.
#[derive(Args, Debug, Clone, Default)]
pub struct CreateArgs {
    /// The board's id (`leaderboardId`).
    pub board: String,
    /// Its display name (`name`; required unless `--body` gives it).
    #[arg(long)]
    pub name: Option<String>,
    /// `desc` (higher is better, the default) or `asc`.
    #[arg(long)]
    pub order: Option<String>,
    /// `best` (the default), `latest` or `increment`.
    #[arg(long)]
    pub operator: Option<String>,
    /// The largest score taken (default 9999999999, at most 10^18-1).
    #[arg(long)]
    pub max_score: Option<u64>,
    /// The smallest score taken (default 0).
    #[arg(long)]
    pub min_score: Option<u64>,
    /// The shortest play taken, in seconds (`minDurationSec`).
    #[arg(long)]
    pub min_duration_sec: Option<u64>,
    /// When plays start being taken (RFC 3339; default: now).
    #[arg(long)]
    pub starts_at: Option<String>,
    /// When the board ends (RFC 3339): season close snapshots it after.
    #[arg(long)]
    pub ends_at: Option<String>,
    /// `none` (the default), `daily`, `weekly`, `season` or `monthly`.
    #[arg(long, conflicts_with = "cron")]
    pub recurrence: Option<String>,
    /// Recur at each match of this five-field cron expression (with `--timezone`).
    #[arg(long, requires = "timezone")]
    pub cron: Option<String>,
    /// The IANA zone `--cron` is read in (`Europe/Berlin`, `UTC`).
    #[arg(long, requires = "cron")]
    pub timezone: Option<String>,
    /// A player's plays count only after they joined (`joinRequired`).
    #[arg(long)]
    pub join_required: bool,
    /// The most players the board takes (`maxEntrants`).
    #[arg(long)]
    pub max_entrants: Option<u64>,
    /// The most accepted plays per player (`maxAttempts`).
    #[arg(long)]
    pub max_attempts: Option<u64>,
    /// A band of the close's rewards, repeated in order (the first that matches wins): `1=gold`
    /// (rank 1), `2-10=silver` (ranks 2 to 10), `10%=bronze` (the top 10%).
    #[arg(long = "reward", value_name = "RANKS=REWARD")]
    pub rewards: Vec<String>,
    /// Who posts plays: `players` (the default) or `servers`.
    #[arg(long)]
    pub writers: Option<String>,
    /// The game the board belongs to (`gameId`).
    #[arg(long)]
    pub game: Option<String>,
    /// The series of the board and its successors (`seriesId`; default: from the id).
    #[arg(long)]
    pub series: Option<String>,
    /// The partitions its scores are spread over (`writeShards`, 1 to 32; default 1).
    #[arg(long)]
    pub write_shards: Option<u8>,
    /// The request body whole, as JSON or `@file`: the flags above override its fields.
    #[arg(long)]
    pub body: Option<String>,
}

impl CreateArgs {
    /// The body `POST /leaderboards` would get.
    pub fn body(&self) -> CtlResult<Value> {
        let mut body = match &self.body {
            None => Map::new(),
            Some(text) => {
                let text = match text.strip_prefix('@') {
                    Some(path) => std::fs::read_to_string(path)
                        .map_err(|e| CtlError::Usage(format!("--body @{path}: {e}")))?,
                    None => text.clone(),
                };
                match serde_json::from_str(&text) {
                    Ok(Value::Object(map)) => map,
                    Ok(_) => return Err(CtlError::Usage("--body must be a JSON object".into())),
                    Err(e) => return Err(CtlError::Usage(format!("--body is not JSON: {e}"))),
                }
            }
        };
        let fields = [
            ("leaderboardId", Some(json!(self.board))),
            ("name", self.name.as_ref().map(|v| json!(v))),
            ("order", self.order.as_ref().map(|v| json!(v))),
            ("operator", self.operator.as_ref().map(|v| json!(v))),
            ("maxScore", self.max_score.map(|v| json!(v))),
            ("minScore", self.min_score.map(|v| json!(v))),
            ("minDurationSec", self.min_duration_sec.map(|v| json!(v))),
            ("startsAt", self.starts_at.as_ref().map(|v| json!(v))),
            ("endsAt", self.ends_at.as_ref().map(|v| json!(v))),
            ("recurrence", self.recurrence.as_ref().map(|v| json!(v))),
            (
                "recurrence",
                (self.cron.as_ref().zip(self.timezone.as_ref()))
                    .map(|(cron, zone)| json!({"cron": cron, "timezone": zone})),
            ),
            ("joinRequired", self.join_required.then_some(json!(true))),
            ("maxEntrants", self.max_entrants.map(|v| json!(v))),
            ("maxAttempts", self.max_attempts.map(|v| json!(v))),
            ("writers", self.writers.as_ref().map(|v| json!(v))),
            ("gameId", self.game.as_ref().map(|v| json!(v))),
            ("seriesId", self.series.as_ref().map(|v| json!(v))),
            ("writeShards", self.write_shards.map(|v| json!(v))),
            ("rewards", self.reward_bands()?),
        ];
        for (name, value) in fields {
            if let Some(value) = value {
                body.insert(name.to_owned(), value);
            }
        }
        Ok(Value::Object(body))
    }

    /// The `--reward` flags as `rewards` bands, or none.
    fn reward_bands(&self) -> CtlResult<Option<Value>> {
        if self.rewards.is_empty() {
            return Ok(None);
        }
        let bands = self.rewards.iter().map(|flag| reward_band(flag));
        Ok(Some(Value::Array(bands.collect::<CtlResult<_>>()?)))
    }
}

/// One `--reward` flag as a band: `1=gold`, `2-10=silver` or `10%=bronze` (the band's checks
/// are the API's, when the board is made).
fn reward_band(flag: &str) -> CtlResult<Value> {
    let bad = || {
        CtlError::Usage(format!(
            "--reward {flag}: give RANK=REWARD, FROM-TO=REWARD or PERCENT%=REWARD"
        ))
    };
    let (ranks, reward) = flag.rsplit_once('=').ok_or_else(bad)?;
    let number = |s: &str| s.trim().parse::<u64>().map_err(|_| bad());
    if let Some(percent) = ranks.strip_suffix('%') {
        let percent: f64 = percent.trim().parse().map_err(|_| bad())?;
        return Ok(json!({"topPercent": percent, "reward": reward}));
    }
    let (from, to) = match ranks.split_once('-') {
        Some((from, to)) => (number(from)?, number(to)?),
        None => (number(ranks)?, number(ranks)?),
    };
    Ok(json!({"ranks": [from, to], "reward": reward}))
}

/// Creates the board `args` describes, now. Refused (exit code 2, nothing written) for a body
/// the API would refuse or a board that exists.
pub async fn create(store: &Store, args: &CreateArgs) -> CtlResult<Board> {
    let new: NewBoard = serde_json::from_value(args.body()?)
        .map_err(|e| CtlError::Usage(format!("not a board: {e}")))?;
    match store.boards().create_board(new, Timestamp::now()).await {
        Err(e @ StoreError::AlreadyExists { .. }) => Err(CtlError::Usage(e.to_string())),
        other => Ok(other?),
    }
}

/// Writes the created board: one line, or the board as JSON.
pub fn write(out: &mut dyn Write, board: &Board, json: bool) -> CtlResult {
    if json {
        return render::json_doc(out, board, true);
    }
    let ends = board
        .ends_at
        .map(|e| format!(", ends {e}"))
        .unwrap_or_default();
    writeln!(
        out,
        "created {} ({}, series {}{ends})",
        board.board_id,
        board.name,
        board.series()
    )?;
    Ok(())
}
