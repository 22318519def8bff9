//! The key schema's one hash: which of `n` buckets a string falls in. A player's write shard on
//! a board, a player's rank index lane and a rank index node's partition all use it, so it sits
//! below both the entity keys and the rank index.

/// The bucket (`0..buckets`) of a string: FNV-1a of its bytes, modulo `buckets` (at least 1).
pub fn bucket_of(s: &str, buckets: u8) -> u8 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (h % u64::from(buckets.max(1))) as u8
}
