//! What a rebuild keeps between runs: the keys it scanned at its settled change numbers, packed
//! into a few items, and the difference between two scans as lane changes.
//!
//! A rebuild whose node writes do not fit in one run keeps its scan in the table instead of in
//! memory, so that the next run builds the same nodes again and carries on where the last one
//! stopped. Sort keys sorted in order share long prefixes (the score digits), so each is stored
//! as the length of the prefix it shares with the one before and the rest: about 25 bytes a key
//! on a spread board, a few items of at most [`STAGE_ITEM_BYTES`] for tens of thousands of
//! entries (a put of a 100 KB item is 100 write units, against one per node for the nodes).
//!
//! Before it switches, a rebuild scans again (with the lanes paused) and brings its new
//! generation up to that scan by applying the difference, player by player, as lane changes
//! ([`changes_between`]): the index's own fold counts them exactly once.

use std::collections::BTreeMap;

use super::{CountedKey, LaneChange, Watermarks};
use crate::error::KeyError;

/// The most bytes one staged item's packed keys take: a quarter of DynamoDB's item limit.
pub const STAGE_ITEM_BYTES: usize = 100_000;

/// Packs `keys` (sorted, as a Query reads them) into chunks of at most [`STAGE_ITEM_BYTES`],
/// each standing alone (its first key shares nothing).
pub fn pack(keys: &[CountedKey]) -> Vec<Vec<u8>> {
    let mut chunks = Vec::new();
    let mut chunk: Vec<u8> = Vec::new();
    let mut previous: &str = "";
    for key in keys {
        let k = key.sort_key.as_str();
        let mut shared = common_prefix(previous, k).min(255);
        let mut rest = &k.as_bytes()[shared..];
        if !chunk.is_empty() && chunk.len() + 2 + rest.len() > STAGE_ITEM_BYTES {
            chunks.push(std::mem::take(&mut chunk));
            shared = 0;
            rest = k.as_bytes();
        }
        // A sort key is at most 1 KB (DynamoDB's limit), so its rest's length fits two bytes.
        chunk.push(shared as u8);
        chunk.extend_from_slice(&(rest.len() as u16).to_le_bytes());
        chunk.extend_from_slice(rest);
        previous = k;
    }
    if !chunk.is_empty() {
        chunks.push(chunk);
    }
    chunks
}

/// The keys [`pack`] packed, in order; an error for bytes it did not write.
pub fn unpack(chunks: &[Vec<u8>]) -> Result<Vec<CountedKey>, KeyError> {
    let bad = |why: &'static str| KeyError::malformed("staged keys", why);
    let mut keys = Vec::new();
    for chunk in chunks {
        let mut previous = String::new();
        let mut at = 0;
        while at < chunk.len() {
            let header = chunk.get(at..at + 3).ok_or_else(|| bad("truncated"))?;
            let shared = usize::from(header[0]);
            let len = usize::from(u16::from_le_bytes([header[1], header[2]]));
            let rest = chunk
                .get(at + 3..at + 3 + len)
                .ok_or_else(|| bad("truncated"))?;
            let prefix = previous.get(..shared).ok_or_else(|| bad("bad prefix"))?;
            let rest = std::str::from_utf8(rest).map_err(|_| bad("not UTF-8"))?;
            let key = format!("{prefix}{rest}");
            keys.push(CountedKey::parse(&key)?);
            previous = key;
            at += 3 + len;
        }
    }
    Ok(keys)
}

fn common_prefix(a: &str, b: &str) -> usize {
    let n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    // On a character boundary, so that the rest is a string of its own.
    (0..=n).rev().find(|&i| b.is_char_boundary(i)).unwrap_or(0)
}

