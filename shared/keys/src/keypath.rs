//! StatelyDB's order-preserving binary encoding of key paths.
//!
//! A key path such as `/user-<uuid>/post-1234/comment-1678901234` is a list of
//! typed [`Segment`]s (UTF-8 strings, binary blobs such as UUIDs, and 65-bit
//! signed integers). This module encodes a [`KeyPath`] into compact bytes whose
//! plain lexicographic (`memcmp`) order is the logical order of the paths, so a
//! store that only sorts binary keys (DynamoDB) keeps integers in numeric
//! order, `post-9` before `post-10`, and a path directly before its children.
//!
//! # Layout
//!
//! ```text
//! {seg1} 0x01 {seg2} 0x01 ... {segN} 0x00 {meta1}{meta2}...{metaN}
//! ```
//!
//! * Each segment's data comes first, separated by `0x01` and ended by a single
//!   `0x00` terminator.
//! * After the terminator, each segment has one metadata entry: a
//!   protobuf-style varint (7 bits per byte, least significant group first,
//!   high bit set on every byte but the last) of `(length_in_bytes << 3) |
//!   type_code`, with type codes [`TYPE_STRING`] (0), [`TYPE_BYTES`] (1) and
//!   [`TYPE_INT`] (2). The metadata sits after the terminator, so it never
//!   influences the order of two paths whose segment data differ.
//! * Strings are their raw UTF-8 bytes. They must be non-empty and must not
//!   contain control characters (U+0000..=U+001F or U+007F), so every string
//!   byte is `>= 0x20` and sorts above the separator, the terminator and every
//!   integer sort byte.
//! * Binary segments are their raw bytes (non-empty, any values).
//! * Integers (range [`INT_MIN`]`..=`[`INT_MAX`], i.e. `-(2^64-1)..=2^64-1`)
//!   are a *sort byte* followed by the minimal big-endian bytes of the
//!   magnitude. A positive value needing `n` bytes (1..=8) has sort byte
//!   `7 + n`; a non-positive value (zero counts as negative) whose magnitude
//!   needs `n` bytes (at least 1) has sort byte `8 - n` and its magnitude bytes
//!   are bitwise inverted. Sort bytes are `0x00..=0x0F`, so integers sort
//!   before strings.
//!
//! ```
//! use leaderboard_keys::keypath::{encode_int, KeyPath, Segment};
//!
//! assert_eq!(encode_int(1).unwrap(), [0x08, 0x01]);
//! assert_eq!(encode_int(256).unwrap(), [0x09, 0x01, 0x00]);
//! assert_eq!(encode_int(1234).unwrap(), [0x09, 0x04, 0xD2]);
//! assert_eq!(encode_int(0).unwrap(), [0x07, 0xFF]);
//! assert_eq!(encode_int(-1).unwrap(), [0x07, 0xFE]);
//!
//! let path = KeyPath::new(vec![Segment::string("post")?, Segment::from(42_u64)])?;
//! let bytes = path.encode();
//! assert_eq!(
//!     bytes,
//!     [
//!         b'p', b'o', b's', b't', 0x01, 0x08, 0x2A, // segments
//!         0x00, // terminator
//!         0x20, // (4 << 3) | TYPE_STRING
//!         0x12, // (2 << 3) | TYPE_INT
//!     ]
//! );
//! assert_eq!(KeyPath::decode(&bytes)?, path);
//! # Ok::<(), leaderboard_keys::keypath::KeyPathError>(())
//! ```
//!
//! # Decoding
//!
//! Integer and binary data may contain `0x00` and `0x01`, so the terminator
//! cannot be found by scanning forwards. [`KeyPath::decode`] instead reads the
//! metadata varints from the end backwards (a varint's last byte has its high
//! bit clear), and after the `k`-th varint checks whether
//! `input_len == sum(segment lengths) + (k - 1) + 1 + metadata_len`. The
//! right-hand side grows strictly with `k`, so at most one `k` fits and the
//! layout is unambiguous. The terminator, every separator, every segment
//! (canonical integer, valid string, non-empty binary) and the canonical form
//! of every varint are then checked, so any accepted input re-encodes to
//! exactly the same bytes.
//!
//! # Order guarantee
//!
//! The logical order implemented by [`Ord`] for [`Segment`] is: integers
//! compare numerically and sort before strings and binary segments; strings and
//! binary segments compare by their raw bytes (a proper prefix first), with a
//! string before a binary segment holding the same bytes. [`KeyPath`]s compare
//! segment by segment, a path before any longer path it is a prefix of.
//!
//! For valid paths `a` and `b`, `a.cmp(&b) == a.encode().cmp(&b.encode())`
//! holds, except when, at the first position `i` where the segments differ,
//! one of these caveats applies (all involve binary segments):
//!
//! 1. one of the two is an integer and the other a binary segment whose first
//!    byte is `<= 0x0F` (it competes with the integer's sort byte);
//! 2. neither is an integer, the bytes of one are a proper prefix of the
//!    other's, and the longer one continues with `0x00` or `0x01` (only binary
//!    data can), which competes with the separator or terminator after the
//!    shorter one;
//! 3. one is a string and the other a binary segment with identical bytes: the
//!    segment data tie, so the later segments and finally the metadata type
//!    code decide instead of the logical string-before-binary rule.
//!
//! None of these can arise when, position by position, the compared paths hold
//! segments of the same kind and binary segments at a position have one fixed
//! length (such as 16-byte UUIDs), which is what a key schema normally gives.
//! Paths that are equal always encode identically, and different paths always
//! encode differently.

