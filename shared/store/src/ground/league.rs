//! A league's settings (`league` on a recurring board): its tiers, lowest first, the size of
//! its cohorts, and how many of a cohort move up and down when a period ends. The checks a new
//! league passes, a cohort's id, and where a player's final rank in a cohort moves them.

use leaderboard_keys::ids::{BoardId, TierName};
use leaderboard_keys::time::Timestamp;
use serde::{Deserialize, Serialize};

use crate::ground::error::StoreError;

/// The fewest tiers a league has.
pub const MIN_TIERS: usize = 2;
/// The most tiers a league has.
pub const MAX_TIERS: usize = 10;
/// The smallest cohort.
pub const MIN_COHORT_SIZE: u32 = 2;
/// The largest cohort: a cohort is read whole (its close is one page, its ranks exact).
pub const MAX_COHORT_SIZE: u32 = 100;
/// The most cohorts a tier opens in one period, so that every cohort id fits the id's 64
/// characters: its number has at most six digits.
pub const MAX_COHORTS_PER_TIER: u32 = 999_999;

/// A league: players are placed in cohorts of `cohort_size` by tier, and each period's end
/// moves the first `promote` of a cohort one tier up and the last `relegate` one tier down.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct League {
    /// The tiers, lowest first (2 to 10, distinct).
    pub tiers: Vec<TierName>,
    /// The most players a cohort holds (2 to 100).
    pub cohort_size: u32,
    /// How many of a cohort's first ranks move one tier up (0 to half the cohort size).
    pub promote: u32,
    /// How many of a cohort's last ranks move one tier down (0 to half the cohort size).
    pub relegate: u32,
}

/// Where a period's end moves a player in their league.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Movement {
    /// One tier up.
    Promoted,
    /// One tier down.
    Relegated,
    /// The same tier.
    Stayed,
}

impl Movement {
    /// The API spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Movement::Promoted => "promoted",
            Movement::Relegated => "relegated",
            Movement::Stayed => "stayed",
        }
    }
}

impl League {
    /// Checks the settings of a new league on board `id`, refusing the first rule broken.
    pub fn check(&self, id: &BoardId) -> Result<(), StoreError> {
        let invalid = |m: String| Err(StoreError::Invalid(m));
        if !(MIN_TIERS..=MAX_TIERS).contains(&self.tiers.len()) {
            return invalid(format!(
                "league.tiers must name {MIN_TIERS} to {MAX_TIERS} tiers, lowest first"
            ));
        }
        for (i, tier) in self.tiers.iter().enumerate() {
            if self.tiers[..i].contains(tier) {
                return invalid(format!("league.tiers names {tier} twice"));
            }
        }
        if !(MIN_COHORT_SIZE..=MAX_COHORT_SIZE).contains(&self.cohort_size) {
            return invalid(format!(
                "league.cohortSize must be {MIN_COHORT_SIZE} to {MAX_COHORT_SIZE}"
            ));
        }
        let half = self.cohort_size / 2;
        for (field, n) in [("promote", self.promote), ("relegate", self.relegate)] {
            if n > half {
                return invalid(format!(
                    "league.{field} must be 0 to half the cohort size ({half})"
                ));
            }
        }
        self.check_cohort_ids(id)
    }

    /// Checks that every cohort of board `id` (its tiers, up to [`MAX_COHORTS_PER_TIER`]
    /// cohorts each) has a valid id: a successor whose id grew, or a long tier name, could
    /// otherwise leave a period unable to open a cohort.
    pub fn check_cohort_ids(&self, id: &BoardId) -> Result<(), StoreError> {
        for tier in &self.tiers {
            cohort_id(id, tier, MAX_COHORTS_PER_TIER).map_err(|_| {
                StoreError::Invalid(format!(
                    "leaderboardId {id} leaves no room for the ids of its cohorts \
                     (<leaderboardId>.<tier>.<number>, at most 64 characters, the tier {tier}): \
                     choose a shorter id or shorter tier names"
                ))
            })?;
        }
        Ok(())
    }

    /// The tier a player new to the league's series starts in.
    pub fn lowest(&self) -> &TierName {
        &self.tiers[0]
    }

    /// Where `tier` is among the tiers (0 the lowest), if it is one.
    pub fn tier_index(&self, tier: &TierName) -> Option<usize> {
        self.tiers.iter().position(|t| t == tier)
    }

