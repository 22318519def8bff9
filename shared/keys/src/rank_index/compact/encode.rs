//! A compact journal's writes as one string (the journal item's), the root's first: per node,
//! how many leading digits its prefix shares with the previous one, a `.`, the rest of it, its
//! write (`=` the entries it changes, `!` the whole node put, `~` cleared), then entries as
//! `label:count` or `label:1/rest`, a removed one as `label:-`, joined by `,`; nodes joined by
//! `;`. Prefixes in order share most of their digits, as layout 2's deltas do.

use std::collections::BTreeMap;

use super::{Entries, Entry, NodeOp, Plan};
use crate::rank_index::journal::{push_prefix, read_prefix};

fn entry_text(label: &str, entry: Option<&Entry>) -> String {
    match entry {
        None => format!("{label}:-"),
        Some(Entry {
            count,
            rest: Some(rest),
        }) => format!("{label}:{count}/{rest}"),
        Some(Entry { count, rest: None }) => format!("{label}:{count}"),
    }
}

/// The string of `plan`.
pub fn encode_plan(plan: &Plan) -> String {
    let root = NodeOp::Update(plan.root.clone());
    let mut out = String::new();
    let mut previous = "";
    let nodes = plan.nodes.iter().filter(|(p, _)| !p.is_empty());
    for (prefix, op) in std::iter::once(("", &root)).chain(nodes.map(|(p, o)| (p.as_str(), o))) {
        push_prefix(&mut out, previous, prefix);
        let entries: Vec<String> = match op {
            NodeOp::Update(changed) => changed
                .iter()
                .map(|(l, e)| entry_text(l, e.as_ref()))
                .collect(),
            NodeOp::Put(whole) => whole.iter().map(|(l, e)| entry_text(l, Some(e))).collect(),
            NodeOp::Clear => Vec::new(),
        };
        let mark = match op {
            NodeOp::Update(_) => '=',
            NodeOp::Put(_) => '!',
            NodeOp::Clear => '~',
        };
        out.push(mark);
        out.push_str(&entries.join(","));
        previous = prefix;
    }
    out
}

fn parse_entry(text: &str) -> Option<(String, Option<Entry>)> {
    let (label, value) = text.split_once(':')?;
    if value == "-" {
        return Some((label.to_owned(), None));
    }
    let (count, rest) = match value.split_once('/') {
        Some((c, r)) => (c, Some(r.to_owned())),
        None => (value, None),
    };
    let count = count.parse().ok()?;
    Some((label.to_owned(), Some(Entry { count, rest })))
}

/// The plan [`encode_plan`] wrote; `None` when `s` is not one.
pub fn decode_plan(s: &str) -> Option<Plan> {
    let mut plan = Plan::default();
    let mut previous = String::new();
    for (i, node) in s.split(';').enumerate() {
        let at = node.find(['=', '!', '~'])?;
        let (head, body) = node.split_at(at);
        let (mark, body) = body.split_at(1);
        let prefix = read_prefix(head, &previous)?;
        let mut entries: BTreeMap<String, Option<Entry>> = BTreeMap::new();
        for text in body.split(',').filter(|t| !t.is_empty()) {
            let (label, entry) = parse_entry(text)?;
            entries.insert(label, entry);
        }
        let op = match mark {
            "=" => NodeOp::Update(entries),
            "!" => NodeOp::Put(
                entries
                    .into_iter()
                    .map(|(l, e)| e.map(|e| (l, e)))
                    .collect::<Option<Entries>>()?,
            ),
            _ if entries.is_empty() => NodeOp::Clear,
            _ => return None,
        };
        match (i, op) {
            (0, NodeOp::Update(root)) if prefix.is_empty() => plan.root = root,
            (0, _) => return None,
            (_, op) => {
                plan.nodes.insert(prefix.clone(), op);
            }
        }
        previous = prefix;
    }
    Some(plan)
}
