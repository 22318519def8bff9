//! A board's lanes: the written counts its plays keep, one item a lane, each holding the lane's
//! number of changes (`written`), its entries made (`created`) and its latest change (`chg`),
//! which the stream carries to the rank index. A board's lanes share one partition key (read
//! by one consistent Query) unless the board was made before that and not grouped since (read
//! by key). Also the repair request a batch leaves when a lane stops at a change that never
//! comes.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::{AttributeValue, TransactWriteItem};
use leaderboard_keys::entity::{self, ItemKey, Key, LANE_SK};
use leaderboard_keys::ids::{BoardId, PlayerId};
use leaderboard_keys::rank_index::caps::{CAP_ATTR, CAP_NEXT_ATTR, CAP_UNTIL_ATTR, LaneCaps};
use leaderboard_keys::rank_index::change::ChangeMap;
use leaderboard_keys::rank_index::{
    self, CHANGE_ATTR, CREATED_ATTR, GENERATION_ATTR, Gap, LANE_GENERATION_ATTR, LOGGED_ATTR,
    LaneChange, LanesRead, PAUSE_ATTR, WIDE_CHANGE_ATTR, WRITTEN_ATTR, lane_of, repair_key,
};
use leaderboard_keys::time::Timestamp;

use crate::ground::error::StoreError;
use crate::ground::items::{Item, ItemExt, item_key};
use crate::ground::model::Board;
use crate::rank::apply::root_watermarks;
use crate::rank::count::RankCost;
use crate::rank::second_layout::{SecondLayout, WIDENING_ATTR};
use crate::rank::settings::{SettingsChange, at_version};
use crate::table::Table;
use crate::table::request::{Index, Params, WithParams};
use crate::table::retry::Retry;

/// On every lane of a board season close has begun: when the close started reading its
/// entries. A play's lane update holds only on a lane without it, so no play changes an entry
/// once the close has closed the entry's lane (the closing fence, see `Table::close_lanes`).
pub(crate) const CLOSED_ATTR: &str = "closed";

/// On a lane kept apart, that its board's lanes were grouped: no play writes it any more (a
/// play that read the board before fails its condition and reads the board again).
pub(crate) const GROUPED_ATTR: &str = "grouped";

/// Where a board's lanes are kept: under one partition key (`lanesGrouped`), or one partition
/// key a lane (a board made before grouped lanes, until the layout sweep groups them).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LaneKeys<'a> {
    /// The board.
    pub board: &'a BoardId,
    /// Whether its lanes share one partition key.
    pub grouped: bool,
    /// How many lanes it has (`Board::lanes`).
    pub count: u8,
}

