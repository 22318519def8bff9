//! The close lease: one season-close run at a time works a board, so two runs started together
//! (a schedule firing while the last run is still going, a retried invocation) never write a
//! board's snapshot twice. The same holder id and expiry lease a scheduled pass's own item (the
//! rank layout pass's cursor, the recount run): `leaseBy` and `leaseUntil` (epoch ms) on it.
//!
//! The lease is two attributes of the board item, `closeLeaseBy` (a random id per close turn)
//! and `closeLeaseUntil`. A turn takes it with one conditional UpdateItem that returns the board
//! as it is under the lease, checkpoint included; every checkpoint renews it and fails once
//! another run holds it; the turn gives it back when it pauses or fails, and the finished close
//! removes it. A lease whose holder died (a Lambda killed at its time limit) expires on its own:
//! it is taken for the holder's deadline plus [`LEASE_MARGIN`], or for
//! [`LEASE_WITHOUT_DEADLINE`] at a time when there is no deadline.

use std::time::{Duration, Instant};

use leaderboard_keys::entity::{self, Key};
use leaderboard_keys::ids::BoardId;
use leaderboard_keys::time::Timestamp;
use rand::Rng;

use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt};
use crate::ground::model::BoardStatus;
use crate::table::Table;
use crate::table::request::{Params, WithParams};
use crate::table::retry::Retry;

/// How long a lease outlives its holder's deadline: the page in flight when the deadline
/// passes, and the difference between two runs' clocks.
pub const LEASE_MARGIN: Duration = Duration::from_secs(30);

/// How long a lease holds at a time for a holder without a deadline (a local run); every
/// checkpoint renews it.
pub const LEASE_WITHOUT_DEADLINE: Duration = Duration::from_secs(120);

/// One run's hold on what it works: a close turn's on a board, and the rank layout pass's on
/// its cursor (`rank_sweep`).
#[derive(Debug, Clone)]
pub(crate) struct CloseLease {
    by: String,
    deadline: Option<Instant>,
}

/// What taking the lease found.
pub(crate) enum Taken {
    /// The lease is ours; the board item as it is under it.
    Held(Item),
    /// Another run holds it until then.
    Busy(Timestamp),
    /// The board closed meanwhile; its item.
    Closed(Item),
}

impl CloseLease {
    /// A new holder, working until `deadline` (if any).
    pub(crate) fn new(deadline: Option<Instant>) -> CloseLease {
        CloseLease {
            by: format!("{:032x}", rand::rng().random::<u128>()),
            deadline,
        }
    }

    /// The holder's id, written as the lease's owner.
    pub(crate) fn by(&self) -> &str {
        &self.by
    }

    /// When the lease, taken or renewed now, expires.
    pub(crate) fn until(&self) -> Timestamp {
        let work = match self.deadline {
            Some(d) => d.saturating_duration_since(Instant::now()),
            None => LEASE_WITHOUT_DEADLINE,
        };
        Timestamp::now().plus_millis((work + LEASE_MARGIN).as_millis() as u64)
    }
}

impl Table {
    /// Takes the close lease on board `id` unless another run holds it. Retried when a play's
    /// transaction in flight on the board item conflicts with it.
    pub(crate) async fn take_close_lease(
        &self,
        id: &BoardId,
        lease: &CloseLease,
    ) -> Result<Taken, StoreError> {
        let taken = Retry::ITEM_UPDATE
            .run("taking the close lease", || {
                self.try_take_close_lease(id, lease)
            })
            .await;
        match taken {
            Ok(item) => Ok(Taken::Held(item)),
            Err(StoreError::ConditionalCheckFailed) => {
                let item = self.get_raw(&entity::board(id)).await?.ok_or_else(|| {
                    StoreError::NotFound {
                        what: "leaderboard",
                        id: id.to_string(),
                    }
                })?;
                if item.string("status") == Some(BoardStatus::Closed.as_str()) {
                    return Ok(Taken::Closed(item));
                }
                let until = item
                    .string("closeLeaseUntil")
                    .and_then(|t| Timestamp::parse_rfc3339("closeLeaseUntil", t).ok())
                    .unwrap_or_else(Timestamp::now);
                Ok(Taken::Busy(until))
            }
            Err(e) => Err(e),
        }
    }

    async fn try_take_close_lease(
        &self,
        id: &BoardId,
        lease: &CloseLease,
    ) -> Result<Item, StoreError> {
        let out = self
            .update_request(
                &entity::board(id),
                "SET closeLeaseBy = :by, closeLeaseUntil = :until",
            )
            .condition_expression(
                "attribute_exists(pk) AND #status <> :closed AND (attribute_not_exists(closeLeaseBy) \
                 OR closeLeaseBy = :by OR closeLeaseUntil < :now)",
            )
            .return_values(aws_sdk_dynamodb::types::ReturnValue::AllNew)
            .params(
                Params::new()
                    .name("#status", "status")
                    .value(":closed", BoardStatus::Closed)
                    .value(":by", &lease.by)
                    .value(":until", lease.until())
                    .value(":now", Timestamp::now()),
            )?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(take close lease)", e))?;
        Ok(out.attributes.unwrap_or_default())
    }