use std::cmp::Ordering;
use std::fmt;

use thiserror::Error;

/// Smallest integer a segment can hold: `-(2^64 - 1)`.
pub const INT_MIN: i128 = -(u64::MAX as i128);

/// Largest integer a segment can hold: `2^64 - 1`.
pub const INT_MAX: i128 = u64::MAX as i128;

/// Metadata type code of a string segment.
pub const TYPE_STRING: u8 = 0;

/// Metadata type code of a binary segment.
pub const TYPE_BYTES: u8 = 1;

/// Metadata type code of an integer segment.
pub const TYPE_INT: u8 = 2;

/// Byte between two segments.
pub const SEPARATOR: u8 = 0x01;

/// Byte between the last segment and the metadata.
pub const TERMINATOR: u8 = 0x00;

/// Longest varint that can hold a `u64` (10 groups of 7 bits).
const MAX_VARINT_LEN: usize = 10;

/// Everything that can go wrong building, encoding or decoding a key path.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum KeyPathError {
    /// A key path was built from, or decoded to, no segments.
    #[error("a key path needs at least one segment")]
    NoSegments,
    /// The input to a decoder was empty.
    #[error("cannot decode an empty byte string")]
    EmptyInput,
    /// A string or binary segment (or a segment declared in the metadata) is
    /// empty.
    #[error("string and binary segments must not be empty")]
    EmptySegment,
    /// A string segment contains a control character.
    #[error("string segment contains control character U+{code:04X} at byte {offset}")]
    ControlCharacter {
        /// Unicode code point of the offending character.
        code: u32,
        /// Byte offset of the character within the string.
        offset: usize,
    },
    /// A string segment's bytes are not valid UTF-8.
    #[error("string segment at byte {offset} of the key path is not valid UTF-8")]
    InvalidUtf8 {
        /// Byte offset of the segment within the encoded key path.
        offset: usize,
    },
    /// An integer lies outside `-(2^64-1)..=2^64-1`.
    #[error("integer {0} is outside the key-path range -(2^64-1)..=2^64-1")]
    IntegerOutOfRange(i128),
    /// An encoded integer starts with a byte that is not a sort byte.
    #[error("invalid integer sort byte {0:#04x} (expected 0x00..=0x0F)")]
    InvalidSortByte(u8),
    /// An encoded integer is shorter than its sort byte announces.
    #[error("truncated integer: the sort byte announces {needed} bytes but {available} follow")]
    TruncatedInteger {
        /// Magnitude bytes announced by the sort byte.
        needed: usize,
        /// Bytes actually available after the sort byte.
        available: usize,
    },
    /// An encoded integer is not in its unique minimal form (a leading zero
    /// magnitude byte, or a positive zero).
    #[error("non-minimal integer encoding")]
    NonMinimalInteger,
    /// Bytes follow a complete integer where the whole input should be one.
    #[error("{0} trailing byte(s) after the integer encoding")]
    TrailingBytes(usize),
    /// An integer segment's length in the metadata differs from the length
    /// its sort byte announces.
    #[error("integer segment is {declared} bytes by its metadata but {actual} by its sort byte")]
    IntegerLengthMismatch {
        /// Length declared in the metadata.
        declared: usize,
        /// Length of the integer encoding (sort byte included).
        actual: usize,
    },
    /// The input's last byte has its continuation bit set, so the last
    /// metadata varint never ends.
    #[error("the last metadata varint is unterminated")]
    UnterminatedVarint,
    /// A metadata varint has a redundant zero most significant group.
    #[error("non-canonical metadata varint at byte {offset}")]
    NonCanonicalVarint {
        /// Byte offset of the varint's first byte.
        offset: usize,
    },
    /// A metadata varint does not fit in 64 bits.
    #[error("metadata varint at byte {offset} overflows 64 bits")]
    VarintOverflow {
        /// Byte offset of the varint's first byte.
        offset: usize,
    },
    /// A metadata entry has a type code other than string, binary or integer.
    #[error("unknown segment type code {0} in the metadata")]
    UnknownSegmentType(u8),
    /// No number of metadata entries makes the declared segment lengths,
    /// separators, terminator and metadata add up to the input length.
    #[error("segment lengths in the metadata do not add up to the input length")]
    InconsistentLayout,
    /// The byte between the segments and the metadata is not `0x00`.
    #[error("expected the 0x00 terminator at byte {offset}, found {found:#04x}")]
    MissingTerminator {
        /// Byte offset where the terminator belongs.
        offset: usize,
        /// Byte found there.
        found: u8,
    },
    /// A byte between two segments is not `0x01`.
    #[error("expected a 0x01 separator at byte {offset}, found {found:#04x}")]
    BadSeparator {
        /// Byte offset where the separator belongs.
        offset: usize,
        /// Byte found there.
        found: u8,
    },
}

