//! A league's items: a player's placement in one period of a league series, a tier's cohort
//! cursor (the cohort that takes the tier's next newcomers, and how many it holds), and a
//! period's listing of its cohorts.
//!
//! | item | pk | sk |
//! | --- | --- | --- |
//! | Placement | `PLAYER#<playerId>` | `LEAGUE#<seriesId>#<period's endsAt in ms, 13 digits>` |
//! | Cohort cursor | `LEADERBOARD#<leagueBoardId>` | `COHORTS#<tier>` |
//! | Cohort listing | `LEADERBOARD#<leagueBoardId>` | `COHORT#<tier>#<number, 6 digits>` |
//!
//! A placement's sort key orders a player's periods of one series by time, so that the last
//! one they played is one Query (newest first, limit 1) before the current period's.

use super::*;
use crate::ids::TierName;

/// Sort-key prefix of a player's league placements.
pub const LEAGUE_PREFIX: &str = "LEAGUE#";
/// Sort-key prefix of a league board's cohort cursors.
pub const COHORT_CURSOR_PREFIX: &str = "COHORTS#";
/// Sort-key prefix of a league board's cohort listing.
pub const COHORT_PREFIX: &str = "COHORT#";

const PERIOD_WIDTH: Width = Width::fixed(13);
const COHORT_NUMBER_WIDTH: Width = Width::fixed(6);

/// `player`'s placement in the period of `series` that ends at `period_end`.
pub fn placement(
    player: &PlayerId,
    series: &SeriesId,
    period_end: Timestamp,
) -> Result<Key, KeyError> {
    let mut sk = placement_prefix(series);
    pad_into(period_end.as_millis(), PERIOD_WIDTH, &mut sk)?;
    Ok(Key::new(player_pk(player), sk))
}

/// The sort-key prefix of a player's placements in `series`: `LEAGUE#<seriesId>#`.
pub fn placement_prefix(series: &SeriesId) -> String {
    format!("{LEAGUE_PREFIX}{series}#")
}

/// The cohort cursor of `tier` on league board `board`.
pub fn cohort_cursor(board: &BoardId, tier: &TierName) -> Key {
    Key::new(board_pk(board), format!("{COHORT_CURSOR_PREFIX}{tier}"))
}

/// The listing item of cohort `number` (from 1) of `tier` on league board `board`.
pub fn cohort_listing(board: &BoardId, tier: &TierName, number: u32) -> Result<Key, KeyError> {
    let mut sk = cohort_listing_prefix(Some(tier));
    pad_into(u64::from(number), COHORT_NUMBER_WIDTH, &mut sk)?;
    Ok(Key::new(board_pk(board), sk))
}

/// The sort-key prefix of the cohort listing: a tier's (`COHORT#<tier>#`) or every tier's.
pub fn cohort_listing_prefix(tier: Option<&TierName>) -> String {
    match tier {
        Some(tier) => format!("{COHORT_PREFIX}{tier}#"),
        None => COHORT_PREFIX.to_owned(),
    }
}

/// The league items of `pk` / `sk`, parsed back (None: not one of them).
pub(super) fn parse_league_key(pk: &str, sk: &str) -> Option<Result<ItemKey, KeyError>> {
    if let Some(p) = pk.strip_prefix(PLAYER_PREFIX)
        && let Some(rest) = sk.strip_prefix(LEAGUE_PREFIX)
    {
        let (series, end) = rest.rsplit_once('#')?;
        return Some((|| {
            let period_end = parse_padded(end, PERIOD_WIDTH)?;
            Ok(ItemKey::Placement {
                player: PlayerId::parse(p)?,
                series: SeriesId::parse(series)?,
                period_end: Timestamp::from_millis(period_end)?,
            })
        })());
    }
    let b = pk.strip_prefix(LEADERBOARD_PREFIX)?;
    if let Some(tier) = sk.strip_prefix(COHORT_CURSOR_PREFIX) {
        return Some((|| {
            Ok(ItemKey::CohortCursor {
                board: BoardId::parse(b)?,
                tier: TierName::parse(tier)?,
            })
        })());
    }
    let (tier, number) = sk.strip_prefix(COHORT_PREFIX)?.rsplit_once('#')?;
    Some((|| {
        Ok(ItemKey::CohortListing {
            board: BoardId::parse(b)?,
            tier: TierName::parse(tier)?,
            number: u32::try_from(parse_padded(number, COHORT_NUMBER_WIDTH)?)
                .map_err(|_| KeyError::malformed(number, "not a cohort number"))?,
        })
    })())
}
