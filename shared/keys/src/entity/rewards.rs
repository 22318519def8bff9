//! A player's rewards: one item per reward a board's close granted them, in their partition.
//!
//! | item | pk | sk | GSI |
//! | --- | --- | --- | --- |
//! | Reward | `PLAYER#<playerId>` | `REWARD#<rewardId>` | GSI1 `PLAYER#<playerId>` / `REWARD#<rewardId>` until claimed; GSI2 `REWARDS_CLAIMED#<playerId>` / `REWARD#<rewardId>` once claimed |
//!
//! The two index keys are sparse: a player's unclaimed rewards are one GSI1 listing, their
//! claimed ones one GSI2 listing, each a single Query a page however many of the other kind
//! they hold; the claim moves the reward from one to the other in the same update.
//!
//! A reward's id is made from what it rewards, never from when the close ran: the board's end
//! (13-digit milliseconds), the final rank and the board, `<endsAt ms>.<rank>.<boardId>`. So a
//! close that writes a page again (resumed after a crash) names the same reward, and its
//! conditional put finds it there; a rank is one player's, so no two players hold one id; and
//! the player's rewards read newest board end first with one Query of their partition,
//! descending.

use std::fmt;

use super::*;

/// Sort-key prefix of a player's reward items.
pub const REWARD_PREFIX: &str = "REWARD#";

/// The width of a reward id's board end, in milliseconds (as the rank key's tiebreaker).
const ENDS_AT_WIDTH: Width = Width::fixed(13);

/// A reward's id: the board that granted it, its end and the final rank rewarded. Stored and
/// shown as its string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RewardId {
    /// The board's end.
    pub ends_at: Timestamp,
    /// The final rank rewarded (from 1).
    pub rank: u64,
    /// The board.
    pub board: BoardId,
}

impl RewardId {
    /// The API's name of the field.
    pub const FIELD: &'static str = "rewardId";

    /// Parses a reward id a caller gave back: `<13 digits>.<rank>.<boardId>`.
    pub fn parse(s: &str) -> Result<RewardId, KeyError> {
        let bad = |reason| KeyError::malformed(s, reason);
        let mut parts = s.splitn(3, '.');
        let (Some(end), Some(rank), Some(board)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(bad("a rewardId is <endsAt ms>.<rank>.<leaderboardId>"));
        };
        let ends_at = Timestamp::from_millis(parse_padded(end, ENDS_AT_WIDTH)?)?;
        let rank = crate::pad::parse_digits(rank.as_bytes())
            .filter(|r| (1..=FINAL_RANK_WIDTH.max_value()).contains(r) && !rank.starts_with('0'))
            .ok_or_else(|| bad("a rewardId's rank is a number from 1"))?;
        Ok(RewardId {
            ends_at,
            rank,
            board: BoardId::parse(board)?,
        })
    }
}

impl fmt::Display for RewardId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut end = String::with_capacity(13);
        pad_into(self.ends_at.as_millis(), ENDS_AT_WIDTH, &mut end).map_err(|_| fmt::Error)?;
        write!(f, "{end}.{}.{}", self.rank, self.board)
    }
}

/// The GSI2 partition of a player's claimed rewards.
pub const REWARDS_CLAIMED_PREFIX: &str = "REWARDS_CLAIMED#";

/// The GSI1 key of `player`'s reward `id` until it is claimed.
pub fn reward_unclaimed_gsi1(player: &PlayerId, id: &RewardId) -> Key {
    Key::new(player_pk(player), format!("{REWARD_PREFIX}{id}"))
}

/// The GSI2 partition of `player`'s claimed rewards.
pub fn rewards_claimed_pk(player: &PlayerId) -> String {
    format!("{REWARDS_CLAIMED_PREFIX}{player}")
}

/// The GSI2 key of `player`'s reward `id` once it is claimed.
pub fn reward_claimed_gsi2(player: &PlayerId, id: &RewardId) -> Key {
    Key::new(rewards_claimed_pk(player), format!("{REWARD_PREFIX}{id}"))
}

impl TryFrom<String> for RewardId {
    type Error = KeyError;
    fn try_from(s: String) -> Result<Self, KeyError> {
        RewardId::parse(&s)
    }
}

impl From<RewardId> for String {
    fn from(id: RewardId) -> String {
        id.to_string()
    }
}

/// `player`'s reward item `id`.
pub fn reward(player: &PlayerId, id: &RewardId) -> Key {
    Key::new(player_pk(player), format!("{REWARD_PREFIX}{id}"))
}

/// The reward items of `pk` / `sk`, parsed back (None: not one of them).
pub(super) fn parse_reward_key(pk: &str, sk: &str) -> Option<Result<ItemKey, KeyError>> {
    let p = pk.strip_prefix(PLAYER_PREFIX)?;
    let id = sk.strip_prefix(REWARD_PREFIX)?;
    Some((|| {
        Ok(ItemKey::Reward {
            player: PlayerId::parse(p)?,
            reward: RewardId::parse(id)?,
        })
    })())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(ms: u64, rank: u64, board: &str) -> RewardId {
        RewardId {
            ends_at: Timestamp::from_millis(ms).unwrap(),
            rank,
            board: BoardId::parse(board).unwrap(),
        }
    }

    #[test]
    fn reward_ids_and_keys_parse_back() {
        let r = id(1_764_547_200_000, 7, "weekly.2026-W48");
        assert_eq!(r.to_string(), "1764547200000.7.weekly.2026-W48");
        assert_eq!(RewardId::parse(&r.to_string()).unwrap(), r);
        let p = PlayerId::parse("p_alice").unwrap();
        let k = reward(&p, &r);
        assert_eq!(
            k,
            Key::new("PLAYER#p_alice", "REWARD#1764547200000.7.weekly.2026-W48")
        );
        assert_eq!(
            ItemKey::parse(&k.pk, &k.sk).unwrap(),
            ItemKey::Reward {
                player: p.clone(),
                reward: r.clone()
            }
        );
        assert_eq!(
            reward_claimed_gsi2(&p, &r),
            Key::new(
                "REWARDS_CLAIMED#p_alice",
                "REWARD#1764547200000.7.weekly.2026-W48"
            )
        );
        assert_eq!(reward_unclaimed_gsi1(&p, &r), k);
        // An early end keeps its 13 digits, so ids sort by end.
        assert_eq!(id(5, 1, "b").to_string(), "0000000000005.1.b");
    }

    #[test]
    fn a_reward_id_that_is_not_one_is_refused() {
        for bad in [
            "",
            "1764547200000",
            "1764547200000.7",
            "176454720000.7.b",
            "1764547200000.0.b",
            "1764547200000.07.b",
            "1764547200000.x.b",
            "1764547200000.7.a#b",
            "1764547200000.7.",
            "17645472000a0.7.b",
        ] {
            assert!(RewardId::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn newer_board_ends_sort_after_older_ones() {
        let older = id(1_000, 99, "zzz").to_string();
        let newer = id(2_000, 1, "aaa").to_string();
        assert!(newer > older);
    }
}