/// One typed segment of a [`KeyPath`].
///
/// The variants are public for matching; build segments through
/// [`Segment::string`], [`Segment::bytes`], [`Segment::int`] or the `From`
/// impls, which validate them. [`KeyPath::new`] validates every segment again,
/// so an invalid segment can never be encoded.
///
/// `Ord` is the logical order described in the [module docs](self): integers
/// numerically and first, then strings and binary segments by their raw bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Segment {
    /// A non-empty UTF-8 string without control characters.
    Str(String),
    /// Non-empty binary data, such as a 16-byte UUID.
    Bytes(Vec<u8>),
    /// An integer in [`INT_MIN`]`..=`[`INT_MAX`].
    Int(i128),
}

impl Segment {
    /// A string segment; fails if `s` is empty or contains a control
    /// character (U+0000..=U+001F or U+007F).
    pub fn string(s: impl Into<String>) -> Result<Self, KeyPathError> {
        let s = s.into();
        validate_str(&s)?;
        Ok(Self::Str(s))
    }

    /// A binary segment; fails if `b` is empty.
    pub fn bytes(b: impl Into<Vec<u8>>) -> Result<Self, KeyPathError> {
        let b = b.into();
        if b.is_empty() {
            return Err(KeyPathError::EmptySegment);
        }
        Ok(Self::Bytes(b))
    }

    /// An integer segment; fails outside [`INT_MIN`]`..=`[`INT_MAX`].
    pub fn int(v: i128) -> Result<Self, KeyPathError> {
        check_int_range(v)?;
        Ok(Self::Int(v))
    }

    /// Checks the segment's invariants (see the constructors).
    pub fn validate(&self) -> Result<(), KeyPathError> {
        match self {
            Self::Str(s) => validate_str(s),
            Self::Bytes(b) if b.is_empty() => Err(KeyPathError::EmptySegment),
            Self::Bytes(_) => Ok(()),
            Self::Int(v) => check_int_range(*v),
        }
    }

    /// The metadata type code: [`TYPE_STRING`], [`TYPE_BYTES`] or
    /// [`TYPE_INT`].
    pub fn type_code(&self) -> u8 {
        match self {
            Self::Str(_) => TYPE_STRING,
            Self::Bytes(_) => TYPE_BYTES,
            Self::Int(_) => TYPE_INT,
        }
    }

    /// Length in bytes of the segment's data in the encoding (metadata not
    /// included).
    pub fn encoded_len(&self) -> usize {
        match self {
            Self::Str(s) => s.len(),
            Self::Bytes(b) => b.len(),
            Self::Int(v) => 1 + int_body_len(*v),
        }
    }

    /// Appends the segment's data. Callers guarantee the segment is valid.
    fn encode_data_into(&self, out: &mut Vec<u8>) {
        match self {
            Self::Str(s) => out.extend_from_slice(s.as_bytes()),
            Self::Bytes(b) => out.extend_from_slice(b),
            Self::Int(v) => push_int(*v, out),
        }
    }

    /// Raw bytes of a string or binary segment.
    fn raw(&self) -> &[u8] {
        match self {
            Self::Str(s) => s.as_bytes(),
            Self::Bytes(b) => b,
            Self::Int(_) => &[],
        }
    }
}

impl Ord for Segment {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Self::Int(a), Self::Int(b)) => a.cmp(b),
            (Self::Int(_), _) => Ordering::Less,
            (_, Self::Int(_)) => Ordering::Greater,
            _ => self
                .raw()
                .cmp(other.raw())
                .then_with(|| self.type_code().cmp(&other.type_code())),
        }
    }
}

impl PartialOrd for Segment {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl From<i64> for Segment {
    fn from(v: i64) -> Self {
        Self::Int(i128::from(v))
    }
}

impl From<u64> for Segment {
    fn from(v: u64) -> Self {
        Self::Int(i128::from(v))
    }
}

impl From<[u8; 16]> for Segment {
    /// A 16-byte binary segment, e.g. a UUID.
    fn from(b: [u8; 16]) -> Self {
        Self::Bytes(b.to_vec())
    }
}

impl fmt::Display for Segment {
    /// Strings as themselves, integers in decimal, binary as `0x` + lowercase
    /// hex. For humans only: not parseable back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Str(s) => f.write_str(s),
            Self::Int(v) => write!(f, "{v}"),
            Self::Bytes(b) => {
                f.write_str("0x")?;
                b.iter().try_for_each(|byte| write!(f, "{byte:02x}"))
            }
        }
    }
}

/// A validated, non-empty list of [`Segment`]s with the order-preserving
/// binary encoding described in the [module docs](self).
///
/// `Ord` compares segment by segment, a prefix before its extensions.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyPath(Vec<Segment>);

impl KeyPath {
    /// Builds a key path; fails if `segments` is empty or any segment is
    /// invalid.
    pub fn new(segments: Vec<Segment>) -> Result<Self, KeyPathError> {
        if segments.is_empty() {
            return Err(KeyPathError::NoSegments);
        }
        segments.iter().try_for_each(Segment::validate)?;
        Ok(Self(segments))
    }

    /// The segments, in order (never empty).
    pub fn segments(&self) -> &[Segment] {
        &self.0
    }

    /// Gives the segments back.
    pub fn into_segments(self) -> Vec<Segment> {
        self.0
    }