    /// Where the final `rank` (1 the best) of a cohort of `players` in `tier` moves its player:
    /// the first `promote` up, the last `relegate` down (a cohort of fewer than `promote +
    /// relegate` relegates none), never past either end. Ranks are positions: of two equal
    /// scores the earlier ranks higher, so a cutoff falls between two players.
    pub fn movement(&self, tier: &TierName, rank: u64, players: u64) -> Movement {
        if self.promote_ranks(tier).is_some_and(|(_, to)| rank <= to) {
            return Movement::Promoted;
        }
        if self
            .relegate_ranks(tier, players)
            .is_some_and(|(from, _)| rank >= from)
        {
            return Movement::Relegated;
        }
        Movement::Stayed
    }

    /// The tier a player of `tier` has after `movement`.
    pub fn moved(&self, tier: &TierName, movement: Movement) -> TierName {
        let index = self.tier_index(tier).unwrap_or(0);
        let after = match movement {
            Movement::Promoted => (index + 1).min(self.tiers.len() - 1),
            Movement::Relegated => index.saturating_sub(1),
            Movement::Stayed => index,
        };
        self.tiers[after].clone()
    }

    /// The ranks of a cohort of `tier` that move up, `[1, promote]`: none in the top tier or
    /// without promotion.
    pub fn promote_ranks(&self, tier: &TierName) -> Option<(u64, u64)> {
        let top = self.tier_index(tier) == Some(self.tiers.len() - 1);
        (self.promote > 0 && !top).then_some((1, u64::from(self.promote)))
    }

    /// The ranks of a cohort of `tier` with `players` that move down, `[players - relegate +
    /// 1, players]`: none in the lowest tier, without relegation, or in a cohort of fewer than
    /// `promote + relegate` players.
    pub fn relegate_ranks(&self, tier: &TierName, players: u64) -> Option<(u64, u64)> {
        let lowest = self.tier_index(tier).unwrap_or(0) == 0;
        let relegate = u64::from(self.relegate);
        let enough = players >= u64::from(self.promote) + relegate;
        (relegate > 0 && !lowest && enough).then(|| (players - relegate + 1, players))
    }
}

/// A player's placement in one period of a league (the Placement item): the cohort their
/// first play of the period placed them in, and, once the cohort closed, where it left them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Placement {
    /// The league board of the period.
    #[serde(rename = "leaderboardId")]
    pub board_id: BoardId,
    /// The cohort.
    pub cohort_id: BoardId,
    /// The player's tier in the period (the cohort's).
    pub tier: TierName,
    /// When the first play placed them.
    pub placed_at: Timestamp,
    /// The tier the period's end left them in (set by the cohort's close).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier_after: Option<TierName>,
    /// How the period's end moved them (set by the cohort's close).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub movement: Option<Movement>,
}

impl Placement {
    /// The tier this period leaves the player in for their next one: where its close moved
    /// them, or (before that) the tier they played it in.
    pub fn next_tier(&self) -> &TierName {
        self.tier_after.as_ref().unwrap_or(&self.tier)
    }
}

/// A tier's cohort cursor: the cohort that takes the tier's newcomers, and how many it holds
/// (every cohort before it is full).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CohortCursor {
    /// The cohort's number, from 1.
    pub number: u32,
    /// Its players.
    pub members: u32,
}

/// A cohort as its league board lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedCohort {
    /// The cohort's board.
    pub cohort_id: BoardId,
    /// Its tier.
    pub tier: TierName,
    /// Its number in its tier, from 1.
    pub number: u32,
    /// When its first player was placed.
    pub opened_at: Timestamp,
    /// Its players (filled in from the tier's cursor when listed; not stored).
    #[serde(default)]
    pub members: u32,
}