    /// Records a close's progress and renews its lease, if the lease is still its own and no
    /// close got further: `Ok(None)` when another run holds the lease now (this turn must
    /// stop), else the furthest progress, so a close that fell behind jumps ahead.
    pub(crate) async fn checkpoint_under_lease(
        &self,
        id: &BoardId,
        lease: &CloseLease,
        done: u64,
        cursor: Option<String>,
    ) -> Result<Option<(u64, Option<String>)>, StoreError> {
        let result = self
            .update_request(
                &entity::board(id),
                "SET closeRank = :done, closeCursor = :cursor, closeLeaseUntil = :until",
            )
            .condition_expression(
                "closeLeaseBy = :by AND (attribute_not_exists(closeRank) OR closeRank < :done)",
            )
            .params(
                Params::new()
                    .value(":done", done)
                    .value(":cursor", cursor.as_deref().unwrap_or_default())
                    .value(":by", &lease.by)
                    .value(":until", lease.until()),
            )?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(close checkpoint)", e));
        match result {
            Ok(_) => Ok(Some((done, cursor))),
            Err(StoreError::ConditionalCheckFailed) => {
                let raw = self.get_raw(&entity::board(id)).await?.unwrap_or_default();
                if raw.string("closeLeaseBy") != Some(lease.by.as_str()) {
                    return Ok(None);
                }
                let theirs = raw.number("closeRank").unwrap_or(0);
                if theirs > done {
                    Ok(Some((theirs, raw.string("closeCursor").map(str::to_owned))))
                } else {
                    Ok(Some((done, cursor)))
                }
            }
            Err(e) => Err(e),
        }
    }

    /// Gives the lease back (a paused or failed turn), so that the next turn, of this run or
    /// another, need not wait for it to expire. A failure to give it back is logged: the lease
    /// then expires.
    pub(crate) async fn release_close_lease(&self, id: &BoardId, lease: &CloseLease) {
        let released = async {
            self.update_request(&entity::board(id), "REMOVE closeLeaseBy, closeLeaseUntil")
                .condition_expression("closeLeaseBy = :by")
                .params(Params::new().value(":by", &lease.by))?
                .send()
                .await
                .map_err(|e| StoreError::sdk("UpdateItem(release close lease)", e))
        };
        match released.await {
            Ok(_) | Err(StoreError::ConditionalCheckFailed) => {}
            Err(e) => {
                tracing::warn!(board = %id, error = %e, "close lease not released; it expires")
            }
        }
    }
}

impl Table {
    /// Takes the lease on a pass's item `key` unless another run holds it, on condition
    /// `also` too: the item as it is under the lease, or `None` when it is held or `also`
    /// fails.
    pub(crate) async fn take_item_lease(
        &self,
        key: &Key,
        lease: &CloseLease,
        also: &str,
        what: &'static str,
    ) -> Result<Option<Item>, StoreError> {
        let taken = self
            .update_request(key, "SET leaseBy = :by, leaseUntil = :until")
            .condition_expression(format!(
                "({also}) AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)"
            ))
            .params(
                Params::new()
                    .value(":by", lease.by())
                    .value(":until", lease.until().as_millis())
                    .value(":now", Timestamp::now().as_millis()),
            )?
            .return_values(aws_sdk_dynamodb::types::ReturnValue::AllNew)
            .send()
            .await;
        match taken {
            Ok(out) => Ok(Some(out.attributes.unwrap_or_default())),
            Err(e) => match StoreError::sdk(what, e) {
                StoreError::ConditionalCheckFailed => Ok(None),
                other => Err(other),
            },
        }
    }

    /// Updates a pass's item `key` on condition that run `by` still holds its lease.
    pub(crate) async fn update_under_lease(
        &self,
        key: &Key,
        by: &str,
        update: &str,
        params: Params,
        what: &'static str,
    ) -> Result<(), StoreError> {
        self.update_request(key, update)
            .condition_expression("leaseBy = :me")
            .params(params.value(":me", by))?
            .send()
            .await
            .map_err(|e| StoreError::sdk(what, e))?;
        Ok(())
    }

    /// Gives a pass's lease back, so that the next run need not wait for it to expire.
    pub(crate) async fn release_item_lease(
        &self,
        key: &Key,
        by: &str,
        what: &'static str,
    ) -> Result<(), StoreError> {
        self.update_under_lease(key, by, "REMOVE leaseBy, leaseUntil", Params::new(), what)
            .await
    }
}