    /// Length in bytes of [`KeyPath::encode`]'s output.
    pub fn encoded_len(&self) -> usize {
        let data: usize = self.0.iter().map(Segment::encoded_len).sum();
        let meta: usize = self
            .0
            .iter()
            .map(|s| varint_len(meta_value(s.encoded_len(), s.type_code())))
            .sum();
        // (k - 1) separators plus the terminator.
        data + self.0.len() + meta
    }

    /// Encodes the key path into a new vector.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        self.encode_into(&mut out);
        out
    }

    /// Appends the encoding to `out`.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        for (i, segment) in self.0.iter().enumerate() {
            if i > 0 {
                out.push(SEPARATOR);
            }
            segment.encode_data_into(out);
        }
        out.push(TERMINATOR);
        for segment in &self.0 {
            push_varint(meta_value(segment.encoded_len(), segment.type_code()), out);
        }
    }

    /// Decodes an encoded key path. Accepts only the exact output of
    /// [`KeyPath::encode`]; anything else is an error (never a panic).
    pub fn decode(bytes: &[u8]) -> Result<Self, KeyPathError> {
        if bytes.is_empty() {
            return Err(KeyPathError::EmptyInput);
        }
        if bytes[bytes.len() - 1] & 0x80 != 0 {
            return Err(KeyPathError::UnterminatedVarint);
        }
        let total = bytes.len();
        // Metadata entries (length, type), last segment first.
        let mut metas: Vec<(usize, u8)> = Vec::new();
        let mut meta_start = total;
        let mut data_len: usize = 0;
        loop {
            // The varint ends at `meta_start`; its last byte has the high bit
            // clear (checked above for the first one; for later ones it is
            // the byte that stopped the previous backward scan).
            if meta_start == 0 {
                return Err(KeyPathError::InconsistentLayout);
            }
            let end = meta_start;
            let mut start = end - 1;
            while start > 0 && bytes[start - 1] & 0x80 != 0 {
                start -= 1;
            }
            let value = parse_varint(&bytes[start..end], start)?;
            let ty = (value & 0b111) as u8;
            let len = usize::try_from(value >> 3).map_err(|_| KeyPathError::InconsistentLayout)?;
            if ty > TYPE_INT {
                return Err(KeyPathError::UnknownSegmentType(ty));
            }
            if len == 0 {
                return Err(KeyPathError::EmptySegment);
            }
            data_len = data_len
                .checked_add(len)
                .ok_or(KeyPathError::InconsistentLayout)?;
            metas.push((len, ty));
            // data + (k - 1) separators + terminator + metadata.
            let needed = data_len
                .checked_add(metas.len())
                .and_then(|n| n.checked_add(total - start))
                .ok_or(KeyPathError::InconsistentLayout)?;
            match needed.cmp(&total) {
                Ordering::Equal => break,
                Ordering::Greater => return Err(KeyPathError::InconsistentLayout),
                Ordering::Less => meta_start = start,
            }
        }

        let terminator = data_len + metas.len() - 1;
        let found = *bytes
            .get(terminator)
            .ok_or(KeyPathError::InconsistentLayout)?;
        if found != TERMINATOR {
            return Err(KeyPathError::MissingTerminator {
                offset: terminator,
                found,
            });
        }

        let mut segments = Vec::with_capacity(metas.len());
        let mut pos = 0;
        for (i, &(len, ty)) in metas.iter().rev().enumerate() {
            if i > 0 {
                let found = *bytes.get(pos).ok_or(KeyPathError::InconsistentLayout)?;
                if found != SEPARATOR {
                    return Err(KeyPathError::BadSeparator { offset: pos, found });
                }
                pos += 1;
            }
            let data = bytes
                .get(pos..pos + len)
                .ok_or(KeyPathError::InconsistentLayout)?;
            segments.push(decode_segment(data, ty, pos)?);
            pos += len;
        }
        Ok(Self(segments))
    }
}

impl fmt::Display for KeyPath {
    /// Each segment preceded by `/`, e.g. `/user/0x4c9d…/post/1234`. For humans
    /// only: not parseable back (a string `"1"` and the integer `1` look the
    /// same).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|s| write!(f, "/{s}"))
    }
}

/// Encodes one integer (sort byte + minimal big-endian bytes) into a new
/// vector; fails outside [`INT_MIN`]`..=`[`INT_MAX`].
///
/// ```
/// use leaderboard_keys::keypath::encode_int;
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
/// use leaderboard_keys::keypath::decode_int;
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

fn check_int_range(v: i128) -> Result<(), KeyPathError> {
    if (INT_MIN..=INT_MAX).contains(&v) {
        Ok(())
    } else {
        Err(KeyPathError::IntegerOutOfRange(v))
    }
}

fn validate_str(s: &str) -> Result<(), KeyPathError> {
    if s.is_empty() {
        return Err(KeyPathError::EmptySegment);
    }
    match s.char_indices().find(|&(_, c)| c < ' ' || c == '\u{7F}') {
        Some((offset, c)) => Err(KeyPathError::ControlCharacter {
            code: u32::from(c),
            offset,
        }),
        None => Ok(()),
    }
}

/// Number of magnitude bytes after the sort byte (1..=8). `v` is in range.
fn int_body_len(v: i128) -> usize {
    let magnitude = v.unsigned_abs() as u64;
    let bytes = (64 - magnitude.leading_zeros() as usize).div_ceil(8);
    bytes.max(1)
}

