//! Fixed-width zero-padded decimal keys, and their inverted (`max - value`) form.
//!
//! DynamoDB compares string sort keys byte by byte, so `"10"` sorts before `"2"`. Padding every
//! number of one key range to the same width makes byte order equal numeric order (seed 000).
//! The width is chosen once per board, from its `maxScore`, and is a one-way door: a value that
//! needs more digits is an [`KeyError::Overflow`], never a key that sorts in the wrong place.
//!
//! ```
//! use leaderboard_keys::pad::{Width, pad, invert};
//!
//! let w = Width::for_max(9_999_999_999); // the contract's default maxScore: 10 digits
//! assert_eq!(pad(2, w).unwrap(), "0000000002");
//! assert_eq!(pad(1500, w).unwrap(), "0000001500");
//! assert!(pad(10_000_000_000, w).is_err()); // 11 digits never enter a 10-digit column
//! assert_eq!(invert(1500, 9_999_999_999).unwrap(), 9_999_998_499);
//! ```

use crate::KeyError;

/// The most digits a width may have: every 19-digit decimal fits in a `u64`.
pub const MAX_DIGITS: u8 = 19;

const POW10: [u64; 20] = {
    let mut p = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        p[i] = p[i - 1] * 10;
        i += 1;
    }
    p
};

/// A fixed number of decimal digits, `1..=19`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Width(u8);

impl Width {
    /// A width of `digits` digits.
    pub const fn new(digits: u8) -> Result<Width, KeyError> {
        if digits == 0 || digits > MAX_DIGITS {
            Err(KeyError::InvalidWidth(digits))
        } else {
            Ok(Width(digits))
        }
    }

    /// A width fixed at compile time, for constants: `const W: Width = Width::fixed(13);`.
    /// Out of range it fails the build (in a const) or panics (elsewhere); use [`Width::new`]
    /// for widths that come from data.
    pub const fn fixed(digits: u8) -> Width {
        assert!(digits >= 1 && digits <= MAX_DIGITS, "width out of 1..=19");
        Width(digits)
    }

    /// The width that holds every value up to `max`: the number of digits of `max` (at least
    /// one). `u64::MAX` has 20 digits and is clamped to 19; use [`Width::new`] and
    /// [`pad`]'s overflow check for values that large.
    pub const fn for_max(max: u64) -> Width {
        let mut digits = 1u8;
        while digits < MAX_DIGITS && max >= POW10[digits as usize] {
            digits += 1;
        }
        Width(digits)
    }

    /// The number of digits.
    pub const fn digits(self) -> u8 {
        self.0
    }

    /// The largest value this width holds (`10^digits - 1`).
    pub const fn max_value(self) -> u64 {
        POW10[self.0 as usize] - 1
    }
}

/// `value` zero-padded to `width` digits. Errors if it needs more digits.
pub fn pad(value: u64, width: Width) -> Result<String, KeyError> {
    let mut out = String::with_capacity(width.digits() as usize);
    pad_into(value, width, &mut out)?;
    Ok(out)
}

/// Appends `value` zero-padded to `width` digits to `out`, without allocating beyond `out`.
pub fn pad_into(value: u64, width: Width, out: &mut String) -> Result<(), KeyError> {
    if value > width.max_value() {
        return Err(KeyError::Overflow {
            value,
            width: width.digits(),
            max: width.max_value(),
        });
    }
    let mut buf = [b'0'; MAX_DIGITS as usize];
    let n = width.digits() as usize;
    let mut v = value;
    let mut i = n;
    while v > 0 {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(&buf[..n]).unwrap_or_default());
    Ok(())
}

/// A signed value zero-padded to `width` digits: negative values have no order-preserving
/// zero-padded form and are an error (shift them into `0..` first, or use the `leaderboard-keypath` crate).
pub fn pad_signed(value: i64, width: Width) -> Result<String, KeyError> {
    let v = u64::try_from(value).map_err(|_| KeyError::Negative(value))?;
    pad(v, width)
}

