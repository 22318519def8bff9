//! Lane caps against every order of writes, tenders' reads and writes, and readers, each on a
//! clock off the true time by up to half the margin: whoever read a lane's caps and still
//! trusts them (`LaneCaps::bound_at` on its clock) is never below the lane's written count, and
//! a lane nobody tends takes every change again once its caps are stale.

use leaderboard_keys::rank_index::caps::{Heat, LaneCaps, MARGIN_MS, TERM_MS, Tend};
use proptest::prelude::*;

const SKEW: i64 = (MARGIN_MS / 2) as i64;

#[derive(Debug, Clone)]
enum Step {
    /// The true time moves on.
    Wait(u64),
    /// A writer of `n` changes, its clock off by the skew.
    Write(i64, u64),
    /// A tender reads the lane on its clock and decides (its write comes later, or never).
    TendRead(i64, Option<u64>, bool),
    /// One of the tenders' writes lands, on its condition.
    TendWrite(prop::sample::Index),
    /// A reader reads the caps.
    Read(i64),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (0u64..400).prop_map(Step::Wait),
        6 => (-SKEW..=SKEW, 1u64..40).prop_map(|(s, n)| Step::Write(s, n)),
        2 => (-SKEW..=SKEW, prop::option::of(0u64..40), any::<bool>())
            .prop_map(|(s, h, q)| Step::TendRead(s, h, q)),
        2 => any::<prop::sample::Index>().prop_map(Step::TendWrite),
        2 => (-SKEW..=SKEW).prop_map(Step::Read),
    ]
}

fn clock(t: u64, skew: i64) -> u64 {
    t.saturating_add_signed(skew)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn a_reader_trusting_caps_is_never_below_the_written_count(
        steps in prop::collection::vec(step(), 1..300),
    ) {
        let mut t = 10_000u64;
        let mut written = 0u64;
        let mut caps: Option<LaneCaps> = None;
        let mut pending: Vec<Option<Tend>> = Vec::new();
        let mut readers: Vec<(LaneCaps, i64)> = Vec::new();
        for step in steps {
            match step {
                Step::Wait(ms) => t += ms,
                Step::Write(skew, n) => {
                    if LaneCaps::admits(caps.as_ref(), written, n, clock(t, skew)) {
                        written += n;
                    }
                }
                Step::TendRead(skew, per_term, quiet) => {
                    let heat = match (per_term, quiet) {
                        (Some(p), _) => Heat::Hot(p),
                        (None, true) => Heat::Quiet,
                        (None, false) => Heat::Unknown,
                    };
                    pending.push(LaneCaps::tend(caps.as_ref(), written, clock(t, skew), heat, 0));
                }
                Step::TendWrite(i) => {
                    if pending.is_empty() {
                        continue;
                    }
                    let tend = pending.remove(i.index(pending.len()));
                    if let Some(Tend { caps: new, until_read, most_written }) = tend
                        && caps.map(|c| c.until) == until_read
                        && written <= most_written
                    {
                        prop_assert!(new.cap <= new.next);
                        caps = Some(new);
                    }
                }
                Step::Read(skew) => {
                    if let Some(c) = caps {
                        readers.push((c, skew));
                    }
                }
            }
            for (c, skew) in &readers {
                if let Some(bound) = c.bound_at(clock(t, *skew)) {
                    prop_assert!(
                        written <= bound,
                        "written {} past the bound {} of {:?} at {} (reader's skew {})",
                        written, bound, c, t, skew
                    );
                }
            }
        }
    }

    #[test]
    fn caps_nobody_rolls_stop_limiting_once_stale(
        written in 0u64..1_000, per_term in 0u64..100, skew in -SKEW..=SKEW,
    ) {
        let t = 50_000u64;
        let Some(Tend { caps, .. }) = LaneCaps::tend(None, written, t, Heat::Hot(per_term), 0) else {
            return Err(TestCaseError::fail("a hot lane without caps is capped"));
        };
        prop_assert!(!LaneCaps::admits(Some(&caps), caps.next, 1, clock(t + TERM_MS, skew)));
        let stale = t + 2 * TERM_MS + MARGIN_MS + SKEW as u64;
        prop_assert!(LaneCaps::admits(Some(&caps), caps.next + 1_000, 1, clock(stale, skew)));
        // Whoever read them no longer trusts them by then, whatever its clock.
        prop_assert_eq!(caps.bound_at(clock(stale - MARGIN_MS - SKEW as u64, skew)), None);
    }
}

#[test]
fn a_roll_gives_three_terms_of_changes_and_moves_the_next_cap_to_the_cap() {
    let caps = LaneCaps {
        cap: 100,
        until: 5_000,
        next: 200,
        from: 60,
    };
    assert_eq!(
        LaneCaps::tend(Some(&caps), 150, 4_999, Heat::Hot(10), 0),
        None
    );
    let Some(Tend {
        caps: rolled,
        until_read,
        most_written,
    }) = LaneCaps::tend(Some(&caps), 150, 5_010, Heat::Unknown, 0)
    else {
        panic!("a lane past its term's end rolls");
    };
    assert_eq!(until_read, Some(5_000));
    assert_eq!(most_written, 200);
    assert_eq!(
        rolled,
        LaneCaps {
            cap: 200,
            until: 6_010,
            next: 150 + 3 * 90 + 16,
            from: 150
        }
    );
    // Caps ahead of the changes roll no further ahead: the next cap is room above the count.
    let ahead = LaneCaps {
        cap: 900,
        until: 5_000,
        next: 1_000,
        from: 140,
    };
    let Some(Tend { caps: rolled, .. }) =
        LaneCaps::tend(Some(&ahead), 150, 5_010, Heat::Unknown, 0)
    else {
        panic!("a lane past its term's end rolls");
    };
    assert_eq!((rolled.cap, rolled.next), (1_000, 1_000));
    // A quiet board's caps are left to go stale.
    assert_eq!(
        LaneCaps::tend(Some(&caps), 150, 5_010, Heat::Quiet, 0),
        None
    );
    assert_eq!(LaneCaps::tend(None, 150, 5_010, Heat::Unknown, 0), None);
}

#[test]
fn a_roll_read_as_a_writer_ahead_takes_the_caps_for_stale_is_not_written_past_it() {
    // At the true time 11,300 the roller's clock (125 behind) still takes the caps, while a
    // writer's (125 ahead) has passed their stale point, 11,250.
    let caps = LaneCaps {
        cap: 100,
        until: 10_000,
        next: 200,
        from: 50,
    };
    let Some(Tend {
        caps: rolled,
        most_written,
        ..
    }) = LaneCaps::tend(Some(&caps), 150, 11_175, Heat::Unknown, 0)
    else {
        panic!("a lane past its term's end rolls");
    };
    assert!(LaneCaps::admits(Some(&caps), 150, 1_000, 11_425));
    let written = 1_150;
    // The roll's next cap would be below what the writer reached: its condition refuses it.
    assert!(rolled.next < written);
    assert!(most_written < written);
}