impl<'a> LaneKeys<'a> {
    /// Where `board`'s lanes are kept.
    pub(crate) fn of(board: &'a Board) -> LaneKeys<'a> {
        LaneKeys {
            board: &board.board_id,
            grouped: board.lanes_grouped,
            // A board's item is never written with none or past the keys' two digits.
            count: board.lanes.clamp(1, rank_index::MAX_LANES),
        }
    }

    /// Its lanes' numbers.
    pub(crate) fn lanes(&self) -> std::ops::Range<u8> {
        0..self.count
    }

    /// The lane `player`'s plays write.
    pub(crate) fn lane_of(&self, player: &PlayerId) -> u8 {
        lane_of(player.as_str(), self.count)
    }

    /// The key of `lane`'s item.
    pub(crate) fn key(&self, lane: u8) -> Key {
        if self.grouped {
            entity::grouped_lane(self.board, lane)
        } else {
            entity::lane(self.board, lane)
        }
    }

    /// The keys of every lane, by lane.
    pub(crate) fn all(&self) -> Vec<Key> {
        self.lanes().map(|lane| self.key(lane)).collect()
    }
}

/// The condition a change of one on a hot board's lane takes (its caps, `rank::lane_caps`),
/// with its params (names `#w`, `#cap`, `#cu`, `#cn`; values `:capnow`, `:stale`):
/// [`LaneCaps::admits`] for one change.
pub(crate) fn within_caps(params: Params) -> (&'static str, Params) {
    let now = Timestamp::now().as_millis();
    let params = params
        .name("#w", WRITTEN_ATTR)
        .name("#cap", CAP_ATTR)
        .name("#cu", CAP_UNTIL_ATTR)
        .name("#cn", CAP_NEXT_ATTR)
        .value(":capnow", now)
        .value(":stale", LaneCaps::stale_before(now));
    (
        "(attribute_not_exists(#cap) OR #w < #cap OR (#cu <= :capnow AND #w < #cn) OR \
         #cu <= :stale)",
        params,
    )
}

/// The attribute of a repair request holding the missing change of `lane`.
pub(crate) fn missing_attr(lane: u8) -> String {
    format!("m{lane}")
}

/// The attribute of a repair request holding the latest change of `lane` a batch met past its
/// gap: a lane applied up to it has caught up by itself.
pub(crate) fn past_gap_attr(lane: u8) -> String {
    format!("h{lane}")
}

/// The lanes as read (`items`, by lane): every lane's written count, and the board's entries
/// (Σ created). A lane never written has no item (an item read always holds its keys), and no
/// count.
pub(crate) fn lane_counts(items: &[Item]) -> (BTreeMap<u8, u64>, i64) {
    let mut written = BTreeMap::new();
    let mut entries = 0i64;
    for (lane, item) in (0..=u8::MAX).zip(items) {
        if item.is_empty() {
            continue;
        }
        written.insert(lane, item.number(WRITTEN_ATTR).unwrap_or(0));
        entries = entries.saturating_add(item.number(CREATED_ATTR).unwrap_or(0i64));
    }
    (written, entries)
}

/// The changes counted on the lanes as read (`items`) that `root` has not applied.
pub(crate) fn lanes_lag(items: &[Item], root: &Item) -> u64 {
    rank_index::lag(&root_watermarks(root), &lane_counts(items).0)
}

/// The view of the lanes read last (`items`, by lane) of a player of lane `own_lane`: every
/// lane's written count and the player's lane's latest change (keyed in the entry generation
/// `generation`), and the board's entries (Σ created).
pub(crate) fn lanes_for(items: &[Item], own_lane: u8, generation: u64) -> (LanesRead, i64) {
    let (written, entries) = lane_counts(items);
    let own_latest = items
        .get(usize::from(own_lane))
        .and_then(|item| latest_change(own_lane, item, generation));
    let lanes = LanesRead {
        written,
        own_lane,
        own_latest,
    };
    (lanes, entries)
}

/// Whether the lanes as read (`items`, read after the nodes of `root`'s generation) say that a
/// rebuild's switch put a newer generation in service since `root` was read: then the nodes
/// may have been read while their deletion went on (see [`LANE_GENERATION_ATTR`]).
pub(crate) fn switched_since(items: &[Item], root: &Item) -> bool {
    let newest = items
        .iter()
        .filter_map(|item| item.number::<u64>(LANE_GENERATION_ATTR))
        .max();
    newest > Some(root.number(GENERATION_ATTR).unwrap_or(0))
}

/// A lane item's latest change, numbered by its written count and keyed in entry generation
/// `generation`; `None` when it has none or it cannot be read (the lookup then treats the
/// player's own change as unknown, in the lag).
fn latest_change(lane: u8, item: &Item, generation: u64) -> Option<LaneChange> {
    let wide = match item.get(WIDE_CHANGE_ATTR) {
        None => None,
        Some(chgw) => Some(change_map(chgw)?),
    };
    change_map(item.get(CHANGE_ATTR)?)?
        .lane_change(lane, item.number(WRITTEN_ATTR)?, wide.as_ref())
        .ok()?
        .in_generation(generation)
}

/// A lane change map; `None` when it cannot be read.
fn change_map(chg: &AttributeValue) -> Option<ChangeMap> {
    serde_dynamo::from_attribute_value(chg.clone()).ok()
}

impl Table {
    /// The submit path's part of the index, in the play's transaction: add one to the player's
    /// written count (its lane), and one to its created count when the entry is the player's
    /// first (`old` is `None`) or take one from it when the entry is removed (`new` is `None`).
    /// On an indexed board, or one being moved onto the index, the lane also records the change
    /// itself, `chg = {o: old sort key, n: new sort key, s: new score}`, which its stream record carries to
    /// the index numbered by the `written` after the add.
    pub(crate) fn written_update(
        &self,
        board: &Board,
        player: &PlayerId,
        old: Option<&str>,
        new: Option<&str>,
    ) -> Result<TransactWriteItem, StoreError> {
        let lanes = LaneKeys::of(board);
        let key = lanes.key(lanes.lane_of(player));
        // The board's settings as the writer read them are still the board's (`rank::settings`).
        let (settings, params) = at_version(board.settings_version, Params::new());
        let mut params = params.name("#w", WRITTEN_ATTR).value(":one", 1u64);
        let mut update = String::from("ADD #w :one");
        match (old, new) {
            (None, _) => {
                update.push_str(", #c :one");
                params = params.name("#c", CREATED_ATTR);
            }
            (Some(_), None) => {
                update.push_str(", #c :minus");
                params = params.name("#c", CREATED_ATTR).value(":minus", -1i64);
            }
            (Some(_), Some(_)) => {}
        }
        if board.indexed() || board.rank_migrating {
            let score = match new {
                Some(sk) => Some(board.spec()?.parse_score_sort_key(sk)?.score),
                None => None,
            };
            update.push_str(" SET #chg = :chg");
            params = params
                .name("#chg", CHANGE_ATTR)
                .value(
                    ":chg",
                    ChangeMap {
                        o: old.map(str::to_owned),
                        n: new.map(str::to_owned),
                        s: score,
                        g: board.entry_generation,
                    },
                )
                .name("#pause", PAUSE_ATTR)
                .value(":now", Timestamp::now().as_millis())
                .name("#wid", WIDENING_ATTR);
            // A widening board's change is recorded at both widths, on condition that the
            // lane is fenced for the generation the board item named (docs/widen.md): a play
            // that read the board before the run began, or before it switched, reads it again.
            let widening = match SecondLayout::of(board)? {
                Some(layout) => {
                    let (o, n) = (
                        old.map(|k| layout.key(k)).transpose()?,
                        new.map(|k| layout.key(k)).transpose()?,
                    );
                    update.push_str(", #chgw = :chgw");
                    params = params
                        .name("#chgw", WIDE_CHANGE_ATTR)
                        .value(
                            ":chgw",
                            ChangeMap {
                                o,
                                n,
                                s: score,
                                g: layout.generation,
                            },
                        )
                        .value(":wid", layout.generation);
                    "#wid = :wid"
                }
                None => {
                    // A change of a run that switched since is no longer this lane's latest.
                    update.push_str(" REMOVE #chgw");
                    params = params.name("#chgw", WIDE_CHANGE_ATTR);
                    "attribute_not_exists(#wid)"
                }
            };
            // A live rebuild may hold the lane's plays back for a moment (see `rank_rebuild`):
            // the play fails this condition and retries like any other conflict. A lane kept
            // apart whose board's lanes were grouped since the play read the board refuses it
            // for good: the retry reads the board again and writes the grouped lane. A hot
            // board's lane takes changes within its caps (`rank::lane_caps`): a full one holds
            // the play back until a roll or its term's end, as a pause does.
            let (caps, params) = within_caps(params);
            return self.tx_update_if(
                &key,
                &update,
                &format!(
                    "attribute_not_exists(#grouped) AND attribute_not_exists(#closed) AND \
                     (attribute_not_exists(#pause) OR #pause < :now) AND {widening} AND \
                     {settings} AND {caps}"
                ),
                params
                    .name("#grouped", GROUPED_ATTR)
                    .name("#closed", CLOSED_ATTR),
            );
        }
        // A board made before the index: once its migration has started (the lane is logged),
        // a play that read the board before must read it again and record its change.
        self.tx_update_if(
            &key,
            &update,
            &format!("attribute_not_exists(#log) AND attribute_not_exists(#closed) AND {settings}"),
            params
                .name("#log", LOGGED_ATTR)
                .name("#closed", CLOSED_ATTR),
        )
    }

