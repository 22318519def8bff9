//! `RewardGranted`: the close job's watch on a close's rewards. The store's close tells it each
//! page's rewards after granting them and before the page's checkpoint, so a publication that
//! fails stops the close there, and its next turn grants nothing twice and publishes the page
//! again under the same ids (`reward:<rewardId>`): each reward at least once. A player whose
//! erasure began is named by their pseudonym, as in `BoardClosed`: an event cannot be recalled.
//! Cost per page of `P` rewards: one `BatchGetItem` of erasure markers per 100 players, and
//! `ceil(P / 10)` `PutEvents`.

use leaderboard_events::{Event, RewardGranted};
use leaderboard_keys::ids::PlayerId;
use leaderboard_store::RewardWatch;
use leaderboard_store::rewards::Reward;

use crate::App;

/// Publishes the rewards a close granted.
pub struct RewardEvents<'a> {
    /// The function's store and publisher.
    pub app: &'a App,
}

impl RewardWatch for RewardEvents<'_> {
    async fn granted(&self, rewards: &[Reward]) -> Result<(), String> {
        if !self.app.publisher.is_on() {
            return Ok(());
        }
        let players: Vec<PlayerId> = rewards.iter().map(|r| r.player_id.clone()).collect();
        let erased = self
            .app
            .store
            .moderation()
            .erased_among(&players)
            .await
            .map_err(|e| e.to_string())?;
        let events: Vec<Event> = rewards
            .iter()
            .map(|r| {
                let player = match erased.get(&r.player_id) {
                    Some(pseudonym) => pseudonym.to_string(),
                    None => r.player_id.to_string(),
                };
                Event::RewardGranted(RewardGranted::new(
                    &r.reward_id.to_string(),
                    r.board_id.as_str(),
                    &player,
                    (r.rank, r.player_count),
                    r.reward.as_str(),
                    r.granted_at.to_string(),
                ))
            })
            .collect();
        self.app.publisher.publish(&events).await
    }
}
