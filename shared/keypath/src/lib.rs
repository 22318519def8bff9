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
//! use leaderboard_keypath::{encode_int, KeyPath, Segment};
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
//! # Ok::<(), leaderboard_keypath::KeyPathError>(())
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

mod error;
mod int;
mod path;
mod segment;
mod varint;

pub use error::KeyPathError;
pub use int::{decode_int, decode_int_exact, encode_int, encode_int_into};
pub use path::KeyPath;
pub use segment::Segment;

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

#[cfg(test)]
mod tests;