    /// The closing fence: marks every lane of `board` (as stored once its `closing` status
    /// committed, when its lanes' layout can no longer change) [`CLOSED_ATTR`], creating the
    /// lanes never written. Every change of an entry updates its lane in the same transaction,
    /// on condition that the lane is not closed: once this returns, every change that
    /// committed is in the entries, and none commits after (a play in flight fails its
    /// condition, reads the board again and is refused). So the close reads every accepted
    /// score, with no write on the board item from any play and whatever the clocks say.
    /// Requests: an UpdateItem a lane (10 write units on a board of 10), once per close;
    /// idempotent.
    pub(crate) async fn close_lanes(&self, board: &Board, at: Timestamp) -> Result<(), StoreError> {
        let keys = LaneKeys::of(board).all();
        futures::future::try_join_all(keys.iter().map(|key| {
            Retry::ITEM_UPDATE.run("closing a lane", move || async move {
                self.update_request(key, "SET #closed = if_not_exists(#closed, :at)")
                    .params(
                        Params::new()
                            .name("#closed", CLOSED_ATTR)
                            .value(":at", at.as_millis()),
                    )?
                    .send()
                    .await
                    .map(|_| ())
                    .map_err(|e| StoreError::sdk("UpdateItem(close lane)", e))
            })
        }))
        .await?;
        Ok(())
    }

