//! A key path: its segments, and its encoding into and decoding from bytes.

use std::cmp::Ordering;
use std::fmt;

use crate::segment::{Segment, decode_segment};
use crate::varint::{meta_value, parse_varint, push_varint, varint_len};
use crate::{KeyPathError, SEPARATOR, TERMINATOR, TYPE_INT};

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
