//! The rank index's apply ceiling per board (issue 95), stated as a play's is: the stream
//! projector's own requests (those its proxy recorded) in write and read units by partition
//! key, per play applied, and the plays a second at which its busiest partition reaches 1,000
//! write units or 3,000 read units a second. The projector writes the root and the nodes once
//! per batch, so at the rates reached here (small batches) its units a play are at their
//! largest: a board taking more plays makes larger batches (up to 1,000 records) and fewer
//! writes a play, and the ceiling stated is a floor of the real one.

use std::fmt::Write as _;

use super::partitions::kind;
use super::{Measured, PARTITION_READ_UNITS, PARTITION_WRITE_UNITS};

/// The apply ceilings' table, one row a board.
pub(super) fn apply_ceilings(md: &mut String, measured: &[Measured]) {
    let _ = writeln!(
        md,
        "\nThe rank index's apply ceiling: the stream projector's own units (its root read, node \
         reads and writes, journals, leader checks) a play applied, and the plays a second at \
         which its busiest partition reaches {PARTITION_WRITE_UNITS:.0} write units or \
         {PARTITION_READ_UNITS:.0} read units a second. It writes the root and the nodes once a \
         batch: at the small batches of these rates its units a play are at their largest, so \
         this is a floor of the real ceiling.\n"
    );
    let _ = writeln!(
        md,
        "| board | write shards | write units a play | busiest write key | its units a play | read units a play | busiest read key | its units a play | apply ceiling (plays/s) |"
    );
    let _ = writeln!(
        md,
        "| --- | ---: | ---: | --- | ---: | ---: | --- | ---: | ---: |"
    );
    for m in measured {
        let (writes, reads) = (&m.apply_units, &m.apply_reads);
        let (Some((w, wu)), Some((r, ru))) = (
            writes
                .busiest(|_| true)
                .first()
                .map(|(p, u)| ((*p).clone(), *u)),
            reads
                .busiest(|_| true)
                .first()
                .map(|(p, u)| ((*p).clone(), *u)),
        ) else {
            continue;
        };
        let ceiling =
            (PARTITION_WRITE_UNITS / m.per_play(wu)).min(PARTITION_READ_UNITS / m.per_play(ru));
        let _ = writeln!(
            md,
            "| {} | {} | {:.3} | {} `{}` ({}) | {:.3} | {:.3} | {} `{}` ({}) | {:.3} | **{:.0}** |",
            m.board,
            m.shards,
            m.per_play(writes.total()),
            w.on,
            w.key,
            kind(&w),
            m.per_play(wu),
            m.per_play(reads.total()),
            r.on,
            r.key,
            kind(&r),
            m.per_play(ru),
            ceiling,
        );
    }
}
