//! Input meant to deceive or to break the store: names that impersonate or reorder text,
//! rollover ids that could not be continued, lifetime totals at their ceiling. Every refusal
//! leaves the table exactly as it was.

mod common;

use common::*;
use leaderboard_keys::rank::Order;
use leaderboard_store::StoreError;
use leaderboard_store::model::Operator;

fn is_invalid<T: std::fmt::Debug>(r: Result<T, StoreError>) -> bool {
    matches!(r, Err(StoreError::Invalid(_)))
}

/// Names that would look like another name or reverse the text after them.
const DECEIVING_NAMES: [&str; 8] = [
    "Alice\u{202e}ecilA",    // right-to-left override
    "\u{2067}Alice\u{2069}", // right-to-left isolate
    "Al\u{200d}ice",         // zero-width joiner
    "Al\u{200b}ice",         // zero-width space
    "Alice\u{feff}",         // zero-width no-break space: not white space, trimming keeps it
    "Ali\u{ad}ce",           // soft hyphen: invisible unless the line breaks there
    "Alice\u{2028}Bob",      // line separator
    "Alice\u{e0041}",        // a tag character
];

#[tokio::test]
async fn names_with_format_or_separator_characters_are_refused_and_nothing_is_written() {
    let (table, store) = store("names_deceiving").await;
    // GIVEN one player and one board
    store
        .put_profile(&pid("p_a"), "Alice", None, at(0))
        .await
        .unwrap();
    board(&store, "b1", Order::Desc, Operator::Best).await;
    let before = table.dump().await;
    for bad in DECEIVING_NAMES {
        // WHEN a profile takes the name, for the existing player and for a new one
        for player in ["p_a", "p_new"] {
            let r = store.put_profile(&pid(player), bad, None, at(7)).await;
            // THEN Invalid
            assert!(is_invalid(r), "{player} {bad:?}");
        }
        // AND a board of that name is refused too
        let mut nb = new_board("b_new", Order::Desc, Operator::Best, 100);
        nb.name = bad.to_owned();
        assert!(is_invalid(store.create_board(nb, at(7)).await), "{bad:?}");
    }
    // AND the table is exactly as it was
    assert_eq!(table.dump().await, before);
    // while printable text of every script, with emoji and combining marks, is kept as given
    for good in [
        "Zoë",
        "日本語の名前",
        "Flag \u{1f3f3}\u{fe0f}",
        "e\u{301}",
        "A\u{a0}B",
    ] {
        let p = store
            .put_profile(&pid("p_a"), good, None, at(9))
            .await
            .unwrap();
        assert_eq!(p.name, good);
    }
}
