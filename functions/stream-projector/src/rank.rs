//! The rank index's half of the stream consumer: every change of a Score item (`INSERT` and
//! `MODIFY` by their new image, `REMOVE` by its old one) is grouped by board and player in
//! stream order and applied with [`Store::apply_rank_changes`], which counts each change exactly
//! once (see `leaderboard_store`'s `rank_index` module). TTL deletions (after a season closed,
//! when the index is no longer read) are skipped.

use std::collections::HashMap;
use std::future::Future;

use crate::{count_attr, string_attr};
use aws_lambda_events::event::dynamodb::EventRecord;
use aws_lambda_events::event::streams::DynamoDbBatchItemFailure;
use futures::StreamExt;
use leaderboard_keys::entity::ItemKey;
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_store::{RankApplyOutcome, RankChange, Store, StoreError};

/// How many players' index writes of one batch run at once.
pub const MAX_CONCURRENT_ENTRIES: usize = 8;

/// Where the rank index is kept: the store in production; tests wrap it to inject failures.
pub trait RankIndex: Sync {
    /// Applies one player's changes on one board, in stream order, exactly once.
    fn apply(
        &self,
        board: &BoardId,
        player: &PlayerId,
        changes: &[RankChange],
    ) -> impl Future<Output = Result<RankApplyOutcome, StoreError>> + Send;
}

impl RankIndex for Store {
    fn apply(
        &self,
        board: &BoardId,
        player: &PlayerId,
        changes: &[RankChange],
    ) -> impl Future<Output = Result<RankApplyOutcome, StoreError>> + Send {
        self.apply_rank_changes(board, player, changes)
    }
}

/// One player's Score changes on one board in a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryGroup {
    /// The board.
    pub board: BoardId,
    /// The player.
    pub player: PlayerId,
    /// The first record's sequence number: reported if the group fails.
    pub first_sequence_number: Option<String>,
    /// The changes, in stream order.
    pub changes: Vec<RankChange>,
}

/// A batch's Score changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RankPlan {
    /// One group per board and player, in order of first appearance.
    pub groups: Vec<EntryGroup>,
    /// Score records that can't be read (no version, a key that does not parse): their
    /// sequence numbers, reported.
    pub poisoned: Vec<Option<String>>,
}

/// Sorts out a batch's Score changes (pure; the records are left as they are).
pub fn plan(records: &[EventRecord]) -> RankPlan {
    let mut out = RankPlan::default();
    let mut index: HashMap<(BoardId, PlayerId), usize> = HashMap::new();
    for record in records {
        let change = &record.change;
        let (Some(pk), Some(sk)) = (
            string_attr(&change.keys, "pk"),
            string_attr(&change.keys, "sk"),
        ) else {
            continue;
        };
        let Ok(ItemKey::Score { board, sort_key }) = ItemKey::parse(pk, sk) else {
            continue;
        };
        let (image, upsert) = match record.event_name.as_str() {
            "INSERT" | "MODIFY" => (&change.new_image, true),
            "REMOVE" => {
                let ttl = record
                    .user_identity
                    .as_ref()
                    .is_some_and(|u| u.principal_id == "dynamodb.amazonaws.com");
                if ttl {
                    continue;
                }
                (&change.old_image, false)
            }
            _ => continue,
        };
        let seq = change.sequence_number.clone();
        let player = string_attr(image, "playerId").and_then(|p| PlayerId::parse(p).ok());
        let (Some(version), Some(player)) = (count_attr(image, "version"), player) else {
            tracing::error!(
                sequence_number = seq.as_deref().unwrap_or("-"),
                key = %sort_key,
                "score record without a version or player id"
            );
            out.poisoned.push(seq);
            continue;
        };
        let rank_change = RankChange {
            upsert,
            score_sk: sort_key,
            version,
        };
        let key = (board, player);
        match index.get(&key) {
            Some(&i) => out.groups[i].changes.push(rank_change),
            None => {
                index.insert(key.clone(), out.groups.len());
                out.groups.push(EntryGroup {
                    board: key.0,
                    player: key.1,
                    first_sequence_number: seq,
                    changes: vec![rank_change],
                });
            }
        }
    }
    out
}

/// Applies a batch's Score changes, and answers the records to report: the poisoned ones and
/// the first record of every group whose write failed.
pub async fn index<R: RankIndex>(rank_index: &R, plan: &RankPlan) -> Vec<DynamoDbBatchItemFailure> {
    let results: Vec<(&EntryGroup, Result<RankApplyOutcome, StoreError>)> =
        futures::stream::iter(&plan.groups)
            .map(|g| async move { (g, rank_index.apply(&g.board, &g.player, &g.changes).await) })
            .buffer_unordered(MAX_CONCURRENT_ENTRIES)
            .collect()
            .await;
    let mut failures: Vec<Option<String>> = plan.poisoned.clone();
    let (mut applied, mut replayed, mut items) = (0, 0, 0);
    for (group, result) in results {
        match result {
            Ok(o) => {
                applied += o.applied;
                replayed += o.already_applied;
                items += o.items_written;
            }
            Err(e) => {
                tracing::error!(
                    board = %group.board,
                    player = %group.player,
                    error = %e,
                    "rank index write failed; reported for re-delivery"
                );
                failures.push(group.first_sequence_number.clone());
            }
        }
    }
    if !plan.groups.is_empty() {
        tracing::info!(
            entries = plan.groups.len(),
            applied,
            replayed,
            items_written = items,
            failures = failures.len(),
            "rank index batch"
        );
    }
    failures.into_iter().map(crate::failure).collect()
}
