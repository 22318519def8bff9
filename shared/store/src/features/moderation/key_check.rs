//! The stack's erasure secret, checked: the functions keep one item, `STACK` /
//! `#ERASURE_KEY_CHECK`, holding [`key_check`] under their secret, so that an operator's tool
//! with another secret can tell before it writes. With the wrong secret an erasure's marker
//! would sit under a pseudonym the functions never look up (the erased player plays on), and
//! an admin action would miss a real marker and bring an erased player's items back.
//!
//! Season close keeps the item on every run (one GetItem, and one conditional PutItem the first
//! time); the local stack writes it when it starts. The item never changes: a function that
//! finds it written under another secret says so in its log and leaves it.

use leaderboard_keys::entity;
use leaderboard_keys::erasure::key_check;

use crate::features::moderation::Moderation;
use crate::ground::error::StoreError;
use crate::ground::items::{ItemExt, key_item, s};

/// The attribute holding the check.
const MAC: &str = "mac";

/// How the store's erasure secret compares with the stack's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyCheck {
    /// The table's check was made with this secret.
    Matches,
    /// It was made with another one.
    Differs,
    /// The table holds no check yet (no season close has run since the deploy).
    Absent,
}

impl Moderation<'_> {
    /// Compares the store's erasure secret with the table's check: one consistent GetItem.
    pub async fn erasure_key_check(self) -> Result<KeyCheck, StoreError> {
        let held = self
            .store
            .table
            .get_raw(&entity::erasure_key_check())
            .await?;
        Ok(match held.as_ref().and_then(|i| i.string(MAC)) {
            None => KeyCheck::Absent,
            Some(mac) if mac == key_check(&self.store.erasure_secret) => KeyCheck::Matches,
            Some(_) => KeyCheck::Differs,
        })
    }

    /// Writes the table's check under the store's secret unless one is there: what it found
    /// ([`KeyCheck::Absent`]: written now). One GetItem, and the first time a conditional
    /// PutItem (a check written meanwhile by another run is read again).
    pub async fn keep_erasure_key_check(self) -> Result<KeyCheck, StoreError> {
        let found = self.erasure_key_check().await?;
        if found != KeyCheck::Absent {
            return Ok(found);
        }
        let mut item = key_item(&entity::erasure_key_check());
        item.insert(MAC.into(), s(key_check(&self.store.erasure_secret)));
        let put = self
            .store
            .table
            .put_request(item)
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .await
            .map_err(|e| StoreError::sdk("PutItem(erasure key check)", e));
        match put {
            Ok(_) => Ok(KeyCheck::Absent),
            Err(e) if e.is_conditional_check_failed() => self.erasure_key_check().await,
            Err(e) => Err(e),
        }
    }
}
