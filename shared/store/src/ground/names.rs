//! Display names (a player's profile name, a board's name): what a name may contain.
//!
//! A name is shown to other players, so it must not be able to impersonate another name or
//! reorder the text around it. It is trimmed of white space, 1 to [`MAX_NAME_LEN`] characters
//! (characters, not bytes), and holds printable text only: no control characters (general
//! category Cc), no format characters (Cf: bidirectional overrides and isolates, zero-width
//! joiners and spaces, the soft hyphen, tag characters...), no line or paragraph separators
//! (Zl, Zp), no default-ignorable code point (Unicode's `Default_Ignorable_Code_Point`:
//! variation selectors, the combining grapheme joiner, Mongolian and Khmer invisible
//! characters, fillers; all render as nothing), and none of the letters that render as blank
//! space ([`BLANK_LOOKING`]: a name of them looks empty, and one with them looks like another
//! name). One exception: an emoji presentation selector (U+FE0E, U+FE0F) right after a
//! pictograph (`❤️`), where it changes how the pictograph looks rather than hiding.

use crate::ground::error::StoreError;

/// The longest board or player name, in characters.
pub const MAX_NAME_LEN: usize = 128;

/// Every character of general category Cf, Zl or Zp or with the property
/// `Default_Ignorable_Code_Point`, as inclusive ranges in code point order: Unicode's own
/// tables, as the test `the_tables_are_unicodes` derives them again (from regex-syntax's copy
/// of the Unicode Character Database), so a Unicode update is one failing test away.
const UNPRINTABLE: [(u32, u32); 25] = [
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x2028, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
];

/// Unicode's `Extended_Pictographic` characters, as [`UNPRINTABLE`] is kept: those an emoji
/// presentation selector may follow.
const PICTOGRAPHIC: [(u32, u32); 78] = [
    (0x00A9, 0x00A9),
    (0x00AE, 0x00AE),
    (0x203C, 0x203C),
    (0x2049, 0x2049),
    (0x2122, 0x2122),
    (0x2139, 0x2139),
    (0x2194, 0x2199),
    (0x21A9, 0x21AA),
    (0x231A, 0x231B),
    (0x2328, 0x2328),
    (0x2388, 0x2388),
    (0x23CF, 0x23CF),
    (0x23E9, 0x23F3),
    (0x23F8, 0x23FA),
    (0x24C2, 0x24C2),
    (0x25AA, 0x25AB),
    (0x25B6, 0x25B6),
    (0x25C0, 0x25C0),
    (0x25FB, 0x25FE),
    (0x2600, 0x2605),
    (0x2607, 0x2612),
    (0x2614, 0x2685),
    (0x2690, 0x2705),
    (0x2708, 0x2712),
    (0x2714, 0x2714),
    (0x2716, 0x2716),
    (0x271D, 0x271D),
    (0x2721, 0x2721),
    (0x2728, 0x2728),
    (0x2733, 0x2734),
    (0x2744, 0x2744),
    (0x2747, 0x2747),
    (0x274C, 0x274C),
    (0x274E, 0x274E),
    (0x2753, 0x2755),
    (0x2757, 0x2757),
    (0x2763, 0x2767),
    (0x2795, 0x2797),
    (0x27A1, 0x27A1),
    (0x27B0, 0x27B0),
    (0x27BF, 0x27BF),
    (0x2934, 0x2935),
    (0x2B05, 0x2B07),
    (0x2B1B, 0x2B1C),
    (0x2B50, 0x2B50),
    (0x2B55, 0x2B55),
    (0x3030, 0x3030),
    (0x303D, 0x303D),
    (0x3297, 0x3297),
    (0x3299, 0x3299),
    (0x1F000, 0x1F0FF),
    (0x1F10D, 0x1F10F),
    (0x1F12F, 0x1F12F),
    (0x1F16C, 0x1F171),
    (0x1F17E, 0x1F17F),
    (0x1F18E, 0x1F18E),
    (0x1F191, 0x1F19A),
    (0x1F1AD, 0x1F1E5),
    (0x1F201, 0x1F20F),
    (0x1F21A, 0x1F21A),
    (0x1F22F, 0x1F22F),
    (0x1F232, 0x1F23A),
    (0x1F23C, 0x1F23F),
    (0x1F249, 0x1F3FA),
    (0x1F400, 0x1F53D),
    (0x1F546, 0x1F64F),
    (0x1F680, 0x1F6FF),
    (0x1F774, 0x1F77F),
    (0x1F7D5, 0x1F7FF),
    (0x1F80C, 0x1F80F),
    (0x1F848, 0x1F84F),
    (0x1F85A, 0x1F85F),
    (0x1F888, 0x1F88F),
    (0x1F8AE, 0x1F8FF),
    (0x1F90C, 0x1F93A),
    (0x1F93C, 0x1F945),
    (0x1F947, 0x1FAFF),
    (0x1FC00, 0x1FFFD),
];

