//! Guest sign-ups' limit: at most `per_hour` guest accounts a source (the caller's network,
//! [`GuestSource`]) may make in a clock hour, counted in one item per source and hour. So a
//! script cannot make the stack's user pool mint accounts without end: each costs its maker a
//! network, and the pool's monthly users stay bounded by the networks that ask.
//!
//! Cost: one conditional `UpdateItem` a sign-up, accepted or refused, whatever the number of
//! sources or accounts. The item expires (TTL) an hour after its hour ends.

use std::net::IpAddr;

use leaderboard_keys::entity;
use leaderboard_keys::guest::GuestSource;
use leaderboard_keys::time::Timestamp;

use crate::ground::error::StoreError;
use crate::store::Store;
use crate::table::request::{Params, WithParams};

/// One hour, in milliseconds.
const HOUR_MS: u64 = 3_600_000;

/// Guest sign-ups (the handle [`Store::guests`] gives).
#[derive(Clone, Copy)]
pub struct Guests<'a> {
    pub(crate) store: &'a Store,
}

impl Store {
    /// Guest sign-ups: the limit a network's requests for guest accounts are held to.
    pub fn guests(&self) -> Guests<'_> {
        Guests { store: self }
    }
}

impl Guests<'_> {
    /// Counts one guest sign-up from `address` at `now`, if its network has made fewer than
    /// `per_hour` this clock hour: else [`StoreError::GuestLimit`] with the seconds to the next
    /// hour, and nothing is written. Concurrent sign-ups from one network are counted one by
    /// one: exactly `per_hour` of them pass.
    pub async fn count_guest_sign_up(
        self,
        address: IpAddr,
        per_hour: u32,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let source = GuestSource::of(&self.store.erasure_secret, address);
        let ms = now.as_millis();
        let hour = ms / HOUR_MS;
        let next_hour_ms = (hour + 1) * HOUR_MS;
        let expires = next_hour_ms / 1000 + 3_600;
        let sent = self
            .store
            .table
            .update_request(
                &entity::guest_signups(&source, hour),
                "ADD #n :one SET #ttl = :ttl",
            )
            .condition_expression("attribute_not_exists(#n) OR #n < :limit")
            .params(
                Params::new()
                    .name("#n", "signUps")
                    .name("#ttl", "ttl")
                    .value(":one", 1u64)
                    .value(":limit", u64::from(per_hour))
                    .value(":ttl", expires),
            )?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(guest sign-ups)", e));
        match sent {
            Ok(_) => Ok(()),
            Err(e) if e.is_conditional_check_failed() => Err(StoreError::GuestLimit {
                retry_after_secs: (next_hour_ms - ms).div_ceil(1000).max(1),
            }),
            Err(e) => Err(e),
        }
    }
}
