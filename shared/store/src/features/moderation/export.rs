//! The player's export (contract §7, data rights: GDPR Art. 15, CCPA's right to know):
//! everything the table stores about the player as one JSON document, their profile with its
//! email, their ban, their entries (on an open board with its rank now, on a closed one as it
//! was archived), their season results, their sessions, their places on tournament boards
//! (joins and attempts) and their rewards.
//!
//! **Bounded.** A document holds at most [`EXPORT_ENTRIES`] entries (each ranked from the rank
//! index, about five requests), [`EXPORT_RESULTS`] results and [`EXPORT_SESSIONS`] sessions,
//! read in pages of the player's partition; a player with more gets `nextCursor`, and the next
//! document carries on from there (the profile and ban again, each document whole by itself).
//! So a request's reads and its memory are bounded whatever the player has stored.

use leaderboard_keys::entity::{
    self, ENTRANT_PREFIX, ENTRY_PREFIX, RESULT_PREFIX, REWARD_PREFIX, SESSION_PREFIX,
};
use leaderboard_keys::ids::PlayerId;
use serde::{Deserialize, Serialize};

use crate::features::moderation::Moderation;
use crate::features::moderation::bans::Ban;
use crate::ground::error::StoreError;
use crate::ground::freshness::Freshness;
use crate::ground::items::from_item;
use crate::ground::model::{
    Board, BoardStatus, Entry, EntryPointer, Player, SeasonResult, Session,
};
use crate::ground::rewards::Reward;
use crate::ground::tournament::Entrant;
use crate::table::query::Listing;
use crate::table::request::Index;

/// The most entries one export document holds (each is ranked: about five requests).
pub const EXPORT_ENTRIES: usize = 100;
/// The most season results one document holds.
pub const EXPORT_RESULTS: usize = 1000;
/// The most sessions one document holds.
pub const EXPORT_SESSIONS: usize = 1000;
/// The most tournament places one document holds.
pub const EXPORT_ENTRANTS: usize = 1000;
/// The most rewards in one export document.
pub const EXPORT_REWARDS: usize = 1000;

/// One entry of the player's, as exported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportedEntry {
    /// The entry as stored.
    #[serde(flatten)]
    pub entry: Entry,
    /// `open` (ranked now), or `closed` (archived with its board; its final rank is among the
    /// results).
    pub board_status: &'static str,
    /// The rank now, on an open board.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<u64>,
    /// How fresh that rank is.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub freshness: Option<Freshness>,
}

/// Everything stored about a player (or the part of it one document holds).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerExport {
    /// The player.
    pub player_id: PlayerId,
    /// The profile, email included (`null` without one).
    pub profile: Option<Player>,
    /// The ban (`null` when not banned).
    pub ban: Option<Ban>,
    /// Entries, by board id.
    pub entries: Vec<ExportedEntry>,
    /// Season results, by board id.
    pub results: Vec<SeasonResult>,
    /// Sessions, oldest first.
    pub sessions: Vec<Session>,
    /// Places on tournament boards (joined, attempts made), by board id.
    pub entrants: Vec<Entrant>,
    /// Rewards board closes granted, claimed or not, by id (oldest board end first).
    pub rewards: Vec<Reward>,
    /// Where the next document carries on; `null` when this one ends the export.
    pub next_cursor: Option<String>,
}

/// Where an export stands: the part being read and the listing's cursor in it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct ExportCursor {
    /// 0: entries, 1: results, 2: sessions, 3: tournament places, 4: rewards.
    part: u8,
    /// The part's listing cursor (signed), if it is under way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    at: Option<String>,
}

impl Moderation<'_> {
    /// One document of `player`'s export (see the module doc), from `cursor` (a previous
    /// document's `nextCursor`) or from the start.
    pub async fn export_player(
        self,
        player: &PlayerId,
        cursor: Option<&str>,
    ) -> Result<PlayerExport, StoreError> {
        let mut at = match cursor {
            None => ExportCursor::default(),
            Some(c) => decode(c)?,
        };
        let profile = self.store.table.get(&entity::player(player)).await?;
        let ban = self.store.table.get(&entity::ban(player)).await?;
        let mut export = PlayerExport {
            player_id: player.clone(),
            profile,
            ban,
            entries: Vec::new(),
            results: Vec::new(),
            sessions: Vec::new(),
            entrants: Vec::new(),
            rewards: Vec::new(),
            next_cursor: None,
        };
        let partition = entity::player_pk(player);
        loop {
            let (name, prefix, cap) = match at.part {
                0 => ("export_entries", ENTRY_PREFIX, EXPORT_ENTRIES),
                1 => ("export_results", RESULT_PREFIX, EXPORT_RESULTS),
                2 => ("export_sessions", SESSION_PREFIX, EXPORT_SESSIONS),
                3 => ("export_entrants", ENTRANT_PREFIX, EXPORT_ENTRANTS),
                4 => ("export_rewards", REWARD_PREFIX, EXPORT_REWARDS),
                _ => return Ok(export),
            };
            let listing = Listing::new(name, Index::Table, partition.clone(), prefix);
            let page = self
                .store
                .table
                .list(&listing, cap, at.at.as_deref())
                .await?;
            let next = page.next_cursor.clone();
            match at.part {
                0 => {
                    for item in page.items {
                        let pointer: EntryPointer = from_item(item)?;
                        export.entries.push(self.exported_entry(pointer).await?);
                    }
                }
                1 => export
                    .results
                    .extend(page.into_page::<SeasonResult>()?.items),
                2 => export.sessions.extend(page.into_page::<Session>()?.items),
                3 => export.entrants.extend(page.into_page::<Entrant>()?.items),
                _ => export.rewards.extend(page.into_page::<Reward>()?.items),
            }
            match next {
                // The part goes on in the next document.
                Some(next) => {
                    at.at = Some(next);
                    export.next_cursor = Some(encode(&at));
                    return Ok(export);
                }
                None => {
                    at = ExportCursor {
                        part: at.part + 1,
                        at: None,
                    }
                }
            }
        }
    }

    /// An entry as exported: ranked now on an open board; as archived otherwise.
    async fn exported_entry(self, pointer: EntryPointer) -> Result<ExportedEntry, StoreError> {
        let board: Option<Board> = self
            .store
            .table
            .get(&entity::board(&pointer.entry.board_id))
            .await?;
        let mut exported = ExportedEntry {
            entry: pointer.entry.clone(),
            board_status: "closed",
            rank: None,
            freshness: None,
        };
        if let Some(board) = board.filter(|b| b.status != BoardStatus::Closed) {
            exported.board_status = "open";
            if let Some((ranked, _)) = self
                .store
                .rank()
                .player_rank_counted(&board, &pointer.entry.player_id)
                .await?
            {
                exported.rank = Some(ranked.rank);
                exported.freshness = ranked.freshness;
            }
        }
        Ok(exported)
    }
}

fn encode(at: &ExportCursor) -> String {
    use base64::Engine;
    let json = serde_json::to_vec(at).unwrap_or_default();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json)
}

fn decode(cursor: &str) -> Result<ExportCursor, StoreError> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .map_err(|_| StoreError::BadCursor)?;
    let at: ExportCursor = serde_json::from_slice(&bytes).map_err(|_| StoreError::BadCursor)?;
    if at.part > 3 {
        return Err(StoreError::BadCursor);
    }
    Ok(at)
}