    /// Adds `counts[lane]` to the written and created counts (bulk import of new entries:
    /// before its items are written, so that a failure leaves the index looking behind, never
    /// ahead).
    pub(crate) async fn add_written(
        &self,
        board: &Board,
        counts: &[u64],
    ) -> Result<(), StoreError> {
        let lanes = LaneKeys::of(board);
        // A hot board's lane takes them within its caps (`rank::lane_caps`), waiting for room
        // where they leave none: every lane at once.
        let adds = counts
            .iter()
            .enumerate()
            .filter(|(_, count)| **count > 0)
            .map(|(lane, &count)| {
                let key = lanes.key(lane as u8);
                async move { self.add_within_caps(&key, count).await }
            });
        futures::future::try_join_all(adds).await?;
        Ok(())
    }

    /// The board's lane items, by lane, read strongly consistent in one request (empty for a
    /// lane never written): grouped, one Query of their partition (the ten items are about
    /// 1.5 KB, one read unit, one page); else one `BatchGetItem` of a key a lane (at most
    /// [`rank_index::MAX_LANES`]).
    pub(crate) async fn lane_items(&self, lanes: LaneKeys<'_>) -> Result<Vec<Item>, StoreError> {
        let mut by_lane = vec![Item::new(); usize::from(lanes.count)];
        if lanes.grouped {
            let query = self
                .query_request(Index::Table)
                .key_condition_expression("pk = :pk AND begins_with(sk, :sk)")
                .params(
                    Params::new()
                        .value(":pk", entity::lanes_pk(lanes.board))
                        .value(":sk", format!("{LANE_SK}#")),
                )?
                .consistent_read(true);
            self.query_pages("Query(rank index lanes)", query, |page| {
                for item in page.items.unwrap_or_default() {
                    let key = item_key(&item);
                    if let Ok(ItemKey::Lane { lane, .. }) = ItemKey::parse(&key.pk, &key.sk)
                        && let Some(slot) = by_lane.get_mut(usize::from(lane))
                    {
                        *slot = item;
                    }
                }
                Ok(())
            })
            .await?;
            return Ok(by_lane);
        }
        let every: Vec<u8> = lanes.lanes().collect();
        self.lanes_by_key(lanes, &every).await
    }

