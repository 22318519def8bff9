//! Players: AP1 (by id), AP2 (by email, GSI1) and the profile upsert of `PUT /players/me`.

use leaderboard_keys::entity;
use leaderboard_keys::ids::{Email, PlayerId};
use leaderboard_keys::time::Timestamp;

use crate::ground::error::CancelReason;
use crate::ground::error::StoreError;
use crate::ground::items::first_item;
use crate::ground::model::Player;
use crate::ground::names::check_name;
use crate::store::Store;
use crate::table::request::{Index, Params, WithParams};
use crate::table::retry::Retry;

impl Store {
    /// AP1: a player by id (GetItem, consistent).
    pub async fn get_player(&self, player: &PlayerId) -> Result<Option<Player>, StoreError> {
        self.table.get(&entity::player(player)).await
    }

    /// AP2: a player by email (Query on GSI1). Email lookups are exact: the address as set.
    pub async fn find_player_by_email(&self, email: &Email) -> Result<Option<Player>, StoreError> {
        let out = self
            .table
            .query_request(Index::Gsi1)
            .key_condition_expression("gsi1pk = :pk")
            .params(Params::new().value(":pk", entity::player_email_gsi1_pk(email)))?
            .limit(1)
            .send()
            .await
            .map_err(|e| StoreError::sdk("Query(GSI1 email)", e))?;
        first_item(out.items)
    }

    /// Creates or updates a player's profile: sets the name, and the email when one is given
    /// (an absent email leaves the stored one as it is). Totals the stream projector keeps are
    /// never touched here, only initialised when the profile is new. A banned player's profile
    /// does not change (`Banned`): the update is one transaction with a check that the ban does
    /// not exist, so a rename cannot slip in after a ban commits; then one consistent `GetItem`
    /// answers the profile as stored.
    pub async fn put_profile(
        &self,
        player: &PlayerId,
        name: &str,
        email: Option<&Email>,
        now: Timestamp,
    ) -> Result<Player, StoreError> {
        let name = check_name(name)?;
        Retry::ITEM_UPDATE
            .run("the profile", || {
                self.try_put_profile(player, name, email, now)
            })
            .await?;
        self.get_player(player)
            .await?
            .ok_or_else(|| StoreError::corrupt(player.as_str(), "the profile just written is gone"))
    }

    async fn try_put_profile(
        &self,
        player: &PlayerId,
        name: &str,
        email: Option<&Email>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
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
        let items = vec![
            // Item 0: a ban committed first refuses the change.
            self.table.tx_check(
                &entity::ban(player),
                "attribute_not_exists(pk)",
                Params::new(),
            )?,
            self.table
                .tx_update(&entity::player(player), &update, params)?,
        ];
        match self
            .table
            .transact(items, "TransactWriteItems(profile)")
            .await
        {
            Err(StoreError::TransactionCanceled { reasons })
                if reasons.first() == Some(&CancelReason::ConditionalCheckFailed) =>
            {
                Err(StoreError::Banned {
                    player: player.clone(),
                })
            }
            other => other,
        }
    }
}
