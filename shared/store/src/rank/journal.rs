//! The rank index's journal in the table ([`leaderboard_keys::rank_index::journal`] for the
//! protocol and why it counts every change once): the journal item's put, each node's
//! single-item update, sent together, and the root's finishing update. `apply` runs them
//! in order for each slice of a batch.

use leaderboard_keys::ids::BoardId;
use leaderboard_keys::rank_index::compact::{decode_plan, encode_plan};
use leaderboard_keys::rank_index::journal::{
    Found, Journal, NODE_JOURNAL_ATTR, ROOT_JOURNAL_ATTR, decode_deltas, encode_deltas, found,
    journal_key,
};
use leaderboard_keys::rank_index::lead::LEAD_ATTR;
use leaderboard_keys::rank_index::{
    GENERATION_ATTR, MAX_LANES, Watermarks, count_attr, node_key, root_key, watermark_attr,
};

use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt, key_item, n, s};
use crate::rank::compact::{all_answered, entry_updates, layout_set, update_expression};
use crate::rank::lead::{LeadStep, put_step, step_of};
use crate::table::Table;
use crate::table::request::{Params, WithParams};

/// The journal item's attributes: its number, its deltas ([`encode_deltas`]), how many
/// changes it carries, and per lane the watermark it starts from and ends at.
const ID_ATTR: &str = "id";
const DELTAS_ATTR: &str = "d";
/// On the compact layout, the plan ([`encode_plan`]) in place of the deltas.
const PLAN_ATTR: &str = "p";
const CHANGES_ATTR: &str = "n";

fn from_attr(lane: u8) -> String {
    format!("f{lane}")
}

fn to_attr(lane: u8) -> String {
    format!("t{lane}")
}

/// What the put of a journal found.
pub(crate) enum Begun {
    /// It is written: its nodes are next.
    Written,
    /// The item holds the journal after the root's last, still pending: finish it first
    /// (with its step of the leader, if it has one).
    Pending(Box<(Journal, Option<LeadStep>)>),
    /// The item moved on since the root was read: read the root again.
    Stale,
}

impl Table {
    /// Writes `journal` as generation `generation`'s journal item, with its `step` of the
    /// leader, on condition that the item holds the journal before it (or none). One PutItem
    /// (its size in write units, 1 per KB: some 15 bytes a node), and on a failed condition one
    /// consistent GetItem of the item.
    pub(crate) async fn put_journal(
        &self,
        board: &BoardId,
        generation: u64,
        journal: &Journal,
        step: Option<&LeadStep>,
    ) -> Result<Begun, StoreError> {
        let key = journal_key(board, generation);
        let mut item = key_item(&key);
        item.insert(ID_ATTR.into(), n(journal.id));
        match &journal.plan {
            Some(plan) => item.insert(PLAN_ATTR.into(), s(encode_plan(plan))),
            None => item.insert(
                DELTAS_ATTR.into(),
                s(encode_deltas(&journal.root, &journal.nodes)),
            ),
        };
        item.insert(CHANGES_ATTR.into(), n(journal.changes));
        for (lane, seq) in &journal.from.0 {
            item.insert(from_attr(*lane), n(seq));
        }
        for (lane, seq) in &journal.to.0 {
            item.insert(to_attr(*lane), n(seq));
        }
        if let Some(step) = step {
            put_step(&mut item, step);
        }
        let put = self
            .put_request(item)
            .condition_expression("attribute_not_exists(#id) OR #id = :before")
            .params(
                Params::new()
                    .name("#id", ID_ATTR)
                    .value(":before", journal.id - 1),
            )?
            .send()
            .await
            .map_err(|e| StoreError::sdk("PutItem(rank index journal)", e));
        match put {
            Ok(_) => Ok(Begun::Written),
            Err(StoreError::ConditionalCheckFailed) => Ok(
                match self
                    .pending_journal(board, generation, journal.id - 1)
                    .await?
                {
                    (_, Some(pending)) => Begun::Pending(pending),
                    (_, None) => Begun::Stale,
                },
            ),
            Err(e) => Err(e),
        }
    }

    /// What generation `generation`'s journal item says to a root whose last journal is
    /// `last`, with the journal and its step of the leader when it is pending. One consistent
    /// GetItem.
    pub(crate) async fn pending_journal(
        &self,
        board: &BoardId,
        generation: u64,
        last: u64,
    ) -> Result<(Found, Option<Box<(Journal, Option<LeadStep>)>>), StoreError> {
        let key = journal_key(board, generation);
        let held = self.get_raw(&key).await?.unwrap_or_default();
        let id = held.number(ID_ATTR).unwrap_or(0);
        Ok(match found(last, id) {
            Found::Pending => {
                let journal = journal_of(&key.sk, &held)?;
                let step = step_of(board, &held);
                (Found::Pending, Some(Box::new((journal, step))))
            }
            other => (other, None),
        })
    }

