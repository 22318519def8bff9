//! Players' totals in `lbctl verify`: a player's stored `lifetimeScore` and `gamesPlayed`
//! against their sessions' ([`Projection::check_totals`](leaderboard_store::Projection::check_totals), which writes nothing), and with
//! `--repair` the store's recount of them. A player who played in the last minutes cannot be
//! compared exactly (a play may still be on its way to the totals): a note says when to ask
//! again.

use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::time::Timestamp;
use leaderboard_store::{Store, TotalsCheck};

use crate::error::{CtlError, CtlResult};
use crate::recount;
use crate::verify_report::{Report, Violation};

/// Checks `player`'s totals, recounting them when they are off and `repair` is asked.
pub async fn check(
    store: &Store,
    player: &PlayerId,
    repair: bool,
    report: &mut Report,
) -> CtlResult {
    report.players += 1;
    let check = store
        .projection()
        .check_totals(player, Timestamp::now())
        .await?;
    let (stored, counted) = match check {
        TotalsCheck::Off { stored, counted } => (stored, counted),
        TotalsCheck::Busy(at) => {
            report.busy(player, at);
            return Ok(());
        }
        TotalsCheck::Agree { .. } | TotalsCheck::Erased => return Ok(()),
    };
    let mut found = Violation::new(
        "total_off",
        format!("PLAYER#{player}"),
        format!(
            "lifetimeScore {} and gamesPlayed {} stored; the sessions sum to {} in {}",
            stored.0, stored.1, counted.0, counted.1
        ),
    );
    if repair {
        match recount::to_the_end(store, player).await {
            Ok((score, games)) => {
                found.repaired = Some(format!(
                    "recounted: lifetimeScore {score}, gamesPlayed {games}"
                ));
            }
            // A play came meanwhile: the recount's own answer says when to ask again.
            Err(CtlError::Failed(why)) => report.notes.push(why),
            Err(e) => return Err(e),
        }
    }
    report.add(found);
    Ok(())
}
