//! A hot board's lane caps: a bound on each lane's written count that holds for a while without
//! anyone reading the lane, so that a rank need not read every lane last.
//!
//! A capped lane holds `cap`, `cu` (its term's end, ms) and `cn` (the next cap). A change on it
//! holds only while `written < cap`; once the writer's clock has passed `cu`, while `written <
//! cn`; and once it has passed `cu` + [`TERM_MS`] + [`MARGIN_MS`] whatever the counts (the caps
//! are *stale*: nobody trusts them any more, so a board that cooled down needs no one to lift
//! them). A *roll*, at or after `cu` and on condition that `cu` is still as read (and `written`
//! at most `cn`), moves `cn` to `cap`, sets `cu` a term later and a new `cn` [`room`] above the
//! count (three times the last term's changes). So whoever read the caps knows, at a moment of its clock before `cu` − [`MARGIN_MS`],
//! that `written` has not passed `cap`, and before `cu` + [`TERM_MS`] − [`MARGIN_MS`] that it has
//! not passed `cn`: until the next roll (at `cu` at the soonest), `written` stays under `cap`
//! (before `cu`) or `cn`; after it, under the new `cap`, the old `cn`, until the new `cu`, at
//! least a term after the old one ([`LaneCaps::bound_at`]). The clocks of any two
//! processes may differ by up to the margin. Lanes without caps, or with stale
//! ones, are capped afresh at a count at most half their room above the written count read, on
//! condition of it ([`Tend`]). Checked against every order of writes, rolls and reads with
//! skewed clocks in `tests/rank_caps_props.rs`.

/// A lane's cap: its written count stays under it until the term's end.
pub const CAP_ATTR: &str = "cap";
/// A lane's term's end (ms since the epoch).
pub const CAP_UNTIL_ATTR: &str = "cu";
/// A lane's next cap: its written count stays under it from the term's end until a term later.
pub const CAP_NEXT_ATTR: &str = "cn";
/// A lane's written count at its last roll: the changes of a term, for the next room.
pub const CAP_FROM_ATTR: &str = "cf";

/// A term: how long after its end a lane's next cap holds (and how often each lane rolls).
pub const TERM_MS: u64 = 1_000;
/// How much sooner a reader stops trusting caps than a term after their end, and how much
/// later a writer takes them as stale: the most any two processes' clocks may differ.
pub const MARGIN_MS: u64 = 250;
/// The least room a roll gives a lane: a lane with few changes in a term still takes a burst.
pub const MIN_ROOM: u64 = 16;

/// The room a roll gives a lane that took `per_term` changes in its last term: three times
/// that and [`MIN_ROOM`] (two terms' changes pass between a roll and its cap's use).
pub fn room(per_term: u64) -> u64 {
    per_term.saturating_mul(3).saturating_add(MIN_ROOM)
}

/// A lane's caps as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaneCaps {
    /// `cap`.
    pub cap: u64,
    /// `cu`, ms.
    pub until: u64,
    /// `cn`.
    pub next: u64,
    /// `cf`.
    pub from: u64,
}

/// A tender's write of a lane's caps: `caps`, on condition that the lane's `cu` is still
/// `until_read` (none: it has no caps) and its written count at most `most_written`. A roll of
/// a lane whose term has ended (`most_written` is the old next cap, or the count read if
/// higher: never less than the lane can be at), or the first caps of a lane without them or
/// with stale ones (half their room above the count read: writers ignoring stale caps may have
/// gone on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tend {
    /// The caps to write.
    pub caps: LaneCaps,
    /// The `cu` read, if any.
    pub until_read: Option<u64>,
    /// The most written count the caps are written at.
    pub most_written: u64,
}

/// Whether a board is hot, as a tender measures it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heat {
    /// Hot: a lane's changes a term, as measured.
    Hot(u64),
    /// Not measured yet: caps others set are kept rolling, none are set.
    Unknown,
    /// Quiet: caps are left to go stale (ranks read the lanes again, exactly).
    Quiet,
}

impl LaneCaps {
    /// The most the lane's written count can be at `now` (the reader's clock), if these caps
    /// (read at or before `now`) still say: their cap until their term's end, then their next
    /// cap until a term after it, each less the margin.
    pub fn bound_at(&self, now: u64) -> Option<u64> {
        let now = now.saturating_add(MARGIN_MS);
        if now < self.until {
            Some(self.cap)
        } else if now < self.until.saturating_add(TERM_MS) {
            Some(self.next)
        } else {
            None
        }
    }

    /// Whether nobody trusts these caps at `now` any more: a writer ignores them.
    pub fn stale_at(&self, now: u64) -> bool {
        now >= self.until.saturating_add(TERM_MS + MARGIN_MS)
    }

    /// The writer's condition's value for `now`: caps whose end is at or before it are stale.
    pub fn stale_before(now: u64) -> u64 {
        now.saturating_sub(TERM_MS + MARGIN_MS)
    }

    /// The most written count a change of `n` may leave at `now` (the writer's clock), on a
    /// lane holding `caps`; `None` when nothing limits it. The condition the store writes is
    /// this, for `n` = 1 read in the item itself: `attribute_not_exists(cap) OR written < cap
    /// OR (cu <= now AND written < cn) OR cu <= stale_before(now)`.
    pub fn limit(caps: Option<&LaneCaps>, now: u64) -> Option<u64> {
        let caps = caps?;
        if caps.stale_at(now) {
            None
        } else if now >= caps.until {
            Some(caps.next)
        } else {
            Some(caps.cap)
        }
    }

    /// Whether a change of `n` on a lane at `written` holding `caps` holds at `now`.
    pub fn admits(caps: Option<&LaneCaps>, written: u64, n: u64, now: u64) -> bool {
        match LaneCaps::limit(caps, now) {
            None => true,
            Some(limit) => written.saturating_add(n) <= limit,
        }
    }

    /// What a tender at `now` writes on a lane read at `written` with `caps`, the board's heat
    /// being `heat` (nothing: `None`); `extra` is room a writer of that many changes needs at
    /// once (an import).
    pub fn tend(
        caps: Option<&LaneCaps>,
        written: u64,
        now: u64,
        heat: Heat,
        extra: u64,
    ) -> Option<Tend> {
        match (caps, heat) {
            (Some(c), _) if !c.stale_at(now) => {
                if now < c.until || heat == Heat::Quiet {
                    return None;
                }
                let room = room(written.saturating_sub(c.from)).saturating_add(extra);
                let most_written = c.next.max(written);
                // The next cap is room above the count, not above the old one: caps that ran
                // ahead of the changes would widen every rank's lag a little more each roll.
                Some(Tend {
                    // Never below the count: a writer that took the caps for stale may have
                    // passed `cn` (nobody trusted it by then).
                    caps: LaneCaps {
                        cap: most_written,
                        until: now.saturating_add(TERM_MS),
                        next: most_written.max(written.saturating_add(room)),
                        from: written,
                    },
                    until_read: Some(c.until),
                    most_written,
                })
            }
            (stale, Heat::Hot(per_term)) => {
                let room = room(per_term).saturating_add(extra);
                let cap = written.saturating_add(room);
                Some(Tend {
                    caps: LaneCaps {
                        cap,
                        until: now.saturating_add(TERM_MS),
                        next: cap.saturating_add(room),
                        from: written,
                    },
                    until_read: stale.map(|c| c.until),
                    most_written: written.saturating_add(room / 2),
                })
            }
            _ => None,
        }
    }
}
