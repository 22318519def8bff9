//! Players: AP1 (by id), AP2 (by email, GSI1) and the profile upsert of `PUT /players/me`.

use aws_sdk_dynamodb::types::AttributeValue;
use leaderboard_keys::entity;
use leaderboard_keys::ids::{Email, PlayerId};
use leaderboard_keys::time::Timestamp;

use crate::ground::error::CancelReason;
use crate::ground::error::StoreError;
use crate::ground::items::{ItemExt, first_item};
use crate::ground::model::Player;
use crate::ground::names::check_name;
use crate::store::Store;
use crate::table::request::{Index, Params, WithParams};
use crate::table::retry::Retry;

/// Players: a profile read, found by email, and written (the handle [`Store::players`] gives).
#[derive(Clone, Copy)]
pub struct Players<'a> {
    pub(crate) store: &'a Store,
}

impl Store {
    /// Players: a profile read, found by email, and written.
    pub fn players(&self) -> Players<'_> {
        Players { store: self }
    }
}

impl Players<'_> {
    /// AP1: a player by id (GetItem, consistent).
    pub async fn get_player(self, player: &PlayerId) -> Result<Option<Player>, StoreError> {
        self.store.table.get(&entity::player(player)).await
    }

    /// AP2: the player who owns an email address: its owner item names them (GetItem, then
    /// their profile). An address stored before owners were kept has no owner item; it is
    /// looked up on GSI1 instead (one Query), as it was stored.
    pub async fn find_player_by_email(self, email: &Email) -> Result<Option<Player>, StoreError> {
        if let Some(owner) = self
            .store
            .table
            .get_raw(&entity::email_owner(email))
            .await?
        {
            let Some(player) = owner
                .string("playerId")
                .and_then(|p| PlayerId::parse(p).ok())
            else {
                return Err(StoreError::corrupt(
                    email.as_str(),
                    "an email owner without a player",
                ));
            };
            return self.get_player(&player).await;
        }
        let out = self
            .store
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
    /// never touched here, only initialised when the profile is new. An email given is one the
    /// caller's token proves (the API sets no other): it belongs to one player, and another's
    /// is [`StoreError::AlreadyExists`], unless that player claimed it before addresses had to
    /// be proven, in which case it is taken over (see [`Players::put_profile_as`]).
    pub async fn put_profile(
        self,
        player: &PlayerId,
        name: &str,
        email: Option<&Email>,
        now: Timestamp,
    ) -> Result<Player, StoreError> {
        let change = email.map_or(EmailChange::Keep, EmailChange::Set);
        self.put_profile_as(player, name, change, now).await
    }

    /// The same, with the email kept, set or cleared. The profile is read, then written in one
    /// transaction with a check that the ban does not exist (a banned player's profile does not
    /// change: [`StoreError::Banned`]) nor an erasure's marker ([`StoreError::Erased`]), and, when the email changes, the new address's owner
    /// item (on condition that no one else owns it) and the deletion of the old one's, on
    /// condition that the profile's email is still the one read: so two players racing for an
    /// address get it once, and a change frees the old address in the same write. A profile
    /// that changed since it was read is read again. Then one consistent `GetItem` answers the
    /// profile as stored.
    pub async fn put_profile_as(
        self,
        player: &PlayerId,
        name: &str,
        email: EmailChange<'_>,
        now: Timestamp,
    ) -> Result<Player, StoreError> {
        let name = check_name(name)?;
        Retry::ITEM_UPDATE
            .run_while("the profile", StoreError::worth_rereading, || {
                self.try_put_profile(player, name, email, now)
            })
            .await?;
        self.get_player(player)
            .await?
            .ok_or_else(|| StoreError::corrupt(player.as_str(), "the profile just written is gone"))
    }

    async fn try_put_profile(
        self,
        player: &PlayerId,
        name: &str,
        change: EmailChange<'_>,
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
        let mut items = vec![
            // Item 0: a ban committed first refuses the change.
            self.store.table.tx_check(
                &entity::ban(player),
                "attribute_not_exists(pk)",
                Params::new(),
            )?,
            // Item 1: an erasure committed first refuses it too.
            self.store.tx_not_erased(player)?,
        ];
        // The email as stored (an address stored before emails were lower-cased keeps its
        // case there), and as the address it is.
        let stored: Option<String> = match change {
            EmailChange::Keep => None,
            _ => self
                .store
                .table
                .get_raw(&entity::player(player))
                .await?
                .and_then(|item| item.string("email").map(str::to_owned)),
        };
        let old = stored.as_deref().and_then(|e| Email::parse(e).ok());
        let mut condition = None;
        if !matches!(change, EmailChange::Keep) {
            // The email as read: a change that raced this one is read again.
            condition = Some(match &stored {
                Some(stored) => {
                    params = params.value(":old", stored.as_str());
                    "email = :old"
                }
                None => "attribute_not_exists(email)",
            });
        }
        let owned = "attribute_not_exists(pk) OR playerId = :pid";
        let pid = || Params::new().value(":pid", player.as_str());
        if let EmailChange::Set(email) = change {
            let g = entity::player_email_gsi1(email, player);
            update.push_str(", email = :email, gsi1pk = :g1pk, gsi1sk = :g1sk");
            params = params
                .value(":email", email.as_str())
                .value(":g1pk", g.pk)
                .value(":g1sk", g.sk);
            // Item 2: the address's owner, unless another player is, with a verified claim.
            // Every address set now is one the caller's token proves (`verified`); one owned
            // without that mark was claimed before addresses had to be proven, and the proven
            // claim takes it over, off the other player's profile in the same transaction.
            let owner = entity::email_owner(email);
            let unproven = self
                .store
                .table
                .get_raw(&owner)
                .await?
                .filter(|o| !o.contains_key(VERIFIED))
                .and_then(|o| o.string("playerId").and_then(|p| PlayerId::parse(p).ok()))
                .filter(|other| other != player);
            let set = "SET playerId = :pid, email = :email, verified = :yes";
            let owner_params = || {
                pid()
                    .value(":email", email.as_str())
                    .attr(":yes", AttributeValue::Bool(true))
            };
            match unproven {
                Some(other) => {
                    items.push(self.store.table.tx_update_if(
                        &owner,
                        set,
                        "playerId = :other AND attribute_not_exists(verified)",
                        owner_params().value(":other", other.as_str()),
                    )?);
                    items.push(self.store.table.tx_update_if(
                        &entity::player(&other),
                        "REMOVE email, gsi1pk, gsi1sk",
                        "attribute_exists(pk)",
                        Params::new(),
                    )?);
                }
                None => items.push(self.store.table.tx_update_if(
                    &owner,
                    set,
                    owned,
                    owner_params(),
                )?),
            }
        }
        if let Some(old) = old.as_ref().filter(|o| change.set() != Some(*o)) {
            items.push(
                self.store
                    .table
                    .tx_delete(&entity::email_owner(old), owned, pid())?,
            );
        }
        if matches!(change, EmailChange::Clear) {
            update.push_str(" REMOVE email, gsi1pk, gsi1sk");
        }
        let profile = entity::player(player);
        items.push(match condition {
            Some(c) => self
                .store
                .table
                .tx_update_if(&profile, &update, c, params)?,
            None => self.store.table.tx_update(&profile, &update, params)?,
        });
        match self
            .store
            .table
            .transact(items, "TransactWriteItems(profile)")
            .await
        {
            Err(StoreError::TransactionCanceled { reasons }) => {
                let failed =
                    |i: usize| reasons.get(i) == Some(&CancelReason::ConditionalCheckFailed);
                if failed(0) {
                    return Err(StoreError::Banned {
                        player: player.clone(),
                    });
                }
                if failed(1) {
                    return Err(StoreError::Erased {
                        player: player.clone(),
                    });
                }
                if let (Some(email), true) = (change.set(), failed(2)) {
                    return Err(StoreError::AlreadyExists {
                        what: "email",
                        id: email.to_string(),
                    });
                }
                Err(StoreError::TransactionCanceled { reasons })
            }
            other => other,
        }
    }
}

/// The email owner item's mark of an address claimed with a verified token.
const VERIFIED: &str = "verified";

/// What a profile write does to the player's email.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmailChange<'a> {
    /// Leaves it as it is.
    Keep,
    /// Sets it (lower-cased, as [`Email`] is), freeing the old one.
    Set(&'a Email),
    /// Removes it, freeing it.
    Clear,
}

impl<'a> EmailChange<'a> {
    fn set(self) -> Option<&'a Email> {
        match self {
            EmailChange::Set(e) => Some(e),
            _ => None,
        }
    }
}