    /// The items of `which` of `lanes` (in that order; empty for a lane never written), read
    /// strongly consistent by key: one `GetItem` for one lane, one `BatchGetItem` for more.
    pub(crate) async fn lanes_by_key(
        &self,
        lanes: LaneKeys<'_>,
        which: &[u8],
    ) -> Result<Vec<Item>, StoreError> {
        let keys: Vec<Key> = which.iter().map(|&lane| lanes.key(lane)).collect();
        if let [key] = keys.as_slice() {
            return Ok(vec![self.get_raw(key).await?.unwrap_or_default()]);
        }
        let mut found = self
            .batch_get(&keys, "BatchGetItem(rank index lanes)")
            .await?;
        Ok(keys
            .iter()
            .map(|key| found.take(key).unwrap_or_default())
            .collect())
    }

    /// The lanes' items, one request (a Query of 10 items, or a `BatchGetItem` of a key a
    /// lane), counted in `cost`. Lanes kept apart that were grouped since `board` was read count
    /// nothing any more: then the grouped ones are read (one request more).
    pub(crate) async fn read_lane_items(
        &self,
        board: &Board,
        cost: &mut RankCost,
    ) -> Result<Vec<Item>, StoreError> {
        let mut lanes = LaneKeys::of(board);
        loop {
            let items = self.lane_items(lanes).await?;
            cost.requests += 1;
            cost.items += items.len() as u64;
            if lanes.grouped || !items.iter().any(|item| item.contains_key(GROUPED_ATTR)) {
                return Ok(items);
            }
            lanes.grouped = true;
        }
    }

    /// Records that `board`'s lanes stopped at `gaps` (one UpdateItem): the first time seen and
    /// the first missing change of each lane stay; the last time seen and each lane's latest
    /// change past its gap (among `changes`, the batch's) move. Batches of one lane come one at
    /// a time and in order (one stream shard holds a lane item), so the latest one's is the
    /// highest.
    pub(crate) async fn request_repair(
        &self,
        board: &BoardId,
        gaps: &[Gap],
        changes: &[LaneChange],
    ) -> Result<(), StoreError> {
        let now = Timestamp::now().as_millis();
        let mut sets = vec![
            "#at = if_not_exists(#at, :now)".to_owned(),
            "#seen = :now".to_owned(),
        ];
        let mut params = Params::new()
            .name("#at", "at")
            .name("#seen", "seen")
            .value(":now", now);
        for gap in gaps {
            let lane = gap.lane;
            let past = changes
                .iter()
                .filter(|c| c.lane == lane)
                .map(|c| c.seq)
                .max()
                .unwrap_or(gap.found);
            sets.push(format!("#m{lane} = if_not_exists(#m{lane}, :m{lane})"));
            sets.push(format!("#h{lane} = :h{lane}"));
            params = params
                .name(format!("#m{lane}"), missing_attr(lane))
                .value(format!(":m{lane}"), gap.expected)
                .name(format!("#h{lane}"), past_gap_attr(lane))
                .value(format!(":h{lane}"), past);
        }
        self.update_request(&repair_key(board), format!("SET {}", sets.join(", ")))
            .params(params)?
            .send()
            .await
            .map_err(|e| StoreError::sdk("UpdateItem(rank index repair request)", e))?;
        Ok(())
    }

    /// Every lane of `board` (as read) at `change`'s next version: an update a lane (at most
    /// [`rank_index::MAX_LANES`]) for the change's transaction. A lane never written is created
    /// holding only the version.
    pub(crate) fn lanes_at_version(
        &self,
        board: &Board,
        change: SettingsChange,
    ) -> Result<Vec<TransactWriteItem>, StoreError> {
        let lanes = LaneKeys::of(board);
        lanes
            .lanes()
            .map(|lane| {
                self.tx_update(
                    &lanes.key(lane),
                    &format!("SET {}", SettingsChange::SET),
                    change.set_params(Params::new()),
                )
            })
            .collect()
    }
}
