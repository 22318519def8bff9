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
//! Before it switches, a rebuild scans again (at last with the lanes paused) and brings its new
//! generation up to that scan by putting only the nodes whose counters differ ([`node_puts`]).

use std::collections::{BTreeMap, BTreeSet};

use super::CountedKey;
use crate::entity::Key;
use crate::error::KeyError;
use crate::ids::BoardId;

/// The partition of a board's staged keys: `RANKV2#<boardId>#STAGE` (no node partition's: those
/// end in a generation and a partition number).
pub fn stage_pk(board: &BoardId) -> String {
    format!("RANKV2#{board}#STAGE")
}

/// Staged item `index` of slot `slot` (a rebuild keeps two scans: the one its nodes count and
/// the one it is putting): [`stage_pk`] / `<slot>#<index, 4 digits>`.
pub fn stage_key(board: &BoardId, slot: u8, index: usize) -> Key {
    Key::new(stage_pk(board), format!("{slot}#{index:04}"))
}

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

/// The node items that turn an index counting `base` into one counting `target` (both built
/// the same way: [`build`](super::build)'s counters, or the compact layout's entries), in
/// prefix order: every node below the root that differs, as it is in `target` (empty for a
/// node `target` does not have). Each is a whole item, put over what is there, so that putting
/// them again, or from any point on, ends the same.
pub fn node_puts<V: Clone + Default + PartialEq>(
    base: &BTreeMap<String, V>,
    target: &BTreeMap<String, V>,
) -> Vec<(String, V)> {
    let none = V::default();
    let mut prefixes: BTreeSet<&String> = base.keys().collect();
    prefixes.extend(target.keys());
    prefixes
        .into_iter()
        .filter(|prefix| !prefix.is_empty())
        .filter_map(|prefix| {
            let now = target.get(prefix).unwrap_or(&none);
            (base.get(prefix).unwrap_or(&none) != now).then(|| (prefix.clone(), now.clone()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rank_index::{NodeCounters, build};

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
    fn the_node_puts_turn_the_index_of_one_scan_into_the_index_of_the_next() {
        let mut before: Vec<CountedKey> = (0..300u64)
            .map(|i| key((i * 37) % 500, 1_000 + i, &format!("p{i:03}")))
            .collect();
        before.sort();
        // Some improve, some leave, some arrive, the rest stay.
        let mut after: Vec<CountedKey> = before
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 11 != 0)
            .map(|(i, k)| match i % 7 {
                0 => key(900 + i as u64, 5_000 + i as u64, player_of(k)),
                _ => k.clone(),
            })
            .chain((0..20u64).map(|i| key(i * 3, 9_000 + i, &format!("n{i:02}"))))
            .collect();
        after.sort();
        let (base, target) = (build(&before), build(&after));
        let puts = node_puts(&base, &target);
        assert!(!puts.is_empty() && puts.len() < target.len());
        let mut index = base.clone();
        index.remove("");
        for (prefix, counters) in &puts {
            index.insert(prefix.clone(), counters.clone());
        }
        // Nodes put empty are read as no node.
        index.retain(|_, counters| !counters.is_empty());
        let mut expected = target.clone();
        expected.remove("");
        assert_eq!(index, expected);
        assert!(node_puts(&target, &target).is_empty());
        assert_eq!(
            node_puts(&NodeCounters::new(), &target).len(),
            target.len() - 1
        );
    }

    fn player_of(key: &CountedKey) -> &str {
        key.sort_key.rsplit('#').next().unwrap_or_default()
    }
}
