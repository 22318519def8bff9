//! Each hot board's ceiling (issues 60 and 95): the read units a play by what each shared item
//! holds, and the plays a second at which a board's busiest partition key reaches 3,000 read
//! units or 1,000 write units a second, whichever comes first; and the target on 32.

use std::fmt::Write as _;

use super::partitions::kind;
use super::{Measured, PARTITION_READ_UNITS, PARTITION_WRITE_UNITS, kinds_table};
use crate::fragment;

/// Each board's ceiling: the plays a second at which its busiest partition reaches 3,000 read
/// units or 1,000 write units a second, whichever comes first; and the target on 32.
pub(super) fn ceilings(md: &mut String, measured: &[Measured], (players, fillers): (usize, usize)) {
    let _ = writeln!(
        md,
        "\nEach shared item's read units a play (reads by key 1 unit per 4 KB, half when eventually \
         consistent, twice in a transaction; a Query 1 unit per 4 KB of what it returned, a count of what it read at 224 bytes a key):\n"
    );
    kinds_table(md, measured, |m| &m.reads);
    let _ = writeln!(
        md,
        "\nThe ceiling a board's busiest partitions set: {PARTITION_READ_UNITS:.0} read units and \
         {PARTITION_WRITE_UNITS:.0} write units a second on one partition key, over that key's \
         units a play.\n"
    );
    let _ = writeln!(
        md,
        "| board | write shards | read units a play | busiest read key | its read units a play | busiest write key | its write units a play | ceiling (plays/s) | set by |"
    );
    let _ = writeln!(
        md,
        "| --- | ---: | ---: | --- | ---: | --- | ---: | ---: | --- |"
    );
    let mut on_32 = None;
    for m in measured {
        let (Some((r, ru)), Some((w, wu))) = (
            m.reads
                .busiest(|_| true)
                .first()
                .map(|(p, u)| ((*p).clone(), *u)),
            m.units
                .busiest(|_| true)
                .first()
                .map(|(p, u)| ((*p).clone(), *u)),
        ) else {
            continue;
        };
        let (by_reads, by_writes) = (
            PARTITION_READ_UNITS / m.per_play(ru),
            PARTITION_WRITE_UNITS / m.per_play(wu),
        );
        let ceiling = by_reads.min(by_writes);
        let _ = writeln!(
            md,
            "| {} | {} | {:.2} | {} `{}` ({}) | {:.3} | {} `{}` ({}) | {:.3} | **{:.0}** | {} |",
            m.board,
            m.shards,
            m.per_play(m.reads.total()),
            r.on,
            r.key,
            kind(&r),
            m.per_play(ru),
            w.on,
            w.key,
            kind(&w),
            m.per_play(wu),
            ceiling,
            if by_reads <= by_writes {
                "reads"
            } else {
                "writes"
            },
        );
        if m.shards == 32 {
            let set_by = match by_reads <= by_writes {
                true => ("read", r),
                false => ("write", w),
            };
            on_32 = Some((ceiling, set_by));
        }
    }
    let _ = writeln!(
        md,
        "\nA key that every play of a board reads strongly consistently takes at least 1 read unit \
         a play: alone it caps the board at 3,000 plays a second, whatever its write shards. A hot \
         board's item is no longer one (each process plays from its copy, read once a minute and \
         checked by the board's settings version), nor are its rank index's root and the top of \
         its trie (each process ranks from its copy of them, read once a second), nor its lanes \
         (ten, or one a write shard past ten: their caps bound them, so a rank reads its own lane \
         and any whose caps lapsed, and each process reads all of them twice a second; \
         `LANE_CAPS_FROM` is 0 here, so both hot boards are capped however slowly DynamoDB Local \
         plays them, and what a process reads twice a second is spread over the few plays a \
         second it serves here). What is left is the write shards' Score items: a play that \
         changes an entry deletes its old Score item and puts the new one in its transaction, 4 \
         write units on the player's write shard, so K shards take at most 250 K plays a second \
         at a perfect spread of the players (8,000 on 32, the most write shards a board takes), \
         less the hash's spread of these few players. Each board \
         holds {} players' entries and {} imported above them, so the plays rank past the first \
         100 (which a rank counts exactly, on every write shard) as most plays of a big board do.",
        players, fillers
    );
    if let Some((ceiling, (what, r))) = on_32 {
        let met = ceiling >= 10_000.0;
        fragment::target(
            "a board of 32 write shards takes at least 10,000 plays a second before a partition's limits",
            &format!(
                "{ceiling:.0} plays/s (set by the busiest {what} key, {} `{}`, {})",
                r.on,
                r.key,
                kind(&r)
            ),
            met,
        );
        let _ = writeln!(
            md,
            "\nTarget (issue 95): a ceiling of at least 10,000 plays a second on 32 shards: \
             {ceiling:.0}: {} (the write shards' Score items allow 8,000 at most, above).",
            if met { "met" } else { "**missed**" }
        );
    }
    let off: usize = measured.iter().map(|m| m.off.0).sum();
    let answered: usize = measured.iter().map(|m| m.plays).sum();
    fragment::target(
        "hot-board answers off beyond their rankLag",
        &format!("{off} of {answered}"),
        off == 0,
    );
    let _ = writeln!(
        md,
        "\nTarget (issue 95): no answer off beyond its `rankLag` (the true rank while the play \
         was answered bounded from every play's own timing and score: `live_rank/truth.rs`): \
         {off} of {answered}: {}.",
        if off == 0 { "met" } else { "**missed**" }
    );
}
