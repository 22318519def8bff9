//! One segment of a key path: a string, binary data or an integer, and its logical order.

use std::cmp::Ordering;
use std::fmt;

use crate::int::{check_int_range, decode_int, int_body_len, push_int};
use crate::{KeyPathError, TYPE_BYTES, TYPE_INT, TYPE_STRING};

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
    pub(crate) fn encode_data_into(&self, out: &mut Vec<u8>) {
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

pub(crate) fn validate_str(s: &str) -> Result<(), KeyPathError> {
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

pub(crate) fn decode_segment(data: &[u8], ty: u8, offset: usize) -> Result<Segment, KeyPathError> {
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