/// The inverted value `max - value`: ascending order of the result is descending order of
/// `value`. Errors if `value > max`.
pub fn invert(value: u64, max: u64) -> Result<u64, KeyError> {
    max.checked_sub(value).ok_or(KeyError::Overflow {
        value,
        width: Width::for_max(max).digits(),
        max,
    })
}

/// Parses exactly `width` ASCII digits back to their value.
pub fn parse_padded(digits: &str, width: Width) -> Result<u64, KeyError> {
    let bytes = digits.as_bytes();
    if bytes.len() != width.digits() as usize {
        return Err(KeyError::malformed(digits, "wrong number of digits"));
    }
    parse_digits(bytes).ok_or_else(|| KeyError::malformed(digits, "not a decimal number"))
}

/// The value of a run of 1..=19 ASCII digits, or `None`.
pub(crate) fn parse_digits(bytes: &[u8]) -> Option<u64> {
    if bytes.is_empty() || bytes.len() > MAX_DIGITS as usize {
        return None;
    }
    let mut v: u64 = 0;
    for &b in bytes {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        // 19 digits always fit in a u64, so this cannot overflow.
        v = v * 10 + d as u64;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_000_examples_pad_to_ten_digits() {
        let w = Width::new(10).unwrap();
        let keys: Vec<String> = [9u64, 10, 240, 1500]
            .iter()
            .map(|&v| pad(v, w).unwrap())
            .collect();
        assert_eq!(
            keys,
            ["0000000009", "0000000010", "0000000240", "0000001500"]
        );
        // Byte order now equals numeric order.
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(sorted, keys);
    }

    #[test]
    fn seed_000_inverted_table() {
        let max = 9_999_999_999;
        let w = Width::for_max(max);
        let rows = [
            (1500, "9999998499"),
            (240, "9999999759"),
            (10, "9999999989"),
            (9, "9999999990"),
        ];
        for (score, key) in rows {
            assert_eq!(pad(invert(score, max).unwrap(), w).unwrap(), key);
        }
    }

    #[test]
    fn width_from_max() {
        assert_eq!(Width::for_max(0).digits(), 1);
        assert_eq!(Width::for_max(9).digits(), 1);
        assert_eq!(Width::for_max(10).digits(), 2);
        assert_eq!(Width::for_max(9_999_999_999).digits(), 10);
        assert_eq!(Width::for_max(10_000_000_000).digits(), 11);
        assert_eq!(Width::for_max(999_999_999_999_999_999).digits(), 18);
        assert_eq!(Width::for_max(u64::MAX).digits(), 19);
        assert_eq!(
            Width::new(19).unwrap().max_value(),
            9_999_999_999_999_999_999
        );
        assert_eq!(Width::new(0), Err(KeyError::InvalidWidth(0)));
        assert_eq!(Width::new(20), Err(KeyError::InvalidWidth(20)));
    }

    #[test]
    fn overflow_and_negative_are_errors() {
        let w = Width::new(3).unwrap();
        assert_eq!(pad(999, w).unwrap(), "999");
        assert_eq!(
            pad(1000, w),
            Err(KeyError::Overflow {
                value: 1000,
                width: 3,
                max: 999
            })
        );
        assert_eq!(pad_signed(-1, w), Err(KeyError::Negative(-1)));
        assert_eq!(pad_signed(i64::MIN, w), Err(KeyError::Negative(i64::MIN)));
        assert_eq!(pad_signed(7, w).unwrap(), "007");
        assert!(pad(u64::MAX, Width::new(19).unwrap()).is_err());
        assert!(invert(11, 10).is_err());
        assert_eq!(invert(0, u64::MAX).unwrap(), u64::MAX);
    }

    #[test]
    fn parse_back() {
        let w = Width::new(5).unwrap();
        assert_eq!(parse_padded("00042", w).unwrap(), 42);
        assert!(parse_padded("0042", w).is_err());
        assert!(parse_padded("00x42", w).is_err());
        assert!(parse_padded("+0042", w).is_err());
        let w19 = Width::new(19).unwrap();
        assert_eq!(
            parse_padded("9999999999999999999", w19).unwrap(),
            9_999_999_999_999_999_999
        );
    }
}
