//! Integer segments: a sort byte and the minimal big-endian bytes of the magnitude.

use crate::{INT_MAX, INT_MIN, KeyPathError};

/// Encodes one integer (sort byte + minimal big-endian bytes) into a new
/// vector; fails outside [`INT_MIN`]`..=`[`INT_MAX`].
///
/// ```
/// use leaderboard_keypath::encode_int;
/// assert_eq!(encode_int(255).unwrap(), [0x08, 0xFF]);
/// assert_eq!(encode_int(-255).unwrap(), [0x07, 0x00]);
/// assert!(encode_int(1 << 64).is_err());
/// ```
pub fn encode_int(v: i128) -> Result<Vec<u8>, KeyPathError> {
    let mut out = Vec::with_capacity(9);
    encode_int_into(v, &mut out)?;
    Ok(out)
}

/// Appends the encoding of one integer to `out`; fails (leaving `out`
/// untouched) outside [`INT_MIN`]`..=`[`INT_MAX`].
pub fn encode_int_into(v: i128, out: &mut Vec<u8>) -> Result<(), KeyPathError> {
    check_int_range(v)?;
    push_int(v, out);
    Ok(())
}

/// Decodes one integer from the start of `bytes`, returning the value and the
/// number of bytes consumed (2..=9). Bytes after the integer are ignored; use
/// [`decode_int_exact`] to reject them.
///
/// Only the canonical encoding is accepted: the sort byte must be
/// `0x00..=0x0F`, all announced bytes present, and the magnitude minimal (no
/// leading zero byte, no positive zero).
///
/// ```
/// use leaderboard_keypath::decode_int;
/// assert_eq!(decode_int(&[0x09, 0x04, 0xD2, 0xAA]).unwrap(), (1234, 3));
/// assert!(decode_int(&[0x09, 0x00, 0xD2]).is_err()); // leading zero byte
/// ```
pub fn decode_int(bytes: &[u8]) -> Result<(i128, usize), KeyPathError> {
    let (&sort, rest) = bytes.split_first().ok_or(KeyPathError::EmptyInput)?;
    if sort > 0x0F {
        return Err(KeyPathError::InvalidSortByte(sort));
    }
    let positive = sort >= 8;
    let n = usize::from(if positive { sort - 7 } else { 8 - sort });
    let body = rest.get(..n).ok_or(KeyPathError::TruncatedInteger {
        needed: n,
        available: rest.len(),
    })?;
    let mut magnitude: u64 = 0;
    for &b in body {
        let b = if positive { b } else { !b };
        magnitude = (magnitude << 8) | u64::from(b);
    }
    // Minimal: the leading magnitude byte is nonzero, except for zero itself
    // which is the single negative-side byte 0xFF. Positive zero is invalid.
    let leading = if positive { body[0] } else { !body[0] };
    if leading == 0 && (positive || n > 1) {
        return Err(KeyPathError::NonMinimalInteger);
    }
    let value = i128::from(magnitude);
    Ok((if positive { value } else { -value }, 1 + n))
}

/// Decodes `bytes` as exactly one integer; fails with
/// [`KeyPathError::TrailingBytes`] if anything follows it.
pub fn decode_int_exact(bytes: &[u8]) -> Result<i128, KeyPathError> {
    let (v, used) = decode_int(bytes)?;
    if used != bytes.len() {
        return Err(KeyPathError::TrailingBytes(bytes.len() - used));
    }
    Ok(v)
}

pub(crate) fn check_int_range(v: i128) -> Result<(), KeyPathError> {
    if (INT_MIN..=INT_MAX).contains(&v) {
        Ok(())
    } else {
        Err(KeyPathError::IntegerOutOfRange(v))
    }
}

/// Number of magnitude bytes after the sort byte (1..=8). `v` is in range.
pub(crate) fn int_body_len(v: i128) -> usize {
    let magnitude = v.unsigned_abs() as u64;
    let bytes = (64 - magnitude.leading_zeros() as usize).div_ceil(8);
    bytes.max(1)
}

/// Appends the integer encoding; `v` must already be in range.
pub(crate) fn push_int(v: i128, out: &mut Vec<u8>) {
    let n = int_body_len(v);
    let magnitude = (v.unsigned_abs() as u64).to_be_bytes();
    let body = &magnitude[8 - n..];
    if v > 0 {
        out.push(7 + n as u8);
        out.extend_from_slice(body);
    } else {
        out.push(8 - n as u8);
        out.extend(body.iter().map(|b| !b));
    }
}
