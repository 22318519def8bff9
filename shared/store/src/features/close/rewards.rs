//! A close's rewards (contract section 13): each page of the snapshot grants the rewards of its
//! standings, by the board's bands, and tells its watch (season close publishes
//! `RewardGranted`), before it writes the page's standings and archive and checkpoints it. An
//! erasure waits for a closing board until it finds the player's entry archived, and then
//! lists their partition: since the reward came first, it finds the reward too and deletes it.
//!
//! Exactly once, however the close is stopped: a reward's id is made from the board and the
//! rank (`entity::RewardId`), so a page written again (its run stopped between its writes and
//! its checkpoint) names the same rewards, and each is put on condition that it does not exist,
//! in transactions of up to 100. A reward found there is left as it is, claimed or not, and its
//! transaction's other puts are sent again without it: a claim is never undone, and no player
//! gets a second reward. A page's announcements are made again with the page, under the same
//! ids (at least once). Cost: a page of `P` rewards is `ceil(P / 100)` transactions (each
//! reward 2 write units), and a page written again up to one transaction more per reward found.

use std::future::Future;

use leaderboard_keys::entity;
use leaderboard_keys::time::Timestamp;

use super::Close;
use crate::ground::error::{CancelReason, StoreError};
use crate::ground::items::to_item;
use crate::ground::model::{Board, SeasonResult};
use crate::ground::rewards::{Reward, reward_for};
use crate::table::request::Params;
use crate::table::retry::Retry;

/// The most puts in one transaction (DynamoDB's limit).
const PUTS_PER_TRANSACTION: usize = 100;

/// Who hears of the rewards a close granted, page by page, before the page is checkpointed: an
/// error stops the close (its next turn writes the page again, and tells the same rewards).
pub trait RewardWatch: Sync {
    /// `rewards` were granted (or found granted, on a page written again).
    fn granted(&self, rewards: &[Reward]) -> impl Future<Output = Result<(), String>> + Send;
}

/// No one: rewards are granted, and nothing announced.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unannounced;

impl RewardWatch for Unannounced {
    async fn granted(&self, _: &[Reward]) -> Result<(), String> {
        Ok(())
    }
}

impl Close<'_> {
    /// Grants the rewards of a page's final standings (`results`, of `player_count`) on
    /// `board`, as of `granted_at` (the close's start), and tells `watch`: see the module docs.
    pub(super) async fn grant_rewards<W: RewardWatch>(
        self,
        board: &Board,
        results: &[SeasonResult],
        player_count: u64,
        granted_at: Timestamp,
        watch: &W,
    ) -> Result<(), StoreError> {
        let Some(ends_at) = board.ends_at else {
            return Ok(());
        };
        let rewards: Vec<Reward> = results
            .iter()
            .filter_map(|r| {
                let name = reward_for(&board.rewards, r.rank, player_count)?;
                Some(Reward::granted(
                    &board.board_id,
                    ends_at,
                    r.entry.player_id.clone(),
                    (r.rank, player_count),
                    name.clone(),
                    granted_at,
                ))
            })
            .collect();
        if rewards.is_empty() {
            return Ok(());
        }
        for chunk in rewards.chunks(PUTS_PER_TRANSACTION) {
            self.put_new_rewards(chunk).await?;
        }
        watch.granted(&rewards).await.map_err(StoreError::Announce)
    }

    /// Puts each of `rewards` that does not exist yet, in one transaction when none does.
    async fn put_new_rewards(self, rewards: &[Reward]) -> Result<(), StoreError> {
        let table = &self.store.table;
        let mut pending: Vec<&Reward> = rewards.iter().collect();
        let retry = Retry::ITEM_UPDATE;
        let mut failures = 0;
        while !pending.is_empty() {
            let mut puts = Vec::with_capacity(pending.len());
            for reward in &pending {
                let (player, id) = (&reward.player_id, &reward.reward_id);
                let gsi1 = entity::reward_unclaimed_gsi1(player, id);
                let item = to_item(*reward, &entity::reward(player, id), Some(&gsi1), None)?;
                puts.push(table.tx_put(item, Some("attribute_not_exists(pk)"), Params::new())?);
            }
            match table.transact(puts, "TransactWriteItems(rewards)").await {
                Ok(()) => return Ok(()),
                Err(StoreError::TransactionCanceled { reasons })
                    if reasons.len() == pending.len()
                        && reasons.contains(&CancelReason::ConditionalCheckFailed) =>
                {
                    // Granted before: left as it is (claimed or not); the rest go again.
                    pending = pending
                        .into_iter()
                        .zip(reasons)
                        .filter(|(_, r)| *r != CancelReason::ConditionalCheckFailed)
                        .map(|(reward, _)| reward)
                        .collect();
                }
                Err(e) if e.is_retryable() && failures < *retry.attempts().end() => {
                    failures += 1;
                    retry.pause(failures).await;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}
