//! Item keys parsed back into what they identify ([`ItemKey`]): what `lbctl explain` and the
//! checks that walk the table read a raw key with.

use super::*;
use crate::KeyError;
use crate::erasure::Pseudonym;
use crate::guest::GuestSource;
use crate::ids::{BoardId, Email, GameId, IdempotencyKey, PlayerId, SeriesId, SessionId, TierName};

/// An item key parsed back into what it identifies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemKey {
    /// A Player item.
    Player(PlayerId),
    /// A player's ban.
    Ban(PlayerId),
    /// A player's recent plays, for the rate limit.
    PlayRate(PlayerId),
    /// The owner of an email address.
    EmailOwner(Email),
    /// An erasure's marker.
    Erasure(Pseudonym),
    /// A player's play fence (ban and erasure), by pseudonym.
    Fence(Pseudonym),
    /// An item of a player's audit trail.
    Audit {
        /// Whose trail: a playerId, or an erased player's pseudonym.
        subject: PlayerId,
        /// The item's sort key, `ACTION#<at>#<id>`.
        sort_key: String,
    },
    /// A play's idempotency key.
    Idempotency {
        /// The player.
        player: PlayerId,
        /// The key.
        key: IdempotencyKey,
    },
    /// A Leaderboard item.
    Leaderboard(BoardId),
    /// An item of a board's audit trail (an admin's action on the board, such as closing it).
    BoardAudit {
        /// The board.
        board: BoardId,
        /// The item's sort key, `ACTION#<at>#<id>`.
        sort_key: String,
    },
    /// A Score item; decode `sort_key` with the board's [`crate::rank::RankKeySpec`].
    Score {
        /// The board.
        board: BoardId,
        /// The whole sort key, `SCORE#<rankKey>#<playerId>`.
        sort_key: String,
    },
    /// A Session item.
    Session {
        /// The player.
        player: PlayerId,
        /// The session.
        session: SessionId,
    },
    /// A Final standing item.
    FinalStanding {
        /// The board.
        board: BoardId,
        /// The final rank (1 = top).
        rank: u64,
    },
    /// A Season result item.
    SeasonResult {
        /// The player.
        player: PlayerId,
        /// The closed board.
        board: BoardId,
    },
    /// A player's entry pointer on a board.
    Entry {
        /// The player.
        player: PlayerId,
        /// The board.
        board: BoardId,
    },
    /// A player's placement in one period of a league series.
    Placement {
        /// The player.
        player: PlayerId,
        /// The league's series.
        series: SeriesId,
        /// When the period ends.
        period_end: Timestamp,
    },
    /// A league board's cohort cursor of one tier.
    CohortCursor {
        /// The league board.
        board: BoardId,
        /// The tier.
        tier: TierName,
    },
    /// A league board's listing item of one cohort.
    CohortListing {
        /// The league board.
        board: BoardId,
        /// The cohort's tier.
        tier: TierName,
        /// The cohort's number in its tier, from 1.
        number: u32,
    },
    /// A board's listing item.
    BoardListing {
        /// When the board was created.
        created_at: Timestamp,
        /// The board.
        board: BoardId,
    },
    /// A game's feed item: how many shards its sessions are spread over.
    GameFeed(GameId),
    /// A source's guest sign-ups in one hour.
    GuestSignUps {
        /// The source (a keyed hash of the caller's network).
        source: GuestSource,
        /// Whole hours since the epoch.
        hour: u64,
    },
    /// A player's entrant item on a tournament board.
    Entrant {
        /// The player.
        player: PlayerId,
        /// The board.
        board: BoardId,
    },
    /// A tournament board's entrant count.
    EntrantCount(BoardId),
    /// A reward a board's close granted a player.
    Reward {
        /// The player.
        player: PlayerId,
        /// The reward.
        reward: RewardId,
    },
    /// A board's lane: its written counts.
    Lane {
        /// The board.
        board: BoardId,
        /// The lane (`0..LANES`).
        lane: u8,
    },
}

