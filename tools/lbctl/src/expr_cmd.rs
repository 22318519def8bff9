//! `lbctl expr`'s command: reads what a pattern needs (the board, for its partitions of
//! entries and its key spec; the player's entry pointer, for their sort key) and prints the
//! pattern's Queries ([`crate::expr`] builds them).

use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank::RankKeySpec;

use crate::error::{CtlError, CtlResult};
use crate::{Ctl, Pattern, Side, expr};

/// The document `lbctl expr <pattern>` prints: the pattern's Query, or one a partition.
pub(crate) async fn expr_doc(ctl: &Ctl, pattern: Pattern) -> CtlResult<serde_json::Value> {
    let table = ctl.table_name()?.to_owned();
    // The board, for its partitions of entries: one per write shard, of its entry generation.
    let board_of = async |board: &str| read_board(ctl, &BoardId::parse(board)?).await;
    match pattern {
        Pattern::Top { board, limit } => {
            let b = board_of(&board).await?;
            expr::per_shard(&b.score_pks(), |pk| Ok(json(&expr::top(&table, pk, limit))))
        }
        Pattern::Rank {
            board,
            player,
            sort_key,
        } => {
            let b = board_of(&board).await?;
            let key = player_sort_key(ctl, &b.board_id, &player, sort_key).await?;
            expr::per_shard(&b.score_pks(), |pk| Ok(json(&expr::rank(&table, pk, &key))))
        }
        Pattern::Around {
            board,
            player,
            n,
            side,
            sort_key,
        } => {
            let b = board_of(&board).await?;
            let key = player_sort_key(ctl, &b.board_id, &player, sort_key).await?;
            expr::per_shard(&b.score_pks(), |pk| {
                let (above, below) = expr::around(&table, pk, &key, n);
                Ok(match side {
                    Some(Side::Above) => json(&above),
                    Some(Side::Below) => json(&below),
                    None => serde_json::json!({"above": json(&above), "below": json(&below)}),
                })
            })
        }
        Pattern::Between {
            board,
            from,
            to,
            order,
            max_score,
        } => {
            let b = board_of(&board).await?;
            let spec = match (order, max_score) {
                (Some(o), Some(m)) => RankKeySpec::new(o.into(), m)?,
                _ => b.spec()?,
            };
            expr::per_shard(&b.score_pks(), |pk| {
                Ok(json(&expr::score_range(&table, pk, &spec, from, to)?))
            })
        }
        Pattern::Prefix { pk, prefix, limit } => {
            Ok(json(&expr::prefix(&table, &pk, &prefix, limit)))
        }
    }
}

/// A Query's input as a JSON value (its fields are strings, numbers and maps: it always
/// serializes).
fn json(q: &expr::QueryInput) -> serde_json::Value {
    serde_json::to_value(q).unwrap_or_default()
}

async fn read_board(ctl: &Ctl, board: &BoardId) -> CtlResult<leaderboard_store::model::Board> {
    ctl.store()
        .await?
        .boards()
        .get_board(board)
        .await?
        .ok_or_else(|| CtlError::NotFound(format!("no board {board}")))
}

/// The player's current Score sort key on the board: given, or read from their entry pointer.
async fn player_sort_key(
    ctl: &Ctl,
    board: &BoardId,
    player: &str,
    given: Option<String>,
) -> CtlResult<String> {
    if let Some(k) = given {
        return Ok(k);
    }
    let player = PlayerId::parse(player)?;
    let pointer = ctl
        .store()
        .await?
        .listings()
        .entry_pointer(board, &player)
        .await?;
    pointer
        .map(|p| p.score_sk)
        .ok_or_else(|| CtlError::NotFound(format!("{player} has no entry on {board}")))
}
