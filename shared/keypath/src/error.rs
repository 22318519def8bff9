//! Everything that can go wrong building, encoding or decoding a key path.

use thiserror::Error;

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
