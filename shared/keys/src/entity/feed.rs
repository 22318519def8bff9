//! The game feed's keys (AP7, `GET /games/{g}/sessions`): a Session's GSI2 key, spread over the
//! write shards of the game's hot boards, and the game's feed item recording how far.
//!
//! A play's Session goes to `GAME#<gameId>` (the contract's layout) unless a board it counts
//! on belongs to its game and has more than one write shard: then to `GAME#<gameId>#<shard>`,
//! the player's shard (two digits, [`shard_of`]) among the most write shards of those boards.
//! So no GSI2 partition takes every play of a hot game. The feed item `GAME#<gameId>` /
//! `#FEED` lists every shard count a board of the game was created with (its `shards`
//! attribute, a number set): the listing reads `GAME#<gameId>` and the shards of the largest.

use super::{GAME_PREFIX, Key, SESSION_PREFIX, join, parse_two_digits, shard_of};
use crate::ids::{GameId, PlayerId, SessionId};

/// The sort key of a game's feed item.
pub const FEED: &str = "#FEED";
/// The attribute of a game's feed item listing its boards' shard counts (a number set).
pub const FEED_SHARDS_ATTR: &str = "shards";

/// A game's feed item: `GAME#<gameId>` / `#FEED`.
pub fn game_feed(game: &GameId) -> Key {
    Key::new(game_gsi2_pk(game), FEED)
}

/// The GSI2 partition of a game's sessions (of plays on no board of more than one shard).
pub fn game_gsi2_pk(game: &GameId) -> String {
    join(GAME_PREFIX, game.as_str())
}

/// The GSI2 partition of a game's feed shard `shard`: `GAME#<gameId>#<shard, 2 digits>`.
pub fn game_shard_gsi2_pk(game: &GameId, shard: u8) -> String {
    format!("{}#{shard:02}", game_gsi2_pk(game))
}

/// A Session item's GSI2 key with its game's sessions spread over `shards` (1: the
/// contract's `GAME#<gameId>` / `SESSION#<sessionId>`; more: `player`'s shard's partition).
pub fn session_gsi2(game: &GameId, shards: u8, player: &PlayerId, session: &SessionId) -> Key {
    let pk = match shards {
        0 | 1 => game_gsi2_pk(game),
        k => game_shard_gsi2_pk(game, shard_of(player, k)),
    };
    Key::new(pk, join(SESSION_PREFIX, session.as_str()))
}

/// Every GSI2 partition of a game's sessions when its boards were made with at most `shards`
/// write shards: `GAME#<gameId>`, then its shards' in order.
pub fn game_gsi2_pks(game: &GameId, shards: u8) -> Vec<String> {
    let mut pks = vec![game_gsi2_pk(game)];
    if shards > 1 {
        pks.extend((0..shards).map(|s| game_shard_gsi2_pk(game, s)));
    }
    pks
}

/// The game and shard of a feed shard's GSI2 partition `GAME#<gameId>#<shard>`, if `pk` is one.
pub fn parse_game_shard_gsi2_pk(pk: &str) -> Option<(GameId, u8)> {
    let (game, shard) = pk.strip_prefix(GAME_PREFIX)?.rsplit_once('#')?;
    let shard = parse_two_digits(shard)?;
    Some((GameId::parse(game).ok()?, shard))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids() -> (GameId, PlayerId, SessionId) {
        (
            GameId::parse("tetris").unwrap(),
            PlayerId::parse("p_alice").unwrap(),
            SessionId::parse_stored("01HW0000000000000000000000").unwrap(),
        )
    }

    #[test]
    fn one_shard_is_the_contracts_key_and_more_is_the_players_shard() {
        let (g, p, s) = ids();
        let plain = Key::new("GAME#tetris", "SESSION#01HW0000000000000000000000");
        assert_eq!(session_gsi2(&g, 1, &p, &s), plain);
        assert_eq!(session_gsi2(&g, 0, &p, &s), plain);
        let sharded = session_gsi2(&g, 8, &p, &s);
        assert_eq!(sharded.sk, plain.sk);
        assert_eq!(
            sharded.pk,
            format!("GAME#tetris#{:02}", shard_of(&p, 8)),
            "the player's shard, as their entries'"
        );
        assert_eq!(
            parse_game_shard_gsi2_pk(&sharded.pk),
            Some((g.clone(), shard_of(&p, 8)))
        );
        assert_eq!(parse_game_shard_gsi2_pk("GAME#tetris"), None);
        assert_eq!(parse_game_shard_gsi2_pk("GAME#tetris#7"), None);
    }

    #[test]
    fn the_feed_reads_the_plain_partition_and_every_shard() {
        let (g, p, s) = ids();
        assert_eq!(game_gsi2_pks(&g, 1), vec!["GAME#tetris".to_owned()]);
        let pks = game_gsi2_pks(&g, 4);
        assert_eq!(pks.len(), 5);
        assert_eq!(pks[0], "GAME#tetris");
        assert_eq!(pks[4], "GAME#tetris#03");
        for k in 2..=32u8 {
            assert!(game_gsi2_pks(&g, k).contains(&session_gsi2(&g, k, &p, &s).pk));
        }
        assert_eq!(game_feed(&g), Key::new("GAME#tetris", "#FEED"));
    }
}
