//! The operator's guide keeps up with the CLI: every `lbctl` command, and every command of a
//! command that has its own (`lbctl expr top`), is shown in `docs/lbctl.md`, in its table of
//! commands or as typed.

use clap::CommandFactory;
use lbctl::Cli;

/// Whether `text` holds `word` with no word character right after it.
fn has_word_at(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        !text[at + word.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '-' || c == '_')
    })
}

/// Whether the guide shows `command` (its table's cells start with it, a typed line names it).
fn shows(guide: &str, command: &str) -> bool {
    has_word_at(guide, &format!("`{command}")) || has_word_at(guide, &format!("lbctl {command}"))
}

/// Whether one line of the guide shows `parent` with its command `sub` (`expr top\|rank`).
fn shows_within(guide: &str, parent: &str, sub: &str) -> bool {
    guide.lines().any(|line| {
        shows(line, parent)
            && line
                .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
                .any(|w| w == sub)
    })
}

/// The commands the guide does not show, as typed.
fn missing(guide: &str) -> Vec<String> {
    let mut missing = Vec::new();
    for command in Cli::command().get_subcommands() {
        let name = command.get_name();
        if !shows(guide, name) {
            missing.push(format!("lbctl {name}"));
        }
        for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
            if !shows_within(guide, name, sub.get_name()) {
                missing.push(format!("lbctl {name} {}", sub.get_name()));
            }
        }
    }
    missing
}

#[test]
fn every_command_is_in_the_operators_guide() {
    let guide = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/lbctl.md"),
    )
    .unwrap();
    assert!(Cli::command().get_subcommands().count() >= 12);
    let missing = missing(&guide);
    assert!(
        missing.is_empty(),
        "docs/lbctl.md does not show {missing:?}"
    );
}

#[test]
fn a_command_left_out_of_the_guide_is_found() {
    let guide = "| `boards [--open]` | ... |\n| `expr top\\|rank` | ... |\n$ lbctl stats b\n";
    let missing = missing(guide);
    assert!(!missing.contains(&"lbctl boards".to_owned()), "{missing:?}");
    assert!(
        !missing.contains(&"lbctl expr top".to_owned()),
        "{missing:?}"
    );
    assert!(!missing.contains(&"lbctl stats".to_owned()), "{missing:?}");
    assert!(
        missing.contains(&"lbctl expr around".to_owned()),
        "{missing:?}"
    );
    assert!(missing.contains(&"lbctl widen".to_owned()), "{missing:?}");
    assert!(!shows("`browser`", "browse"));
}
