//! The demo the run command seeds, over the HTTP API only (as games would): a season board and
//! today's daily board, a few hundred players, a few thousand plays posted to both boards (with
//! a progress bar on stderr; each play's `metadata` names the character played), then the top 10
//! with names and characters from the listing itself, one player's rank and profile (once the
//! stream projector has counted their plays), and ready-to-paste curl commands with signed
//! tokens.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use chrono::{DateTime, Days, SecondsFormat, Utc};
use futures::StreamExt;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};

use crate::Error;
use crate::client::{ApiClient, ApiResponse};
use crate::stack::Stack;
use http::Method;
use leaderboard_keys::time::Timestamp;

/// The player the demo follows (and the player token's `sub`).
pub const DEMO_PLAYER: &str = "p_demo";
/// The demo player's address, which their token proves.
pub const DEMO_EMAIL: &str = "demo@example.com";
/// The admin token's `sub`.
pub const DEMO_ADMIN: &str = "admin_demo";
/// The demo's game.
pub const DEMO_GAME: &str = "starfall";
/// The season board.
pub const SEASON_BOARD: &str = "season_1";

/// How big the demo is.
#[derive(Debug, Clone, Copy)]
pub struct DemoSize {
    /// Players, the demo player included.
    pub players: usize,
    /// Plays, each posted to both boards.
    pub plays: usize,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// The random seed (the same seed makes the same players and scores).
    pub seed: u64,
}

impl Default for DemoSize {
    fn default() -> Self {
        DemoSize {
            players: 300,
            plays: 3000,
            concurrency: 8,
            seed: 2026,
        }
    }
}

const ADJECTIVES: &[&str] = &[
    "swift", "brave", "quiet", "lucky", "fierce", "clever", "sleepy", "cosmic", "golden", "rusty",
    "silent", "wild", "frozen", "mighty", "tiny", "electric", "shadow", "crimson", "neon", "noble",
];
const NOUNS: &[&str] = &[
    "otter", "falcon", "comet", "badger", "ninja", "pixel", "wizard", "panda", "rocket", "fox",
    "golem", "viking", "dragon", "koala", "raven", "tiger", "yeti", "sparrow", "kraken", "llama",
];

/// The demo player's line: the rank as the API answered it, out of the board's own count
/// (`playerCount`: the players who played the board, not every player the demo made).
fn rank_line(rank: &Value) -> String {
    format!(
        "{DEMO_PLAYER} on {SEASON_BOARD}: rank {} of {} (top {} %), best score {}",
        rank["rank"], rank["playerCount"], rank["topPercent"], rank["score"]
    )
}

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn expect(resp: ApiResponse, what: &str, ok: &[u16]) -> Result<Value, Error> {
    if ok.contains(&resp.status) {
        Ok(resp.body)
    } else {
        Err(Error::Http(format!(
            "{what}: {} {}",
            resp.status, resp.body
        )))
    }
}

/// The characters a demo play is played with: each play's `metadata` names one, and the
/// listings show it beside the entry.
const CHARACTERS: [&str; 4] = ["knight", "ranger", "mage", "rogue"];

/// One play to post.
struct Play {
    player: usize,
    score: u64,
    duration: u64,
    character: &'static str,
}

/// A progress bar on stderr: redrawn in place on a terminal, a line per quarter otherwise.
struct Progress {
    total: usize,
    done: usize,
    started: Instant,
    tty: bool,
    last_quarter: usize,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress {
            total,
            done: 0,
            started: Instant::now(),
            tty: std::io::stderr().is_terminal(),
            last_quarter: 0,
        }
    }

    fn tick(&mut self) {
        self.done += 1;
        let quarter = self.done * 4 / self.total.max(1);
        if self.tty && (self.done.is_multiple_of(10) || self.done == self.total) {
            let width = 30;
            let filled = self.done * width / self.total.max(1);
            let rate = self.done as f64 / self.started.elapsed().as_secs_f64().max(0.001);
            eprint!(
                "\r  plays [{}{}] {:>5}/{} {:>5.0}/s",
                "#".repeat(filled),
                "-".repeat(width - filled),
                self.done,
                self.total,
                rate
            );
            if self.done == self.total {
                eprintln!();
            }
        } else if !self.tty && quarter > self.last_quarter {
            self.last_quarter = quarter;
            eprintln!("  plays {}/{} ({}%)", self.done, self.total, quarter * 25);
        }
    }
}

