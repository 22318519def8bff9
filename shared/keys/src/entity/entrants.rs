//! A tournament's items: a player's entrant item on a board (that they joined, and how many
//! attempts they made) and the board's entrant count (how many players took a place, for
//! `maxEntrants`).
//!
//! | item | pk | sk |
//! | --- | --- | --- |
//! | Entrant | `PLAYER#<playerId>` | `ENTRANT#<boardId>` |
//! | Entrant count | `LEADERBOARD#<boardId>` | `#ENTRANTS` |
//!
//! The entrant item is in the player's partition, so a play reads and writes its own place and
//! attempts without a board-wide key; only a new entrant of a board with `maxEntrants` writes
//! the count, at most `maxEntrants` times.

use super::*;

/// Sort-key prefix of a player's entrant items.
pub const ENTRANT_PREFIX: &str = "ENTRANT#";
/// The sort key of a board's entrant count.
pub const ENTRANTS: &str = "#ENTRANTS";

/// `player`'s entrant item on `board`.
pub fn entrant(player: &PlayerId, board: &BoardId) -> Key {
    Key::new(player_pk(player), format!("{ENTRANT_PREFIX}{board}"))
}

/// `board`'s entrant count.
pub fn entrant_count(board: &BoardId) -> Key {
    Key::new(board_pk(board), ENTRANTS)
}

/// The tournament items of `pk` / `sk`, parsed back (None: not one of them).
pub(super) fn parse_entrant_key(pk: &str, sk: &str) -> Option<Result<ItemKey, KeyError>> {
    if let Some(p) = pk.strip_prefix(PLAYER_PREFIX)
        && let Some(b) = sk.strip_prefix(ENTRANT_PREFIX)
    {
        return Some((|| {
            Ok(ItemKey::Entrant {
                player: PlayerId::parse(p)?,
                board: BoardId::parse(b)?,
            })
        })());
    }
    let b = pk.strip_prefix(LEADERBOARD_PREFIX)?;
    (sk == ENTRANTS).then(|| Ok(ItemKey::EntrantCount(BoardId::parse(b)?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entrant_keys_parse_back() {
        let p = PlayerId::parse("p_alice").unwrap();
        let b = BoardId::parse("cup_7").unwrap();
        let k = entrant(&p, &b);
        assert_eq!(k, Key::new("PLAYER#p_alice", "ENTRANT#cup_7"));
        assert_eq!(
            ItemKey::parse(&k.pk, &k.sk).unwrap(),
            ItemKey::Entrant {
                player: p,
                board: b.clone()
            }
        );
        let k = entrant_count(&b);
        assert_eq!(k, Key::new("LEADERBOARD#cup_7", "#ENTRANTS"));
        assert_eq!(
            ItemKey::parse(&k.pk, &k.sk).unwrap(),
            ItemKey::EntrantCount(b)
        );
        assert!(ItemKey::parse("PLAYER#p_alice", "ENTRANT#a#b").is_err());
    }
}
