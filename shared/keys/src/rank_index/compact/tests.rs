//! The compact layout against small boards: what it builds, what a plan writes, what a path reads.

use super::*;
use crate::rank_index::{LANES, PathRead, build as build_full};

fn key(sk: &str) -> CountedKey {
    CountedKey::parse(sk).unwrap()
}

fn keys(sks: &[&str]) -> Vec<CountedKey> {
    sks.iter().map(|s| key(s)).collect()
}

/// Plans `from` -> `to` on a stored `from`, reading as an apply does; the stored result.
fn moved(from: &[CountedKey], to: &[CountedKey]) -> (CompactNodes, Plan) {
    let mut stored = build(from);
    let changes: Vec<LaneChange> = from
        .iter()
        .map(|k| LaneChange {
            old: Some(k.clone()),
            ..LaneChange::default()
        })
        .chain(to.iter().map(|k| LaneChange {
            new: Some(k.clone()),
            ..LaneChange::default()
        }))
        .collect();
    let deltas = group_deltas(&changes);
    let layout = from.iter().chain(to).next().unwrap().layout();
    let mut read = CompactNodes::new();
    read.insert(String::new(), stored[""].clone());
    loop {
        let needed = reads_needed(layout, &deltas, &read);
        if needed.is_empty() {
            break;
        }
        for p in needed {
            read.insert(p.clone(), stored.get(&p).cloned().unwrap_or_default());
        }
    }
    let plan = plan(layout, &deltas, &read).unwrap();
    apply(&mut stored, &plan);
    (stored, plan)
}

#[test]
fn a_key_alone_below_a_node_costs_no_node_of_its_own() {
    let ks = keys(&[
        "SCORE#0000009850#8280899199999#a",
        "SCORE#0000009850#8280899188888#b",
        "SCORE#0000001200#8280899199999#c",
    ]);
    let nodes = build(&ks);
    // the root holds all three under "00"; "0000" too; then 98 and 12 part
    assert_eq!(nodes[""]["00"], Entry::counted(3));
    assert_eq!(nodes["0000"]["00"], Entry::counted(3));
    let node = &nodes["000000"];
    assert_eq!(node["12"].rest.as_deref(), Some("0082808991"));
    assert_eq!(node["98"], Entry::counted(2));
    // a and b share their score and their 100 s group: one count at the last level
    assert_eq!(nodes["00000098508280"]["89"], Entry::counted(2));
    assert!(!nodes.contains_key("00000012"));
    assert_eq!(live(ks[0].layout(), &nodes), nodes);
}

#[test]
fn plans_put_clear_and_update_nodes_to_the_built_index() {
    let a = "SCORE#0000009850#8280899199999#a";
    let b = "SCORE#0000009851#8280899199999#b";
    let c = "SCORE#0000001200#8280899199999#c";
    let d = "SCORE#0000009850#8280899199999#d";
    let cases: [(&[&str], &[&str]); 5] = [
        (&[a], &[a, b]),
        (&[a, b], &[a]),
        (&[a, b, c], &[c, d]),
        (&[a, d], &[b]),
        (&[c], &[a, b, c, d]),
    ];
    for (from, to) in cases {
        let (from, to) = (keys(from), keys(to));
        let (stored, _) = moved(&from, &to);
        assert_eq!(
            live(to[0].layout(), &stored),
            build(&to),
            "{from:?} -> {to:?}"
        );
    }
    // a node that keeps one key is cleared and that key named by its parent
    let (stored, plan) = moved(&keys(&[a, b, c]), &keys(&[a, c]));
    assert_eq!(plan.nodes["00000098"], NodeOp::Clear);
    assert!(stored["00000098"].is_empty());
    assert_eq!(stored["000000"]["98"].rest.as_deref(), Some("5082808991"));
}

#[test]
fn a_path_reads_as_layout_2_counts_it() {
    let ks = keys(&[
        "SCORE#0000009850#8280899199999#a",
        "SCORE#0000009850#8280899188888#b",
        "SCORE#0000009851#8280899199999#c",
        "SCORE#0000001200#8280899199999#d",
        "SCORE#0000001200#8280800000000#e",
        "SCORE#0000000007#8280899199999#f",
    ]);
    let compact = build(&ks);
    let full = build_full(&ks);
    assert_eq!(expand(ks[0].layout(), &compact), full);
    for k in ks
        .iter()
        .chain(&keys(&["SCORE#0000005000#8280899199999#x"]))
    {
        let (c, f) = (PathRead::of_compact(k, &compact), PathRead::of(k, &full));
        assert_eq!(
            (c.above, c.group, c.unplaced),
            (f.above, f.group, false),
            "{k:?}"
        );
    }
    // a live node read without entries: its key is not placed
    let mut torn = compact.clone();
    torn.insert("0000009850".into(), Entries::new());
    let path = PathRead::of_compact(&ks[0], &torn);
    assert!(path.unplaced);
}

#[test]
fn a_plan_reads_back_as_written() {
    let a = "SCORE#0000009850#8280899199999#a";
    let b = "SCORE#0000009851#8280899199999#b";
    let c = "SCORE#0000001200#8280899199999#c";
    let (_, plan) = moved(&keys(&[a, b, c]), &keys(&[a, c]));
    let (_, put) = moved(&keys(&[a]), &keys(&[a, b]));
    for p in [plan, put] {
        assert_eq!(decode_plan(&encode_plan(&p)), Some(p.clone()));
    }
    assert_eq!(decode_plan("0.1=00:1"), None);
    assert_eq!(decode_plan("0.=00:x"), None);
}

#[test]
fn a_key_left_unplaced_is_the_players_own_or_in_the_lag() {
    use crate::rank_index::{LanesRead, Watermarks, settle};
    let ks = keys(&[
        "SCORE#0000009850#8280899199999#a",
        "SCORE#0000009851#8280899199999#b",
    ]);
    let mut torn = build(&ks);
    torn.insert("00000098".into(), Entries::new());
    let path = PathRead::of_compact(&ks[0], &torn);
    assert!(path.unplaced);
    let at = Watermarks([(ks[0].lane(LANES), 3)].into_iter().collect());
    let lanes = |written| LanesRead {
        written: [(ks[0].lane(LANES), written)].into_iter().collect(),
        own_lane: ks[0].lane(LANES),
        own_latest: None,
    };
    // nothing pending in the player's lane: the node's one key is the player's
    let s = settle(&ks[0], &path, &at, None, &lanes(3));
    assert_eq!((s.above, s.lag, s.negative), (0, 0, false));
    // a change pending: that key may be anyone's, above or not
    let s = settle(&ks[0], &path, &at, None, &lanes(4));
    assert_eq!((s.above, s.lag), (0, 2));
}