impl ItemKey {
    /// Parses a table item's `pk` and `sk`. A key of any other shape is an error.
    pub fn parse(pk: &str, sk: &str) -> Result<ItemKey, KeyError> {
        if let Some(e) = pk.strip_prefix(EMAIL_PREFIX)
            && sk == OWNER
        {
            return Ok(ItemKey::EmailOwner(Email::parse(e)?));
        }
        if let Some(p) = pk.strip_prefix(AUDIT_PREFIX)
            && sk.starts_with(ACTION_PREFIX)
        {
            return Ok(ItemKey::Audit {
                subject: PlayerId::parse(p)?,
                sort_key: sk.to_owned(),
            });
        }
        if let Some(g) = pk.strip_prefix(GAME_PREFIX)
            && sk == FEED
        {
            return Ok(ItemKey::GameFeed(GameId::parse(g)?));
        }
        if let Some(g) = pk.strip_prefix(GUEST_PREFIX)
            && let Some(h) = sk.strip_prefix(SIGNUPS_PREFIX)
            && !h.is_empty()
            && h.bytes().all(|c| c.is_ascii_digit())
            && let Ok(hour) = h.parse()
        {
            return Ok(ItemKey::GuestSignUps {
                source: GuestSource::parse(g)?,
                hour,
            });
        }
        if let Some(league) = parse_league_key(pk, sk) {
            return league;
        }
        if let Some(tournament) = parse_entrant_key(pk, sk) {
            return tournament;
        }
        if let Some(reward) = parse_reward_key(pk, sk) {
            return reward;
        }
        if pk == BOARD_LIST {
            let (created_at, board) = parse_board_listing_sk(sk)?;
            return Ok(ItemKey::BoardListing { created_at, board });
        }
        if let Some(p) = pk.strip_prefix(ERASED_PREFIX)
            && sk == ERASURE
        {
            return Ok(ItemKey::Erasure(Pseudonym::parse(p)?));
        }
        if let Some(p) = pk.strip_prefix(FENCE_PREFIX)
            && sk == FENCE
        {
            return Ok(ItemKey::Fence(Pseudonym::parse(p)?));
        }
        if let Some(p) = pk.strip_prefix(PLAYER_PREFIX) {
            let player = PlayerId::parse(p)?;
            if sk == METADATA {
                return Ok(ItemKey::Player(player));
            }
            if sk == BAN {
                return Ok(ItemKey::Ban(player));
            }
            if sk == PLAY_RATE {
                return Ok(ItemKey::PlayRate(player));
            }
            if let Some(s) = sk.strip_prefix(SESSION_PREFIX) {
                let session = SessionId::parse_stored(s)?;
                return Ok(ItemKey::Session { player, session });
            }
            if let Some(b) = sk.strip_prefix(RESULT_PREFIX) {
                let board = BoardId::parse(b)?;
                return Ok(ItemKey::SeasonResult { player, board });
            }
            if let Some(b) = sk.strip_prefix(ENTRY_PREFIX) {
                let board = BoardId::parse(b)?;
                return Ok(ItemKey::Entry { player, board });
            }
            if let Some(k) = sk.strip_prefix(IDEMPOTENCY_PREFIX) {
                let key = IdempotencyKey::parse(k)?;
                return Ok(ItemKey::Idempotency { player, key });
            }
        } else if let Some(b) = pk.strip_prefix(LANE_PREFIX)
            && let Some(lane) = sk
                .strip_prefix(LANE_SK)
                .and_then(|s| s.strip_prefix('#'))
                .and_then(parse_two_digits)
        {
            return Ok(ItemKey::Lane {
                board: BoardId::parse(b)?,
                lane,
            });
        } else if let Some(rest) = pk.strip_prefix(LANE_PREFIX)
            && sk == LANE_SK
            && let Some((b, lane)) = rest.split_once('#')
            && let Some(lane) = parse_two_digits(lane)
        {
            return Ok(ItemKey::Lane {
                board: BoardId::parse(b)?,
                lane,
            });
        } else if let Some(b) = pk.strip_prefix(LEADERBOARD_PREFIX) {
            let board = BoardId::parse(b)?;
            if sk == METADATA {
                return Ok(ItemKey::Leaderboard(board));
            }
            if sk.starts_with(ACTION_PREFIX) {
                return Ok(ItemKey::BoardAudit {
                    board,
                    sort_key: sk.to_owned(),
                });
            }
            if sk.starts_with(SCORE_PREFIX) {
                return Ok(ItemKey::Score {
                    board,
                    sort_key: sk.to_owned(),
                });
            }
            if let Some(r) = sk.strip_prefix(FINAL_PREFIX) {
                let rank = parse_padded(r, FINAL_RANK_WIDTH)?;
                if rank == 0 {
                    return Err(KeyError::RankOutOfRange(0));
                }
                return Ok(ItemKey::FinalStanding { board, rank });
            }
        }
        Err(KeyError::malformed(
            &format!("{pk} / {sk}"),
            "not a key of the table layout",
        ))
    }
}
