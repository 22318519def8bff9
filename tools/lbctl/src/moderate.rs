//! `lbctl ban | unban | remove | erase | audit`: the admin routes' moderation, for an operator
//! with table access: the same store calls, so the same refusals, the same audit items (the
//! operator's `--by` as their actor) and the same erasure pseudonyms. Every one of them needs the
//! stack's `ERASURE_SECRET`: a ban or removal checks the player's erasure marker, which that
//! secret names, and an erasure writes it.

use std::io::Write;

use clap::Subcommand;
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::time::Timestamp;
use leaderboard_store::Store;

use crate::error::{CtlError, CtlResult};
use crate::render;

/// The moderation commands.
#[derive(Subcommand, Debug)]
pub enum Moderation {
    /// Ban a player: their plays are refused and their entries on open boards removed.
    #[command(
        after_help = "Example:\n  lbctl ban p_cheat --reason 'impossible scores' --by ops_alice"
    )]
    Ban {
        /// The player.
        player: String,
        /// Why (required, as the API requires it), kept on the ban and its audit item.
        #[arg(long)]
        reason: String,
        /// The operator acting (the audit item's actor).
        #[arg(long, env = "LBCTL_OPERATOR")]
        by: String,
    },
    /// Lift a player's ban (an audit item either way).
    #[command(after_help = "Example:\n  lbctl unban p_cheat --by ops_alice")]
    Unban {
        /// The player.
        player: String,
        /// The operator acting.
        #[arg(long, env = "LBCTL_OPERATOR")]
        by: String,
    },
    /// Remove a player's entry from an open board.
    #[command(after_help = "Example:\n  lbctl remove season_1 p_cheat --by ops_alice")]
    Remove {
        /// The board.
        board: String,
        /// The player.
        player: String,
        /// The operator acting.
        #[arg(long, env = "LBCTL_OPERATOR")]
        by: String,
    },
    /// Erase a player everywhere (data rights): closed boards keep the rank under a pseudonym.
    #[command(after_help = "Example:\n  lbctl erase p_gone --by ops_alice")]
    Erase {
        /// The player.
        player: String,
        /// The operator acting.
        #[arg(long, env = "LBCTL_OPERATOR")]
        by: String,
    },
    /// What admins did to a player, newest first.
    #[command(after_help = "Example:\n  lbctl audit p_cheat")]
    Audit {
        /// The player (or an erased player's pseudonym).
        player: String,
        /// The most items shown (1 to 100).
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
}

/// Runs a moderation command on `store` (one keyed with the stack's erasure secret).
pub async fn run(store: &Store, command: Moderation, out: &mut dyn Write, json: bool) -> CtlResult {
    let now = Timestamp::now();
    let doc = match command {
        Moderation::Ban { player, reason, by } => {
            let (player, by) = (PlayerId::parse(&player)?, PlayerId::parse(&by)?);
            let outcome = store
                .moderation()
                .ban_player(&player, &reason, &by, now)
                .await?;
            serde_json::to_value(&outcome).unwrap_or_default()
        }
        Moderation::Unban { player, by } => {
            let (player, by) = (PlayerId::parse(&player)?, PlayerId::parse(&by)?);
            let lifted = store.moderation().unban_player(&player, &by, now).await?;
            serde_json::json!({"playerId": player, "lifted": lifted})
        }
        Moderation::Remove { board, player, by } => {
            let board = BoardId::parse(&board)?;
            let (player, by) = (PlayerId::parse(&player)?, PlayerId::parse(&by)?);
            if !store
                .moderation()
                .remove_entry(&board, &player, &by, now)
                .await?
            {
                return Err(CtlError::NotFound(format!(
                    "{player} has no entry on {board}"
                )));
            }
            serde_json::json!({"leaderboardId": board, "playerId": player, "removed": true})
        }
        Moderation::Erase { player, by } => {
            let (player, by) = (PlayerId::parse(&player)?, PlayerId::parse(&by)?);
            let receipt = store
                .moderation()
                .erase_player(&player, by.as_str(), now, None)
                .await?;
            serde_json::to_value(&receipt).unwrap_or_default()
        }
        Moderation::Audit { player, limit } => {
            if !(1..=100).contains(&limit) {
                return Err(CtlError::Usage("--limit must be 1 to 100".into()));
            }
            let player = PlayerId::parse(&player)?;
            let page = store.moderation().audit_trail(&player, limit, None).await?;
            serde_json::to_value(&page.items).unwrap_or_default()
        }
    };
    render::json_doc(out, &doc, json)
}
