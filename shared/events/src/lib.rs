//! The events the functions publish to EventBridge (`source: "leaderboard"`): `BoardClosed`
//! when season close has written a board's final standings, `BoardOpened` when a recurring
//! board's close opened its successor, `NewLeader` when rank 1 of an open board changes hands,
//! `RewardGranted` for each reward a close granted. Each carries an `eventId` derived from what
//! it describes, never from
//! when or how often it is published, so that a re-published event (a re-delivered batch, a
//! close run again after a crash) carries the same id and a consumer can drop the repeat:
//! - `BoardClosed`: `closed:<leaderboardId>` (a board closes once; its successor has its own id);
//! - `BoardOpened`: `opened:<leaderboardId>`, the successor's id (a board opens once);
//! - `NewLeader`: `leader:<leaderboardId>:<lane>:<seq>`, the change in the board's lane log
//!   (its lane and the lane's written count, which number the board's changes for good) that
//!   made the new leader;
//! - `RewardGranted`: `reward:<rewardId>` (a reward's id names its board and final rank).
//!
//! [`EventLog`] keeps what a local stack would publish, newest first, for `GET /local/events`;
//! [`eventbridge::Bus`] puts them on a bus.

pub mod eventbridge;

use std::collections::VecDeque;
use std::sync::Mutex;

use serde::Serialize;
use serde_json::Value;

/// The `source` of every event.
pub const SOURCE: &str = "leaderboard";

/// How many final standings `BoardClosed` carries.
pub const TOP_COUNT: usize = 10;

/// One final standing in `BoardClosed`'s `top`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Standing {
    /// The final rank (1 = top).
    pub rank: u64,
    /// The player.
    pub player_id: String,
    /// Their display name as on the entry; absent for an erased player, named by their
    /// pseudonym.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The score.
    pub score: u64,
}

/// A board's close is over: its final standings are written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BoardClosed {
    /// `closed:<leaderboardId>`.
    pub event_id: String,
    /// The board.
    pub leaderboard_id: String,
    /// Its entries at the close.
    pub player_count: u64,
    /// Its first [`TOP_COUNT`] final standings, in rank order.
    pub top: Vec<Standing>,
    /// The board that follows it (a recurring board's successor), or null.
    pub next_leaderboard_id: Option<String>,
}

impl BoardClosed {
    /// The event of `board`'s close; `top` is cut to its first [`TOP_COUNT`].
    pub fn new(
        board: &str,
        player_count: u64,
        mut top: Vec<Standing>,
        next: Option<String>,
    ) -> BoardClosed {
        top.truncate(TOP_COUNT);
        BoardClosed {
            event_id: format!("closed:{board}"),
            leaderboard_id: board.to_owned(),
            player_count,
            top,
            next_leaderboard_id: next,
        }
    }
}

/// A recurring board's close opened its successor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BoardOpened {
    /// `opened:<leaderboardId>`.
    pub event_id: String,
    /// The successor.
    pub leaderboard_id: String,
    /// Its series (its predecessor's).
    pub series_id: String,
    /// When it starts taking plays (its predecessor's end), RFC 3339.
    pub starts_at: String,
    /// When it ends, RFC 3339.
    pub ends_at: Option<String>,
}

impl BoardOpened {
    /// The event of `board`'s opening, in `series`, from `starts_at` to `ends_at`.
    pub fn new(board: &str, series: &str, starts_at: String, ends_at: Option<String>) -> Self {
        BoardOpened {
            event_id: format!("opened:{board}"),
            leaderboard_id: board.to_owned(),
            series_id: series.to_owned(),
            starts_at,
            ends_at,
        }
    }
}

/// Rank 1 of an open board changed hands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewLeader {
    /// `leader:<leaderboardId>:<lane>:<seq>`.
    pub event_id: String,
    /// The board.
    pub leaderboard_id: String,
    /// The new leader.
    pub player_id: String,
    /// Their score.
    pub score: u64,
    /// The leader before, or null on a board that had none.
    pub previous_leader_id: Option<String>,
}

impl NewLeader {
    /// The event of the change numbered `seq` on `lane` of `board`'s lane log, which made
    /// `player` the leader with `score` after `previous`.
    pub fn new(
        board: &str,
        (lane, seq): (u8, u64),
        player: &str,
        score: u64,
        previous: Option<String>,
    ) -> NewLeader {
        NewLeader {
            event_id: format!("leader:{board}:{lane}:{seq}"),
            leaderboard_id: board.to_owned(),
            player_id: player.to_owned(),
            score,
            previous_leader_id: previous,
        }
    }
}