/// The entries' changes from the keys `before` to the keys `after` (each one key a player at
/// most), as lane changes numbered on from `from`: per player whose key differs, one change
/// (old key, new key; `None` for no entry), a lane's numbered `from + 1`, `from + 2`, ... in
/// player order. Folded onto an index that counts `before` with watermarks `from`, they make it
/// count `after`.
pub fn changes_between(
    before: &[CountedKey],
    after: &[CountedKey],
    from: &Watermarks,
) -> Vec<LaneChange> {
    let by_player = |keys: &[CountedKey]| -> BTreeMap<String, CountedKey> {
        keys.iter()
            .map(|k| (player_of(k).to_owned(), k.clone()))
            .collect()
    };
    let mut old = by_player(before);
    let new = by_player(after);
    let mut next: BTreeMap<u8, u64> = BTreeMap::new();
    let mut changes = Vec::new();
    let mut push = |old: Option<CountedKey>, new: Option<CountedKey>| {
        let lane = old.as_ref().or(new.as_ref()).map_or(0, CountedKey::lane);
        let seq = next.entry(lane).or_insert_with(|| from.get(lane));
        *seq += 1;
        changes.push(LaneChange {
            lane,
            seq: *seq,
            old,
            new,
        });
    };
    for (player, key) in new {
        match old.remove(&player) {
            Some(was) if was == key => {}
            was => push(was, Some(key)),
        }
    }
    for (_, was) in old {
        push(Some(was), None);
    }
    changes
}

/// The player of a counted key (ids hold no `#`).
fn player_of(key: &CountedKey) -> &str {
    key.sort_key.rsplit('#').next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank_index::{build, fold};

    fn key(score: u64, tie: u64, player: &str) -> CountedKey {
        CountedKey::parse(&format!("SCORE#{score:010}#{tie:013}#{player}")).unwrap()
    }

    #[test]
    fn packed_keys_unpack_to_the_same_keys_in_items_under_the_limit() {
        let mut keys: Vec<CountedKey> = (0..20_000u64)
            .map(|i| {
                key(
                    (i * 7_919) % 100_000,
                    8_000_000_000_000 - i,
                    &format!("p{i:05}"),
                )
            })
            .collect();
        keys.sort();
        let chunks = pack(&keys);
        assert!(chunks.iter().all(|c| c.len() <= STAGE_ITEM_BYTES));
        let bytes: usize = chunks.iter().map(Vec::len).sum();
        assert!(bytes < 20_000 * 30, "{bytes} bytes for 20,000 keys");
        assert!(chunks.len() >= 2, "more than one item");
        assert_eq!(unpack(&chunks).unwrap(), keys);
        assert_eq!(unpack(&pack(&[])).unwrap(), Vec::<CountedKey>::new());
        // Bytes pack did not write are refused, never read as keys.
        let mut cut = chunks[0].clone();
        cut.truncate(cut.len() - 1);
        assert!(unpack(&[cut]).is_err());
        assert!(unpack(&[vec![9, 1, 0, b'x']]).is_err());
    }

    #[test]
    fn the_changes_between_two_scans_fold_the_first_into_the_second() {
        let before = vec![key(10, 1, "a"), key(20, 2, "b"), key(30, 3, "c")];
        // a improves, b leaves, c stays, d arrives.
        let mut after = vec![key(40, 4, "a"), key(30, 3, "c"), key(5, 5, "d")];
        after.sort();
        let mut from = Watermarks::default();
        for k in before.iter().chain(&after) {
            from.0.insert(k.lane(), 7);
        }
        let changes = changes_between(&before, &after, &from);
        assert_eq!(changes.len(), 3);
        let counted = |keys: &[CountedKey]| build(keys);
        // The index of `before` plus the fold of the changes is the index of `after`.
        let mut index = counted(&before);
        let folded = fold(&from, &changes);
        assert!(folded.gaps.is_empty(), "{:?}", folded.gaps);
        for (prefix, counters) in folded.deltas {
            let node = index.entry(prefix).or_default();
            for (label, delta) in counters {
                *node.entry(label).or_default() += delta;
            }
        }
        for node in index.values_mut() {
            node.retain(|_, count| *count != 0);
        }
        index.retain(|_, node| !node.is_empty());
        assert_eq!(index, counted(&after));
        assert!(changes_between(&after, &after, &from).is_empty());
    }
}