/// The id of cohort `number` (from 1) of `tier` in league board `league`:
/// `<leaderboardId>.<tier>.<number>`.
pub fn cohort_id(league: &BoardId, tier: &TierName, number: u32) -> Result<BoardId, StoreError> {
    BoardId::parse(&format!("{league}.{tier}.{number}"))
        .map_err(|e| StoreError::Invalid(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn league(tiers: &[&str], size: u32, promote: u32, relegate: u32) -> League {
        League {
            tiers: tiers.iter().map(|t| TierName::parse(t).unwrap()).collect(),
            cohort_size: size,
            promote,
            relegate,
        }
    }

    fn tier(t: &str) -> TierName {
        TierName::parse(t).unwrap()
    }

    fn board(id: &str) -> BoardId {
        BoardId::parse(id).unwrap()
    }

    #[test]
    fn every_rule_of_a_new_league_is_checked() {
        let id = board("weekly_2026-w48");
        let refused = |l: League, says: &str| {
            let e = l.check(&id).unwrap_err().to_string();
            assert!(e.contains(says), "{e} does not say {says}");
        };
        refused(league(&["gold"], 10, 1, 1), "2 to 10 tiers");
        let eleven: Vec<String> = (0..11).map(|i| format!("t{i}")).collect();
        let eleven: Vec<&str> = eleven.iter().map(String::as_str).collect();
        refused(league(&eleven, 10, 1, 1), "2 to 10 tiers");
        refused(league(&["a", "b", "a"], 10, 1, 1), "names a twice");
        refused(league(&["a", "b"], 1, 0, 0), "cohortSize must be 2 to 100");
        refused(
            league(&["a", "b"], 101, 0, 0),
            "cohortSize must be 2 to 100",
        );
        refused(
            league(&["a", "b"], 10, 6, 0),
            "league.promote must be 0 to half",
        );
        refused(
            league(&["a", "b"], 11, 0, 6),
            "league.relegate must be 0 to half",
        );
        let long = "t".repeat(50);
        refused(
            league(&["a", &long], 10, 1, 1),
            "no room for the ids of its cohorts",
        );
        league(&["a", "b"], 11, 5, 5).check(&id).unwrap();
        league(&eleven[..10], 100, 50, 50).check(&id).unwrap();
    }

    #[test]
    fn the_first_promote_move_up_and_the_last_relegate_down_never_past_the_ends() {
        let l = league(&["bronze", "silver", "gold"], 10, 2, 3);
        let moves = |t: &str, players: u64| -> Vec<Movement> {
            (1..=players)
                .map(|r| l.movement(&tier(t), r, players))
                .collect()
        };
        use Movement::*;
        assert_eq!(
            moves("silver", 10),
            [
                Promoted, Promoted, Stayed, Stayed, Stayed, Stayed, Stayed, Relegated, Relegated,
                Relegated
            ]
        );
        // The top tier promotes no one, the lowest relegates no one.
        assert_eq!(
            moves("gold", 6),
            [Stayed, Stayed, Stayed, Relegated, Relegated, Relegated]
        );
        assert_eq!(
            moves("bronze", 6),
            [Promoted, Promoted, Stayed, Stayed, Stayed, Stayed]
        );
        // Exactly promote + relegate: every player moves; one fewer: no one is relegated.
        assert_eq!(
            moves("silver", 5),
            [Promoted, Promoted, Relegated, Relegated, Relegated]
        );
        assert_eq!(moves("silver", 4), [Promoted, Promoted, Stayed, Stayed]);
        assert_eq!(moves("silver", 1), [Promoted]);
        assert_eq!(l.moved(&tier("gold"), Promoted), tier("gold"));
        assert_eq!(l.moved(&tier("bronze"), Relegated), tier("bronze"));
        assert_eq!(l.moved(&tier("silver"), Promoted), tier("gold"));
        assert_eq!(l.moved(&tier("silver"), Relegated), tier("bronze"));
        assert_eq!(l.promote_ranks(&tier("gold")), None);
        assert_eq!(l.relegate_ranks(&tier("silver"), 10), Some((8, 10)));
        assert_eq!(l.relegate_ranks(&tier("bronze"), 10), None);
    }

    #[test]
    fn a_movement_is_spelled_as_it_is_stored() {
        for m in [Movement::Promoted, Movement::Relegated, Movement::Stayed] {
            assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
        }
    }

    #[test]
    fn a_cohort_id_names_its_league_tier_and_number() {
        let id = cohort_id(&board("weekly_2026-w48"), &tier("gold"), 7).unwrap();
        assert_eq!(id.as_str(), "weekly_2026-w48.gold.7");
        assert!(cohort_id(&board(&"x".repeat(60)), &tier("gold"), 7).is_err());
    }
}