/// Appends the integer encoding; `v` must already be in range.
fn push_int(v: i128, out: &mut Vec<u8>) {
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

fn decode_segment(data: &[u8], ty: u8, offset: usize) -> Result<Segment, KeyPathError> {
    match ty {
        TYPE_STRING => {
            let s = std::str::from_utf8(data).map_err(|_| KeyPathError::InvalidUtf8 { offset })?;
            validate_str(s)?;
            Ok(Segment::Str(s.to_owned()))
        }
        TYPE_BYTES => Ok(Segment::Bytes(data.to_vec())),
        TYPE_INT => {
            let (v, used) = decode_int(data)?;
            if used != data.len() {
                return Err(KeyPathError::IntegerLengthMismatch {
                    declared: data.len(),
                    actual: used,
                });
            }
            Ok(Segment::Int(v))
        }
        other => Err(KeyPathError::UnknownSegmentType(other)),
    }
}

fn meta_value(len: usize, ty: u8) -> u64 {
    ((len as u64) << 3) | u64::from(ty)
}

fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

fn push_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7F) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Parses one varint whose bytes are exactly `v` (all but the last have the
/// continuation bit set). `offset` is its position, for errors.
fn parse_varint(v: &[u8], offset: usize) -> Result<u64, KeyPathError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    const P56: i128 = 1 << 56;
    const P64: i128 = 1 << 64;

    fn s(v: &str) -> Segment {
        Segment::string(v).unwrap()
    }

    fn i(v: i128) -> Segment {
        Segment::int(v).unwrap()
    }

    fn path(segments: Vec<Segment>) -> KeyPath {
        KeyPath::new(segments).unwrap()
    }

    /// Every row of the seed's byte table, in the seed's order (28 rows).
    /// Rows marked ERRATUM print bytes in the seed that contradict its own
    /// rule; they carry the corrected bytes (see the erratum tests below).
    #[rustfmt::skip]
    const SEED_TABLE: &[(i128, &[u8])] = &[
        (-(P64 - 1), &[0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
        (-(P64 - 2), &[0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01]),
        (-(P56 + 1), &[0x00, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE]),
        (-P56, &[0x00, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        // ERRATUM: the seed prints sort byte 1 followed by EIGHT 0x00 bytes.
        // 2^56 - 1 needs 7 bytes (sort byte 8 - 7 = 1), so it is 7 zeros.
        (-(P56 - 1), &[0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
        (-((1 << 48) - 1), &[0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
        (-((1 << 40) - 1), &[0x03, 0x00, 0x00, 0x00, 0x00, 0x00]),
        (-((1 << 32) - 1), &[0x04, 0x00, 0x00, 0x00, 0x00]),
        // ERRATUM: the seed prints 0xFE 0xFF, which is -256. 257 = 0x01 0x01,
        // inverted 0xFE 0xFE.
        (-257, &[0x06, 0xFE, 0xFE]),
        (-17, &[0x07, 0xEE]),
        (-16, &[0x07, 0xEF]),
        (-2, &[0x07, 0xFD]),
        (-1, &[0x07, 0xFE]),
        (0, &[0x07, 0xFF]),
        (1, &[0x08, 0x01]),
        (2, &[0x08, 0x02]),
        (3, &[0x08, 0x03]),
        (16, &[0x08, 0x10]),
        (17, &[0x08, 0x11]),
        (256, &[0x09, 0x01, 0x00]),
        ((1 << 32) - 1, &[0x0B, 0xFF, 0xFF, 0xFF, 0xFF]),
        ((1 << 40) - 1, &[0x0C, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        ((1 << 48) - 1, &[0x0D, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        (P56 - 1, &[0x0E, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        (P56, &[0x0F, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
        (P56 + 1, &[0x0F, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01]),
        (P64 - 2, &[0x0F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE]),
        (P64 - 1, &[0x0F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
    ];

    #[test]
    fn seed_table_every_row() {
        assert_eq!(SEED_TABLE.len(), 28);
        for &(v, bytes) in SEED_TABLE {
            assert_eq!(encode_int(v).unwrap(), bytes, "encode {v}");
            assert_eq!(decode_int(bytes).unwrap(), (v, bytes.len()), "decode {v}");
            assert_eq!(decode_int_exact(bytes).unwrap(), v);
            // As a lone key-path segment, too.
            let kp = path(vec![i(v)]);
            let enc = kp.encode();
            assert_eq!(&enc[..bytes.len()], bytes);
            assert_eq!(KeyPath::decode(&enc).unwrap(), kp);
        }
        // The table is in ascending order, and so are its encodings.
        for w in SEED_TABLE.windows(2) {
            assert!(w[0].0 < w[1].0);
            assert!(w[0].1 < w[1].1, "{} vs {}", w[0].0, w[1].0);
        }
    }

    #[test]
    fn seed_erratum_minus_257() {
        // The seed prints -257 as 06 FE FF; those bytes are -256.
        let printed = [0x06, 0xFE, 0xFF];
        assert_eq!(decode_int(&printed).unwrap(), (-256, 3));
        assert_eq!(encode_int(-256).unwrap(), printed);
        let corrected = encode_int(-257).unwrap();
        assert_eq!(corrected, [0x06, 0xFE, 0xFE]);
        // Sorts between its numeric neighbours and its table neighbours.
        assert!(encode_int(-258).unwrap() < corrected);
        assert!(corrected < encode_int(-256).unwrap());
        assert!(encode_int(-((1 << 32) - 1)).unwrap() < corrected);
        assert!(corrected < encode_int(-17).unwrap());
    }

    #[test]
    fn seed_erratum_minus_2_pow_56_plus_1() {
        // The seed prints -(2^56 - 1) as sort byte 1 + eight 0x00 bytes. Sort
        // byte 1 announces 7 bytes, so the 8th is not part of the integer.
        let printed = [0x01, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(decode_int(&printed).unwrap(), (-(P56 - 1), 8));
        assert_eq!(
            decode_int_exact(&printed),
            Err(KeyPathError::TrailingBytes(1))
        );
        // As an integer segment declared 9 bytes long it is rejected too.
        let mut kp = printed.to_vec();
        kp.push(TERMINATOR);
        kp.push((9 << 3) | TYPE_INT);
        assert_eq!(
            KeyPath::decode(&kp),
            Err(KeyPathError::IntegerLengthMismatch {
                declared: 9,
                actual: 8
            })
        );
        let corrected = encode_int(-(P56 - 1)).unwrap();
        assert_eq!(corrected, [0x01, 0, 0, 0, 0, 0, 0, 0]);
        assert!(encode_int(-P56).unwrap() < corrected);
        assert!(corrected < encode_int(-(P56 - 2)).unwrap());
        assert!(corrected < encode_int(-((1 << 48) - 1)).unwrap());
    }

    #[test]
    fn seed_range_table_boundaries() {
        // Sort byte 0: -(2^64-1)..=-2^56; sort byte 1: -(2^56-1)..=-2^48 (the
        // seed's range table writes this row as "-2^48 to -2^56-1").
        let sort = |v| encode_int(v).unwrap()[0];
        assert_eq!(sort(-(P64 - 1)), 0);
        assert_eq!(sort(-P56), 0);
        assert_eq!(sort(-(P56 - 1)), 1);
        assert_eq!(sort(-(1 << 48)), 1);
        assert_eq!(sort(-((1 << 48) - 1)), 2);
        assert_eq!(sort(-255), 7);
        assert_eq!(sort(0), 7);
        assert_eq!(sort(1), 8);
        assert_eq!(sort(255), 8);
        assert_eq!(sort(256), 9);
        assert_eq!(sort(65535), 9);
        assert_eq!(sort(P56), 15);
        assert_eq!(sort(P64 - 1), 15);
    }

    #[test]
    fn seed_simple_examples() {
        let cases: &[(i128, &[u8])] = &[
            (1, &[0x08, 0x01]),
            (6, &[0x08, 0x06]),
            (255, &[0x08, 0xFF]),
            (256, &[0x09, 0x01, 0x00]),
            (1234, &[0x09, 0x04, 0xD2]),
            (-1, &[0x07, 0xFE]),
            (-2, &[0x07, 0xFD]),
            (0, &[0x07, 0xFF]),
            (-255, &[0x07, 0x00]),
            (1_678_901_234, &[0x0B, 0x64, 0x11, 0xFF, 0xF2]),
            (42, &[0x08, 0x2A]),
        ];
        for &(v, bytes) in cases {
            assert_eq!(encode_int(v).unwrap(), bytes, "{v}");
            assert_eq!(decode_int_exact(bytes).unwrap(), v);
        }
    }

    fn seed_full_path() -> KeyPath {
        let uuid = [
            0x4c, 0x9d, 0x36, 0xe5, 0x6b, 0x19, 0x4e, 0x6a, 0x82, 0x8c, 0x22, 0x6e, 0xd6, 0x67,
            0x45, 0x8a,
        ];
        path(vec![
            s("user"),
            Segment::from(uuid),
            s("post"),
            i(1234),
            s("comment"),
            i(1_678_901_234),
            s("react"),
            i(42),
        ])
    }

    #[test]
    fn seed_full_example_is_63_bytes() {
        let kp = seed_full_path();
        #[rustfmt::skip]
        let expected: &[u8] = &[
            0x75, 0x73, 0x65, 0x72, // "user"
            0x01,
            0x4c, 0x9d, 0x36, 0xe5, 0x6b, 0x19, 0x4e, 0x6a,
            0x82, 0x8c, 0x22, 0x6e, 0xd6, 0x67, 0x45, 0x8a, // uuid
            0x01,
            0x70, 0x6f, 0x73, 0x74, // "post"
            0x01,
            0x09, 0x04, 0xd2, // 1234
            0x01,
            0x63, 0x6f, 0x6d, 0x6d, 0x65, 0x6e, 0x74, // "comment"
            0x01,
            0x0b, 0x64, 0x11, 0xff, 0xf2, // 1678901234
            0x01,
            0x72, 0x65, 0x61, 0x63, 0x74, // "react"
            0x01,
            0x08, 0x2a, // 42
            0x00,
            0x20,       // (4 << 3) | string
            0x81, 0x01, // (16 << 3) | binary = 129, two varint bytes
            0x20,       // (4 << 3) | string
            0x1a,       // (3 << 3) | int
            0x38,       // (7 << 3) | string
            0x2a,       // (5 << 3) | int
            0x28,       // (5 << 3) | string
            0x12,       // (2 << 3) | int
        ];
        let enc = kp.encode();
        assert_eq!(enc, expected);
        assert_eq!(enc.len(), 63);
        assert_eq!(kp.encoded_len(), 63);
        assert_eq!(KeyPath::decode(&enc).unwrap(), kp);
        assert_eq!(
            kp.to_string(),
            "/user/0x4c9d36e56b194e6a828c226ed667458a/post/1234/comment/1678901234/react/42"
        );
    }

    #[test]
    fn seed_ordering_claims() {
        let post = |n: i128| path(vec![s("post"), i(n)]).encode();
        assert!(post(9) < post(42));
        assert!(post(42) < post(100));
        assert!(post(2) < post(10));
        assert!(post(-17) < post(0));
        // A path sorts before its children; integers before strings.
        let parent = path(vec![s("post"), i(1234)]).encode();
        let child = path(vec![s("post"), i(1234), s("comment"), i(1)]).encode();
        assert!(parent < child);
        assert!(path(vec![i(INT_MAX)]).encode() < path(vec![s(" ")]).encode());
        // "b" before "aaa" is not allowed to happen: lengths live in metadata.
        assert!(path(vec![s("aaa")]).encode() < path(vec![s("b")]).encode());
    }

    #[test]
    fn integer_range_limits() {
        assert!(Segment::int(INT_MAX).is_ok());
        assert!(Segment::int(INT_MIN).is_ok());
        assert_eq!(
            Segment::int(INT_MAX + 1),
            Err(KeyPathError::IntegerOutOfRange(INT_MAX + 1))
        );
        assert!(Segment::int(INT_MIN - 1).is_err());
        assert!(encode_int(i128::MAX).is_err());
        assert!(encode_int(i128::MIN).is_err());
        let mut out = vec![0xAA];
        assert!(encode_int_into(1 << 64, &mut out).is_err());
        assert_eq!(out, [0xAA], "untouched on error");
        encode_int_into(1, &mut out).unwrap();
        assert_eq!(out, [0xAA, 0x08, 0x01]);
        assert_eq!(Segment::from(u64::MAX), Segment::Int(INT_MAX));
        assert_eq!(Segment::from(i64::MIN), Segment::Int(i128::from(i64::MIN)));
        assert!(KeyPath::new(vec![Segment::Int(INT_MIN - 1)]).is_err());
    }

    #[test]
    fn malformed_integers_rejected() {
        use KeyPathError::*;
        assert_eq!(decode_int(&[]), Err(EmptyInput));
        assert_eq!(decode_int(&[0x10, 0x01]), Err(InvalidSortByte(0x10)));
        assert_eq!(decode_int(&[0x75]), Err(InvalidSortByte(0x75)));
        assert_eq!(
            decode_int(&[0x09, 0x01]),
            Err(TruncatedInteger {
                needed: 2,
                available: 1
            })
        );
        assert_eq!(
            decode_int(&[0x00]),
            Err(TruncatedInteger {
                needed: 8,
                available: 0
            })
        );
        // Positive with a leading zero byte; positive zero.
        assert_eq!(decode_int(&[0x09, 0x00, 0x05]), Err(NonMinimalInteger));
        assert_eq!(decode_int(&[0x08, 0x00]), Err(NonMinimalInteger));
        // Negative whose magnitude has a leading zero byte (-5 in 2 bytes).
        assert_eq!(decode_int(&[0x06, 0xFF, 0xFA]), Err(NonMinimalInteger));
        // Too many bytes for the sort byte.
        assert_eq!(decode_int_exact(&[0x08, 0x01, 0x02]), Err(TrailingBytes(1)));
    }

    #[test]
    fn malformed_key_paths_rejected() {
        use KeyPathError::*;
        let good = path(vec![s("ab"), i(300), Segment::bytes(vec![0, 1]).unwrap()]).encode();
        assert_eq!(KeyPath::decode(&good).unwrap().segments().len(), 3);

        assert_eq!(KeyPath::decode(&[]), Err(EmptyInput));
        assert_eq!(KeyPath::decode(&[0x00]), Err(EmptySegment));
        // Truncations and extensions never decode.
        for n in 0..good.len() {
            assert!(KeyPath::decode(&good[..n]).is_err(), "prefix {n}");
            assert!(KeyPath::decode(&good[n + 1..]).is_err(), "suffix {n}");
        }
        let mut trailing = good.clone();
        trailing.push(0x05);
        assert!(KeyPath::decode(&trailing).is_err());
        let mut trailing = good.clone();
        trailing.push(0x80);
        assert_eq!(KeyPath::decode(&trailing), Err(UnterminatedVarint));

        // Truncated integer inside a path: "a", int declared 2 bytes but sort
        // byte 0x09 announces 3.
        assert_eq!(
            KeyPath::decode(&[b'a', 0x01, 0x09, 0x01, 0x00, 0x08, 0x12]),
            Err(TruncatedInteger {
                needed: 2,
                available: 1
            })
        );
        // Non-minimal integer segment: 09 00 05 declared 3 bytes.
        assert_eq!(
            KeyPath::decode(&[0x09, 0x00, 0x05, 0x00, 0x1A]),
            Err(NonMinimalInteger)
        );
        // Bad varints: non-canonical (0x88 0x00 is 8 = (1 << 3) | 0 padded),
        // overflow, unknown type code.
        assert_eq!(
            KeyPath::decode(&[b'a', 0x00, 0x88, 0x00]),
            Err(NonCanonicalVarint { offset: 2 })
        );
        let mut overflow = vec![b'a', 0x00];
        overflow.extend([0xFF; 10]);
        overflow.push(0x01);
        assert_eq!(
            KeyPath::decode(&overflow),
            Err(VarintOverflow { offset: 2 })
        );
        assert_eq!(
            KeyPath::decode(&[b'a', 0x00, 0x0B]),
            Err(UnknownSegmentType(3))
        );
        // Lengths that cannot add up.
        assert_eq!(
            KeyPath::decode(&[b'a', b'b', 0x00, 0x18]),
            Err(InconsistentLayout)
        );
        // Wrong terminator and separator bytes.
        assert_eq!(
            KeyPath::decode(&[b'a', 0x02, 0x08]),
            Err(MissingTerminator {
                offset: 1,
                found: 0x02
            })
        );
        assert_eq!(
            KeyPath::decode(&[b'a', 0x02, b'b', 0x00, 0x08, 0x08]),
            Err(BadSeparator {
                offset: 1,
                found: 0x02
            })
        );
        // Strings: control character, invalid UTF-8.
        assert_eq!(
            KeyPath::decode(&[b'a', 0x07, 0x00, 0x10]),
            Err(ControlCharacter { code: 7, offset: 1 })
        );
        assert_eq!(
            KeyPath::decode(&[b'a', 0x01, 0xFF, 0xFE, 0x00, 0x08, 0x10]),
            Err(InvalidUtf8 { offset: 2 })
        );
    }

    #[test]
    fn segment_validation() {
        use KeyPathError::*;
        assert_eq!(Segment::string(""), Err(EmptySegment));
        assert_eq!(
            Segment::string("ab\ncd"),
            Err(ControlCharacter {
                code: 0x0A,
                offset: 2
            })
        );
        assert_eq!(
            Segment::string("é\u{7F}"),
            Err(ControlCharacter {
                code: 0x7F,
                offset: 2
            })
        );
        assert!(Segment::string("\u{0}").is_err());
        assert!(Segment::string("ok 日本 😀 ~").is_ok());
        assert_eq!(Segment::bytes(Vec::new()), Err(EmptySegment));
        assert!(Segment::bytes([0u8, 1]).is_ok());
        assert_eq!(KeyPath::new(vec![]), Err(NoSegments));
        assert_eq!(
            KeyPath::new(vec![Segment::Str("a\u{1}".into())]),
            Err(ControlCharacter { code: 1, offset: 1 })
        );
        assert_eq!(
            KeyPath::new(vec![Segment::Bytes(vec![])]),
            Err(EmptySegment)
        );
        // Display of errors is readable.
        assert_eq!(
            ControlCharacter { code: 7, offset: 3 }.to_string(),
            "string segment contains control character U+0007 at byte 3"
        );
    }

    #[test]
    fn round_trips_with_awkward_bytes() {
        let paths = [
            path(vec![Segment::bytes([0x00]).unwrap()]),
            path(vec![Segment::bytes([0x01, 0x00, 0x01]).unwrap(), i(0)]),
            path(vec![Segment::bytes(vec![0x80; 200]).unwrap(), i(INT_MIN)]),
            path(vec![i(INT_MIN), i(INT_MAX), i(0), i(-1)]),
            path(vec![
                s("日本"),
                Segment::bytes(vec![0; 5000]).unwrap(),
                s("😀"),
            ]),
            path((0..300).map(|n| i(n - 150)).collect()),
        ];
        for kp in paths {
            let enc = kp.encode();
            assert_eq!(enc.len(), kp.encoded_len());
            assert_eq!(KeyPath::decode(&enc).unwrap(), kp);
            let mut buf = vec![0xEE];
            kp.encode_into(&mut buf);
            assert_eq!(buf[1..], enc[..]);
        }
    }

    #[test]
    fn logical_order_caveats() {
        let b = |v: &[u8]| Segment::bytes(v).unwrap();
        // Caveat 1: binary starting <= 0x0F against an integer.
        let (x, y) = (path(vec![i(5)]), path(vec![b(&[0x03])]));
        assert!(x < y);
        assert!(x.encode() > y.encode());
        // Caveat 2: a proper prefix continued by 0x00 against a longer path.
        let (x, y) = (path(vec![b(b"ab"), s("z")]), path(vec![b(b"ab\x00")]));
        assert!(x < y);
        assert!(x.encode() > y.encode());
        // Caveat 3: string and binary with identical bytes.
        let (x, y) = (path(vec![s("ab"), i(2)]), path(vec![b(b"ab"), i(1)]));
        assert!(x < y);
        assert!(x.encode() > y.encode());
        // Without caveats, mixed kinds agree.
        let (x, y) = (path(vec![i(INT_MAX)]), path(vec![b(&[0x10])]));
        assert!(x < y && x.encode() < y.encode());
        let (x, y) = (path(vec![s("ab")]), path(vec![b(b"ab\x02")]));
        assert!(x < y && x.encode() < y.encode());
    }
}
