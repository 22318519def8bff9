//! A player's rewards (contract section 13): the ones board closes granted them, listed newest
//! board end first (all of them, or only the unclaimed or claimed ones), and each claimed once.
//!
//! A listing is one Query a page: all of them from the player's partition, the unclaimed ones
//! from GSI1 and the claimed ones from GSI2, where the reward's sparse keys put each kind
//! (`entity::rewards`). The indexes follow a claim within moments; the claim itself is exact.
//!
//! A claim is one conditional UpdateItem: `claimedAt` set, on condition that the reward exists
//! and has none, and the reward moved from the unclaimed index to the claimed one in the same
//! write. However many claims race, one update's condition holds; every other answers
//! `already_claimed`, after one consistent read that tells a claimed reward from one the player
//! does not have (`not_found`, also for another player's id: the key is in the caller's
//! partition).

use leaderboard_keys::entity::{self, REWARD_PREFIX, RewardId};
use leaderboard_keys::ids::PlayerId;
use leaderboard_keys::time::Timestamp;

use crate::ground::error::StoreError;
use crate::ground::items::from_item;
use crate::ground::model::Page;
use crate::ground::rewards::{Reward, RewardStatus};
use crate::store::Store;
use crate::table::query::Listing;
use crate::table::request::{Index, Params, WithParams};
use crate::table::retry::Retry;

/// A player's rewards: listed, and claimed (the handle [`Store::rewards`] gives).
#[derive(Clone, Copy)]
pub struct Rewards<'a> {
    pub(crate) store: &'a Store,
}

impl Store {
    /// A player's rewards: listed, and claimed.
    pub fn rewards(&self) -> Rewards<'_> {
        Rewards { store: self }
    }
}

impl Rewards<'_> {
    /// `player`'s rewards of `status` (all without one), newest board end first, `limit` at a
    /// time after `cursor`.
    pub async fn player_rewards(
        self,
        player: &PlayerId,
        status: Option<RewardStatus>,
        limit: usize,
        cursor: Option<&str>,
    ) -> Result<Page<Reward>, StoreError> {
        let pk = entity::player_pk(player);
        let listing = match status {
            None => Listing::new("rewards", Index::Table, pk, REWARD_PREFIX),
            Some(RewardStatus::Unclaimed) => {
                Listing::new("rewards_unclaimed", Index::Gsi1, pk, REWARD_PREFIX)
            }
            Some(RewardStatus::Claimed) => {
                let pk = entity::rewards_claimed_pk(player);
                Listing::new("rewards_claimed", Index::Gsi2, pk, REWARD_PREFIX)
            }
        };
        self.store
            .table
            .list_page(&listing.descending(), limit, cursor)
            .await
    }

    /// Claims `player`'s reward `id` at `now`: the reward with its `claimedAt`, the first time;
    /// then [`StoreError::AlreadyClaimed`]; [`StoreError::NotFound`] if the player has no such
    /// reward. Nothing is written but the first claim.
    pub async fn claim(
        self,
        player: &PlayerId,
        id: &RewardId,
        now: Timestamp,
    ) -> Result<Reward, StoreError> {
        let key = entity::reward(player, id);
        let claimed = entity::reward_claimed_gsi2(player, id);
        let update = || async {
            let out = self
                .store
                .table
                .update_request(
                    &key,
                    "SET claimedAt = :now, gsi2pk = :gsi2pk, gsi2sk = :gsi2sk \
                     REMOVE gsi1pk, gsi1sk",
                )
                .condition_expression("attribute_exists(pk) AND attribute_not_exists(claimedAt)")
                .params(
                    Params::new()
                        .value(":now", now)
                        .value(":gsi2pk", claimed.pk.as_str())
                        .value(":gsi2sk", claimed.sk.as_str()),
                )?
                .return_values(aws_sdk_dynamodb::types::ReturnValue::AllNew)
                .send()
                .await
                .map_err(|e| StoreError::sdk("UpdateItem(claim)", e))?;
            from_item::<Reward>(out.attributes.unwrap_or_default())
        };
        match Retry::ITEM_UPDATE.run("claiming a reward", update).await {
            Err(StoreError::ConditionalCheckFailed) => {
                let exists = self.store.table.get_raw(&key).await?.is_some();
                Err(if exists {
                    StoreError::AlreadyClaimed {
                        reward: id.to_string(),
                    }
                } else {
                    StoreError::NotFound {
                        what: "reward",
                        id: id.to_string(),
                    }
                })
            }
            done => done,
        }
    }
}
