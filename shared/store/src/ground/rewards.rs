//! Rewards at close (contract section 13): a board's bands (`rewards`: by final rank range or by
//! top percent, the first that matches a standing wins), the reward item its close grants each
//! matching player, and the rule that matches them.
//!
//! A band matches by final rank, and final ranks are unique: tied scores rank by their tiebreak
//! columns, then the earlier attainment (contract section 1), so a tie at a cutoff goes to the
//! player ranked first, exactly as the board shows them; no band widens for a tie. A
//! `topPercent` band matches the ranks whose `topPercent` (100 x rank / playerCount, section 4)
//! is at most its own: `rank x 100 <= topPercent x playerCount`, in integers, so the best of 200
//! (0.5) is in a top 0.5% and the best of 5 (20) is not in a top 10%.

use leaderboard_keys::entity::RewardId;
use leaderboard_keys::ids::{BoardId, PlayerId, RewardName};
use leaderboard_keys::time::Timestamp;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The most bands a board takes.
pub const MAX_REWARD_BANDS: usize = 20;
/// The largest rank a band names (the final standings' ten digits).
pub const MAX_BAND_RANK: u64 = 9_999_999_999;

/// One band of a board's rewards: `{"ranks": [from, to], "reward": "gold"}` or
/// `{"topPercent": 10, "reward": "bronze"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RewardBand {
    /// The final ranks it covers, both ends included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranks: Option<[u64; 2]>,
    /// The top share of the final standings it covers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_percent: Option<Percent>,
    /// What it grants.
    pub reward: RewardName,
}

impl RewardBand {
    /// Whether the standing at `rank` of `player_count` is in the band.
    pub fn matches(&self, rank: u64, player_count: u64) -> bool {
        match (self.ranks, self.top_percent) {
            (Some([from, to]), _) => (from..=to).contains(&rank),
            (None, Some(p)) => {
                u128::from(rank) * 10_000 <= u128::from(p.0) * u128::from(player_count)
            }
            (None, None) => false,
        }
    }
}

/// The reward of the standing at `rank` of `player_count`: the first band that matches it.
pub fn reward_for(bands: &[RewardBand], rank: u64, player_count: u64) -> Option<&RewardName> {
    bands
        .iter()
        .find(|b| b.matches(rank, player_count))
        .map(|b| &b.reward)
}

/// Checks a new board's bands: at most [`MAX_REWARD_BANDS`], each with exactly one of `ranks`
/// (`1 <= from <= to <=` [`MAX_BAND_RANK`]) and `topPercent`.
pub fn check_rewards(bands: &[RewardBand]) -> Result<(), String> {
    if bands.len() > MAX_REWARD_BANDS {
        return Err(format!(
            "rewards takes at most {MAX_REWARD_BANDS} bands, not {}",
            bands.len()
        ));
    }
    for (i, band) in bands.iter().enumerate() {
        match (band.ranks, band.top_percent) {
            (Some([from, to]), None) => {
                if from == 0 || from > to || to > MAX_BAND_RANK {
                    return Err(format!(
                        "rewards[{i}].ranks must be [from, to] with 1 <= from <= to <= \
                         {MAX_BAND_RANK}, not [{from}, {to}]"
                    ));
                }
            }
            (None, Some(_)) => {}
            _ => {
                return Err(format!(
                    "rewards[{i}] takes exactly one of ranks and topPercent"
                ));
            }
        }
    }
    Ok(())
}

/// A band's share of the final standings, in hundredths of a percent (1..=10,000): a number
/// more than 0 and at most 100 with at most two decimals, as `topPercent` is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Percent(u32);

impl Percent {
    /// The share of `value` percent, if it is one.
    pub fn new(value: f64) -> Option<Percent> {
        let hundredths = (value * 100.0).round();
        let exact = (hundredths - value * 100.0).abs() < 1e-6;
        (exact && (1.0..=10_000.0).contains(&hundredths)).then_some(Percent(hundredths as u32))
    }
}

impl Serialize for Percent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_multiple_of(100) {
            s.serialize_u32(self.0 / 100)
        } else {
            s.serialize_f64(f64::from(self.0) / 100.0)
        }
    }
}

impl<'de> Deserialize<'de> for Percent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Percent, D::Error> {
        let value = f64::deserialize(d)?;
        Percent::new(value).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "topPercent must be more than 0 and at most 100, with at most two decimals, \
                 not {value}"
            ))
        })
    }
}

/// A reward a board's close granted a player (the Reward item, and the API's answer).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reward {
    /// Its id (`<endsAt ms>.<rank>.<leaderboardId>`).
    pub reward_id: RewardId,
    /// The player it was granted to.
    pub player_id: PlayerId,
    /// The board whose close granted it.
    #[serde(rename = "leaderboardId")]
    pub board_id: BoardId,
    /// Their final rank.
    pub rank: u64,
    /// The board's final player count.
    pub player_count: u64,
    /// What the band granted.
    pub reward: RewardName,
    /// When the close that granted it began (the board's final standings are as of then).
    pub granted_at: Timestamp,
    /// When the player claimed it (absent until then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_at: Option<Timestamp>,
}