    /// Each node of `journal` below the root takes its delta, once: an UpdateItem on
    /// condition that the node's last journal is older, [`NODES_IN_FLIGHT`] at a time. A node
    /// that took it before is left as it is. The number of updates sent.
    pub(crate) async fn take_journal(
        &self,
        board: &BoardId,
        generation: u64,
        journal: &Journal,
    ) -> Result<usize, StoreError> {
        if let Some(plan) = &journal.plan {
            return self.take_plan(board, generation, journal.id, plan).await;
        }
        let updates = journal
            .nodes
            .iter()
            .filter(|(prefix, delta)| !prefix.is_empty() && !delta.is_empty())
            .map(|(prefix, delta)| {
                let (adds, params) = counter_adds(delta);
                let params = params
                    .name("#j", NODE_JOURNAL_ATTR)
                    .value(":id", journal.id);
                let request = self
                    .update_request(
                        &node_key(board, generation, prefix),
                        format!("ADD {adds} SET #j = :id"),
                    )
                    .condition_expression("attribute_not_exists(#j) OR #j < :id")
                    .params(params);
                async move {
                    match request?.send().await {
                        Ok(_) => Ok(()),
                        Err(e) => match StoreError::sdk("UpdateItem(rank index node)", e) {
                            // Taken before: by a crashed try of this journal, or another applier.
                            StoreError::ConditionalCheckFailed => Ok(()),
                            e => Err(e),
                        },
                    }
                }
            })
            .collect::<Vec<_>>();
        all_answered(updates).await
    }

    /// Finishes `journal` on the root: its counters' deltas, the new watermarks, the
    /// journal's number and the leader after it (its `step`), on condition that the root's
    /// last journal is the one before and its generation is `generation`. Whether it did (if
    /// not, another applier finished it, or a rebuild switched the root). One UpdateItem.
    pub(crate) async fn finish_journal(
        &self,
        board: &BoardId,
        generation: u64,
        journal: &Journal,
        step: Option<&LeadStep>,
    ) -> Result<bool, StoreError> {
        let (adds, mut params, mut removes) = match &journal.plan {
            None => {
                let (adds, params) = counter_adds(&journal.root);
                (adds, params, Vec::new())
            }
            Some(_) => (String::new(), Params::new(), Vec::new()),
        };
        let mut sets = vec![
            "#g = if_not_exists(#g, :g)".to_owned(),
            "#jl = :id".to_owned(),
        ];
        if let Some(plan) = &journal.plan {
            let (entry_sets, entry_removes, with) = entry_updates(&plan.root, params);
            let (layout, with) = layout_set(with);
            sets.extend(entry_sets);
            sets.push(layout);
            removes = entry_removes;
            params = with;
        }
        let mut conditions = vec!["(attribute_not_exists(#g) OR #g = :g)".to_owned()];
        conditions.push(if journal.id == 1 {
            "attribute_not_exists(#jl)".to_owned()
        } else {
            "#jl = :before".to_owned()
        });
        params = params
            .name("#g", GENERATION_ATTR)
            .value(":g", generation)
            .name("#jl", ROOT_JOURNAL_ATTR)
            .value(":id", journal.id);
        if journal.id > 1 {
            params = params.value(":before", journal.id - 1);
        }
        for (lane, to) in &journal.to.0 {
            if journal.from.get(*lane) != *to {
                sets.push(format!("#w{lane} = :w{lane}"));
                params = params
                    .name(format!("#w{lane}"), watermark_attr(*lane))
                    .value(format!(":w{lane}"), to);
            }
        }
        if let Some(step) = step {
            sets.push("#lead = :lead".to_owned());
            params = params
                .name("#lead", LEAD_ATTR)
                .value(":lead", step.lead.as_str());
        }
        let mut update = update_expression(&sets, &removes);
        if !adds.is_empty() {
            update.push_str(&format!(" ADD {adds}"));
        }
        let finish = self
            .update_request(&root_key(board), update)
            .condition_expression(conditions.join(" AND "))
            .params(params)?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(rank index root)", e));
        match finish {
            Ok(_) => Ok(true),
            Err(StoreError::ConditionalCheckFailed) => Ok(false),
            Err(e) => Err(e),
        }
    }
}

/// The journal a journal item holds.
fn journal_of(key: &str, item: &Item) -> Result<Journal, StoreError> {
    let corrupt = |why: &str| StoreError::corrupt(key, why);
    let plan = match item.string(PLAN_ATTR) {
        Some(text) => Some(decode_plan(text).ok_or_else(|| corrupt("journal plan unreadable"))?),
        None => None,
    };
    let (root, nodes) = match plan {
        Some(_) => Default::default(),
        None => item
            .string(DELTAS_ATTR)
            .and_then(decode_deltas)
            .ok_or_else(|| corrupt("journal deltas unreadable"))?,
    };
    Ok(Journal {
        id: item
            .number(ID_ATTR)
            .ok_or_else(|| corrupt("journal without a number"))?,
        from: watermarks_in(item, from_attr),
        to: watermarks_in(item, to_attr),
        nodes,
        root,
        changes: item.number(CHANGES_ATTR).unwrap_or(0),
        plan,
    })
}

/// `#c0 :c0, #c1 :c1, ...` adding each counter's delta, with its placeholders.
pub(crate) fn counter_adds(counters: &leaderboard_keys::rank_index::Counters) -> (String, Params) {
    let mut params = Params::new();
    let mut adds = Vec::with_capacity(counters.len());
    for (i, (label, delta)) in counters.iter().enumerate() {
        adds.push(format!("#c{i} :c{i}"));
        params = params
            .name(format!("#c{i}"), count_attr(label))
            .value(format!(":c{i}"), delta);
    }
    (adds.join(", "), params)
}

/// The root's last finished journal (0: none since its generation was switched in).
pub(crate) fn root_last_journal(root: &Item) -> u64 {
    root.number(ROOT_JOURNAL_ATTR).unwrap_or(0)
}

/// The watermarks an item holds under `attr(lane)`, for each lane that has one.
pub(crate) fn watermarks_in(item: &Item, attr: fn(u8) -> String) -> Watermarks {
    Watermarks(
        (0..MAX_LANES)
            .filter_map(|lane| Some((lane, item.number(&attr(lane))?)))
            .collect(),
    )
}
