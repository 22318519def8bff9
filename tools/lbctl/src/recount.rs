//! `lbctl recount`: players' `lifetimeScore` and `gamesPlayed` recounted from their sessions,
//! the store's own recount (as `POST /admin/recount` and the schedule run it): one player, read
//! page by page to the end, or every player, asked for and then run here to the end (resumable:
//! stopped, the schedule or the next `recount --all` goes on from its checkpoint).

use std::io::Write;

use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::{Recount, RecountOutcome, RecountPages, RecountRunOptions, Store};

use crate::error::{CtlError, CtlResult};
use crate::render;

/// Recounts one player's totals; a player who played within the last minutes is `Busy` (a
/// play may still be committing): asked again after the time said.
pub async fn player(store: &Store, player: &str, out: &mut dyn Write, json: bool) -> CtlResult {
    let player = PlayerId::parse(player)?;
    let (lifetime_score, games_played) = to_the_end(store, &player).await?;
    let doc = serde_json::json!({"playerId": player, "lifetimeScore": lifetime_score,
        "gamesPlayed": games_played});
    render::json_doc(out, &doc, json)
}

/// Recounts `player`'s totals, page by page to the end: the totals written.
pub(crate) async fn to_the_end(store: &Store, player: &PlayerId) -> CtlResult<(u64, u64)> {
    let mut progress = Recount::start(player.clone(), Timestamp::now());
    loop {
        match store
            .projection()
            .recount_player(progress, RecountPages::default())
            .await?
        {
            RecountOutcome::Paused(next) => progress = next,
            RecountOutcome::Done {
                lifetime_score,
                games_played,
            } => return Ok((lifetime_score, games_played)),
            RecountOutcome::Busy(at) => {
                return Err(CtlError::Failed(format!(
                    "{player} played too recently for an exact recount; ask again after {at}"
                )));
            }
            RecountOutcome::Erased => {
                return Err(CtlError::NotFound(format!("{player} is erased")));
            }
        }
    }
}

/// Asks for a recount of every player (by `by`) and runs it here until it is over, another
/// run holds it, or a run makes no progress (players who played too recently): then the
/// schedule finishes it.
pub async fn all(store: &Store, by: &str, out: &mut dyn Write, json: bool) -> CtlResult {
    store
        .projection()
        .request_recount(by, Timestamp::now())
        .await?;
    let options = RecountRunOptions::default();
    let (mut recounted, mut erased, mut runs) = (0u64, 0u64, 0u32);
    let done = loop {
        let run = store.projection().run_recount(&options, None).await?;
        runs += 1;
        recounted += u64::from(run.recounted);
        erased += u64::from(run.erased);
        // Over, held by another run, or waiting on players who played too recently: the
        // schedule (or a later `recount --all`) goes on from the checkpoint.
        if run.done || run.idle || (run.pages == 0 && run.recounted == 0) {
            break run.done;
        }
    };
    let doc = serde_json::json!({"recounted": recounted, "erased": erased, "runs": runs,
        "done": done});
    render::json_doc(out, &doc, json)
}
