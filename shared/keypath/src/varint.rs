//! The metadata after the terminator: one protobuf-style varint per segment, of its length
//! and type code.

use crate::KeyPathError;

/// Longest varint that can hold a `u64` (10 groups of 7 bits).
pub(crate) const MAX_VARINT_LEN: usize = 10;

pub(crate) fn meta_value(len: usize, ty: u8) -> u64 {
    ((len as u64) << 3) | u64::from(ty)
}

pub(crate) fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

pub(crate) fn push_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7F) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Parses one varint whose bytes are exactly `v` (all but the last have the
/// continuation bit set). `offset` is its position, for errors.
pub(crate) fn parse_varint(v: &[u8], offset: usize) -> Result<u64, KeyPathError> {
    if v.len() > MAX_VARINT_LEN {
        return Err(KeyPathError::VarintOverflow { offset });
    }
    if v.len() > 1 && v[v.len() - 1] == 0 {
        return Err(KeyPathError::NonCanonicalVarint { offset });
    }
    let mut value: u64 = 0;
    for (i, &b) in v.iter().enumerate() {
        let group = u64::from(b & 0x7F);
        let shift = 7 * i as u32;
        if shift >= 64 || (group << shift) >> shift != group {
            return Err(KeyPathError::VarintOverflow { offset });
        }
        value |= group << shift;
    }
    Ok(value)
}
