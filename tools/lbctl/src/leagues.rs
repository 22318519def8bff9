//! `lbctl leagues`: a league period's cohorts (tier, number, players, when each opened), and a
//! player's tier history in a league's series (each period's cohort and tier, and where its
//! end moved them).

use std::io::Write;

use leaderboard_keys::ids::{BoardId, PlayerId, TierName};
use leaderboard_store::league::{ListedCohort, Placement};
use leaderboard_store::{MAX_COHORTS_PAGE, Store};

use crate::error::CtlResult;
use crate::render;

/// Every cohort of league board `board` (of `tier`, or every tier), up to `limit`.
pub async fn cohorts(
    store: &Store,
    board: &BoardId,
    tier: Option<&TierName>,
    limit: usize,
) -> CtlResult<Vec<ListedCohort>> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = store
            .leagues()
            .cohorts(board, tier, MAX_COHORTS_PAGE, cursor.as_deref())
            .await?;
        out.extend(page.items);
        cursor = page.next_cursor;
        if out.len() >= limit || cursor.is_none() {
            out.truncate(limit);
            return Ok(out);
        }
    }
}

/// Writes the cohorts as aligned columns, or one JSON array.
pub fn write_cohorts(out: &mut dyn Write, cohorts: &[ListedCohort], json: bool) -> CtlResult {
    if json {
        return render::json_doc(out, &cohorts, true);
    }
    let cells: Vec<Vec<String>> = cohorts
        .iter()
        .map(|c| {
            vec![
                c.cohort_id.to_string(),
                c.tier.to_string(),
                c.number.to_string(),
                c.members.to_string(),
                c.opened_at.to_string(),
            ]
        })
        .collect();
    let head = ["COHORT", "TIER", "NUMBER", "PLAYERS", "OPENED"];
    render::table(out, &head, &cells, &[false, false, true, true, false])
}

/// `player`'s tier history in the series of league board `board`, newest period first.
pub async fn history(
    store: &Store,
    player: &PlayerId,
    board: &BoardId,
) -> CtlResult<Vec<Placement>> {
    Ok(store
        .leagues()
        .history(player, board, MAX_COHORTS_PAGE)
        .await?)
}

/// Writes the history as aligned columns, or one JSON array.
pub fn write_history(out: &mut dyn Write, history: &[Placement], json: bool) -> CtlResult {
    if json {
        return render::json_doc(out, &history, true);
    }
    let cells: Vec<Vec<String>> = history
        .iter()
        .map(|p| {
            vec![
                p.board_id.to_string(),
                p.cohort_id.to_string(),
                p.tier.to_string(),
                p.movement.map_or("(playing)", |m| m.as_str()).to_owned(),
                p.tier_after
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
            ]
        })
        .collect();
    let head = ["PERIOD", "COHORT", "TIER", "MOVEMENT", "TIER AFTER"];
    render::table(out, &head, &cells, &[false; 5])
}
