//! Display names (a player's profile name, a board's name): what a name may contain.
//!
//! A name is shown to other players, so it must not be able to impersonate another name or
//! reorder the text around it. It is trimmed of white space, 1 to [`MAX_NAME_LEN`] characters
//! (characters, not bytes), and holds printable text only: no control characters (general
//! category Cc), no format characters (Cf: bidirectional overrides and isolates, zero-width
//! joiners and spaces, the soft hyphen, tag characters...), no line or paragraph separators
//! (Zl, Zp), and none of the letters that render as blank space ([`BLANK_LOOKING`]: a name of
//! them looks empty, and one with them looks like another name).

use crate::ground::error::StoreError;

/// The longest board or player name, in characters.
pub const MAX_NAME_LEN: usize = 128;

/// Every character of general category Cf, Zl or Zp, as inclusive ranges in code point order
/// (Unicode 17; the categories have only grown by whole new ranges since Unicode 6).
const FORMAT_AND_SEPARATORS: [(u32, u32); 21] = [
    (0x00AD, 0x00AD),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x2028, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
];

/// Letters and symbols that render as empty space: the Hangul fillers (U+115F, U+1160, U+3164,
/// U+FFA0) and the blank braille pattern (U+2800).
pub const BLANK_LOOKING: [char; 5] = ['\u{115F}', '\u{1160}', '\u{2800}', '\u{3164}', '\u{FFA0}'];

/// Whether `c` may not appear in a name: a control, format, line or paragraph separator
/// character.
pub fn is_unprintable(c: char) -> bool {
    if c.is_control() {
        return true;
    }
    let c = u32::from(c);
    let i = FORMAT_AND_SEPARATORS.partition_point(|&(_, hi)| hi < c);
    FORMAT_AND_SEPARATORS.get(i).is_some_and(|&(lo, _)| lo <= c)
}

/// Checks a display name and returns it trimmed: 1 to 128 characters of printable text.
pub(crate) fn check_name(name: &str) -> Result<&str, StoreError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_LEN {
        return Err(StoreError::Invalid(format!(
            "name must be 1 to {MAX_NAME_LEN} characters"
        )));
    }
    if let Some(c) = name.chars().find(|c| BLANK_LOOKING.contains(c)) {
        return Err(StoreError::Invalid(format!(
            "name must not contain characters that look blank: U+{:04X}",
            u32::from(c)
        )));
    }
    if let Some(c) = name.chars().find(|&c| is_unprintable(c)) {
        return Err(StoreError::Invalid(format!(
            "name must be printable text: U+{:04X} is a control, format or separator character",
            u32::from(c)
        )));
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_sorted_and_disjoint() {
        for w in FORMAT_AND_SEPARATORS.windows(2) {
            assert!(w[0].0 <= w[0].1 && w[0].1 < w[1].0, "{w:?}");
        }
    }

    #[test]
    fn unprintable_characters() {
        for c in [
            '\u{0}',
            '\t',
            '\n',
            '\u{7f}',
            '\u{85}',
            '\u{9f}', // Cc
            '\u{ad}',
            '\u{200b}',
            '\u{200d}',
            '\u{200e}',
            '\u{202e}',
            '\u{2066}',
            '\u{2069}',
            '\u{feff}',
            '\u{e0001}',
            '\u{e007f}',
            '\u{1343f}', // Cf
            '\u{2028}',
            '\u{2029}', // Zl, Zp
        ] {
            assert!(is_unprintable(c), "U+{:04X}", u32::from(c));
        }
        for c in [
            'a',
            'é',
            ' ',
            '\u{a0}',
            '\u{2027}',
            '\u{202f}',
            '\u{2065}',
            '日',
            '😀',
            '\u{e0080}',
            '\u{1f3f3}',
            '\u{fe0f}',
            '\u{300}',
        ] {
            assert!(!is_unprintable(c), "U+{:04X}", u32::from(c));
        }
    }

    #[test]
    fn names() {
        assert_eq!(check_name("  Alice  ").unwrap(), "Alice");
        assert!(check_name("").is_err());
        assert!(check_name("   ").is_err());
        assert!(check_name("a\u{0}b").is_err());
        assert!(check_name(&"x".repeat(129)).is_err());
        assert!(check_name(&"é".repeat(128)).is_ok());
        // a right-to-left override reverses what follows it on screen
        assert!(check_name("Alice\u{202e}evil").is_err());
        // a zero-width joiner between letters looks like nothing at all
        assert!(check_name("Al\u{200d}ice").is_err());
        // emoji sequences with a variation selector are printable (the selector is Mn)
        assert!(check_name("Flag \u{1f3f3}\u{fe0f}").is_ok());
        // letters that render as nothing: alone, the name looks empty
        for c in BLANK_LOOKING {
            for name in [c.to_string(), format!("Ali{c}ce")] {
                match check_name(&name) {
                    Err(StoreError::Invalid(why)) => assert!(why.contains("look blank"), "{why}"),
                    other => panic!("U+{:04X}: {other:?}", u32::from(c)),
                }
            }
        }
        assert!(check_name("\u{3131}\u{314f}").is_ok());
    }
}