/// A board's close granted a player a reward (contract section 13).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RewardGranted {
    /// `reward:<rewardId>`.
    pub event_id: String,
    /// The reward (`<endsAt ms>.<rank>.<leaderboardId>`), as the player claims it.
    pub reward_id: String,
    /// The board whose close granted it.
    pub leaderboard_id: String,
    /// The player, or an erased player's pseudonym.
    pub player_id: String,
    /// Their final rank.
    pub rank: u64,
    /// The board's final player count.
    pub player_count: u64,
    /// What the band granted.
    pub reward: String,
    /// When the close granted it, RFC 3339.
    pub granted_at: String,
}

impl RewardGranted {
    /// The event of reward `reward_id` (`reward`, for `rank` of `player_count` on `board`)
    /// granted to `player` at `granted_at`.
    pub fn new(
        reward_id: &str,
        board: &str,
        player: &str,
        (rank, player_count): (u64, u64),
        reward: &str,
        granted_at: String,
    ) -> RewardGranted {
        RewardGranted {
            event_id: format!("reward:{reward_id}"),
            reward_id: reward_id.to_owned(),
            leaderboard_id: board.to_owned(),
            player_id: player.to_owned(),
            rank,
            player_count,
            reward: reward.to_owned(),
            granted_at,
        }
    }
}

/// An event to publish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// See [`BoardClosed`].
    BoardClosed(BoardClosed),
    /// See [`BoardOpened`].
    BoardOpened(BoardOpened),
    /// See [`NewLeader`].
    NewLeader(NewLeader),
    /// See [`RewardGranted`].
    RewardGranted(RewardGranted),
}

impl Event {
    /// EventBridge's `DetailType`: the event's name.
    pub fn detail_type(&self) -> &'static str {
        match self {
            Event::BoardClosed(_) => "BoardClosed",
            Event::BoardOpened(_) => "BoardOpened",
            Event::NewLeader(_) => "NewLeader",
            Event::RewardGranted(_) => "RewardGranted",
        }
    }

    /// The event's id, the same on every publication.
    pub fn event_id(&self) -> &str {
        match self {
            Event::BoardClosed(e) => &e.event_id,
            Event::BoardOpened(e) => &e.event_id,
            Event::NewLeader(e) => &e.event_id,
            Event::RewardGranted(e) => &e.event_id,
        }
    }

    /// EventBridge's `Detail`: the event's fields as JSON.
    pub fn detail(&self) -> Value {
        let detail = match self {
            Event::BoardClosed(e) => serde_json::to_value(e),
            Event::BoardOpened(e) => serde_json::to_value(e),
            Event::NewLeader(e) => serde_json::to_value(e),
            Event::RewardGranted(e) => serde_json::to_value(e),
        };
        // Plain structs of strings and numbers: serialising them cannot fail.
        detail.unwrap_or(Value::Null)
    }

    /// The event as EventBridge delivers it to a rule's target (the fields a consumer reads):
    /// `source`, `detail-type` and `detail`.
    pub fn envelope(&self) -> Value {
        serde_json::json!({
            "source": SOURCE,
            "detail-type": self.detail_type(),
            "detail": self.detail(),
        })
    }
}

/// Where the functions publish their events.
#[derive(Debug, Clone, Default)]
pub enum Publisher {
    /// Nowhere: no bus configured.
    #[default]
    Off,
    /// Into a log (the local stack's `GET /local/events`, and tests).
    Log(std::sync::Arc<EventLog>),
    /// Onto an EventBridge bus.
    EventBridge(eventbridge::Bus),
}

/// The variable naming the bus a function publishes to (unset or empty: it publishes nothing).
pub const BUS_VAR: &str = "EVENT_BUS_NAME";

impl Publisher {
    /// The publisher a function's environment asks for: the bus [`BUS_VAR`] names, reached
    /// with `sdk`, or none.
    pub fn from_env(sdk: &aws_config::SdkConfig) -> Publisher {
        match std::env::var(BUS_VAR) {
            Ok(name) if !name.trim().is_empty() => {
                Publisher::EventBridge(eventbridge::Bus::new(sdk, name.trim()))
            }
            _ => Publisher::Off,
        }
    }