/// Seeds the demo on `stack` and prints what it made to `out`.
pub async fn run(stack: &Stack, size: DemoSize, out: &mut impl Write) -> Result<(), Error> {
    let api = ApiClient::new(stack.api_addr());
    let key = stack.key();
    let now = Utc::now();
    let admin = key.token_for(DEMO_ADMIN, &["admin"], now.timestamp(), 24 * 3600);
    let mut rng = StdRng::seed_from_u64(size.seed);

    // The boards: a season board, and today's daily board (rolls over at midnight UTC).
    let today = now.date_naive();
    let midnight = today.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
    let daily = format!("daily_{today}");
    let boards = [
        json!({
            "leaderboardId": SEASON_BOARD, "name": "Season 1", "order": "desc",
            "operator": "best", "recurrence": "season", "gameId": DEMO_GAME,
            "startsAt": rfc3339(midnight),
            "endsAt": rfc3339(midnight + Days::new(30)),
        }),
        json!({
            "leaderboardId": daily, "name": format!("Daily {today}"), "order": "desc",
            "operator": "best", "recurrence": "daily", "gameId": DEMO_GAME,
            "startsAt": rfc3339(midnight),
            "endsAt": rfc3339(midnight + Days::new(1)),
        }),
    ];
    for board in &boards {
        // A retry after a 503 whose first attempt was saved is 409: the board is there.
        let resp = api
            .retrying(Method::POST, "/leaderboards", Some(&admin), Some(board))
            .await?;
        expect(resp, "create board", &[201, 409])?;
    }
    eprintln!(
        "seeding the demo: boards {SEASON_BOARD} and {daily}, {} players, {} plays",
        size.players, size.plays
    );

    // The players, each with a skill that sets their typical score.
    let players: Vec<(String, String, f64)> = (0..size.players.max(1))
        .map(|i| {
            let (id, name) = if i == 0 {
                (DEMO_PLAYER.to_owned(), "demo_player".to_owned())
            } else {
                let a = ADJECTIVES[rng.random_range(0..ADJECTIVES.len())];
                let n = NOUNS[rng.random_range(0..NOUNS.len())];
                (
                    format!("p_{i:04}"),
                    format!("{a}_{n}_{}", rng.random_range(1..100)),
                )
            };
            (id, name, rng.random_range(0.3..1.0))
        })
        .collect();
    // The demo player's token proves their address, as an ID token of a provider that
    // verified it does (PUT /players/me takes no other).
    let tokens: HashMap<&str, String> = players
        .iter()
        .map(|(id, _, _)| {
            let token = match id == DEMO_PLAYER {
                true => key.token_proving(id, DEMO_EMAIL, now.timestamp(), 3600),
                false => key.token_for(id, &[], now.timestamp(), 3600),
            };
            (id.as_str(), token)
        })
        .collect();
    let profiles: Vec<Result<ApiResponse, Error>> = futures::stream::iter(&players)
        .map(|(id, name, _)| {
            let mut body = json!({"name": name});
            if id == DEMO_PLAYER {
                body["email"] = json!(DEMO_EMAIL);
            }
            let token = tokens[id.as_str()].clone();
            async move {
                api.retrying(Method::PUT, "/players/me", Some(&token), Some(&body))
                    .await
            }
        })
        .buffer_unordered(size.concurrency)
        .collect()
        .await;
    for p in profiles {
        expect(p?, "create player", &[200])?;
    }

    // The plays: active players play more; the demo player plays a dozen times.
    let activity: Vec<f64> = players.iter().map(|_| rng.random_range(0.2..3.0)).collect();
    let total: f64 = activity.iter().sum();
    let demo_plays = 12.min(size.plays);
    let plays: Vec<Play> = (0..size.plays)
        .map(|i| {
            let player = if i < demo_plays {
                0
            } else {
                let mut pick = rng.random_range(0.0..total);
                activity
                    .iter()
                    .position(|a| {
                        pick -= a;
                        pick <= 0.0
                    })
                    .unwrap_or(players.len() - 1)
            };
            let skill = players[player].2;
            let luck: f64 = rng.random_range(0.4..1.0);
            Play {
                player,
                score: (skill * luck * 100_000.0) as u64,
                duration: rng.random_range(60..900),
                character: CHARACTERS[rng.random_range(0..CHARACTERS.len())],
            }
        })
        .collect();
    let demo_count = plays.iter().filter(|p| p.player == 0).count();
    let mut progress = Progress::new(plays.len());
    let mut refused = 0usize;
    let board_ids = json!([SEASON_BOARD, daily]);
    let mut results = futures::stream::iter(&plays)
        .map(|play| {
            let token = &tokens[players[play.player].0.as_str()];
            // The sessionId is made once: a retry after a 503 resends it, so a play that was
            // saved before its answer was lost is answered as a duplicate, not counted again.
            let session = leaderboard_store::new_session_id(Timestamp::now())
                .map(|id| id.to_string())
                .map_err(|e| Error::Config(e.to_string()));
            let body = session.map(|session| {
                json!({
                    "score": play.score, "gameId": DEMO_GAME, "sessionId": session,
                    "leaderboardIds": board_ids, "durationSec": play.duration,
                    "metadata": {"character": play.character},
                })
            });
            async move {
                api.retrying(Method::POST, "/sessions", Some(token), Some(&body?))
                    .await
            }
        })
        .buffer_unordered(size.concurrency);
    while let Some(result) = results.next().await {
        let resp = result?;
        match resp.status {
            200 => {}
            // The daily board can end while the demo seeds (just before midnight UTC).
            409 => refused += 1,
            _ => {
                return Err(Error::Http(format!(
                    "post a play: {} {}",
                    resp.status, resp.body
                )));
            }
        }
        progress.tick();
    }
    drop(results);
    if refused > 0 {
        eprintln!("  {refused} plays refused (a board closed while seeding)");
    }

    // The projector counts plays from the stream: wait until it has counted the demo player's.
    let deadline = Instant::now() + Duration::from_secs(60);
    let profile = loop {
        let p = expect(
            api.retrying(Method::GET, &format!("/players/{DEMO_PLAYER}"), None, None)
                .await?,
            "profile",
            &[200],
        )?;
        if p["gamesPlayed"].as_u64() == Some(demo_count as u64) || Instant::now() > deadline {
            break p;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };

    // Reads retry as the plays do: a loaded machine can time any request out.
    let top_path = format!("/leaderboards/{SEASON_BOARD}/scores?limit=10");
    let top = expect(
        api.retrying(Method::GET, &top_path, None, None).await?,
        "top 10",
        &[200],
    )?;
    let rank_path = format!("/leaderboards/{SEASON_BOARD}/players/{DEMO_PLAYER}");
    let rank = expect(
        api.retrying(Method::GET, &rank_path, None, None).await?,
        "rank",
        &[200],
    )?;
    let base = stack.api_url();
    let player_token = key.token_for(DEMO_PLAYER, &[], now.timestamp(), 24 * 3600);

    writeln!(out)?;
    writeln!(out, "Top 10 of {SEASON_BOARD} (Season 1):")?;
    // Each entry carries its name and its play's metadata: no request per row.
    for e in top["entries"].as_array().into_iter().flatten() {
        writeln!(
            out,
            "  {:>3}. {:<24} {:<10} {:>7}  {}",
            e["rank"].as_u64().unwrap_or_default(),
            e["name"].as_str().unwrap_or("?"),
            e["playerId"].as_str().unwrap_or("?"),
            e["score"].as_u64().unwrap_or_default(),
            e["metadata"]["character"].as_str().unwrap_or("")
        )?;
    }
    writeln!(out)?;
    writeln!(out, "{}", rank_line(&rank))?;
    writeln!(
        out,
        "{DEMO_PLAYER}'s profile (lifetimeScore and gamesPlayed come from the stream projector):"
    )?;
    writeln!(out, "  {profile}")?;
    writeln!(out)?;
    writeln!(
        out,
        "Try it (a score for {DEMO_PLAYER}, with a signed token valid for 24 h):"
    )?;
    writeln!(
        out,
        "  curl -s -X POST {base}/leaderboards/{SEASON_BOARD}/scores -H 'authorization: Bearer {player_token}' -H 'content-type: application/json' -d '{{\"score\": 99000, \"gameId\": \"{DEMO_GAME}\", \"metadata\": {{\"character\": \"mage\"}}}}'"
    )?;
    writeln!(
        out,
        "More (with TOKEN and ADMIN exported as printed above):"
    )?;
    writeln!(
        out,
        "  curl -s '{base}/leaderboards/{SEASON_BOARD}/players/{DEMO_PLAYER}/around?n=2'"
    )?;
    writeln!(out, "  curl -s {base}/players/{DEMO_PLAYER}")?;
    writeln!(
        out,
        "  curl -s '{base}/admin/players?email={DEMO_EMAIL}' -H \"authorization: Bearer $ADMIN\""
    )?;
    writeln!(out, "  curl -s -X POST {base}/local/schedule/season-close")?;
    writeln!(
        out,
        "  curl -s {base}/local/events   # BoardClosed, NewLeader"
    )?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rank_line_is_the_apis_count_and_share() {
        let rank = serde_json::json!({"rank": 184, "playerCount": 295, "topPercent": 62.38,
                                      "score": 57065, "rankExact": true});
        assert_eq!(
            rank_line(&rank),
            format!(
                "{DEMO_PLAYER} on {SEASON_BOARD}: rank 184 of 295 (top 62.38 %), best score 57065"
            )
        );
    }
}