/// The emoji presentation selectors (text, emoji): printable only right after a pictograph.
const PRESENTATION_SELECTORS: [char; 2] = ['\u{FE0E}', '\u{FE0F}'];

/// Letters and symbols that render as empty space: the Hangul fillers (U+115F, U+1160, U+3164,
/// U+FFA0) and the blank braille pattern (U+2800).
pub const BLANK_LOOKING: [char; 5] = ['\u{115F}', '\u{1160}', '\u{2800}', '\u{3164}', '\u{FFA0}'];

fn in_table(table: &[(u32, u32)], c: char) -> bool {
    let c = u32::from(c);
    let i = table.partition_point(|&(_, hi)| hi < c);
    table.get(i).is_some_and(|&(lo, _)| lo <= c)
}

/// Whether `c` may not appear in a name on its own: a control, format, line or paragraph
/// separator character, or a default-ignorable one.
pub fn is_unprintable(c: char) -> bool {
    c.is_control() || in_table(&UNPRINTABLE, c)
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
    let mut before = None;
    for c in name.chars() {
        let presents = PRESENTATION_SELECTORS.contains(&c)
            && before.is_some_and(|b| in_table(&PICTOGRAPHIC, b));
        if is_unprintable(c) && !presents {
            return Err(StoreError::Invalid(format!(
                "name must be printable text: U+{:04X} is a control, format, separator or \
                 default-ignorable character",
                u32::from(c)
            )));
        }
        before = Some(c);
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The code points of a Unicode character class (`\p{...}` items), merged into sorted,
    /// disjoint inclusive ranges: Unicode's tables as regex-syntax carries them.
    fn unicode_class(items: &str) -> Vec<(u32, u32)> {
        use regex_syntax::hir::{Class, HirKind};
        let hir = regex_syntax::parse(&format!("[{items}]")).unwrap();
        let HirKind::Class(Class::Unicode(class)) = hir.kind() else {
            panic!("{items}: not a class: {hir:?}");
        };
        let mut merged: Vec<(u32, u32)> = Vec::new();
        for r in class.ranges() {
            let (lo, hi) = (u32::from(r.start()), u32::from(r.end()));
            match merged.last_mut() {
                Some(last) if lo <= last.1 + 1 => last.1 = last.1.max(hi),
                _ => merged.push((lo, hi)),
            }
        }
        merged
    }

    #[test]
    fn the_tables_are_unicodes() {
        let unprintable = unicode_class(r"\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}");
        assert_eq!(
            UNPRINTABLE.to_vec(),
            unprintable,
            "UNPRINTABLE: {unprintable:#X?}"
        );
        let pictographic = unicode_class(r"\p{Extended_Pictographic}");
        assert_eq!(
            PICTOGRAPHIC.to_vec(),
            pictographic,
            "PICTOGRAPHIC: {pictographic:#X?}"
        );
    }

    /// Every character a name refuses, by why, and what stays printable.
    #[test]
    fn unprintable_characters() {
        let refused: [(&str, &[char]); 5] = [
            ("Cc", &['\u{0}', '\t', '\n', '\u{7f}', '\u{85}', '\u{9f}']),
            (
                "Cf",
                &[
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
                    '\u{1343f}',
                ],
            ),
            ("Zl, Zp", &['\u{2028}', '\u{2029}']),
            (
                "default-ignorable",
                &[
                    '\u{34f}',
                    '\u{17b4}',
                    '\u{17b5}',
                    '\u{180b}',
                    '\u{180f}',
                    '\u{2065}',
                    '\u{fe00}',
                    '\u{fe0e}',
                    '\u{fe0f}',
                    '\u{fff0}',
                    '\u{e0080}',
                    '\u{e0100}',
                    '\u{e01ef}',
                    '\u{e0fff}',
                ],
            ),
            ("fillers", &['\u{115f}', '\u{1160}', '\u{3164}', '\u{ffa0}']),
        ];
        for (why, chars) in refused {
            for &c in chars {
                assert!(is_unprintable(c), "{why}: U+{:04X}", u32::from(c));
                let name = format!("Ali{c}ce");
                assert!(check_name(&name).is_err(), "{why}: U+{:04X}", u32::from(c));
            }
        }
        for c in [
            'a',
            'é',
            ' ',
            '\u{a0}',
            '\u{2027}',
            '\u{202f}',
            '日',
            '😀',
            '\u{1f3f3}',
            '\u{300}',
            '\u{e1000}',
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
        // an emoji presentation selector right after a pictograph changes how it looks
        assert!(check_name("Flag \u{1f3f3}\u{fe0f}").is_ok());
        assert!(check_name("I \u{2764}\u{fe0f} you \u{2764}\u{fe0e}").is_ok());
        // after a letter, or alone, it is invisible: a look-alike of the name without it
        for name in [
            "Alice\u{fe0f}",
            "\u{fe0f}",
            "\u{1f3f3} \u{fe0f}",
            "\u{fe0f}\u{1f3f3}",
        ] {
            assert!(check_name(name).is_err(), "{name:?}");
        }
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
