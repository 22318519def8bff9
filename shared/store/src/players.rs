//! Players: AP1 (by id), AP2 (by email, GSI1) and the profile upsert of `PUT /players/me`.

use aws_sdk_dynamodb::types::ReturnValue;
use leaderboard_keys::entity;
use leaderboard_keys::ids::{Email, PlayerId};
use leaderboard_keys::time::Timestamp;

use crate::items::from_item;
use crate::model::Player;
use crate::names::check_name;
use crate::request::{Index, Params, WithParams};
use crate::{Store, StoreError};

impl Store {
    /// AP1: a player by id (GetItem, consistent).
    pub async fn get_player(&self, player: &PlayerId) -> Result<Option<Player>, StoreError> {
        self.get(&entity::player(player)).await
    }

    /// AP2: a player by email (Query on GSI1). Email lookups are exact: the address as set.
    pub async fn find_player_by_email(&self, email: &Email) -> Result<Option<Player>, StoreError> {
        let out = self
            .query_request(Index::Gsi1)
            .key_condition_expression("gsi1pk = :pk")
            .params(Params::new().value(":pk", entity::player_email_gsi1_pk(email)))?
            .limit(1)
            .send()
            .await
            .map_err(|e| StoreError::sdk("Query(GSI1 email)", e))?;
        out.items
            .unwrap_or_default()
            .into_iter()
            .next()
            .map(from_item)
            .transpose()
    }

    /// Creates or updates a player's profile: sets the name, and the email when one is given
    /// (an absent email leaves the stored one as it is). Totals the stream projector keeps are
    /// never touched here, only initialised when the profile is new. One UpdateItem.
    pub async fn put_profile(
        &self,
        player: &PlayerId,
        name: &str,
        email: Option<&Email>,
        now: Timestamp,
    ) -> Result<Player, StoreError> {
        let name = check_name(name)?;
        let mut update = String::from(
            "SET playerId = :pid, #name = :name, updatedAt = :now, \
             createdAt = if_not_exists(createdAt, :now), \
             lifetimeScore = if_not_exists(lifetimeScore, :zero), \
             gamesPlayed = if_not_exists(gamesPlayed, :zero)",
        );
        let mut params = Params::new()
            .name("#name", "name")
            .value(":pid", player.as_str())
            .value(":name", name)
            .value(":now", now)
            .value(":zero", 0u64);
        if let Some(email) = email {
            let g = entity::player_email_gsi1(email, player);
            update.push_str(", email = :email, gsi1pk = :g1pk, gsi1sk = :g1sk");
            params = params
                .value(":email", email.as_str())
                .value(":g1pk", g.pk)
                .value(":g1sk", g.sk);
        }
        let out = self
            .update_request(&entity::player(player), update)
            .params(params)?
            .return_values(ReturnValue::AllNew)
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(profile)", e))?;
        let item = out
            .attributes
            .ok_or_else(|| StoreError::corrupt(player.as_str(), "no attributes returned"))?;
        from_item(item)
    }
}