impl Reward {
    /// The reward of `rank` on `board` (ending `ends_at`) to `player`, granted at `now`.
    pub fn granted(
        board: &BoardId,
        ends_at: Timestamp,
        player: PlayerId,
        (rank, player_count): (u64, u64),
        reward: RewardName,
        now: Timestamp,
    ) -> Reward {
        Reward {
            reward_id: RewardId {
                ends_at,
                rank,
                board: board.clone(),
            },
            player_id: player,
            board_id: board.clone(),
            rank,
            player_count,
            reward,
            granted_at: now,
            claimed_at: None,
        }
    }
}

/// Which of a player's rewards a listing wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RewardStatus {
    /// Not claimed yet.
    Unclaimed,
    /// Claimed.
    Claimed,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bands(json: &str) -> Vec<RewardBand> {
        serde_json::from_str(json).unwrap()
    }

    fn name(b: &[RewardBand], rank: u64, count: u64) -> Option<&str> {
        reward_for(b, rank, count).map(RewardName::as_str)
    }

    #[test]
    fn rank_bands_match_both_ends_and_nothing_past_them() {
        let b = bands(r#"[{"ranks":[1,1],"reward":"gold"},{"ranks":[2,10],"reward":"silver"}]"#);
        assert_eq!(name(&b, 1, 100), Some("gold"));
        assert_eq!(name(&b, 2, 100), Some("silver"));
        assert_eq!(name(&b, 10, 100), Some("silver"));
        assert_eq!(name(&b, 11, 100), None);
    }

    #[test]
    fn top_percent_matches_up_to_its_share_exactly() {
        let b = bands(r#"[{"topPercent":10,"reward":"badge"}]"#);
        // 10% of 200 is ranks 1..=20: 20 x 100 = 10 x 200.
        assert_eq!(name(&b, 20, 200), Some("badge"));
        assert_eq!(name(&b, 21, 200), None);
        // The best of 5 is the top 20%, not in a top 10%; of 10 it is exactly 10%.
        assert_eq!(name(&b, 1, 5), None);
        assert_eq!(name(&b, 1, 10), Some("badge"));
        let half = bands(r#"[{"topPercent":0.5,"reward":"elite"}]"#);
        assert_eq!(name(&half, 1, 200), Some("elite"));
        assert_eq!(name(&half, 2, 200), None);
        let all = bands(r#"[{"topPercent":100,"reward":"thanks"}]"#);
        assert_eq!(name(&all, 7, 7), Some("thanks"));
    }

    #[test]
    fn the_first_band_that_matches_wins() {
        let b = bands(
            r#"[{"ranks":[1,3],"reward":"gold"},{"topPercent":50,"reward":"half"},
                {"ranks":[1,100],"reward":"any"}]"#,
        );
        assert_eq!(name(&b, 3, 10), Some("gold"));
        assert_eq!(name(&b, 4, 10), Some("half"));
        assert_eq!(name(&b, 5, 10), Some("half"));
        assert_eq!(name(&b, 6, 10), Some("any"));
        assert_eq!(name(&b, 501, 1000), None);
    }

    #[test]
    fn bands_are_checked() {
        let ok = bands(r#"[{"ranks":[1,1],"reward":"gold"},{"topPercent":99.99,"reward":"x"}]"#);
        assert_eq!(check_rewards(&ok), Ok(()));
        for bad in [
            r#"[{"ranks":[0,1],"reward":"gold"}]"#,
            r#"[{"ranks":[3,2],"reward":"gold"}]"#,
            r#"[{"ranks":[1,10000000000],"reward":"gold"}]"#,
            r#"[{"reward":"gold"}]"#,
            r#"[{"ranks":[1,1],"topPercent":5,"reward":"gold"}]"#,
        ] {
            assert!(check_rewards(&bands(bad)).is_err(), "{bad}");
        }
        let many = vec![ok[0].clone(); MAX_REWARD_BANDS + 1];
        assert!(check_rewards(&many).is_err());
        for bad in [
            r#"[{"topPercent":0,"reward":"x"}]"#,
            r#"[{"topPercent":100.01,"reward":"x"}]"#,
            r#"[{"topPercent":1.005,"reward":"x"}]"#,
            r#"[{"topPercent":-1,"reward":"x"}]"#,
            r#"[{"ranks":[1,1],"reward":"a#b"}]"#,
            r#"[{"ranks":[1,1],"reward":""}]"#,
            r#"[{"ranks":[1,1],"reward":"x","extra":1}]"#,
        ] {
            assert!(
                serde_json::from_str::<Vec<RewardBand>>(bad).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn percents_show_as_given() {
        let b = bands(r#"[{"topPercent":10,"reward":"a"},{"topPercent":2.5,"reward":"b"}]"#);
        assert_eq!(
            serde_json::to_string(&b).unwrap(),
            r#"[{"topPercent":10,"reward":"a"},{"topPercent":2.5,"reward":"b"}]"#
        );
    }
}