    /// Whether events go anywhere.
    pub fn is_on(&self) -> bool {
        !matches!(self, Publisher::Off)
    }

    /// Publishes `events`, each at least once; an error means some may not have been (the
    /// caller publishes them again later, with the same ids).
    pub async fn publish(&self, events: &[Event]) -> Result<(), String> {
        match self {
            Publisher::Off => Ok(()),
            Publisher::Log(log) => {
                log.keep(events);
                Ok(())
            }
            Publisher::EventBridge(bus) => bus.put(events).await,
        }
    }
}

/// What a local stack would have published, newest first, at most `cap` (the oldest go).
/// Every publication is kept, a re-published event again with its same `eventId`, as a
/// consumer of the bus would see it.
#[derive(Debug)]
pub struct EventLog {
    cap: usize,
    events: Mutex<VecDeque<Value>>,
}

impl EventLog {
    /// An empty log keeping at most `cap` events.
    pub fn new(cap: usize) -> EventLog {
        EventLog {
            cap,
            events: Mutex::new(VecDeque::new()),
        }
    }

    /// Keeps `events`, in the order published.
    pub fn keep(&self, events: &[Event]) {
        let Ok(mut kept) = self.events.lock() else {
            return;
        };
        for event in events {
            kept.push_front(event.envelope());
            kept.truncate(self.cap);
        }
    }

    /// The events kept, newest first.
    pub fn newest_first(&self) -> Vec<Value> {
        self.events
            .lock()
            .map(|kept| kept.iter().cloned().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn standing(rank: u64) -> Standing {
        Standing {
            rank,
            player_id: format!("p{rank}"),
            name: Some(format!("Player {rank}")),
            score: 1_000 - rank,
        }
    }

    #[test]
    fn board_closed_carries_the_contracts_fields_and_the_first_ten() {
        let top = (1..=12).map(standing).collect();
        let e = Event::BoardClosed(BoardClosed::new("daily_7", 12, top, Some("daily_8".into())));
        assert_eq!(e.detail_type(), "BoardClosed");
        assert_eq!(e.event_id(), "closed:daily_7");
        let detail = e.detail();
        assert_eq!(detail["leaderboardId"], "daily_7");
        assert_eq!(detail["playerCount"], 12);
        assert_eq!(detail["nextLeaderboardId"], "daily_8");
        assert_eq!(detail["top"].as_array().unwrap().len(), TOP_COUNT);
        assert_eq!(
            detail["top"][0],
            json!({"rank": 1, "playerId": "p1", "name": "Player 1", "score": 999})
        );
        let last = Event::BoardClosed(BoardClosed::new("season_3", 0, Vec::new(), None));
        assert_eq!(last.detail()["nextLeaderboardId"], Value::Null);
        assert_eq!(last.detail()["top"], json!([]));
    }

    #[test]
    fn new_leader_ids_name_the_change_and_repeat_on_republication() {
        let first = NewLeader::new("b", (3, 17), "p_alice", 500, None);
        let again = NewLeader::new("b", (3, 17), "p_alice", 500, None);
        let next = NewLeader::new("b", (7, 2), "p_bob", 600, Some("p_alice".into()));
        assert_eq!(first, again);
        assert_eq!(first.event_id, "leader:b:3:17");
        assert_ne!(first.event_id, next.event_id);
        let e = Event::NewLeader(next);
        assert_eq!(
            e.envelope(),
            json!({"source": "leaderboard", "detail-type": "NewLeader", "detail": {
                "eventId": "leader:b:7:2", "leaderboardId": "b", "playerId": "p_bob",
                "score": 600, "previousLeaderId": "p_alice"}})
        );
        assert_eq!(
            Event::NewLeader(first).detail()["previousLeaderId"],
            Value::Null
        );
    }

    #[test]
    fn the_log_lists_newest_first_and_keeps_at_most_its_cap() {
        let log = EventLog::new(3);
        let leader = |seq| Event::NewLeader(NewLeader::new("b", (0, seq), "p", seq, None));
        log.keep(&[leader(1), leader(2)]);
        log.keep(&[leader(3), leader(3), leader(4)]);
        let ids: Vec<String> = log
            .newest_first()
            .iter()
            .map(|e| e["detail"]["eventId"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(ids, ["leader:b:0:4", "leader:b:0:3", "leader:b:0:3"]);
    }
}
